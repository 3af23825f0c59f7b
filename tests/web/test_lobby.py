"""Public tables, the lobby, quick play and computer players who give their seat to humans,
through a real server and real sockets (docs/protocol.md "The lobby", app/rooms/public.py)."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
import websockets

from tests.schema import check_sent
from tests.web.conftest import start_server
from tests.web.test_live import play_randomly
from tests.web.wsclient import TIMEOUT, Browser

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
def server(tmp_path_factory):  # type: ignore[no-untyped-def]
    """Public tables start with computer players 1 s after they are listed."""
    srv = start_server(
        tmp_path_factory.mktemp("lobby"),
        {
            "ATOUT_WS_RATE": "100000",
            "ATOUT_PUBLIC_FILL_SECONDS": "1",
            "ATOUT_PUBLIC_TABLES_PER_HOUR": "6",
            "ATOUT_NEXT_DEAL_SECONDS": "0.5",
        },
    )
    try:
        yield srv
    finally:
        srv.stop()


class Watcher:
    """A home page's lobby socket: ``tables`` follows the pushed changes."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.tables: dict[str, dict[str, Any]] = {}
        self.counts: dict[str, int] = {}
        self.log: list[dict[str, Any]] = []

    @classmethod
    async def open(cls, browser: Browser) -> Watcher:
        ws = await websockets.connect(
            f"{browser.server.ws_url}/ws/lobby",
            additional_headers=browser._headers(),
            open_timeout=TIMEOUT,
        )
        watcher = cls(ws)
        first = await watcher.recv()
        assert first["type"] == "lobby"
        return watcher

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        text = await asyncio.wait_for(self.ws.recv(), timeout)
        msg = check_sent(text)
        self.log.append(msg)
        if msg["type"] == "lobby":
            self.tables = {t["game_id"]: t for t in msg["tables"]}
        elif msg["type"] == "lobby_table":
            self.tables[msg["table"]["game_id"]] = msg["table"]
        elif msg["type"] == "lobby_remove":
            self.tables.pop(msg["game_id"], None)
        if "online" in msg:
            self.counts = {"online": msg["online"], "playing": msg["playing"]}
        return msg

    async def until(self, predicate: Any, timeout: float = TIMEOUT) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate(self):
            await self.recv(max(0.01, deadline - loop.time()))

    async def close(self) -> None:
        await self.ws.close()


async def test_a_public_table_is_listed_live_and_a_private_one_never(server) -> None:
    host, other, home = [await Browser.new(server) for _ in range(3)]
    await host.post("/api/me/name", {"name": "<b>Ana</b>"})
    watcher = await Watcher.open(home)
    private = await host.create(mode="friends", variant="classic")
    game_id = await host.create(mode="friends", variant="classic", public=True, rated=False)
    await watcher.until(lambda w: game_id in w.tables)
    table = watcher.tables[game_id]
    assert private not in watcher.tables
    assert table["status"] == "waiting" and table["clock"] == 30 and table["rated"] is False
    assert table["seats"][0] == {
        "seat": 0,
        "kind": "human",
        "name": "<b>Ana</b>",  # text: the page shows it as text
        "xp_level": 1,
        "level": None,
        "free": False,
    }
    assert [s["free"] for s in table["seats"]] == [False, True, True, True]
    text = json.dumps(watcher.log)
    assert "deck" not in text and "hand" not in text
    # a seat taken: the change (only this table) reaches the watcher
    status, body = await other.post(f"/api/games/{game_id}/sit", {"seat": 2})
    assert status == 200 and body["role"] == "seat" and body["seat"] == 2
    await watcher.until(lambda w: w.tables[game_id]["seats"][2]["kind"] == "human")
    assert watcher.log[-1]["type"] == "lobby_table"
    # the host makes it private while it waits: it leaves the list
    status, _ = await host.post(f"/api/games/{game_id}/public", {"public": False})
    assert status == 200
    await watcher.until(lambda w: game_id not in w.tables)
    status, body = await other.post(f"/api/games/{private}/sit", {"seat": 1})
    assert status == 403 and body["error"]["code"] == "not_allowed"
    await watcher.close()


async def test_two_browsers_asking_for_the_last_seat_one_gets_it(server) -> None:
    host, a, b, home = [await Browser.new(server) for _ in range(4)]
    watcher = await Watcher.open(home)
    game_id = await host.create(mode="friends", variant="duel", public=True)
    await watcher.until(lambda w: game_id in w.tables)
    results = await asyncio.gather(
        a.post(f"/api/games/{game_id}/sit", {"seat": 1}),
        b.post(f"/api/games/{game_id}/sit", {"seat": 1}),
    )
    statuses = sorted(status for status, _ in results)
    assert statuses == [200, 409], results
    refused = next(body for status, body in results if status == 409)
    assert refused["error"]["code"] == "seat_taken"
    # full now: it left the lobby, and the match started with the winner
    await watcher.until(lambda w: game_id not in w.tables)
    winner = a if results[0][0] == 200 else b
    sock = await winner.connect(game_id)
    assert sock.seats == [1] and sock.room["status"] == "playing"
    await sock.close()
    await watcher.close()


async def test_quick_play_meets_a_stranger_and_a_late_human_takes_a_computer_seat(
    server,
) -> None:
    first, second, late, home = [await Browser.new(server) for _ in range(4)]
    watcher = await Watcher.open(home)
    # nobody is waiting: quick play creates a public table for the first browser
    status, body = await first.post("/api/quickplay", {"variant": "classic"})
    assert status == 200 and body["candidates"] == [] and body["created"]
    game_id = body["created"]["game_id"]
    a = await first.connect(game_id)
    assert a.seats == [0]
    # the second finds it, and sits
    await watcher.until(lambda w: game_id in w.tables)
    status, body = await second.post("/api/quickplay", {"variant": "classic"})
    assert [c["game_id"] for c in body["candidates"]] == [game_id]
    status, body = await second.post(f"/api/games/{game_id}/sit", {})
    assert status == 200 and body["seat"] == 1
    b = await second.connect(game_id)
    # nobody else comes: computer players take seats 2 and 3, and the match starts
    await a.until(lambda s: s.room["status"] == "playing", timeout=10)
    seats = a.room["seats"]
    assert [s["kind"] for s in seats] == ["human", "human", "bot", "bot"]
    assert seats[2]["open"] and seats[3]["open"] and seats[2]["level"] == "medium"
    assert a.room["public"] and a.room["rated"] and a.room["clock_seconds"] == 30
    await watcher.until(lambda w: game_id in w.tables and w.tables[game_id]["status"] == "playing")
    assert watcher.tables[game_id]["free"] == 2
    # the counts follow at once (not at the next 5 s count): one table in play
    await watcher.until(lambda w: w.counts.get("playing") == 1, timeout=2)
    # a third browser asks for a computer's seat: it is his at the end of the deal
    status, body = await late.post(f"/api/games/{game_id}/sit", {"seat": 3})
    assert status == 200 and body == {"role": "heir", "seat": 3, "url": body["url"]}
    c = await late.connect(game_id)
    assert c.role == "spectator"
    await watcher.until(lambda w: w.tables[game_id]["free"] == 1)
    await a.until(lambda s: s.room["seats"][3]["heir"] is not None)
    rng = random.Random(33)

    def deal_over(sock: Any) -> bool:
        return sock.view is not None and sock.view["phase"] == "deal_over"

    await asyncio.gather(
        play_randomly(a, "classic", rng, stop=deal_over),
        play_randomly(b, "classic", rng, stop=deal_over),
    )
    await c.until(lambda s: s.seats == [3], timeout=10)
    assert c.room["seats"][3]["kind"] == "human" and c.role == "seat"
    assert c.view is not None and c.view["phase"] in ("deal_over", "bidding")
    status, record = await late.get(f"/api/games/{game_id}/record")
    assert status == 200
    holders = record["meta"]["holders"]
    assert {"seat": 3, "from_deal": 1, "by": "human", "level": None, "name": None} in holders
    assert {"seat": 2, "from_deal": 0, "by": "computer", "level": "medium", "name": None} in (
        holders
    )
    for sock in (a, b, c):
        await sock.close()
    await watcher.close()


async def test_bad_lobby_frames_get_errors_and_the_socket_stays_usable(server) -> None:
    home = await Browser.new(server)
    watcher = await Watcher.open(home)
    for frame in ("not json", json.dumps({"type": "sit", "seat": 1}), json.dumps([1])):
        await watcher.ws.send(frame)
        msg = await watcher.recv()
        assert msg["type"] == "error" and msg["code"] == "bad_message"
    await watcher.ws.send(json.dumps({"type": "ping"}))
    assert (await watcher.recv())["type"] == "pong"
    await watcher.close()
    status, body = await home.post("/api/games/nosuchgame123/sit", {"seat": 9})
    assert status == 422 and body["error"]["code"] == "invalid_request"
    status, body = await home.post("/api/quickplay", {"variant": "poker"})
    assert status == 422
    status, body = await home.post(
        "/api/games", {"mode": "computer", "variant": "classic", "public": True}
    )
    assert status == 400 and body["error"]["code"] == "invalid_options"


async def test_creating_public_tables_is_rate_limited_per_browser(server) -> None:
    spammer, other = await Browser.new(server), await Browser.new(server)
    for _ in range(6):
        await spammer.create(mode="friends", variant="duel", public=True)
    status, body = await spammer.post(
        "/api/games", {"mode": "friends", "variant": "duel", "public": True}
    )
    assert status == 429 and body["error"]["code"] == "rate_limited"
    status, body = await spammer.post("/api/quickplay", {"variant": "bela", "create": True})
    assert status == 429
    # a private table, and another browser, are not limited
    await spammer.create(mode="friends", variant="duel")
    await other.create(mode="friends", variant="duel", public=True)
