"""Rooms leave memory when idle and come back from the database; restarts; the export."""

from __future__ import annotations

import asyncio
import random

import httpx
import pytest

from app.engine.record import replay
from tests.web.wsclient import Browser, Socket

pytestmark = pytest.mark.db


async def stats(server) -> dict:
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        return (await client.get("/api/stats")).json()


async def play_moves(sock: Socket, rng: random.Random, count: int) -> None:
    for _ in range(count):
        await sock.until(lambda s: s.my_turn_seat() is not None)
        seat = sock.my_turn_seat()
        await sock.act(rng.choice(sock.legal(seat)), seat=seat)
        ack = await sock.next_of("ack", "error")
        assert ack["type"] == "ack", ack
        await sock.until(lambda s, v=ack["version"]: s.version >= v)


async def duel_between_friends(server):
    """A friends duel with its host and guest connected: (host, guest, id, host socket, guest socket)."""
    host = await Browser.new(server)
    game_id = await host.create(variant="duel", mode="friends")
    guest = await Browser.new(server)
    h = await host.connect(game_id)
    g = await guest.connect(game_id)
    await h.until(lambda s: s.view is not None)
    return host, guest, game_id, h, g


async def play_both(h: Socket, g: Socket, rng: random.Random, done) -> None:
    """Random legal moves from whichever of the two sockets is to act, until ``done()``."""
    while not done():
        for sock in (h, g):
            await sock.drain(0.02)
        for sock in (h, g):
            if sock.view["legal"] and sock.version == max(h.version, g.version):
                await sock.act(rng.choice(sock.view["legal"]))
                await sock.next_of("ack")


async def test_an_idle_room_leaves_memory_and_comes_back(live_server, database_url):
    server = live_server({"ATOUT_IDLE_ROOM_SECONDS": "1"}, database_url=database_url)
    browser = await Browser.new(server)
    game_id = await browser.create(variant="bela", players=2, mode="local", options={"target": 501})
    sock = await browser.connect(game_id)
    rng = random.Random(2)
    await play_moves(sock, rng, 5)
    version, view = sock.version, sock.view
    assert (await stats(server))["rooms"] >= 1
    await sock.close()
    # nobody connected for a second: the room is evicted
    for _ in range(50):
        await asyncio.sleep(0.1)
        if (await stats(server))["evictions"] >= 1:
            break
    assert (await stats(server))["rooms"] == 0
    assert '"room_evicted"' in server.logs()
    # opening it again replays the record from the database: same version, same view
    again = await browser.connect(game_id)
    assert again.version == version
    assert again.view["hand"] == view["hand"]
    assert again.view["bids"] == view["bids"]
    assert (await stats(server))["loads"] >= 1
    await play_moves(again, rng, 5)


async def test_a_graceful_restart_restores_every_unfinished_game(live_server, database_url):
    server = live_server(database_url=database_url)
    rng = random.Random(4)
    games = []
    for variant, players in (("coinche", None), ("bela", 3), ("duel", None)):
        browser = await Browser.new(server)
        body = {"variant": variant, "mode": "local"}
        if players:
            body["players"] = players
        game_id = await browser.create(**body)
        sock = await browser.connect(game_id)
        await play_moves(sock, rng, 3)
        games.append((browser, game_id, sock.version, sock.views))
    assert server.stop() is not None  # SIGTERM: rooms finish, the writer flushes
    assert '"writer_closed"' in server.logs()
    server.start()
    for browser, game_id, version, views in games:
        sock = await browser.connect(game_id)
        assert sock.version == version
        assert {k: v["hand"] for k, v in sock.views.items()} == {
            k: v["hand"] for k, v in views.items()
        }
        await play_moves(sock, rng, 2)
    status, me = await games[0][0].get("/api/me")
    assert [g["game_id"] for g in me["grouped"]["local"]] == [games[0][1]]


async def test_the_export_never_shows_the_deal_in_progress(live_server, database_url):
    server = live_server(database_url=database_url)
    host, guest, game_id, h, g = await duel_between_friends(server)
    watcher = await Browser.new(server)
    w = await watcher.connect(game_id)
    assert w.role == "spectator"
    # during the first deal: nothing finished yet
    for who in (host, guest, watcher):
        status, record = await who.get(f"/api/games/{game_id}/record")
        assert status == 200
        assert record["deals"] == [] and record["format"] == "belote-record/1"
        assert record["variant"] == "duel"
    # play the deal to its end (thrown-in deals are finished deals too)
    rng = random.Random(9)
    await play_both(h, g, rng, lambda: any(not r["thrown_in"] for r in h.view["results"]))
    for sock in (h, g, w):
        await sock.drain(0.2)
    assert h.view["phase"] == "deal_over"
    status, record = await host.get(f"/api/games/{game_id}/record")
    finished = len(h.view["results"])
    assert len(record["deals"]) == finished
    # the spectator gets the deal once it has ended
    status, seen = await watcher.get(f"/api/games/{game_id}/record")
    assert status == 200 and seen["deals"] == record["deals"]
    state = replay(record)
    assert list(state.scores) == h.view["scores"]
    # both consent: the next deal is dealt, and it is not exported
    for sock in (h, g):
        await sock.send({"type": "consent", "kind": "next_deal"})
    await h.until(lambda s: s.view["phase"] == "bidding")
    status, record = await host.get(f"/api/games/{game_id}/record")
    assert len(record["deals"]) == finished
    assert record["meta"]["game_id"] == game_id


async def test_an_acknowledged_consent_survives_a_restart(live_server, database_url):
    """Duel: the host agrees to the next deal, the server restarts, the guest agrees: the
    next deal starts without asking the host again."""
    server = live_server(database_url=database_url)
    host, guest, game_id, h, g = await duel_between_friends(server)
    await play_both(  # to the end of a played deal (a thrown-in one deals on by itself)
        h,
        g,
        random.Random(5),
        lambda: h.view["phase"] == "deal_over" and not h.view["results"][-1]["thrown_in"],
    )
    await h.send({"type": "consent", "kind": "next_deal", "id": "c1"})
    acked = await h.next_of("ack", "error")
    assert acked["type"] == "ack", acked
    await g.until(lambda s: s.room["consent"]["agreed"] == [h.seats[0]])
    version = h.version
    assert server.stop() is not None
    server.start()
    h = await host.connect(game_id)
    g = await guest.connect(game_id)
    assert h.version == version and h.view["phase"] == "deal_over"
    assert h.room["consent"]["kind"] == "next_deal"
    assert h.room["consent"]["agreed"] == [h.seats[0]]
    await g.send({"type": "consent", "kind": "next_deal"})
    await h.until(lambda s: s.view["phase"] == "bidding")
    assert h.version == version + 1  # the deal, and nothing else
