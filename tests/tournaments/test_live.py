"""The live duplicate Swiss for pairs in process (app/tournaments/live.py): registration and
its races, the rounds and the lockstep, absence and withdrawal, secrecy, exports."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import random
import zipfile
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from app.engine import Phase, action_to_json, current_player, legal_actions
from app.persistence.db import create_engine_from_url, create_sessionmaker
from app.persistence.writer import CommitQueue
from app.rooms import RoomManager
from app.tournaments.live import SwissSpec
from app.tournaments.service import TournamentError, Tournaments
from tests.rooms.harness import FakeListener, act, settings
from tests.tournaments.conftest import Clock, check_answer, identities

pytestmark = pytest.mark.db


@pytest.fixture
async def live(migrated_database_url: str) -> AsyncIterator[Tournaments]:
    """The service with short clocks: an absent player's decision is played by the stand-in
    after 0.05 s."""
    engine = create_engine_from_url(migrated_database_url)
    writer = CommitQueue(engine)
    await writer.start()
    rooms = RoomManager(
        settings(clock_seconds=0.05, test_seed=7, tournament_live_seconds=0.05),
        create_sessionmaker(engine),
        writer,
        None,
    )
    await rooms.start()
    tournaments = Tournaments(rooms.settings, rooms.sessionmaker, writer, rooms)
    rooms.services.board_reader = tournaments.may_read
    rooms.services.board_over = tournaments.live.board_over
    tournaments.clock = Clock()
    try:
        yield tournaments
    finally:
        await tournaments.stop()
        await rooms.stop()
        await writer.close()
        await engine.dispose()


def spec(**values: Any) -> SwissSpec:
    base: dict[str, Any] = {
        "variant": "classic",
        "options": {},
        "rounds": 2,
        "boards": 2,
        "clock": 15,
        "level": "easy",
    }
    base.update(values)
    return SwissSpec(**base)


async def error_of(coro: Any) -> str:
    with pytest.raises(TournamentError) as info:
        await coro
    return info.value.code


# ---------------------------------------------------------------------------- registration


async def test_register_alone_as_a_pair_and_through_the_partner_link(live: Tournaments) -> None:
    ann, bob, cy, dan = await identities(live, 4)
    event_id = await live.live.create(spec(), created_by=ann)
    alone = await live.live.register(event_id, ann, "Ann", "house")
    assert alone == {"pair": 1, "code": None}
    linked = await live.live.register(event_id, bob, "Bob", "link")
    assert linked["pair"] == 2 and linked["code"]
    view = check_answer("SwissView", await live.live.event(event_id, bob))
    assert view["you"]["link"] == f"/t/{event_id}/join/{linked['code']}"
    assert (await live.live.event(event_id, cy))["you"] is None
    assert await live.live.join(event_id, linked["code"], cy, "Cy") == {"pair": 2}
    # the link is spent; a browser registers once
    assert await error_of(live.live.join(event_id, linked["code"], dan, "Dan")) == "link_used"
    assert await error_of(live.live.register(event_id, cy, "Cy", "house")) == ("already_registered")
    view = await live.live.event(event_id, ann)
    assert [(p["pair"], p["names"], p["complete"]) for p in view["pairs"]] == [
        (1, ["Ann", None], True),
        (2, ["Bob", "Cy"], True),
    ]
    assert view["pairs"][0]["house_partner"] and not view["pairs"][1]["house_partner"]


async def test_a_partner_link_used_twice_at_once_forms_one_pair(live: Tournaments) -> None:
    ann, bob, cy = await identities(live, 3)
    event_id = await live.live.create(spec())
    code = (await live.live.register(event_id, ann, "Ann", "link"))["code"]
    outcomes = await asyncio.gather(
        live.live.join(event_id, code, bob, "Bob"),
        live.live.join(event_id, code, cy, "Cy"),
        return_exceptions=True,
    )
    wins = [o for o in outcomes if isinstance(o, dict)]
    losses = [o for o in outcomes if isinstance(o, TournamentError)]
    assert len(wins) == 1 and len(losses) == 1
    assert losses[0].code == "link_used"
    view = await live.live.event(event_id, ann)
    assert len(view["pairs"]) == 1 and len(view["pairs"][0]["names"]) == 2


async def test_the_last_place_goes_to_exactly_one(live: Tournaments) -> None:
    ann, bob, cy = await identities(live, 3)
    event_id = await live.live.create(spec(max_pairs=2))
    await live.live.register(event_id, ann, "Ann", "house")
    outcomes = await asyncio.gather(
        live.live.register(event_id, bob, "Bob", "house"),
        live.live.register(event_id, cy, "Cy", "house"),
        return_exceptions=True,
    )
    assert sorted(type(o).__name__ for o in outcomes) == ["TournamentError", "dict"]
    assert next(o for o in outcomes if isinstance(o, TournamentError)).code == "full"
    view = await live.live.event(event_id, ann)
    assert [p["pair"] for p in view["pairs"]] == [1, 2]


async def test_bad_events_and_registrations_are_refused(live: Tournaments) -> None:
    (ann,) = await identities(live, 1)
    assert await error_of(live.live.create(spec(variant="duel"))) == "invalid_options"
    assert await error_of(live.live.create(spec(rounds=0))) == "invalid_rounds"
    assert await error_of(live.live.create(spec(clock=7))) == "invalid_clock"
    assert await error_of(live.live.create(spec(max_pairs=1))) == "invalid_pairs"
    event_id = await live.live.create(spec())
    assert await error_of(live.live.register(event_id, 0, None, "house")) == "not_allowed"
    assert await error_of(live.live.join(event_id, "nope", ann, "Ann")) == "link_used"
    await live.live.set_registration(event_id, None, False)
    assert await error_of(live.live.register(event_id, ann, "Ann", "house")) == (
        "registration_closed"
    )


async def test_leaving_before_the_start_gives_the_partner_a_new_link(live: Tournaments) -> None:
    ann, bob = await identities(live, 2)
    event_id = await live.live.create(spec())
    code = (await live.live.register(event_id, ann, "Ann", "link"))["code"]
    await live.live.join(event_id, code, bob, "Bob")
    await live.live.leave(event_id, ann)
    view = await live.live.event(event_id, bob)
    assert view["pairs"][0]["names"] == ["Bob"] and not view["pairs"][0]["complete"]
    assert view["you"]["link"] and code not in view["you"]["link"]
    await live.live.leave(event_id, bob)
    assert (await live.live.event(event_id, bob))["pairs"] == []


# ---------------------------------------------------------------------------- rounds


class Player:
    """A browser at a live event: follows its pair's current table and plays its seats with
    seeded random legal moves (or not at all: ``present=False``)."""

    def __init__(self, service: Tournaments, event_id: str, identity_id: int, seed: int) -> None:
        self.service = service
        self.event_id = event_id
        self.identity_id = identity_id
        self.rng = random.Random(seed)
        self.games: list[str] = []
        self.messages: list[dict[str, Any]] = []

    async def run(self) -> None:
        n = 0
        while True:
            view = await self.service.live.event(self.event_id, self.identity_id)
            if view["event"]["phase"] == "finished":
                return
            game_id = (view["you"] or {}).get("game_id")
            if game_id is None or game_id in self.games:
                await asyncio.sleep(0.01)
                continue
            self.games.append(game_id)
            room = await self.service.rooms.get(game_id)
            assert room is not None
            listener = FakeListener(self.identity_id, room.seats_of(self.identity_id))
            room.attach(listener)
            while room.state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER):
                state = room.state
                if current_player(state) in listener.seats and state.claimer < 0:
                    action = self.rng.choice(legal_actions(state))
                    n += 1
                    await act(room, listener, f"m{n}", room.version, action_to_json(action))
                else:
                    await asyncio.sleep(0.005)
            room.detach(listener)
            self.messages += listener.messages


async def wait_for(predicate: Any, timeout: float = 120.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not await predicate():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)


async def test_a_live_event_runs_its_rounds_in_lockstep(live: Tournaments) -> None:
    """Five pairs (one with the house partner, one absent for good): 2 rounds of 2 boards.
    Board k+1 is dealt at no table before every table has finished board k; the absent pair's
    boards are played by the stand-in under the clock and score the absent percentage; it
    is withdrawn after missing the whole round 1; the others play on."""
    ids = await identities(live, 9)
    event_id = await live.live.create(spec(starts_at=live.clock() + timedelta(minutes=5)))
    names = iter(f"P{i}" for i in range(9))
    present: list[int] = []
    for i in range(0, 8, 2):
        code = (await live.live.register(event_id, ids[i], next(names), "link"))["code"]
        await live.live.join(event_id, code, ids[i + 1], next(names))
    await live.live.register(event_id, ids[8], next(names), "house")
    absent_pair = {ids[6], ids[7]}  # pair 4 never comes
    present = [i for i in ids if i not in absent_pair]
    # nothing happens before the start time
    await live.live.advance(event_id)
    assert (await live.live.event(event_id, 0))["event"]["phase"] == "open"
    # a page watching the event
    page = FakeListener(ids[0])
    live.live.attach(event_id, page)
    await live.live.send_to(event_id, page)
    live.clock.now += timedelta(minutes=5)  # type: ignore[attr-defined]
    await live.start()
    players = [Player(live, event_id, i, seed) for seed, i in enumerate(present)]
    tasks = [asyncio.create_task(p.run()) for p in players]

    async def finished() -> bool:
        return (await live.live.event(event_id, 0))["event"]["phase"] == "finished"

    dealt_order: list[tuple[int, list[str]]] = []

    async def lockstep_watch() -> None:
        """At every moment, the tables dealt on the round's later board only exist once
        every table finished the earlier one."""
        while True:
            data = await live.live._read(event_id)
            for (b, t), _row in data.tables.items():
                if t == 0 or (b - 1) % 2 == 0:
                    continue
                tables = [p["table"] for p in data.rounds[(b - 1) // 2 + 1].pairings]
                assert all((b - 1, u) in data.finished for u in tables), (b, t)
            dealt_order.append((len(data.tables), []))
            await asyncio.sleep(0.01)

    watcher = asyncio.create_task(lockstep_watch())
    try:
        await wait_for(finished)
    finally:
        watcher.cancel()
        for task in tasks:
            task.cancel()
        await asyncio.gather(watcher, *tasks, return_exceptions=True)
    assert not watcher.exception() if not watcher.cancelled() else True
    view = check_answer("SwissView", await live.live.event(event_id, ids[0]))
    check_answer("Listing", await live.listing())
    for board in range(1, 5):
        check_answer("SwissTraveller", await live.traveller(event_id, board, ids[0]))
    for message in page.messages:
        check_answer("TournamentMessage", message)
    data = await live.live._read(event_id)
    assert sorted(data.rounds) == [1, 2]
    # round 1: 5 pairs -> 3 tables (one against the house pair); round 2: pair 4 withdrawn
    r1 = data.rounds[1].pairings
    assert len(r1) == 3 and sum(0 in (p["ns"], p["ew"]) for p in r1) == 1
    assert data.pairs[4].withdrawn_round == 1
    assert all(4 not in (p["ns"], p["ew"]) for p in data.rounds[2].pairings)
    # the absent pair's boards scored the absent percentage
    matches = data.rounds[1].scores["matches"]
    gone = next(m for m in matches if m["entrant"] == 4)
    assert gone["percent"] == 40.0
    # standings: every pair, the house partner flagged, the withdrawn pair flagged
    rows = {r["pair"]: r for r in view["standings"]}
    assert set(rows) == {1, 2, 3, 4, 5}
    assert rows[5]["house_partner"] and rows[4]["withdrawn"]
    assert view["exports"] is not None
    # the page was told of the changes as they happened (not only once)
    assert len([m for m in page.messages if m["type"] == "tournament"]) >= 4
    # every table's game is a one-deal friends game with the clock, no chat, no spectators
    game = await live.rooms.get(data.tables[(1, 1)].game_id)
    assert game is not None and game.settings["unattended"] and not game.spectators_allowed
    assert game.settings["board"] == {
        "event": event_id,
        "round": 1,
        "board": 1,
        "table": 1,
        "direction": "NS",
    }
    # exports: one CSV line per table and board; the archive's records name the board
    text = await live.results_csv(event_id, ids[0])
    lines = list(csv.DictReader(io.StringIO(text)))
    assert len(lines) == len(data.tables)
    blob = await live.archive(event_id, ids[0])
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        records = [n for n in z.namelist() if n.endswith(".json") and n != "event.json"]
        assert len(records) == len(data.tables)
        one = json.loads(z.read(records[0]))
        assert one["format"] == "belote-record/1"
        assert {"event", "round", "board", "table", "direction"} <= set(one["meta"])


async def test_a_board_is_hidden_from_everyone_until_its_round_is_over(
    live: Tournaments,
) -> None:
    """During a round no table's record (nor the traveller) of its boards may be read by
    anyone but the table's own players, even by a player who has finished the board."""
    ids = await identities(live, 4)
    event_id = await live.live.create(spec(rounds=1, boards=2))
    for i in range(4):
        await live.live.register(event_id, ids[i], f"P{i}", "house")
    live.clock.now += timedelta(minutes=10)  # type: ignore[attr-defined]
    await live.live.advance(event_id)
    data = await live.live._read(event_id)
    assert data.event.round == 1 and len(data.rounds[1].pairings) == 2
    # the datum table (fewer than 3 tables) has played both boards already: still hidden
    assert (1, 0) in data.tables and (2, 0) in data.tables
    for (b, t), row in data.tables.items():
        for viewer in ids:
            assert not await live.may_read(row.game_id, viewer), (b, t, viewer)
    assert await error_of(live.traveller(event_id, 1, ids[0])) == "hidden"
    # board 2 is not dealt at any table yet
    assert not any(b == 2 and t > 0 for (b, t) in data.tables)


async def test_a_live_table_shows_no_hand_and_no_other_table_before_its_round_ends(
    migrated_database_url: str,
) -> None:
    """The leak check of the rooms (tests/rooms/leakcheck.py) on a live table's messages, and
    nothing of another table or of the next board for a player who has finished board 1
    while another table still plays it (an absent player's 15 s clock holds it up)."""
    from app.persistence import repository as repo
    from app.rooms.errors import CommandError
    from tests.rooms.leakcheck import Truth, check_messages
    from tests.tournaments.test_leaks import cards_named

    engine = create_engine_from_url(migrated_database_url)
    writer = CommitQueue(engine)
    await writer.start()
    rooms = RoomManager(settings(test_seed=11), create_sessionmaker(engine), writer, None)
    await rooms.start()
    service = Tournaments(rooms.settings, rooms.sessionmaker, writer, rooms)
    rooms.services.board_reader = service.may_read
    rooms.services.board_over = service.live.board_over
    service.clock = Clock()
    tasks: list[asyncio.Task[Any]] = []
    try:
        a, b, c = await identities(service, 3)
        event_id = await service.live.create(spec(rounds=1, boards=2))
        for who in (a, b, c):
            await service.live.register(event_id, who, None, "house")
        service.clock.now += timedelta(minutes=10)  # type: ignore[attr-defined]
        await service.live.advance(event_id)
        present = [Player(service, event_id, who, seed) for seed, who in enumerate((a, b))]
        pages = {who: FakeListener(who) for who in (a, b)}
        for page in pages.values():
            service.live.attach(event_id, page)
            await service.live.send_to(event_id, page)
        tasks = [asyncio.create_task(p.run()) for p in present]
        data = await service.live._read(event_id)
        tables = {p["table"] for p in data.rounds[1].pairings}

        async def one_done() -> bool:
            data = await service.live._read(event_id)
            done = {t for t in tables if (1, t) in data.finished}
            return bool(done) and done != tables

        await wait_for(one_done, 60)
        data = await service.live._read(event_id)
        done = next(t for t in tables if (1, t) in data.finished)
        pairing = next(p for p in data.rounds[1].pairings if p["table"] == done)
        player = next(
            p for p in present if p.games and p.games[0] == data.tables[(1, done)].game_id
        )
        for _ in range(200):  # the player's loop has read its last messages
            if player.messages:
                break
            await asyncio.sleep(0.01)
        async with service.sessionmaker() as session:
            stored = await repo.load_game(session, data.tables[(1, done)].game_id)
        assert stored is not None and stored.record() is not None
        room = await service.rooms.get(data.tables[(1, done)].game_id)
        assert room is not None
        seats = room.seats_of(player.identity_id)
        assert pairing["ns"] != pairing["ew"]
        assert check_messages(Truth.from_record(stored.record()), player.messages, seats) > 0
        # nothing of the other table, of board 2, or any card, reaches this player
        assert not any(b == 2 and t > 0 for (b, t) in data.tables)
        view = await service.live.event(event_id, player.identity_id)
        assert cards_named(view) == set()
        assert cards_named(pages[player.identity_id].messages) == set()
        others = [row.game_id for (b, t), row in data.tables.items() if t != done]
        assert others  # the other table and the datum
        text = json.dumps(view)
        for game_id in others:
            assert game_id not in text
            assert not await service.may_read(game_id, player.identity_id)
            other = await service.rooms.get(game_id)
            assert other is not None
            with pytest.raises(CommandError):
                await other.record_for(player.identity_id)
            assert (await service.rooms.join(game_id, player.identity_id, None)).role == "full"
        assert await error_of(service.traveller(event_id, 1, player.identity_id)) == "hidden"
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await service.stop()
        await rooms.stop()
        await writer.close()
        await engine.dispose()


async def test_a_pair_that_registers_during_round_1_plays_from_round_2_with_a_bye(
    live: Tournaments,
) -> None:
    ids = await identities(live, 4)
    event_id = await live.live.create(spec(rounds=2, boards=1))
    for i in range(3):
        await live.live.register(event_id, ids[i], f"P{i}", "house")
    live.clock.now += timedelta(minutes=10)  # type: ignore[attr-defined]
    await live.live.advance(event_id)
    assert (await live.live._read(event_id)).event.round == 1
    late = await live.live.register(event_id, ids[3], "Late", "link")
    view = await live.live.event(event_id, ids[3])
    assert view["pairs"][-1]["joined_round"] == 2 and view["you"]["table"] is None
    await live.start()
    players = [Player(live, event_id, i, seed) for seed, i in enumerate(ids)]
    tasks = [asyncio.create_task(p.run()) for p in players]

    async def finished() -> bool:
        return (await live.live.event(event_id, 0))["event"]["phase"] == "finished"

    try:
        await wait_for(finished)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    data = await live.live._read(event_id)
    pair = late["pair"]
    assert all(pair not in (p["ns"], p["ew"]) for p in data.rounds[1].pairings)
    assert any(pair in (p["ns"], p["ew"]) for p in data.rounds[2].pairings)
    # its partner never came: the house player partnered it, its link spent at round 2
    assert data.pairs[pair].house_partner and data.pairs[pair].code is None
    rows = {r["pair"]: r for r in (await live.live.event(event_id, 0))["standings"]}
    assert rows[pair]["byes"] == 1 and rows[pair]["rounds"] == 1
    assert all(rows[p]["byes"] == 0 for p in rows if p != pair)
