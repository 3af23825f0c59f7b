"""Whole games of every variant and player count through the real protocol, leak-checked.

Test clients play random legal moves from their own views; other seats are the server's bots.
Every message every client (players and a spectator) received is then checked against
RULES.md §13 by tests/rooms/leakcheck.py, using the truth rebuilt from the database.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from app.engine.record import replay
from app.rooms.messages import validate_outgoing
from tests.database import stored_game
from tests.rooms.leakcheck import Leak, Truth, check_messages
from tests.web.conftest import start_server
from tests.web.wsclient import Browser, Socket

GAME_SECONDS = 90


@pytest.fixture(scope="module")
def module_server(tmp_path_factory):
    """Test clients play instantly (one client plays both seats of a local game): no flood
    limit here; tests/web/test_bad_input.py tests the limit."""
    server = start_server(tmp_path_factory.mktemp("games"), {"ATOUT_WS_RATE": "100000"})
    try:
        yield server
    finally:
        server.stop()


async def stored_record(database_url: str, game_id: str) -> dict[str, Any]:
    """The whole record as stored, the deal in progress included (the server's truth)."""
    record = (await stored_game(database_url, game_id)).record()
    assert record is not None
    return record


def finished(sock: Socket, variant: str) -> bool:
    view = sock.view
    if view is None:
        return False
    if variant == "duel":  # a duel deal is a game: done once the next one has been dealt
        return view["deal_number"] >= 1 and any(not r["thrown_in"] for r in view["results"])
    return view["phase"] == "match_over"


async def play(sock: Socket, variant: str, rng: random.Random, deadline: float) -> None:
    """Random legal moves from this socket's own view(s) until the game is over."""
    loop = asyncio.get_running_loop()
    sent_at: int | None = None
    consented_at: int | None = None
    # ids of moves sent while the bela-2p exchange may race them: between the bidding and the
    # first card, the holder acts out of turn, so the leader's move or his may be stale
    racing: set[str] = set()
    while not finished(sock, variant):
        assert loop.time() < deadline, f"game not over in time at version {sock.version}"
        view = sock.view
        seat = sock.my_turn_seat()
        if seat is not None and sent_at != sock.version:
            sent_at = sock.version
            acting = (sock.views or {}).get(str(seat)) or view or {}
            open_exchange = (
                acting.get("variant") == "bela"
                and acting.get("players") == 2
                and acting.get("phase") == "play"
                and acting.get("tricks_played") == 0
                and not acting.get("trick")
            )
            msg_id = await sock.play_random(rng)
            if open_exchange and msg_id is not None:
                racing.add(msg_id)
        elif (
            view is not None
            and sock.room is not None
            and sock.room["consent"]["kind"] == "next_deal"
            and view["phase"] == "deal_over"  # the room message may still be the old one
            and consented_at != sock.version
        ):
            consented_at = sock.version
            await sock.send({"type": "consent", "kind": "next_deal", "id": f"k-{sock.version}"})
        try:
            msg = await sock.recv(timeout=max(0.05, deadline - loop.time()))
        except TimeoutError:
            continue
        if msg["type"] == "error":
            # the out-of-turn exchange and the lead race: the one that comes second is stale
            # (docs/protocol.md), and the state it comes with goes on
            if msg["code"] == "stale_version" and msg.get("id") in racing:
                continue
            raise AssertionError(f"unexpected error: {msg}")


async def watch(sock: Socket, variant: str, deadline: float) -> None:
    loop = asyncio.get_running_loop()
    while not finished(sock, variant):
        assert loop.time() < deadline, "spectator: game not over in time"
        try:
            await sock.recv(timeout=max(0.05, deadline - loop.time()))
        except TimeoutError:
            continue


CONFIGS = [
    # variant, players, options, mode, seats (None: the mode's default)
    ("classic", None, {"target": "one_deal"}, "friends", ["human", "bot", "human", "bot"]),
    ("coinche", None, {"target": "one_deal"}, "computer", None),
    ("bulgarian", None, {}, "friends", ["human", "human", "human", "bot"]),
    ("bela", 2, {"target": 501}, "friends", ["human", "bot"]),
    ("bela", 3, {"target": 501}, "friends", ["human", "human", "bot"]),
    ("bela", 4, {"target": 501}, "friends", ["human", "bot", "human", "human"]),
    ("duel", None, {}, "friends", None),
    ("duel", None, {}, "local", None),  # one browser, both seats: face-down cards stay hidden
]


@pytest.mark.parametrize(
    "variant, players, options, mode, kinds",
    CONFIGS,
    ids=[f"{c[0]}-{c[1] or ''}-{c[3]}" for c in CONFIGS],
)
async def test_full_game_through_the_protocol_leaks_nothing(
    module_server, variant, players, options, mode, kinds
):
    rng = random.Random(f"{variant}{players}{mode}")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + GAME_SECONDS
    host = await Browser.new(module_server)
    body: dict[str, Any] = {"variant": variant, "options": options, "mode": mode, "level": "easy"}
    if players:
        body["players"] = players
    if kinds:
        body["seats"] = [
            {"kind": k} if k == "human" else {"kind": k, "level": "easy"} for k in kinds
        ]
    game_id = await host.create(**body)
    sockets = [await host.connect(game_id)]
    if mode == "friends":
        humans = (kinds or ["human"] * (players or 2)).count("human")
        for _ in range(humans - 1):
            guest = await Browser.new(module_server)
            sockets.append(await guest.connect(game_id))
    held = [tuple(s.seats) for s in sockets]
    assert held[0][0] == 0 and all(len(h) >= 1 for h in held)
    watcher = await (await Browser.new(module_server)).connect(game_id)
    assert watcher.role == "spectator"

    await asyncio.gather(
        *(play(s, variant, random.Random(rng.random()), deadline) for s in sockets),
        watch(watcher, variant, deadline),
    )
    everyone = [*sockets, watcher]
    for sock in everyone:
        await sock.drain(0.3)

    record = await stored_record(module_server.database_url, game_id)
    truth = Truth.from_record(record)
    checked = 0
    for sock, seats in zip(everyone, [*held, ()], strict=True):
        assert sock.version == truth.last_version  # nobody missed or skipped an update
        checked += check_messages(truth, sock.log, seats, who=f"seats {seats}")
        for msg in sock.log:  # every message is one of the typed set (app/rooms/messages.py)
            validate_outgoing(json.dumps(msg))
    assert checked > 50

    # the export: finished deals only; it replays to the score every client saw
    status, exported = await host.get(f"/api/games/{game_id}/record")
    assert status == 200
    final = sockets[0].view
    if variant == "duel":
        assert len(exported["deals"]) == len(record["deals"]) - 1  # the new deal is not in it
        assert exported["deals"] == record["deals"][:-1]
    else:
        assert final["phase"] == "match_over"
        assert exported["deals"] == record["deals"]
        assert list(replay(exported).scores) == final["scores"]
        status, me = await host.get("/api/me")
        assert game_id not in {g["game_id"] for g in me["games"]}  # finished: not listed


def test_the_leak_checker_catches_leaks():
    """The checker itself: a hidden card, another seat's view, a spectator's hand."""
    from app.engine import new_match
    from app.engine.cards import format_mask
    from app.engine.record import dump

    state = new_match("bela", 2, {}, seed=3)
    truth = Truth.from_record(dump(state))
    mine = format_mask(state.hands[0])
    theirs = format_mask(state.hands[1])
    talon = format_mask(state.talons[0])
    fine = {"type": "update", "version": 1, "events": [], "view": {"seat": 0, "hand": mine}}
    assert check_messages(truth, [fine], (0,)) == len(mine)
    with pytest.raises(Leak):
        check_messages(truth, [{**fine, "view": {"seat": 0, "hand": mine + theirs[:1]}}], (0,))
    with pytest.raises(Leak):  # the talon before pick-up, own included
        check_messages(truth, [{**fine, "view": {"seat": 0, "hand": mine + talon[:1]}}], (0,))
    with pytest.raises(Leak):
        check_messages(truth, [{**fine, "view": {"seat": 1, "hand": theirs}}], (0,))
    with pytest.raises(Leak):
        check_messages(truth, [{**fine, "view": {"hand": []}}], ())
    # Updates carry only the fields that changed: each is checked merged into the view held.
    spectator = {"type": "state", "version": 1, "view": {"to_act": 0}, "role": "spectator"}
    assert check_messages(truth, [{**fine, "type": "state"}, {**fine, "view": {"to_act": 1}}], (0,))
    with pytest.raises(Leak):
        check_messages(truth, [spectator, {**fine, "view": {"hand": []}}], ())
    with pytest.raises(Leak):
        check_messages(truth, [{**fine, "type": "state"}, {**fine, "view": {"seat": 1}}], (0,))
    with pytest.raises(Leak):  # a card in an error text
        check_messages(
            truth,
            [fine, {"type": "error", "code": "x", "message": f"seat 1 holds {theirs[0]}"}],
            (0,),
        )
