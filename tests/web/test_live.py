"""Live tables through a real server and real sockets (RULES.md D-21, D-22, D-23, docs/protocol.md
"Live tables"): the decision clock and its stand-in, the away seat and the others' consent,
"I'm back", leaving, forced cards, XP and ratings of leavers, and the refused commands."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from app.rooms.messages import validate_outgoing
from bench.views import held_after
from tests.database import stored_game as stored
from tests.rooms.test_full_games import finished, stored_record
from tests.web.conftest import start_server
from tests.web.wsclient import Browser, Socket

pytestmark = pytest.mark.db

GAME_SECONDS = 120


@pytest.fixture(scope="module")
def server(tmp_path_factory):  # type: ignore[no-untyped-def]
    """Every clock of this server lasts 1 s (ATOUT_CLOCK_SECONDS), whatever the host chose."""
    srv = start_server(
        tmp_path_factory.mktemp("live"),
        {"ATOUT_WS_RATE": "100000", "ATOUT_CLOCK_SECONDS": "1", "ATOUT_AUTO_PLAY_SECONDS": "0.3"},
    )
    try:
        yield srv
    finally:
        srv.stop()


def by_actions(sock: Socket, since: int = 0) -> list[tuple[int, dict[str, Any]]]:
    """(version, event) of every event marked ``by`` this socket received after ``since``."""
    out = []
    for msg in sock.log:
        if msg.get("type") == "update" and msg["version"] > since:
            out.extend((msg["version"], e) for e in msg["events"] if "by" in e)
    return out


async def friends(host: Browser, guests: list[Browser], **body: Any) -> tuple[str, list[Socket]]:
    game_id = await host.create(mode="friends", **body)
    socks = [await host.connect(game_id)]
    for guest in guests:
        socks.append(await guest.connect(game_id))
    for sock in socks:
        await sock.until(lambda s: s.room["status"] == "playing")
    return game_id, socks


async def play_randomly(
    sock: Socket,
    variant: str,
    rng: random.Random,
    *,
    skip: set[int] = frozenset(),  # type: ignore[assignment]
    stop: Any = None,
) -> None:
    """Random legal moves for this socket's seats (not ``skip``) and consents until the game is
    over (or ``stop(sock)``)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + GAME_SECONDS
    sent_at: int | None = None
    consented_at: int | None = None
    while not finished(sock, variant) and not (stop and stop(sock)):
        assert loop.time() < deadline, f"game not over in time at version {sock.version}"
        seat = sock.my_turn_seat()
        view = sock.view
        if seat is not None and seat not in skip and sent_at != sock.version:
            sent_at = sock.version
            await sock.act(rng.choice(sock.legal(seat)), seat=seat if sock.views else None)
        elif (
            view is not None
            and sock.room["consent"]["kind"] == "next_deal"
            and view["phase"] == "deal_over"
            and consented_at != sock.version
            and not set(sock.seats) & skip
        ):
            consented_at = sock.version
            await sock.send({"type": "consent", "kind": "next_deal"})
        try:
            msg = await sock.recv(timeout=0.5)
        except TimeoutError:
            continue
        if msg["type"] == "error" and msg["code"] not in ("stale_version", "not_your_turn"):
            raise AssertionError(f"unexpected error: {msg}")


# ----------------------------------------------------------------- the clock (D-21)


async def test_a_clock_that_runs_out_lets_the_stand_in_play_one_decision(server) -> None:
    host, guest, watcher = [await Browser.new(server) for _ in range(3)]
    game_id, (a, b) = await friends(
        host,
        [guest],
        variant="classic",
        options={"target": "one_deal"},
        seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "human"}, {"kind": "bot"}],
        clock=15,
        stand_in="easy",
    )
    spectator = await watcher.connect(game_id)
    assert spectator.role == "spectator"
    assert a.room["settings"] == {
        "clock": 15,
        "stand_in": "easy",
        "away_seconds": 120,
        "chat": True,
        "spectator_chat": False,
        "board": None,
    }
    assert a.room["clock_seconds"] == 1.0
    # the first human decision: its deadline is in the room, for everyone
    await a.until(lambda s: s.my_turn_seat() is not None or s.room["seats"][2]["deadline"])
    await b.until(lambda s: any(x["deadline"] for x in s.room["seats"]))
    late = next(x["seat"] for x in b.room["seats"] if x["deadline"])
    assert b.room["seats"][late]["kind"] == "human"
    # nobody acts: the stand-in plays that one decision, marked by=stand_in, seen by all
    for sock in (a, b, spectator):
        await sock.until(lambda s: any(e["seat"] == late for _, e in by_actions(s)), timeout=10)
        [(version, event)] = by_actions(sock)
        assert event["by"] == "stand_in" and event["seat"] == late
    # the seat is not held: its player acts himself at his next turn
    mine = a if late == 0 else b
    other = b if late == 0 else a
    rng = random.Random(5)
    await asyncio.gather(
        play_randomly(other, "classic", rng),
        play_randomly(mine, "classic", rng, stop=lambda s: s.version > version + 8),
    )
    acted = [m for m in mine.log if m.get("type") == "ack"]
    assert acted, "the late player acted again"
    assert mine.room["seats"][late]["stand_in"] is None
    await asyncio.gather(play_randomly(other, "classic", rng), play_randomly(mine, "classic", rng))
    record = await stored_record(server.database_url, game_id)
    marked = [(i, j) for i, d in enumerate(record["deals"]) for j, x in enumerate(d["actions"])]
    marked = [(i, j) for i, j in marked if "by" in record["deals"][i]["actions"][j]]
    assert len(marked) >= 1
    first = record["deals"][marked[0][0]]["actions"][marked[0][1]]
    assert (first["seat"], first["by"]) == (late, "stand_in")
    # the export keeps it (the match is over: every deal is in it)
    status, export = await host.get(f"/api/games/{game_id}/record")
    assert status == 200
    assert export["deals"][marked[0][0]]["actions"][marked[0][1]]["by"] == "stand_in"
    for sock in (a, b, spectator):
        for msg in sock.log:
            validate_outgoing(json.dumps(msg))


def test_a_restart_keeps_each_running_clock_with_ten_seconds_of_grace(live_server) -> None:
    """A restart never costs the seat to act the time the server was down."""
    server = live_server({"ATOUT_WS_RATE": "100000"})

    async def before() -> tuple[str, Browser, int, int, list[dict[str, Any]]]:
        host, guest = await Browser.new(server), await Browser.new(server)
        game_id, (a, b) = await friends(host, [guest], variant="duel", clock=120)
        rng = random.Random(3)
        acked: list[dict[str, Any]] = []
        for _ in range(3):  # acknowledged moves, then the crash right after the last ack
            for sock in (a, b):
                await sock.drain(0.1)
            sock = a if a.my_turn_seat() is not None else b
            seat = sock.my_turn_seat()
            assert seat is not None
            msg_id = await sock.act(rng.choice(sock.legal(seat)))
            ack = await sock.next_of("ack", "error")
            assert ack["type"] == "ack" and ack["id"] == msg_id, ack
            acked.append(ack)
        # the room of that version carries its deadline
        await a.until(lambda s: s.room["version"] >= acked[-1]["version"])
        seat, deadline = next((x["seat"], x["deadline"]) for x in a.room["seats"] if x["deadline"])
        game = await stored(server.database_url, game_id)
        assert game.game.clock is not None
        assert game.game.clock["deadlines"] == {str(seat): deadline}
        return game_id, host, seat, deadline, acked

    game_id, host, seat, deadline, acked = asyncio.run(before())
    server.kill()  # SIGKILL
    server.start()

    async def after() -> None:
        game = await stored(server.database_url, game_id)
        ids = {a.client_id for a in game.actions}
        assert all(a["id"] in ids for a in acked), "an acknowledged move was lost"
        sock = await host.connect(game_id)
        assert sock.version >= acked[-1]["version"]
        # the clock goes on with at least the time it had left, plus 10 s: the time it had
        # when it was written (the server was reachable then), counted from the restore
        restored = sock.room["seats"][seat]["deadline"]
        assert restored >= deadline + 10_000
        assert restored - sock.room["now"] <= 120_000 + 10_000
        assert [x["deadline"] for x in sock.room["seats"] if x["seat"] != seat] == [None]
        game = await stored(server.database_url, game_id)
        assert game.game.clock["deadlines"] == {str(seat): restored}
        await sock.close()

    asyncio.run(after())


# ----------------------------------------------------------------- away (D-22)


async def test_an_away_seat_is_played_by_the_stand_in_once_the_others_agree(server) -> None:
    browsers = [await Browser.new(server) for _ in range(3)]
    game_id, socks = await friends(
        browsers[0],
        browsers[1:],
        variant="classic",
        options={"target": "one_deal"},
        seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "human"}, {"kind": "bot"}],
        away_seconds=5,
    )
    a, b, c = socks
    assert b.seats == [1]
    await b.close()
    await a.until(lambda s: s.room["seats"][1]["away_since"] is not None and s.room["paused"])
    # too early: the seat has not been away for away_seconds
    await a.send({"type": "stand_in", "seat": 1, "id": "early"})
    error = await a.next_of("error")
    assert (error["code"], error["id"]) == ("not_away", "early")
    await asyncio.sleep(5.2)
    await a.send({"type": "stand_in", "seat": 1, "id": "v1"})
    assert (await a.next_of("ack", "error"))["type"] == "ack"
    await c.until(lambda s: s.room["seats"][1]["stand_in_votes"] == [0])
    assert c.room["seats"][1]["stand_in"] is None  # c has not agreed yet
    await c.send({"type": "stand_in", "seat": 1, "id": "v2"})
    assert (await c.next_of("ack", "error"))["type"] == "ack"
    await a.until(lambda s: s.room["seats"][1]["stand_in"] == "away" and not s.room["paused"])
    game = await stored(server.database_url, game_id)
    assert [s.stand_in for s in game.seats] == [None, "away", None, None]
    # the others play; the stand-in plays seat 1 at the bots' pace
    rng = random.Random(8)
    await asyncio.gather(
        play_randomly(a, "classic", rng, stop=lambda s: len(by_actions(s)) >= 3),
        play_randomly(c, "classic", rng, stop=lambda s: len(by_actions(s)) >= 3),
    )
    assert all(e["seat"] == 1 and e["by"] == "stand_in" for _, e in by_actions(a))
    # the player comes back: from then on the stand-in never plays his seat
    b = await browsers[1].connect(game_id)
    back_at = b.version
    assert b.room["seats"][1]["stand_in"] == "away" and b.room["seats"][1]["stand_in_votes"] == []
    await asyncio.gather(
        play_randomly(a, "classic", rng, stop=lambda s: s.version > back_at + 12),
        play_randomly(c, "classic", rng, stop=lambda s: s.version > back_at + 12),
        play_randomly(b, "classic", rng, stop=lambda s: s.version > back_at + 12),
    )
    assert b.room["seats"][1]["stand_in"] is None  # he acted: the seat is his again
    await asyncio.gather(*(play_randomly(s, "classic", rng) for s in (a, b, c)))
    record = await stored_record(server.database_url, game_id)
    versions = [0]
    for deal in record["deals"]:  # the version of each action: deals and actions in order
        versions.append(versions[-1] + 1)
        for action in deal["actions"]:
            versions.append(versions[-1] + 1)
            action["_version"] = versions[-1]
    acts = [x for d in record["deals"] for x in d["actions"]]
    assert [x for x in acts if x.get("by") == "stand_in" and x["_version"] > back_at] == []
    assert any(x.get("by") == "stand_in" and x["seat"] == 1 for x in acts)
    assert [e for v, e in by_actions(a, back_at)] == []


async def test_back_gives_the_seat_back_and_refused_commands_change_nothing(server) -> None:
    host, guest, watcher = [await Browser.new(server) for _ in range(3)]
    game_id, (a, b) = await friends(host, [guest], variant="duel", away_seconds=5)
    spectator = await watcher.connect(game_id)

    async def unchanged(sock: Socket, message: dict[str, Any], code: str) -> None:
        await a.drain(0.1)
        before = await stored_record(server.database_url, game_id)
        version = a.version
        await sock.send(message)
        error = await sock.next_of("error")
        # the frame's well-formed id is echoed, even when the frame does not parse
        # (docs/protocol.md, "The id of an error")
        msg_id = message.get("id")
        assert (error["code"], error["id"]) == (code, msg_id), error
        assert await stored_record(server.database_url, game_id) == before
        await a.drain(0.1)
        assert a.version == version  # no update: the game did not move

    await unchanged(a, {"type": "stand_in", "seat": 1, "id": "s1"}, "not_away")  # connected
    await unchanged(a, {"type": "stand_in", "seat": 0, "id": "s2"}, "not_allowed")  # own
    await unchanged(spectator, {"type": "stand_in", "seat": 1, "id": "s3"}, "not_allowed")
    await unchanged(a, {"type": "back", "id": "b1"}, "not_allowed")  # nobody plays for him
    await unchanged(spectator, {"type": "back", "id": "b2"}, "spectator")
    await unchanged(a, {"type": "settings", "auto_play": "yes", "id": "x1"}, "bad_message")
    await unchanged(a, {"type": "settings", "id": "x2"}, "bad_message")
    await unchanged(a, {"type": "stand_in", "seat": 7, "id": "s4"}, "bad_message")
    await unchanged(spectator, {"type": "leave", "id": "l0"}, "not_allowed")
    # the guest is away long enough; the host agrees: the stand-in holds seat 1
    await b.close()
    await asyncio.sleep(5.2)
    await a.send({"type": "stand_in", "seat": 1, "id": "v"})
    assert (await a.next_of("ack", "error"))["type"] == "ack"
    await a.until(lambda s: s.room["seats"][1]["stand_in"] == "away")
    await unchanged(a, {"type": "stand_in", "seat": 1, "id": "s5"}, "not_away")  # held
    # the guest comes back and presses "I'm back"
    b = await guest.connect(game_id)
    await b.send({"type": "back", "id": "back"})
    assert (await b.next_of("ack", "error"))["type"] == "ack"
    await a.until(lambda s: s.room["seats"][1]["stand_in"] is None)
    game = await stored(server.database_url, game_id)
    assert game.seats[1].stand_in is None


async def test_leave_in_a_computer_game_and_a_clock_without_friends_are_refused(server) -> None:
    me = await Browser.new(server)
    # a local game: nothing moves but what this browser plays, so the record must stay as it is
    # (in a computer game the bots would go on bidding meanwhile)
    for mode in ("computer", "local"):
        game_id = await me.create(variant="classic", mode=mode)
        sock = await me.connect(game_id)
        before = await stored_record(server.database_url, game_id)
        await sock.send({"type": "leave", "id": "l1"})
        error = await sock.next_of("error")
        assert (error["code"], error["id"]) == ("not_allowed", "l1")
        await sock.send({"type": "stand_in", "seat": 1, "id": "s1"})
        assert (await sock.next_of("error"))["code"] == "not_allowed"
        game = await stored(server.database_url, game_id)
        assert all(seat.stand_in is None for seat in game.seats)
        if mode == "local":
            assert await stored_record(server.database_url, game_id) == before
        await sock.close()
    for mode in ("computer", "local"):
        status, body = await me.post(
            "/api/games", {"variant": "classic", "mode": mode, "clock": 30}
        )
        assert status == 400 and body["error"]["code"] == "invalid_options"
    status, body = await me.post("/api/games", {"variant": "classic", "clock": 45})
    assert status == 422
    status, body = await me.post("/api/games", {"variant": "classic", "away_seconds": 2})
    assert status == 422


# ----------------------------------------------------------------- forced play (D-23)


async def forced_game(server: Any, auto_play: bool, seed: int) -> tuple[str, Socket]:
    """A computer deal where the human plays randomly, except a single legal action: that one
    is left to the server (auto_play) or played after 1 s (it must not be played for him)."""
    me = await Browser.new(server)
    game_id = await me.create(variant="classic", mode="computer", options={"target": "one_deal"})
    sock = await me.connect(game_id)
    await sock.send({"type": "settings", "auto_play": auto_play, "id": "set"})
    assert (await sock.next_of("ack", "error"))["type"] == "ack"
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + GAME_SECONDS
    singles = 0
    while sock.view["phase"] != "match_over":
        assert loop.time() < deadline
        legal = sock.legal()
        if sock.my_turn_seat() is not None:
            version = sock.version
            if len(legal) == 1 and sock.view["phase"] == "play":
                singles += 1
                if auto_play:
                    await sock.until(lambda s, v=version: s.version > v, timeout=5)
                    continue
                quiet = await sock.drain(1.0)  # nothing is played for him
                assert not [m for m in quiet if m.get("type") == "update"], quiet
            await sock.act(rng.choice(legal))
            await sock.until(lambda s, v=version: s.version > v)
            continue
        await sock.recv()
    # the last trick at least, unless a computer claimed the rest first (RULES.md §15)
    assert singles >= 1 or any(e["by"] == "claim" for _, e in by_actions(sock))
    return game_id, sock


async def test_forced_cards_are_played_only_for_a_single_legal_action_with_the_setting(
    server,
) -> None:
    for seed in range(1, 6):  # a deal a computer claims early may leave no forced card
        game_id, sock = await forced_game(server, True, seed)
        record = await stored_record(server.database_url, game_id)
        auto = [x for d in record["deals"] for x in d["actions"] if x.get("by") == "auto"]
        if auto:
            break
    assert auto and all(x["seat"] == 0 and x["type"] == "play" for x in auto)
    # each by=auto action was the seat's only legal action at that version
    legal_at: dict[int, list[Any]] = {}
    view: dict[str, Any] = {}
    for msg in sock.log:
        if msg.get("type") in ("state", "update"):
            view = held_after(msg, view) or {}
            legal_at[msg["version"]] = list(view.get("legal") or [])
    for version, event in by_actions(sock):
        if event["by"] == "claim":  # a computer's claim, played out by the server
            continue
        assert event["by"] == "auto" and event["type"] == "card_played"
        assert len(legal_at[version - 1]) == 1
        assert legal_at[version - 1][0]["card"] == event["card"]
    game_id, sock = await forced_game(server, False, 2)
    record = await stored_record(server.database_url, game_id)
    assert not [x for d in record["deals"] for x in d["actions"] if x.get("by", "claim") != "claim"]


# ----------------------------------------------------------------- leaving, XP and ratings


async def awards_of(browser: Browser, game_id: str) -> list[dict[str, Any]]:
    status, body = await browser.get(f"/api/games/{game_id}/awards")
    assert status == 200
    return list(body["results"])


async def test_a_duel_leaver_over_the_socket_gets_no_xp_and_is_rated_as_a_loss(server) -> None:
    host, guest = await Browser.new(server), await Browser.new(server)
    game_id, (a, b) = await friends(host, [guest], variant="duel")
    await b.send({"type": "leave", "id": "bye"})
    assert (await b.next_of("ack", "error"))["type"] == "ack"
    await a.until(lambda s: s.room["seats"][1]["stand_in"] == "left")
    await b.send({"type": "leave", "id": "again"})
    assert (await b.next_of("error"))["code"] == "not_allowed"  # already left
    await b.close()
    await play_randomly(a, "duel", random.Random(4))
    [left] = await awards_of(guest, game_id)
    assert left["left"] is True and left["xp"]["total"] == 0
    assert left["rating_after"] < left["rating_before"]
    [mine] = await awards_of(host, game_id)
    assert mine["left"] is False and mine["xp"]["total"] >= 15
    record = await stored_record(server.database_url, game_id)
    seat1 = [x for x in record["deals"][0]["actions"] if x["seat"] == 1]
    assert seat1 and all(x["by"] == "stand_in" for x in seat1)
    # he comes back through the link and takes the seat back; the leave still counts
    b = await guest.connect(game_id)
    assert b.seats == [1] and b.room["seats"][1]["stand_in"] == "left"
    await b.send({"type": "back", "id": "back"})
    assert (await b.next_of("ack", "error"))["type"] == "ack"
    await b.until(lambda s: s.room["seats"][1]["stand_in"] is None)
    [left] = await awards_of(guest, game_id)
    assert left["left"] is True


@pytest.mark.parametrize(
    ("variant", "seats"),
    [
        ("classic", [{"kind": "human"}, {"kind": "bot"}, {"kind": "human"}, {"kind": "bot"}]),
        ("duel", None),
    ],
)
async def test_a_seat_the_stand_in_played_for_most_of_the_match_counts_as_a_leaver(
    server, variant: str, seats: Any
) -> None:
    """The guest stays connected but never acts: his clock (1 s) runs out every time."""
    host, guest = await Browser.new(server), await Browser.new(server)
    body: dict[str, Any] = {"variant": variant, "clock": 15}
    if variant == "classic":
        body.update(options={"target": "one_deal"}, seats=seats)
    game_id, (a, b) = await friends(host, [guest], **body)
    idle = b.seats[0]
    rng = random.Random(6)
    await asyncio.gather(
        play_randomly(a, variant, rng),
        play_randomly(b, variant, rng, skip={idle}),
    )
    record = await stored_record(server.database_url, game_id)
    deal = record["deals"][0]
    theirs = [x for x in deal["actions"] if x["seat"] == idle]
    assert theirs and all(x.get("by") == "stand_in" for x in theirs)
    [left] = await awards_of(guest, game_id)
    assert left["left"] is True and left["xp"]["total"] == 0
    assert left["rating_after"] is not None and left["rating_after"] < left["rating_before"]
    [mine] = await awards_of(host, game_id)
    assert mine["left"] is False and mine["xp"]["total"] >= 15
