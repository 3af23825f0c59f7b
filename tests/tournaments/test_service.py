"""The robot duplicate service over a real database (docs/tournaments.md)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.engine import Phase
from app.rooms.errors import CommandError
from app.tournaments.service import EventSpec, TournamentError, Tournaments
from tests.tournaments.conftest import check_answer, identities, play_game

pytestmark = pytest.mark.db


async def make_event(service: Tournaments, **values) -> str:  # type: ignore[no-untyped-def]
    spec = EventSpec(**{"variant": "classic", "boards": 2, "level": "easy", "hours": 2, **values})
    event_id = await service.create(spec)
    await service.ensure_datum(event_id)  # the datum tables (also started by create)
    return event_id


async def test_three_entrants_play_and_score_in_matchpoints(service: Tournaments) -> None:
    event_id = await make_event(service)
    a, b, c = await identities(service, 3)
    for i, who in enumerate((a, b, c)):
        assert await service.enter(event_id, who, f"P{i}") == i + 1
    assert await service.enter(event_id, a, "P0") == 1  # entering again changes nothing

    # board 2 before board 1 is refused; a stranger cannot play
    with pytest.raises(TournamentError) as refused:
        await service.play_board(event_id, a, "P0", 2)
    assert refused.value.code == "play_in_order"
    (stranger,) = await identities(service, 1)
    with pytest.raises(TournamentError) as refused:
        await service.play_board(event_id, stranger, None, 1)
    assert refused.value.code == "not_entered"

    games = {}
    for seed, who in enumerate((a, b, c)):
        for board in (1, 2):
            game_id = await service.play_board(event_id, who, None, board)
            assert await service.play_board(event_id, who, None, board) == game_id  # resumed
            room = await play_game(service.rooms, game_id, who, seed * 10 + board)
            # one deal, then the game is over: no next deal, no consent asked
            assert room.status == "finished" and len(room.state.results) == 1
            assert room.consent_kind() is None
            games[who, board] = game_id

    view = check_answer("EventView", await service.event(event_id, a))
    check_answer("EventView", await service.event(event_id, 0))
    check_answer("Listing", await service.listing())
    assert view["you"]["played"] == 2 and view["you"]["percent"] is not None
    rows = view["standings"]
    assert [r["table"] for r in rows] and {r["table"] for r in rows} == {1, 2, 3}
    assert all(0 <= r["percent"] <= 100 for r in rows)
    trav = check_answer("Traveller", await service.traveller(event_id, 1, a))
    assert len(trav["tables"]) == 4  # three entrants and the datum table
    assert sum(1 for t in trav["tables"] if t["datum"]) == 1
    total = sum(t["matchpoints"]["points"] for t in trav["tables"])
    assert total == 4 * 3  # n (n - 1) matchpoints shared on every board
    for t in trav["tables"]:
        assert t["matchpoints"]["top"] == 6
        assert t["replay_url"].startswith("/replay/")


async def test_a_board_is_hidden_until_played_then_readable(service: Tournaments) -> None:
    event_id = await make_event(service)
    a, b = await identities(service, 2)
    await service.enter(event_id, a, "A")
    await service.enter(event_id, b, "B")
    game_a = await service.play_board(event_id, a, None, 1)
    await play_game(service.rooms, game_a, a, 1)

    # b has not played board 1: its traveller and every record of it are hidden from b
    with pytest.raises(TournamentError) as hidden:
        await service.traveller(event_id, 1, b)
    assert hidden.value.code == "hidden"
    room_a = await service.rooms.get(game_a)
    with pytest.raises(CommandError):
        await room_a.record_for(b)
    view_b = await service.event(event_id, b)
    assert view_b["boards"][0]["revealed"] is False and view_b["standings"] is None
    # while b plays board 1, still hidden (the record of the deal in progress never shows)
    game_b = await service.play_board(event_id, b, None, 1)
    with pytest.raises(TournamentError):
        await service.traveller(event_id, 1, b)
    room_b = await service.rooms.get(game_b)
    assert room_b.state.phase is not Phase.DEAL_OVER
    assert (await room_b.record_for(b))["deals"] == []
    # a played board 1 and may read b's table, whose deal in progress never shows
    assert (await room_b.record_for(a))["deals"] == []
    await play_game(service.rooms, game_b, b, 2)
    # now both may read both tables of board 1
    assert len((await room_a.record_for(b))["deals"]) == 1
    assert (await room_a.record_for(b))["meta"]["board"] == 1
    assert len((await service.traveller(event_id, 1, b))["tables"]) == 3
    # board 2: nobody played it: hidden from both, and its datum record too
    with pytest.raises(TournamentError):
        await service.traveller(event_id, 2, a)


async def test_after_the_window_everything_opens_and_exports(service: Tournaments) -> None:
    event_id = await make_event(service, boards=1)
    a, b, c = await identities(service, 3)
    await service.enter(event_id, a, "A")
    await service.enter(event_id, b, "B")
    game_a = await service.play_board(event_id, a, None, 1)
    await play_game(service.rooms, game_a, a, 3)
    with pytest.raises(TournamentError) as running:
        await service.results_csv(event_id, c)
    assert running.value.code == "event_running"
    game_b = await service.play_board(event_id, b, None, 1)  # b starts, and the window closes

    service.clock.now += timedelta(hours=3)  # type: ignore[attr-defined]
    with pytest.raises(TournamentError) as closed:
        await service.play_board(event_id, c, None, 1)
    assert closed.value.code in ("event_closed", "not_entered")
    with pytest.raises(TournamentError):
        await service.enter(event_id, c, "C")
    # c (never played) sees everything; b, whose table is unfinished, does not
    assert len((await service.traveller(event_id, 1, c))["tables"]) == 2
    with pytest.raises(TournamentError):
        await service.traveller(event_id, 1, b)
    text = await service.results_csv(event_id, c)
    lines = text.strip().splitlines()
    assert lines[0].startswith("event,board,table,name,direction,contract")
    assert len(lines) == 3  # the datum table and a's
    await play_game(service.rooms, game_b, b, 4)
    archive = await service.archive(event_id, b)
    import io
    import json
    import zipfile

    with zipfile.ZipFile(io.BytesIO(archive)) as z:
        names = z.namelist()
        assert "event.json" in names and "results.csv" in names
        records = [n for n in names if n.startswith("boards/1/")]
        assert len(records) == 3
        for n in records:
            record = json.loads(z.read(n))
            assert record["format"] == "belote-record/1"
            meta = record["meta"]
            assert meta["event"] == event_id and meta["round"] == 1 and meta["board"] == 1
            assert meta["direction"] == "NS" and meta["table"] in (0, 1, 2)


@pytest.mark.parametrize(("variant", "players"), [("bela", 3), ("duel", 2), ("coinche", 4)])
async def test_every_family_plays_a_board(service: Tournaments, variant: str, players: int) -> None:
    event_id = await make_event(service, variant=variant, players=players, boards=1)
    (a,) = await identities(service, 1)
    await service.enter(event_id, a, "A")
    game_id = await service.play_board(event_id, a, None, 1)
    room = await play_game(service.rooms, game_id, a, 5)
    assert room.status == "finished"
    trav = check_answer("Traveller", await service.traveller(event_id, 1, a))
    assert len(trav["tables"]) == 2
    assert trav["direction"] == ("NS" if players == 4 else "S")
    assert sorted(t["matchpoints"]["points"] for t in trav["tables"]) in ([0, 2], [1, 1])


async def test_bad_events_are_refused_and_create_nothing(service: Tournaments) -> None:
    for values, code in [
        ({"variant": "poker"}, "invalid_options"),
        ({"variant": "classic", "boards": 0}, "invalid_boards"),
        ({"variant": "classic", "level": "hard-v2"}, "invalid_level"),
        ({"variant": "classic", "hours": 0.01}, "invalid_window"),
    ]:
        with pytest.raises(TournamentError) as refused:
            await service.create(EventSpec(**values))
        assert refused.value.code == code
    assert await service.listing() == {"open": [], "running": [], "finished": []}


async def test_the_daily_events_are_made_once_a_day(service: Tournaments) -> None:
    service.settings = service.settings.model_copy(
        update={"tournament_daily": ["classic", "bela:3"], "tournament_level": "easy"}
    )
    made = await service.ensure_daily()
    assert len(made) == 2
    assert await service.ensure_daily() == []
    listing = await service.listing()
    assert len(listing["running"]) == 2 and all(e["daily"] for e in listing["running"])
    service.clock.now += timedelta(days=1)  # type: ignore[attr-defined]
    assert len(await service.ensure_daily()) == 2


async def test_the_house_version_is_stored_with_the_event(service: Tournaments) -> None:
    event_id = await make_event(service, boards=1)
    view = await service.event(event_id, 0)
    house = view["event"]["house"]
    assert house["level"] == "easy" and house["version"].startswith("easy@")
    assert view["house_current"] is True


async def test_a_datum_table_interrupted_is_played_by_the_next_tick(service: Tournaments) -> None:
    event_id = await service.create(EventSpec(variant="classic", boards=3, level="easy", hours=1))
    await service.stop()  # the server stops at once: the background datum task is cancelled
    await service.tick()  # the next start's first tick
    assert await service.ensure_datum(event_id) == 0  # nothing left to play
    (a,) = await identities(service, 1)
    await service.enter(event_id, a, "A")
    for board in (1, 2, 3):
        game_id = await service.play_board(event_id, a, None, board)
        await play_game(service.rooms, game_id, a, board)
        trav = await service.traveller(event_id, board, a)
        assert [t["datum"] for t in trav["tables"]].count(True) == 1


async def test_entries_and_boards_asked_at_once_give_one_outcome(service: Tournaments) -> None:
    import asyncio

    event_id = await service.create(EventSpec(variant="classic", boards=1, level="easy", hours=1))
    people = await identities(service, 5)
    numbers = await asyncio.gather(*(service.enter(event_id, p, None) for p in people))
    assert sorted(numbers) == [1, 2, 3, 4, 5]
    twice = await asyncio.gather(*(service.enter(event_id, people[0], None) for _ in range(4)))
    assert set(twice) == {numbers[0]}
    games = await asyncio.gather(
        *(service.play_board(event_id, people[1], None, 1) for _ in range(4))
    )
    assert len(set(games)) == 1
    view = await service.event(event_id, people[1])
    assert [b["status"] for b in view["you"]["boards"]] == ["playing"]


async def test_a_board_left_in_the_middle_comes_back_as_one_deal(service: Tournaments) -> None:
    """The room leaves memory mid-board and is rebuilt from its rows: still a tournament board,
    still one deal, finished when the deal ends."""
    import asyncio
    import random

    from app.engine import action_to_json, current_player, legal_actions
    from tests.rooms.harness import FakeListener, act

    event_id = await service.create(EventSpec(variant="coinche", boards=1, level="easy", hours=1))
    (a,) = await identities(service, 1)
    await service.enter(event_id, a, "A")
    game_id = await service.play_board(event_id, a, None, 1)
    room = await service.rooms.get(game_id)
    listener = FakeListener(a, room.seats_of(a))
    room.attach(listener)
    rng = random.Random(3)
    for n in range(200):  # a few of the entrant's own actions
        if current_player(room.state) == 0:
            action = rng.choice(legal_actions(room.state))
            await act(room, listener, f"x{n}", room.version, action_to_json(action))
            if room.version >= 6:
                break
        else:
            await asyncio.sleep(0.01)
    room.detach(listener)
    version = room.version
    await service.rooms.evict(room)
    again = await service.rooms.get(game_id)
    assert again is not room and again.version == version
    assert again.settings["board"]["event"] == event_id and again.status == "playing"
    finished = await play_game(service.rooms, game_id, a, 4)
    assert finished.status == "finished" and len(finished.state.results) == 1
    assert (await service.event(event_id, a))["you"]["played"] == 1


async def test_an_event_is_edited_and_cancelled(service: Tournaments) -> None:
    event_id = await service.create(EventSpec(variant="duel", boards=1, level="easy", hours=1))
    (a,) = await identities(service, 1)
    await service.edit(event_id, title="Sunday duel", ends_at=service.clock() + timedelta(hours=5))
    view = await service.event(event_id, a)
    assert view["event"]["title"] == "Sunday duel"
    with pytest.raises(TournamentError) as bad:
        await service.edit(event_id, ends_at=service.clock() - timedelta(hours=1))
    assert bad.value.code == "invalid_window"
    with pytest.raises(TournamentError):
        await service.edit(event_id, title="x" * 81)
    await service.cancel(event_id)
    assert (await service.event(event_id, a))["event"]["phase"] == "cancelled"
    assert all(e["id"] != event_id for p in (await service.listing()).values() for e in p)
    with pytest.raises(TournamentError) as closed:
        await service.enter(event_id, a, "A")
    assert closed.value.code == "event_closed"
    with pytest.raises(TournamentError) as missing:
        await service.cancel("no-such-event")
    assert missing.value.code == "not_found"
