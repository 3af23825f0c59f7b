"""Room leases in process: two RoomManagers (two "processes") on one PostgreSQL database.

The fence is checked directly here: a room whose lease was taken over cannot commit, even in
a group-commit batch shared with another room, whose write is kept.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import text

from app.engine import action_to_json, current_player, legal_actions
from app.persistence import repository as repo
from app.persistence.leases import Fenced, LeaseLost
from app.persistence.writer import CommitQueue
from app.rooms import GameSpec, OwnedElsewhere, RoomManager, RoomMoved
from app.rooms.room import CLOSE_MOVED
from tests.database import Database
from tests.rooms.harness import FakeListener, act, settings

pytestmark = pytest.mark.db


@dataclass
class Process:
    writer: CommitQueue
    rooms: RoomManager


@asynccontextmanager
async def open_process(url: str, name: str) -> AsyncIterator[Process]:
    """A RoomManager over an engine and a commit queue of its own, as a server process has;
    stopped on exit. Its rooms are started by the caller."""
    async with Database.open(url, writer=True) as db:
        rooms = RoomManager(
            settings(database_url=url, node_id=name, lease_seconds=30),
            db.sessionmaker,
            db.writer,
            None,
        )
        try:
            yield Process(db.writer, rooms)
        finally:
            await rooms.stop()


@pytest.fixture
async def two(migrated_database_url: str) -> AsyncIterator[tuple[Process, Process]]:
    async with (
        open_process(migrated_database_url, "node-a") as a,
        open_process(migrated_database_url, "node-b") as b,
    ):
        await a.rooms.start()  # each holds its liveness lock, as a running server does
        await b.rooms.start()
        yield a, b


async def expire(process: Process, game_id: str) -> None:
    """The lease runs out (its holder was frozen, or cut off from the database)."""
    async with process.rooms.sessionmaker() as session, session.begin():
        await session.execute(
            text(
                "UPDATE room_leases SET expires_at = now() - interval '1 second' WHERE game_id = :g"
            ),
            {"g": game_id},
        )


async def duel(process: Process) -> tuple[str, int, int]:
    ids = [
        await process.writer.submit(repo.insert_identity(repo.hash_token(f"t-{random.random()}")))
        for _ in range(2)
    ]
    created = await process.rooms.create_game(ids[0], "A", GameSpec("duel", None, {}, "friends"))
    assert created.game_id not in process.rooms.rooms  # loaded by the first access, leased
    joined = await process.rooms.join(created.game_id, ids[1], "B")
    assert joined is not None
    return created.game_id, ids[0], ids[1]


async def test_one_owner_then_a_takeover_fences_the_old_one(two: tuple[Process, Process]) -> None:
    a, b = two
    game_id, first, second = await duel(a)
    room = await a.rooms.get(game_id)
    assert room is not None and room.lease is not None and room.lease.epoch == 1
    with pytest.raises(OwnedElsewhere) as refused:
        await b.rooms.get(game_id)  # a live owner: b never loads a copy
    assert refused.value.retry_after >= 1 and game_id not in b.rooms.rooms

    listeners = {i: FakeListener(i, room.seats_of(i)) for i in (first, second)}
    for listener in listeners.values():
        room.attach(listener)
    seat = current_player(room.state)
    mover = listeners[room.seats[seat].identity_id]
    move = action_to_json(random.Random(2).choice(legal_actions(room.state)))
    await act(room, mover, "ok-1", room.version, move)
    assert mover.last("ack")["id"] == "ok-1"

    await expire(a, game_id)
    taken = await b.rooms.get(game_id)  # epoch + 1, the record replayed with the acked move
    assert taken is not None and taken.lease is not None and taken.lease.epoch == 2
    assert taken.version == room.version

    seat = current_player(room.state)
    mover = listeners[room.seats[seat].identity_id]
    mover.new()
    move = action_to_json(random.Random(3).choice(legal_actions(room.state)))
    with pytest.raises(RoomMoved):
        await room.execute(seat, _parsed(move), room.version, "fenced-1", mover)
    assert not [m for m in mover.new() if m["type"] == "ack"]
    assert all(
        listener.closed == (CLOSE_MOVED, "moved: reconnect") for listener in listeners.values()
    )
    assert room.closed and game_id not in a.rooms.rooms
    async with a.rooms.sessionmaker() as session:
        stored = await repo.load_game(session, game_id)
    assert stored is not None and "fenced-1" not in {x.client_id for x in stored.actions}
    assert len(stored.deals) + len(stored.actions) == taken.version


async def test_a_dead_owners_lease_is_taken_before_it_expires(
    two: tuple[Process, Process],
) -> None:
    """The owner's process is gone (its liveness lock went with its connection): its lease,
    30 s long, is taken at once, and its late write would be fenced."""
    a, b = two
    game_id, _, _ = await duel(a)
    room = await a.rooms.get(game_id)
    assert room is not None and room.lease is not None and room.lease.epoch == 1
    with pytest.raises(OwnedElsewhere):
        await b.rooms.get(game_id)  # alive: b waits
    assert a.rooms.liveness is not None and a.rooms.liveness.held
    await a.rooms.liveness.stop()  # as when the process dies: the session and its lock end
    taken = await b.rooms.get(game_id)
    assert taken is not None and taken.lease is not None and taken.lease.epoch == 2


async def test_the_owner_hands_a_room_over_when_asked(two: tuple[Process, Process]) -> None:
    """notify.py ``handover``: a player of the room reached b, which the proxy now picks; a
    closes the room's sockets with 4001 and releases the lease, and b takes the room. Asked
    again at once, a does nothing more (at most once per lease period)."""
    a, b = two
    game_id, first, _ = await duel(a)
    room = await a.rooms.get(game_id)
    assert room is not None
    listener = FakeListener(first, room.seats_of(first))
    room.attach(listener)
    with pytest.raises(OwnedElsewhere):
        await b.rooms.get(game_id)
    await a.rooms.hand_over(game_id, "node-b", 1)  # names another owner: an old request
    await a.rooms.hand_over(game_id, "node-a", 7)  # another epoch: an old request too
    assert listener.closed is None and a.rooms.rooms.get(game_id) is room
    await a.rooms.hand_over(game_id, "node-a", 1)
    assert listener.closed == (CLOSE_MOVED, "moved: reconnect")
    assert game_id not in a.rooms.rooms and room.closed
    taken = await b.rooms.get(game_id)
    assert taken is not None and taken.lease is not None and taken.lease.epoch == 2
    await b.rooms.hand_over(game_id, "node-b", 2)  # b's first handover of it: allowed
    again = await a.rooms.get(game_id)
    assert again is not None and again.lease is not None and again.lease.epoch == 3
    await a.rooms.hand_over(game_id, "node-a", 3)  # a let it go less than a lease ago: kept
    assert a.rooms.rooms.get(game_id) is again and not again.closed


async def test_a_fenced_write_fails_alone_in_a_shared_batch(two: tuple[Process, Process]) -> None:
    a, b = two
    kept_id, *_ = await duel(a)
    lost_id, *_ = await duel(a)
    kept, lost = await a.rooms.get(kept_id), await a.rooms.get(lost_id)
    assert kept is not None and lost is not None
    assert kept.lease is not None and lost.lease is not None
    await expire(a, lost_id)
    assert await b.rooms.get(lost_id) is not None

    # two rooms' writes queued together: one transaction first, then each alone
    good = Fenced(kept.lease, repo.save_seats(kept_id, [], settings={"chat": False}))
    bad = Fenced(lost.lease, repo.save_seats(lost_id, [], settings={"chat": False}))
    results = await asyncio.gather(
        a.writer.submit(good), a.writer.submit(bad), return_exceptions=True
    )
    assert results[0] is None and isinstance(results[1], LeaseLost)
    assert a.writer.stats.retried >= 2
    async with a.rooms.sessionmaker() as session:
        kept_row = await repo.load_game(session, kept_id)
        lost_row = await repo.load_game(session, lost_id)
    assert kept_row is not None and kept_row.game.settings == {"chat": False}
    assert lost_row is not None and lost_row.game.settings != {"chat": False}


async def test_eviction_releases_the_lease(two: tuple[Process, Process]) -> None:
    a, b = two
    game_id, *_ = await duel(a)
    room = await a.rooms.get(game_id)
    assert room is not None
    await a.rooms.evict(room)
    again = await b.rooms.get(game_id)  # at once: no need to wait for the expiry
    assert again is not None and again.lease is not None and again.lease.epoch == 2


def _parsed(action: dict[str, Any]) -> Any:
    from app.web.messages import parse_incoming

    message = {"type": "action", "id": "x", "version": 0, "action": action}
    return parse_incoming(json.dumps(message)).action


async def test_renewals_and_fenced_writes_share_the_writer_and_never_deadlock(
    migrated_database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Every room's lease renewal and a group commit's fence of some of the same rows both lock
    lease rows. With the renewal on a connection of its own, the two transactions locked them
    in different orders and PostgreSQL found deadlocks, each one breaking only after
    ``deadlock_timeout`` (1 s by default) while that commit's moves waited (the soak on
    PostgreSQL found them, with a thousand rooms; this run is too small to make the race happen
    at will). The renewal goes through the writer now: many rooms playing while their leases
    are renewed six times a second lose no write, retry none, and every renewal keeps every
    room."""
    async with open_process(migrated_database_url, "node-a") as process:
        process.rooms.lease_seconds = 0.5  # a renewal every 0.17 s
        await process.rooms.start()
        rooms = []
        for _ in range(48):
            game_id, first, second = await duel(process)
            room = await process.rooms.get(game_id)
            assert room is not None and room.lease is not None
            listeners = {i: FakeListener(i, room.seats_of(i)) for i in (first, second)}
            for listener in listeners.values():
                room.attach(listener)
            rooms.append((room, listeners))

        async def play(index: int, room: Any, listeners: dict[int, FakeListener]) -> int:
            rng = random.Random(index)
            acked = 0
            for n in range(60):
                seat = current_player(room.state)
                if seat is None:
                    break
                mover = listeners[room.seats[seat].identity_id]
                move = action_to_json(rng.choice(legal_actions(room.state)))
                await act(room, mover, f"m-{index}-{n}", room.version, move)
                assert mover.last("ack")["id"] == f"m-{index}-{n}"
                acked += 1
                await asyncio.sleep(rng.uniform(0, 0.01))
            return acked

        with caplog.at_level("WARNING", logger="atout"):
            acked = await asyncio.gather(*(play(i, r, ls) for i, (r, ls) in enumerate(rooms)))
            await asyncio.sleep(0.5)  # two more renewals after the last move
        assert sum(acked) >= 48 * 10
        assert process.writer.stats.retried == 0 and process.writer.stats.failed == 0
        assert not [r for r in caplog.records if "renew" in r.getMessage()]
        assert all(not room.closed for room, _ in rooms)
