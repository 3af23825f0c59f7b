"""Nothing stalls after a crash: real server processes, killed at the exact moments that used
to stop a table for good (docs/protocol.md; ``Room.after_load``).

The freeze hook (``ATOUT_TEST_HOOKS=1``, app/persistence/freeze.py) stops the server inside
the write of its choice, so the kill lands between two writes of one step: the last Continue
stored and acknowledged, the next deal not yet written. These tests run on SQLite in
``make test`` and on PostgreSQL (one process) in ``make test-db``.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from pathlib import Path

import pytest

from app.rooms.live import GRACE_SECONDS
from tests.web.wsclient import Browser, Socket

pytestmark = pytest.mark.db


def stopped(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] in ("T", "t")


async def wait_stopped(pid: int, within: float = 20.0) -> None:
    deadline = time.monotonic() + within
    while not stopped(pid):
        assert time.monotonic() < deadline, "the server never reached the freeze point"
        await asyncio.sleep(0.02)


async def duel_at_the_summary(server, seed: int) -> tuple[str, Browser, Browser, Socket, Socket]:
    host = await Browser.new(server)
    game_id = await host.create(variant="duel", mode="friends")
    guest = await Browser.new(server)
    status, _ = await guest.post(f"/api/games/{game_id}/join")
    assert status == 200
    h = await host.connect(game_id)
    g = await guest.connect(game_id)
    rng = random.Random(seed)
    while h.view["phase"] != "deal_over":
        for sock in (h, g):
            seat = sock.my_turn_seat()
            if seat is not None and sock.version == max(h.version, g.version):
                await sock.act(rng.choice(sock.legal(seat)))
                answer = await sock.next_of("ack", "error")
                assert answer["type"] == "ack", answer
                await h.until(lambda s, v=answer["version"]: s.version >= v)
                await g.until(lambda s, v=answer["version"]: s.version >= v)
    return game_id, host, guest, h, g


@pytest.mark.parametrize("seed", [3])
async def test_the_last_continue_acknowledged_before_a_kill_deals_after_the_restart(
    live_server, database_url, seed
):
    server = live_server({"ATOUT_TEST_HOOKS": "1"}, database_url=database_url)
    game_id, host, guest, h, g = await duel_at_the_summary(server, seed)
    deal = h.view["deal_number"]
    await h.send({"type": "consent", "kind": "next_deal", "id": "c-host"})
    assert (await h.next_of("ack"))["id"] == "c-host"
    # the guest's Continue is stored and acknowledged; the server stops inside the next
    # write (the next deal's) and is killed there
    os.kill(server.pid, signal.SIGUSR2)
    await g.send({"type": "consent", "kind": "next_deal", "id": "c-guest"})
    assert (await g.next_of("ack"))["id"] == "c-guest"
    await wait_stopped(server.pid)
    server.kill()
    server.start()
    # nobody presses Continue again: the restored room deals by itself
    h = await host.connect(game_id)
    await h.until(lambda s: s.view["deal_number"] == deal + 1 and s.view["phase"] != "deal_over")
    assert h.room["consent"]["kind"] is None


async def test_a_clock_does_not_run_while_the_server_is_down(live_server, database_url):
    """A friends table with a clock: the server is killed while a player's clock runs and
    comes back later than that clock would have run out. The seat was not played for, and
    its new deadline gives at least the time it had left plus the grace."""
    server = live_server({"ATOUT_CLOCK_SECONDS": "4"}, database_url=database_url)
    host = await Browser.new(server)
    game_id = await host.create(variant="duel", mode="friends", clock=30)
    guest = await Browser.new(server)
    status, _ = await guest.post(f"/api/games/{game_id}/join")
    assert status == 200
    h = await host.connect(game_id)
    g = await guest.connect(game_id)
    to_act = h.view["to_act"]
    deadline = h.room["seats"][to_act]["deadline"]
    assert deadline is not None and abs(deadline - h.room["now"] - 4000) < 1500
    version = h.version
    left = deadline - int(time.time() * 1000)  # ms left at the kill, on the same machine
    server.kill()
    killed = time.monotonic()
    # down for longer than the clock had left
    while time.monotonic() - killed < left / 1000 + 1:
        await asyncio.sleep(0.1)
    server.start()
    h = await host.connect(game_id)
    g = await guest.connect(game_id)
    assert h.version == version  # nobody played for the seat
    seat = h.room["seats"][to_act]
    assert seat["deadline"] - h.room["now"] >= left + GRACE_SECONDS * 1000 - 1500
    assert h.view["to_act"] == to_act
    del g
