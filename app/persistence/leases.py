"""Room leases (PostgreSQL): which process owns a room, fenced by an epoch (docs/scaling.md).

A process holds a room's lease (a ``room_leases`` row: owner, epoch, expiry) before it loads
the room, renews it while the room is in memory and gives it up when the room leaves memory.
A lease whose expiry has passed may be taken by anyone, with ``epoch + 1``.

Every write of a room is a ``Fenced`` work: in the same transaction as the write, an UPDATE of
the lease row where owner and epoch are still the room's. If that UPDATE does not hit the row,
the process lost the room (frozen past its lease, another process took it over): the
transaction raises ``LeaseLost`` and nothing of it is committed. Consecutive fenced works of a
group commit check their leases in one statement, then run as they would unfenced (the
RecordSteps of many rooms still make one multi-row INSERT); when one lease is lost the shared
transaction fails, and the writer retries each work alone, so only the fenced-out room's write
is refused.

Times are the database's (``now()``): the processes' clocks never have to agree.

A process that dies does not have to wait out its leases: each process holds, for its whole
life, a session-level advisory lock named after its node id (``Liveness``, on a connection of
its own). PostgreSQL drops it the moment that connection dies with the process, so a lease
whose owner holds no such lock may be taken at once. A frozen process (SIGSTOP) keeps its
connection and its lock: its leases are taken only once expired, and the fence refuses its
late writes. Should the lock be lost while the process lives (its connection cut), others may
take its leases early; the fence makes that safe, at the cost of its rooms reconnecting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import secrets
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import func, text, tuple_, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from app.persistence import freeze
from app.persistence.models import RoomLease

Work = Any  # a writer work (writer.py)
log = logging.getLogger("atout.leases")


def default_node_id() -> str:
    """hostname:pid:random, at most 64 characters."""
    host = socket.gethostname()[:40]
    return f"{host}:{os.getpid()}:{secrets.token_hex(4)}"


class LeaseLost(RuntimeError):
    """A fenced write was refused: this process no longer owns these rooms."""

    def __init__(self, game_ids: Iterable[str]) -> None:
        self.game_ids = sorted(set(game_ids))
        super().__init__(f"lease lost for {', '.join(self.game_ids)}")


@dataclass(frozen=True)
class Lease:
    game_id: str
    owner: str
    epoch: int
    seconds: float


@dataclass(frozen=True)
class Held:
    """The lease is another process's: ``owner`` until about ``retry_after`` seconds."""

    owner: str
    retry_after: int
    epoch: int = 0  # the owner's lease epoch (0: unknown)


LIVENESS_NAMESPACE = 0x41544F55  # "ATOU": the first key of the processes' advisory locks

_ACQUIRE = text(
    f"""
    INSERT INTO room_leases AS l (game_id, owner, epoch, expires_at)
    VALUES (:game_id, :owner, 1, now() + make_interval(secs => :seconds))
    ON CONFLICT (game_id) DO UPDATE
       SET owner = EXCLUDED.owner, epoch = l.epoch + 1, expires_at = EXCLUDED.expires_at
     WHERE l.expires_at < now() OR l.owner = EXCLUDED.owner
        OR NOT EXISTS (  -- the owner's process is gone: its liveness lock went with it
            SELECT 1 FROM pg_locks
             WHERE locktype = 'advisory' AND granted AND objsubid = 2
               AND classid = {LIVENESS_NAMESPACE}
               AND objid = (hashtext(l.owner)::bigint & 4294967295)::oid)
    RETURNING l.epoch
    """
)

_HOLDER = text(
    """
    SELECT owner, epoch, EXTRACT(EPOCH FROM (expires_at - now())) AS remaining
      FROM room_leases WHERE game_id = :game_id
    """
)


TAKEOVER_LOCK_TIMEOUT_MS = 500  # a takeover never queues behind a stalled owner's transaction


def _lock_not_available(exc: DBAPIError) -> bool:
    """PostgreSQL's ``lock_not_available`` (55P03): ``lock_timeout`` ran out."""
    orig = exc.orig
    code = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    if code is None and orig is not None:  # SQLAlchemy's asyncpg adapter wraps the error
        code = getattr(getattr(orig, "__cause__", None), "sqlstate", None)
    return code == "55P03"


async def acquire(
    session: AsyncSession, game_id: str, owner: str, seconds: float
) -> Lease | Held | None:
    """Take the lease of ``game_id`` (new, expired or already ours: one statement), committed.

    A ``Lease`` when taken, ``Held`` when another process holds it, None when there is no such
    game (the row's foreign key).

    The statement waits at most ``TAKEOVER_LOCK_TIMEOUT_MS`` for the lease row: a row locked by
    a transaction of its owner (alive, or frozen inside that transaction until PostgreSQL's
    ``idle_in_transaction_session_timeout`` ends its session) answers ``Held``, retried by the
    client, instead of queueing behind a session that may never move."""
    try:
        async with session.begin():
            await session.execute(text(f"SET LOCAL lock_timeout = {TAKEOVER_LOCK_TIMEOUT_MS}"))
            epoch = (
                await session.execute(
                    _ACQUIRE, {"game_id": game_id, "owner": owner, "seconds": float(seconds)}
                )
            ).scalar_one_or_none()
            if epoch is not None:
                return Lease(game_id, owner, int(epoch), seconds)
            row = (await session.execute(_HOLDER, {"game_id": game_id})).one_or_none()
    except IntegrityError:
        return None
    except DBAPIError as exc:
        if not _lock_not_available(exc):
            raise
        log.info(
            "lease row locked by its owner's transaction; retry",
            extra={"event": "lease_row_locked", "game": game_id},
        )
        async with session.begin():  # a plain read waits for no lock
            row = (await session.execute(_HOLDER, {"game_id": game_id})).one_or_none()
        if row is None:
            return Held("", 1)
        return Held(str(row.owner), 1, int(row.epoch))
    if row is None:  # released and removed meanwhile: try again later
        return Held("", 1)
    return Held(str(row.owner), max(1, math.ceil(float(row.remaining or 0))), int(row.epoch))


def _interval(seconds: float) -> Any:
    return func.now() + timedelta(seconds=seconds)


def renewal(owner: str, leases: Sequence[Lease]) -> Work:
    """A writer work that extends these leases and returns the game ids whose lease is still
    ours (the others are lost).

    It goes through the writer, on its connection, in order with the writes and their fences.
    On a connection of its own, a renewal of every room's row and a group commit's fence of a
    few of the same rows lock them in different orders, and the two transactions can deadlock:
    PostgreSQL breaks a deadlock only after ``deadlock_timeout`` (1 s by default), and the
    moves of that group commit wait that long."""
    pairs = sorted({(lease.game_id, lease.epoch) for lease in leases})
    seconds = max((lease.seconds for lease in leases), default=0.0)

    def work(session: Session) -> set[str]:
        if not pairs:
            return set()
        rows = session.execute(
            update(RoomLease)
            .where(RoomLease.owner == owner, tuple_(RoomLease.game_id, RoomLease.epoch).in_(pairs))
            .values(expires_at=_interval(seconds))
            .returning(RoomLease.game_id),
            execution_options={"synchronize_session": False},
        )
        return {str(game_id) for (game_id,) in rows}

    return work


async def release(session: AsyncSession, owner: str, leases: Sequence[Lease]) -> None:
    """Give these leases up: expired now, so that any process may take them (epoch + 1)."""
    if not leases:
        return
    async with session.begin():
        await session.execute(
            update(RoomLease)
            .where(
                RoomLease.owner == owner,
                tuple_(RoomLease.game_id, RoomLease.epoch).in_(
                    [(lease.game_id, lease.epoch) for lease in leases]
                ),
            )
            .values(expires_at=func.now() - timedelta(seconds=1)),
            execution_options={"synchronize_session": False},
        )


def check(session: Session, leases: Sequence[Lease]) -> None:
    """In a write's transaction: the fence. Every lease must still be ours, at its epoch (and
    is renewed by the same UPDATE); else ``LeaseLost`` and the transaction rolls back."""
    wanted = {(lease.game_id, lease.epoch) for lease in leases}
    owners = {lease.owner for lease in leases}
    assert len(owners) == 1, "one process, one owner"
    rows = session.execute(
        update(RoomLease)
        .where(
            RoomLease.owner == next(iter(owners)),
            tuple_(RoomLease.game_id, RoomLease.epoch).in_(sorted(wanted)),
        )
        .values(expires_at=_interval(max(lease.seconds for lease in leases)))
        .returning(RoomLease.game_id),
        execution_options={"synchronize_session": False},
    )
    kept = {str(game_id) for (game_id,) in rows}
    lost = {game_id for game_id, _ in wanted} - kept
    if lost:
        raise LeaseLost(lost)


@dataclass(frozen=True)
class Fenced:
    """A room's write, committed only while the room's lease is still this process's."""

    lease: Lease
    work: Work

    def __call__(self, session: Session) -> Any:
        return Fenced.write_many(session, [self])[0]

    @staticmethod
    def write_many(session: Session, items: Sequence[Fenced]) -> list[Any]:
        from app.persistence.writer import run_works

        check(session, [item.lease for item in items])
        freeze.point()  # tests only: may stop here, holding the lease rows' locks
        return run_works(session, [item.work for item in items])


class Liveness:
    """This process's liveness lock (see the module's doc): a session-level advisory lock
    ``(LIVENESS_NAMESPACE, hashtext(node_id))`` on a connection of its own, taken again if that
    connection drops. Two node ids with the same hash only make a dead owner look alive: its
    leases are then taken when they expire, as without the lock."""

    def __init__(self, dsn: str, node_id: str, *, retry_seconds: float = 1.0) -> None:
        self.dsn, self.node_id, self.retry_seconds = dsn, node_id, retry_seconds
        self.held = False
        self._conn: Any = None
        self._task: Any = None

    async def start(self) -> None:
        await self._take()
        self._task = asyncio.create_task(self._watch(), name="atout-liveness")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        conn, self._conn, self.held = self._conn, None, False
        if conn is not None and not conn.is_closed():
            await conn.close()  # the lock goes with the session

    async def _take(self) -> None:
        import asyncpg

        try:
            conn = await asyncpg.connect(
                self.dsn,
                timeout=10,
                # a lost machine's lock ends when PostgreSQL notices the peer is gone
                server_settings={
                    "tcp_keepalives_idle": "10",
                    "tcp_keepalives_interval": "5",
                    "tcp_keepalives_count": "3",
                },
            )
            self.held = bool(
                await conn.fetchval(
                    "SELECT pg_try_advisory_lock($1, hashtext($2))",
                    LIVENESS_NAMESPACE,
                    self.node_id,
                )
            )
            self._conn = conn
        except Exception:
            self.held = False
            log.warning("no liveness lock yet; retrying", exc_info=True)
            return
        if not self.held:
            log.warning(
                "another live process holds this node's liveness lock",
                extra={"event": "liveness_busy", "node": self.node_id},
            )

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.retry_seconds)
            conn = self._conn
            if conn is not None and not conn.is_closed() and self.held:
                continue
            if conn is not None and not conn.is_closed():
                await conn.close()
            await self._take()
