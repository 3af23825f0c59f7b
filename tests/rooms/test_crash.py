"""Crash safety: SIGKILL the server right after acknowledged moves, restart on the same database;
every acknowledged move is there and the game goes on."""

from __future__ import annotations

import asyncio
import random

import pytest

from tests.database import stored_game
from tests.web.wsclient import Browser, Socket

pytestmark = pytest.mark.db


async def act_and_wait_ack(sock: Socket, rng: random.Random) -> dict:
    seat = sock.my_turn_seat()
    assert seat is not None, "nobody of ours is to act"
    msg_id = await sock.act(rng.choice(sock.legal(seat)), seat=seat)
    ack = await sock.next_of("ack", "error")
    assert ack["type"] == "ack", ack
    assert ack["id"] == msg_id
    return {**ack, "seat": seat}


async def play_until(sock: Socket, rng: random.Random, stop, acked: list[dict]) -> dict:
    """Play acknowledged moves until ``stop(sock, ack)``; return the last ack (not waiting for
    its update: the kill comes right after the acknowledgement)."""
    while True:
        await sock.until(lambda s: s.my_turn_seat() is not None)
        ack = await act_and_wait_ack(sock, rng)
        acked.append(ack)
        if stop(sock, ack):
            return ack
        await sock.until(lambda s, v=ack["version"]: s.version >= v)


async def crash_and_reconnect(server, browser: Browser, game_id: str, acked: list[dict]) -> Socket:
    server.kill()  # SIGKILL: no shutdown hook, no flush
    server.start()
    game = await stored_game(server.database_url, game_id)
    stored_ids = {a.client_id for a in game.actions}
    missing = [a["id"] for a in acked if a["id"] not in stored_ids]
    assert missing == [], f"acknowledged but lost: {missing}"
    sock = await browser.connect(game_id)
    # the restored room is at least where the last ack said, and consistent with the rows
    assert sock.version >= acked[-1]["version"]
    assert sock.version == len(game.deals) + len(game.actions)
    return sock


async def test_sigkill_after_acknowledged_moves_loses_nothing(live_server, database_url):
    server = live_server(database_url=database_url)
    browser = await Browser.new(server)
    # local mode: this browser plays every seat, so every move is a client move with an ack
    game_id = await browser.create(variant="classic", mode="local", options={"target": 501})
    sock = await browser.connect(game_id)
    rng = random.Random(11)
    acked: list[dict] = []

    # 1. during the bidding: right after the first acknowledged bid
    await play_until(sock, rng, lambda s, a: True, acked)
    sock = await crash_and_reconnect(server, browser, game_id, acked)
    assert sock.view["phase"] in ("bidding", "play", "deal_over")
    assert len(sock.view["bids"]) >= 1

    # 2. in the middle of a trick (two cards on the table)
    def mid_trick(s: Socket, ack: dict) -> bool:
        view = s.view
        return view["phase"] == "play" and len(view["trick"]) == 1 and view["tricks_played"] >= 1

    await play_until(sock, rng, mid_trick, acked)
    sock = await crash_and_reconnect(server, browser, game_id, acked)
    assert sock.view["phase"] == "play" and len(sock.view["trick"]) == 2

    # 3. right after a deal ends (the ack of the last card of the deal)
    def last_card(s: Socket, ack: dict) -> bool:
        view = s.view
        return view["phase"] == "play" and view["tricks_played"] == 7 and len(view["trick"]) == 3

    deals_before = sock.view["deal_number"]
    await play_until(sock, rng, last_card, acked)
    sock = await crash_and_reconnect(server, browser, game_id, acked)
    # the deal is scored, and the restored room waits for the device's Continue
    assert sock.view["phase"] == "deal_over" and sock.view["deal_number"] == deals_before
    assert len(sock.view["results"]) == deals_before + 1
    assert sock.room["next_deal"] == {"waiting_for": [0, 1, 2, 3], "deadline": None}
    await sock.send({"type": "consent", "kind": "next_deal"})
    await sock.until(lambda s: s.view["deal_number"] == deals_before + 1)
    assert sock.view["phase"] == "bidding"

    # the same id again after the restart: acknowledged again, not applied twice
    last = acked[-1]
    await sock.act({"type": "pass"}, msg_id=last["id"], seat=last["seat"])
    again = await sock.next_of("ack", "error")
    assert again == {"type": "ack", "id": last["id"], "version": last["version"]}

    # and the game goes on
    for _ in range(6):
        await sock.until(lambda s: s.my_turn_seat() is not None)
        ack = await act_and_wait_ack(sock, rng)
        acked.append(ack)
        await sock.until(lambda s, v=ack["version"]: s.version >= v)
    sock = await crash_and_reconnect(server, browser, game_id, acked)
    game = await stored_game(server.database_url, game_id)
    from app.engine.record import replay

    state = replay(game.record())
    assert list(state.scores) == sock.view["scores"]


async def test_sigkill_with_bots_and_friends_resumes_the_game(live_server, database_url):
    """A friends game with bots: killed right after a human's acked move, the bots carry on
    after the restart once the humans are back."""
    server = live_server(database_url=database_url)
    host = await Browser.new(server)
    game_id = await host.create(
        variant="bela",
        players=3,
        mode="friends",
        seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}],
    )
    guest = await Browser.new(server)
    h = await host.connect(game_id)
    g = await guest.connect(game_id)
    rng = random.Random(3)
    acked: list[dict] = []
    for _ in range(3):
        await asyncio.wait_for(_one_human_move(h, g, rng, acked), 20)
    server.kill()
    server.start()
    game = await stored_game(server.database_url, game_id)
    assert {a["id"] for a in acked} <= {a.client_id for a in game.actions}
    h = await host.connect(game_id)
    g = await guest.connect(game_id)
    start = h.version
    for _ in range(3):
        await asyncio.wait_for(_one_human_move(h, g, rng, acked), 20)
    assert h.version > start


async def _one_human_move(h: Socket, g: Socket, rng: random.Random, acked: list[dict]) -> None:
    while True:
        for sock in (h, g):
            await sock.drain(0.05)
        for sock in (h, g):
            if sock.my_turn_seat() is not None and sock.version == max(h.version, g.version):
                ack = await act_and_wait_ack(sock, rng)
                acked.append(ack)
                await sock.until(lambda s, v=ack["version"]: s.version >= v)
                return
