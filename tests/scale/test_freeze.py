"""A process frozen inside a transaction never pins its rooms (docs/scaling.md, "What
PostgreSQL enforces"), and a Continue acknowledged just before a freeze or a kill is acted on
by whichever process serves the room next.

The freeze hook (``ATOUT_TEST_HOOKS=1``, app/persistence/freeze.py) stops the owner with
SIGSTOP inside a room write, right after the fence has locked the room's lease row: without
``idle_in_transaction_session_timeout`` on the server's sessions and ``lock_timeout`` on the
takeover, another process's takeover would queue behind that lock for as long as the owner
stays frozen.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from app.rooms.live import GRACE_SECONDS
from tests.scale.table import check_history, new_friends_table, owner_of

pytestmark = pytest.mark.db

HOOKS = {"ATOUT_TEST_HOOKS": "1"}


async def wait_stopped(node: Any, within: float = 20.0) -> None:
    deadline = time.monotonic() + within
    while not node.stopped():
        assert time.monotonic() < deadline, "the owner never reached the freeze point"
        await asyncio.sleep(0.02)


async def test_an_owner_frozen_inside_a_transaction_does_not_pin_its_room(
    make_cluster: Any, migrated_database_url: str
) -> None:
    cluster = make_cluster(2, env=HOOKS)
    table = await new_friends_table(cluster, "duel", seed=12)
    await table.play(3)
    owner, epoch = await owner_of(migrated_database_url, table.game_id)
    frozen = cluster.node_of(owner)
    frozen.freeze_in_write()
    found = table.actor()
    assert found is not None
    player, seat = found
    assert player.sock is not None
    await player.sock.act(table.rng.choice(player.sock.legal(seat)))  # never acknowledged
    await wait_stopped(frozen)
    try:
        # the other process takes the room over while the owner stays frozen, its lease
        # row locked by the frozen transaction until PostgreSQL ends that session
        await table.connect_all(within=20)
        await table.play(4)
        new_owner, new_epoch = await owner_of(migrated_database_url, table.game_id)
        assert new_owner != owner and new_epoch > epoch
    finally:
        frozen.thaw()
    await check_history(migrated_database_url, table)


@pytest.mark.parametrize("then", ["frozen", "killed"])
async def test_a_continue_acknowledged_before_a_stall_deals_on_the_next_process(
    make_cluster: Any, migrated_database_url: str, then: str
) -> None:
    """The last Continue of a duel deal is stored and acknowledged; the owner stops inside
    the next write (the next deal's). Frozen, another process takes the room over; killed,
    it is restarted under the same node id. Either way the next deal is dealt without
    anyone pressing Continue again."""
    cluster = make_cluster(2, env=HOOKS)
    table = await new_friends_table(cluster, "duel", seed=21)
    await table.play_until(lambda view: view["phase"] == "deal_over")
    deal = table.view["deal_number"]
    first, second = (p.sock for p in table.players)
    assert first is not None and second is not None
    await first.send({"type": "consent", "kind": "next_deal", "id": "c-1"})
    assert (await first.next_of("ack"))["id"] == "c-1"
    owner, _ = await owner_of(migrated_database_url, table.game_id)
    node = cluster.node_of(owner)
    node.freeze_in_write(skip=1)  # the Continue commits; the deal's write stops
    await second.send({"type": "consent", "kind": "next_deal", "id": "c-2"})
    assert (await second.next_of("ack"))["id"] == "c-2"
    await wait_stopped(node)
    try:
        if then == "killed":
            node.kill()
            await asyncio.to_thread(node.start)
        await table.connect_all(within=20)
        await table.sync(table.version)
        sock = table.players[0].sock
        assert sock is not None
        await sock.until(lambda s: s.view["deal_number"] == deal + 1, timeout=20)
        assert sock.view["phase"] != "deal_over"
    finally:
        if node.running and node.stopped():
            node.thaw()
    await table.play(3)
    await check_history(migrated_database_url, table)


async def test_a_clock_does_not_run_while_its_room_fails_over(
    make_cluster: Any, migrated_database_url: str
) -> None:
    """A friends table with a clock; its owner is killed while a player's clock runs, and
    nobody reaches the room again until later than that clock would have run out. The
    process that takes the room over did not play for the seat, and gave it at least the
    time it had left plus the grace."""
    cluster = make_cluster(2, env={"ATOUT_CLOCK_SECONDS": "4"})
    table = await new_friends_table(cluster, "duel", seed=33, clock=30)
    sock = table.players[0].sock
    assert sock is not None
    to_act = sock.view["to_act"]
    deadline = sock.room["seats"][to_act]["deadline"]
    assert deadline is not None
    version = table.version
    left = deadline - int(time.time() * 1000)
    owner, _ = await owner_of(migrated_database_url, table.game_id)
    cluster.node_of(owner).kill()
    killed = time.monotonic()
    while time.monotonic() - killed < left / 1000 + 1:  # away longer than the clock had left
        await asyncio.sleep(0.1)
    await table.connect_all(within=20)
    sock = table.players[0].sock
    assert sock is not None
    assert sock.version == version  # nobody played for the seat
    new_owner, _ = await owner_of(migrated_database_url, table.game_id)
    assert new_owner != owner
    restored = sock.room["seats"][to_act]["deadline"]
    assert restored - sock.room["now"] >= left + GRACE_SECONDS * 1000 - 1500
