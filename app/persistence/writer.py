"""Group commit: every write of the server goes through one queue and one writer task.

    writer = CommitQueue(sessionmaker)
    await writer.start()
    game_id = await writer.submit(lambda session: repository.insert_game(session, ...))
    await writer.close()          # flushes what is queued, then stops

``submit(work)`` returns once ``work``'s changes are committed (or raises what ``work`` or the
commit raised). Works that arrive while a transaction is being written are written together in
the next one: N players acting at the same moment cost one commit (one fsync on SQLite) instead
of N. If a shared transaction fails, its works are retried one by one, each in its own
transaction, so one bad work cannot make another fail.

A work is ``async def work(session) -> T``. It may run twice (after a failed shared transaction),
so it must create its rows itself and have no other side effect.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession, async_sessionmaker

T = TypeVar("T")
Work = Callable[[AsyncSession], Awaitable[Any]]

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


class CommitQueue:
    """One writer task; ``submit`` queues a work and waits for its commit."""

    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        *,
        max_batch: int = 512,
        group: bool = True,
    ) -> None:
        self._sessionmaker = sessionmaker
        self._max_batch = max_batch if group else 1
        self._queue: asyncio.Queue[_Item | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._session: AsyncSession | None = None
        self._connection: AsyncConnection | None = None
        self.stats = WriterStats()

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="atout-writer")

    async def submit(self, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
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
                _settle_error(batch[0], exc)
                return
            # One of them failed: give each its own transaction.
            self.stats.retried += len(batch)
            for item in batch:
                try:
                    (result,) = await self._transaction([item.work])
                except Exception as single_exc:
                    self.stats.failed += 1
                    _settle_error(item, single_exc)
                else:
                    self._count(1, started)
                    _settle(item, result)
            return
        self._count(len(batch), started)
        for item, result in zip(batch, results, strict=True):
            _settle(item, result)

    def _count(self, size: int, started: float) -> None:
        self.stats.transactions += 1
        self.stats.works += size
        self.stats.largest_batch = max(self.stats.largest_batch, size)
        self.stats.commit_seconds += time.perf_counter() - started

    async def _open(self) -> AsyncSession:
        """The writer's own session on its own connection, kept between transactions (checking
        a connection out of the pool, with its pre-ping, for every commit costs more than the
        commit itself under load)."""
        if self._session is None:
            engine = self._sessionmaker.kw["bind"]
            self._connection = await engine.connect()
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

    async def _transaction(self, works: list[Work]) -> list[Any]:
        """Run ``works`` in order in one transaction; consecutive works of a type that has
        ``write_many(session, works)`` (repository.RecordStep) are written in one go."""
        session = await self._open()
        try:
            results = await self._run_works(session, works)
        except BaseException:
            await self._reset()
            raise
        session.expunge_all()
        return results

    async def _run_works(self, session: AsyncSession, works: list[Work]) -> list[Any]:
        results: list[Any] = []
        async with session.begin():
            i = 0
            while i < len(works):
                kind = type(works[i])
                write_many = getattr(kind, "write_many", None)
                if write_many is None:
                    results.append(await works[i](session))
                    i += 1
                    continue
                j = i
                while j < len(works) and type(works[j]) is kind:
                    j += 1
                results.extend(await write_many(session, works[i:j]))
                i = j
        return results


def _settle(item: _Item, result: Any) -> None:
    if not item.future.done():
        item.future.set_result(result)


def _settle_error(item: _Item, exc: BaseException) -> None:
    if not item.future.done():
        item.future.set_exception(exc)
