"""Group commit: every write of the server goes through one queue and one writer task.

    writer = CommitQueue(engine)          # the app's AsyncEngine
    await writer.start()
    identity_id = await writer.submit(repository.insert_identity(token_hash))
    await writer.close()                  # flushes what is queued, then stops

``submit(work)`` returns once ``work``'s changes are committed (or raises what ``work`` or the
commit raised). Works that arrive while a transaction is being written are written together in
the next one: N players acting at the same moment cost one commit (one fsync on SQLite) instead
of N. If a shared transaction fails, its works are retried one by one, each in its own
transaction, so one bad work cannot make another fail.

A work is a plain function ``work(session) -> T`` of a synchronous SQLAlchemy ``Session``. It
may run twice (after a failed shared transaction), so it must create its rows itself and have no
other side effect. Consecutive works of a type with ``write_many(session, works)`` (see
repository.RecordStep) are written together (multi-row INSERTs).

How a batch runs:

* SQLite: in one dedicated thread, on a synchronous connection (the stdlib driver, with the same
  pragmas as the app's connections): the whole transaction (statements and commit) costs the
  event loop one hand-off, instead of one per statement through aiosqlite.
* PostgreSQL: on the writer's own AsyncConnection (asyncpg), through ``AsyncSession.run_sync``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession
from sqlalchemy.orm import Session

from app.metrics import WRITER
from app.persistence import freeze
from app.persistence.db import set_sqlite_pragmas

T = TypeVar("T")
Work = Callable[[Session], Any]

log = logging.getLogger("atout.persistence.writer")


class WriterClosed(RuntimeError):
    """The writer has stopped: the server is shutting down."""


@dataclass
class WriterStats:
    transactions: int = 0
    works: int = 0
    largest_batch: int = 0
    retried: int = 0
    failed: int = 0
    commit_seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "transactions": self.transactions,
            "works": self.works,
            "largest_batch": self.largest_batch,
            "mean_batch": round(self.works / self.transactions, 2) if self.transactions else 0,
            "retried": self.retried,
            "failed": self.failed,
            "mean_commit_ms": (
                round(1000 * self.commit_seconds / self.transactions, 3) if self.transactions else 0
            ),
        }


@dataclass
class _Item:
    work: Work
    future: asyncio.Future[Any] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


def run_works(session: Session, works: list[Work]) -> list[Any]:
    """Run ``works`` in order inside the session's transaction; group ``write_many`` runs."""
    results: list[Any] = []
    i = 0
    while i < len(works):
        kind = type(works[i])
        write_many = getattr(kind, "write_many", None)
        if write_many is None:
            results.append(works[i](session))
            i += 1
            continue
        j = i
        while j < len(works) and type(works[j]) is kind:
            j += 1
        results.extend(write_many(session, works[i:j]))
        i = j
    return results


class CommitQueue:
    """One writer task; ``submit`` queues a work and waits for its commit."""

    def __init__(self, engine: AsyncEngine, *, max_batch: int = 512, group: bool = True) -> None:
        self._engine = engine
        self._max_batch = max_batch if group else 1
        self._queue: asyncio.Queue[_Item | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._sqlite = engine.dialect.name == "sqlite"
        self._sync_engine: Engine | None = None
        self._thread: ThreadPoolExecutor | None = None
        self._session: AsyncSession | None = None
        self._connection: AsyncConnection | None = None
        self.stats = WriterStats()

    async def start(self) -> None:
        if self._task is not None:
            return
        if self._sqlite:
            url = self._engine.url.set(drivername="sqlite")
            self._sync_engine = create_engine(url)
            event.listen(self._sync_engine, "connect", set_sqlite_pragmas)
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="atout-writer")
        self._task = asyncio.create_task(self._run(), name="atout-writer")

    async def submit(self, work: Callable[[Session], T]) -> T:
        if self._closing or self._task is None:
            raise WriterClosed("the server is shutting down")
        item = _Item(work)
        self._queue.put_nowait(item)
        # shield: a cancelled caller must not cancel a write that may already be committed
        result: T = await asyncio.shield(item.future)
        return result

    async def close(self, timeout: float = 10.0) -> None:
        """Write everything already queued, then stop the writer task."""
        if self._task is None:
            return
        self._closing = True
        self._queue.put_nowait(None)
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        except TimeoutError:
            log.error("writer did not flush in time", extra={"event": "writer_flush_timeout"})
            self._task.cancel()
        self._task = None
        await self._reset()
        if self._thread is not None:
            self._thread.shutdown(wait=True)
            self._thread = None
        if self._sync_engine is not None:
            self._sync_engine.dispose()
            self._sync_engine = None

    async def _run(self) -> None:
        stop = False
        while not stop:
            first = await self._queue.get()
            if first is None:
                break
            batch = [first]
            while len(batch) < self._max_batch:
                try:
                    item = self._queue.get_nowait()
                except asyncio.QueueEmpty:
                    break
                if item is None:
                    stop = True
                    break
                batch.append(item)
            await self._write(batch)
        # Anything queued after the stop marker (there should be none) is refused.
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if item is not None and not item.future.done():
                item.future.set_exception(WriterClosed("the server is shutting down"))

    async def _write(self, batch: list[_Item]) -> None:
        started = time.perf_counter()
        try:
            results = await self._transaction([item.work for item in batch])
        except Exception as exc:
            if len(batch) == 1:
                self.stats.failed += 1
                WRITER.failed()
                _settle_error(batch[0], exc)
                return
            # One of them failed: give each its own transaction.
            self.stats.retried += len(batch)
            WRITER.retried(len(batch))
            for item in batch:
                try:
                    (result,) = await self._transaction([item.work])
                except Exception as single_exc:
                    self.stats.failed += 1
                    WRITER.failed()
                    _settle_error(item, single_exc)
                else:
                    self._count(1, started)
                    _settle(item, result)
            return
        self._count(len(batch), started)
        for item, result in zip(batch, results, strict=True):
            _settle(item, result)

    def _count(self, size: int, started: float) -> None:
        elapsed = time.perf_counter() - started
        self.stats.transactions += 1
        self.stats.works += size
        self.stats.largest_batch = max(self.stats.largest_batch, size)
        self.stats.commit_seconds += elapsed
        WRITER.committed(size, elapsed)  # the registry's figures (/metrics, /api/stats)

    async def _transaction(self, works: list[Work]) -> list[Any]:
        if self._sqlite:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._thread, self._sync_transaction, works)
        session = await self._open()
        try:
            async with session.begin():
                results: list[Any] = await session.run_sync(run_works, works)
        except BaseException:
            await self._reset()
            raise
        session.expunge_all()
        return results

    def _sync_transaction(self, works: list[Work]) -> list[Any]:
        """In the writer thread: one transaction, committed before returning."""
        assert self._sync_engine is not None
        with Session(self._sync_engine, expire_on_commit=False) as session:
            with session.begin():
                results = run_works(session, works)
                freeze.point()  # tests only: may stop here, before the commit
                return results

    async def _open(self) -> AsyncSession:
        """PostgreSQL: the writer's own session on its own connection, kept between
        transactions (a pool checkout with its pre-ping for every commit costs more than the
        commit itself under load)."""
        if self._session is None:
            self._connection = await self._engine.connect()
            self._session = AsyncSession(bind=self._connection, expire_on_commit=False)
        return self._session

    async def _reset(self) -> None:
        """Drop the connection after an error; the next transaction opens a new one."""
        session, connection = self._session, self._connection
        self._session = self._connection = None
        for closeable in (session, connection):
            if closeable is not None:
                try:
                    await closeable.close()
                except Exception:
                    log.warning("writer connection did not close cleanly", exc_info=True)


def _settle(item: _Item, result: Any) -> None:
    if not item.future.done():
        item.future.set_result(result)


def _settle_error(item: _Item, exc: BaseException) -> None:
    if not item.future.done():
        item.future.set_exception(exc)
