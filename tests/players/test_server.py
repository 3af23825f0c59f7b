"""The player side through a real server: XP when matches end (computer, local, friends with a
leaver), no double award after a restart, the transfer code, ranking, replays and imports."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from app.engine.record import Step, replay
from app.players.ratings import ANCHORS, display
from tests.rooms.test_full_games import play, stored_record
from tests.web.conftest import start_server
from tests.web.wsclient import Browser

DATA = Path(__file__).resolve().parents[1] / "data"
GAME_SECONDS = 90


@pytest.fixture(scope="module")
def module_server(tmp_path_factory):  # type: ignore[no-untyped-def]
    server = start_server(tmp_path_factory.mktemp("players"), {"ATOUT_WS_RATE": "100000"})
    try:
        yield server
    finally:
        server.stop()


def expected_xp(record: dict[str, Any], seat: int) -> int:
    """XP of a seat for a finished match, counted from the engine's events (RULES.md §9.2)."""
    tally = {"tricks": 0, "deals": 0, "won": False, "sides": None}

    def on_step(step: Step) -> None:
        side = step.state.rules.side_of[seat]
        for event in step.events:
            if event.type == "trick_won" and event.data["seat"] == seat:
                tally["tricks"] += 1
            if event.type == "deal_scored":
                r = event.data["result"]
                taker = r["taker_side"]
                if (r["outcome"] == "made" and side == taker) or (
                    r["outcome"] == "failed" and side != taker
                ):
                    tally["deals"] += 1
            if event.type == "match_over":
                tally["won"] = event.data["winner"] == side

    replay(record, on_step)
    return 15 + (25 if tally["won"] else 0) + 2 * tally["deals"] + tally["tricks"]


async def play_to_the_end(server: Any, sockets: list[Any], variant: str, seed: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + GAME_SECONDS
    rng = random.Random(seed)
    await asyncio.gather(
        *(play(s, variant, random.Random(rng.random()), deadline) for s in sockets)
    )
    for sock in sockets:
        await sock.drain(0.2)


async def test_a_computer_match_earns_xp_a_rating_and_a_level_badge(module_server) -> None:
    me = await Browser.new(module_server)
    await me.post("/api/me/name", {"name": "Ana"})
    game_id = await me.create(variant="classic", options={"target": "one_deal"}, mode="computer")
    sock = await me.connect(game_id)
    assert sock.room["seats"][0]["xp_level"] == 1  # a new browser is level 1
    assert [s["xp_level"] for s in sock.room["seats"][1:]] == [None, None, None]  # bots
    await play_to_the_end(module_server, [sock], "classic", "computer")
    record = await stored_record(module_server.database_url, game_id)
    xp = expected_xp(record, 0)

    status, awards = await me.get(f"/api/games/{game_id}/awards")
    assert status == 200
    [result] = awards["results"]
    assert (result["part"], result["seat"], result["mode"], result["left"]) == (
        0,
        0,
        "computer",
        False,
    )
    assert result["xp"]["total"] == xp
    assert awards["progress"]["xp"] == xp and awards["progress"]["level"] >= 2
    # a newcomer starts level with easy; a one-deal match moves him a fraction of a match
    easy = display(ANCHORS["classic"]["easy"])
    assert result["rating_before"] == easy and result["rating_after"] != easy
    assert abs(result["rating_after"] - easy) < 40
    # the seat's badge follows the new level (sent with the room after the award)
    assert sock.room["seats"][0]["xp_level"] == awards["progress"]["level"]

    status, profile = await me.get("/api/me/profile")
    assert profile["name"] == "Ana"
    assert profile["modes"]["computer"] == {
        "xp": xp,
        "games": 1,
        "wins": int(result["won"]),
        "left": 0,
    }
    assert profile["modes"]["local"]["games"] == 0
    assert profile["ratings"]["classic"]["games"] == 1
    assert profile["ratings"]["duel"] is None
    status, history = await me.get("/api/me/history")
    assert [g["game_id"] for g in history["games"]] == [game_id]


async def test_a_local_match_earns_the_xp_of_seat_0_and_is_not_rated(module_server) -> None:
    me = await Browser.new(module_server)
    game_id = await me.create(variant="coinche", options={"target": "one_deal"}, mode="local")
    sock = await me.connect(game_id)
    assert sock.seats == [0, 1, 2, 3]
    await play_to_the_end(module_server, [sock], "coinche", "local")
    record = await stored_record(module_server.database_url, game_id)

    status, awards = await me.get(f"/api/games/{game_id}/awards")
    [result] = awards["results"]  # one browser, one award: seat 0's
    assert result["seat"] == 0 and result["mode"] == "local"
    assert result["xp"]["total"] == expected_xp(record, 0)
    assert result["rating_after"] is None
    status, profile = await me.get("/api/me/profile")
    assert profile["modes"]["local"]["games"] == 1
    assert profile["modes"]["local"]["xp"] == result["xp"]["total"]
    assert profile["ratings"]["classic"] is None  # local games are not rated


async def test_a_player_who_leaves_gets_no_xp_and_the_table_goes_on(module_server) -> None:
    host = await Browser.new(module_server)
    guest = await Browser.new(module_server)
    game_id = await host.create(
        variant="classic",
        options={"target": "one_deal"},
        mode="friends",
        seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "human"}, {"kind": "bot"}],
        level="easy",
    )
    host_sock = await host.connect(game_id)
    guest_sock = await guest.connect(game_id)
    assert guest_sock.seats == [2]
    # leaving is for friends games in progress, by a player of the table
    status, body = await (await Browser.new(module_server)).post(f"/api/games/{game_id}/leave")
    assert status == 403 and body["error"]["code"] == "not_allowed"

    status, body = await guest.post(f"/api/games/{game_id}/leave")
    assert status == 200
    seat2 = body["room"]["seats"][2]  # the seat stays his; the stand-in plays it
    assert (seat2["kind"], seat2["stand_in"], seat2["you"]) == ("human", "left", True)
    await guest_sock.close()
    await host_sock.until(lambda s: s.room["seats"][2]["stand_in"] == "left")
    assert not host_sock.room["paused"]

    await play_to_the_end(module_server, [host_sock], "classic", "leaver")
    record = await stored_record(module_server.database_url, game_id)
    seat2_actions = [a for d in record["deals"] for a in d["actions"] if a["seat"] == 2]
    assert seat2_actions and all(a.get("by") == "stand_in" for a in seat2_actions)
    status, awards = await host.get(f"/api/games/{game_id}/awards")
    assert awards["results"][0]["xp"]["total"] == expected_xp(record, 0)
    status, left = await guest.get(f"/api/games/{game_id}/awards")
    [result] = left["results"]
    assert result["left"] is True and result["seat"] == 2
    assert result["xp"]["total"] == 0 and left["progress"]["xp"] == 0
    assert result["rating_after"] is not None  # leaving does not dodge the rating
    assert result["rating_after"] < result["rating_before"]  # rated as a loss
    status, profile = await guest.get("/api/me/profile")
    assert profile["games"] == 0 and profile["modes"]["friends"]["left"] == 1
    # the seat is still his: the invite link brings him back to it
    status, joined = await guest.post(f"/api/games/{game_id}/join")
    assert joined["role"] == "seat" and joined["seats"] == [2]


async def test_a_duel_table_awards_each_played_deal(module_server) -> None:
    me = await Browser.new(module_server)
    game_id = await me.create(variant="duel", mode="computer", level="easy")
    sock = await me.connect(game_id)
    await play_to_the_end(module_server, [sock], "duel", "duel")
    record = await stored_record(module_server.database_url, game_id)
    status, awards = await me.get(f"/api/games/{game_id}/awards")
    played = [
        i
        for i, deal in enumerate(record["deals"][:-1])
        if any(a["type"] == "play" for a in deal["actions"])
    ]
    assert [r["part"] for r in awards["results"]] == played
    assert all(r["xp"]["finish"] == 15 for r in awards["results"])
    # the game in progress: only its finished deals can be replayed
    status, frames = await me.get(f"/api/games/{game_id}/replay")
    assert status == 200
    assert len(frames["deals"]) == len(record["deals"]) - 1
    assert all(d["finished"] for d in frames["deals"])
    assert frames["game"]["yours"] == [0]  # the replay marks this browser's seat


def test_awards_are_not_given_twice_after_a_restart(live_server) -> None:
    server = live_server({"ATOUT_WS_RATE": "100000"})

    async def first() -> tuple[str, Browser, int]:
        me = await Browser.new(server)
        game_id = await me.create(
            variant="classic", options={"target": "one_deal"}, mode="computer"
        )
        sock = await me.connect(game_id)
        await play_to_the_end(server, [sock], "classic", "restart")
        await sock.close()
        status, profile = await me.get("/api/me/profile")
        return game_id, me, profile["progress"]["xp"]

    game_id, me, xp = asyncio.run(first())
    assert xp > 0
    server.restart(graceful=False)  # a crash: the room is loaded again from the database

    async def second() -> None:
        status, summary = await me.get(f"/api/games/{game_id}")  # loads the room: after_load
        assert status == 200 and summary["status"] == "finished"
        sock = await me.connect(game_id)
        assert sock.room["seats"][0]["xp_level"] is not None
        await sock.close()
        status, profile = await me.get("/api/me/profile")
        assert profile["progress"]["xp"] == xp
        assert profile["games"] == 1
        status, awards = await me.get(f"/api/games/{game_id}/awards")
        assert len(awards["results"]) == 1

    asyncio.run(second())


async def test_the_transfer_code_moves_the_identity_once(module_server) -> None:
    first = await Browser.new(module_server)
    await first.post("/api/me/name", {"name": "Boris"})
    game_id = await first.create(variant="duel", mode="computer")
    status, code = await first.post("/api/me/transfer")
    assert status == 201 and len(code["code"]) == 14 and code["code"].count("-") == 2
    old_token = first.token

    second = await Browser.new(module_server)
    status, body = await second.post("/api/me/claim", {"code": code["code"].lower()})
    assert status == 200 and body["name"] == "Boris"
    assert second.token != old_token
    status, me = await second.get("/api/me")
    assert me["name"] == "Boris"
    assert game_id in {g["game_id"] for g in me["games"]}  # the games came along

    # the code works once
    third = await Browser.new(module_server)
    status, body = await third.post("/api/me/claim", {"code": code["code"]})
    assert status == 404 and body["error"]["code"] == "invalid_code"
    status, me = await third.get("/api/me")
    assert me["name"] is None

    # the first browser's token is unknown now: it reads as a new browser, and gets a fresh
    # identity when it does something that needs one
    status, me = await first.get("/api/me")
    assert me["name"] is None and me["games"] == []
    assert first.token == old_token
    status, _ = await first.post("/api/me")
    assert status == 200 and first.token != old_token
    status, profile = await first.get("/api/me/profile")
    assert profile["progress"]["xp"] == 0

    status, body = await third.post("/api/me/claim", {"code": "not a code"})
    assert status == 422 and body["error"]["code"] == "invalid_code"


async def test_a_new_code_replaces_the_previous_one(module_server) -> None:
    me = await Browser.new(module_server)
    status, old = await me.post("/api/me/transfer")
    status, new = await me.post("/api/me/transfer")
    other = await Browser.new(module_server)
    status, _ = await other.post("/api/me/claim", {"code": old["code"]})
    assert status == 404
    status, _ = await other.post("/api/me/claim", {"code": new["code"]})
    assert status == 200


async def test_import_replays_a_record_or_gives_the_engine_reason(module_server) -> None:
    anyone = Browser(module_server)
    record = json.loads((DATA / "classic.json").read_text())
    status, frames = await anyone.post("/api/replay", record)
    assert status == 200
    assert len(frames["deals"]) == 2 and frames["variant"] == "classic"
    first = frames["deals"][0]["frames"]
    assert first[0]["hands"][0] and "seat" not in first[0]  # the deal as dealt
    winners = [f["trick_winner"] for f in first if "trick_winner" in f]
    assert len(winners) == 8
    assert first[-1]["result"]["recorded"] == frames["deals"][0]["result"]["recorded"]

    bad = json.loads(json.dumps(record))
    bad["deals"][0]["actions"][3]["seat"] = (bad["deals"][0]["actions"][3]["seat"] + 1) % 4
    status, body = await anyone.post("/api/replay", bad)
    assert status == 422 and body["error"]["code"] == "invalid_record"
    assert body["error"]["message"].startswith("deal 0, action 3: ")
    status, body = await anyone.post("/api/replay", {"format": "other"})
    assert status == 422 and "format" in body["error"]["message"]


async def test_an_imported_record_keeps_the_computer_seats_as_computers(module_server) -> None:
    me = await Browser.new(module_server)
    game_id = await me.create(
        variant="classic", options={"target": "one_deal"}, mode="computer", level="hard"
    )
    sock = await me.connect(game_id)
    await play_to_the_end(module_server, [sock], "classic", "import-seats")
    status, record = await me.get(f"/api/games/{game_id}/record")
    assert status == 200 and record["deals"]
    bots = [{"kind": "bot", "level": "hard"}] * 3
    # anyone importing the file on this server: the stored game says who the computers were
    status, frames = await Browser(module_server).post("/api/replay", record)
    assert status == 200, frames
    assert frames["game"]["seats"] == [{"kind": "human", "level": None}, *bots]
    assert frames["names"][1:] == [None, None, None]  # no name: the viewer says "Computer N"

    # a record that says its seats itself, from another server (an unknown game id)
    other = json.loads((DATA / "classic.json").read_text())
    said = [{"kind": "human"}, {"kind": "bot", "level": "easy"}, {"kind": "human"}, {"kind": "bot"}]
    other["meta"] = {"game_id": "not-a-game-here", "seats": said}
    status, frames = await Browser(module_server).post("/api/replay", other)
    assert status == 200, frames
    assert frames["game"]["seats"] == [
        {"kind": "human", "level": None},
        {"kind": "bot", "level": "easy"},
        {"kind": "human", "level": None},
        {"kind": "bot", "level": None},
    ]
    # nothing said, or said in another shape: no seats, as before
    for meta in ({"game_id": "not-a-game-here"}, {"seats": ["bot"] * 4}, {"seats": said[:3]}):
        other["meta"] = meta
        status, frames = await Browser(module_server).post("/api/replay", other)
        assert status == 200 and "game" not in frames, meta


async def test_a_match_reopened_later_shows_the_level_it_left(module_server) -> None:
    # "+15 XP … Level 4 · 87 XP — Level up: level 4!" on a match that took the player from 0
    # to 15 XP: each result carries the progress right after it, not today's
    me = await Browser.new(module_server)
    first = await me.create(variant="classic", options={"target": "one_deal"}, mode="computer")
    sock = await me.connect(first)
    await play_to_the_end(module_server, [sock], "classic", "first")
    second = await me.create(variant="classic", options={"target": "one_deal"}, mode="computer")
    sock = await me.connect(second)
    await play_to_the_end(module_server, [sock], "classic", "second")

    status, old = await me.get(f"/api/games/{first}/awards")
    assert status == 200
    [result] = old["results"]
    earned = result["xp"]["total"]
    assert result["level_before"] == 1
    assert result["progress"]["xp"] == earned  # from 0 to what this match earned
    assert old["progress"]["xp"] > earned  # today's, after the second match
    status, new = await me.get(f"/api/games/{second}/awards")
    [latest] = new["results"]
    assert latest["progress"] == new["progress"]
    assert latest["level_before"] == result["progress"]["level"]
