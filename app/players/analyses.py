"""The analyses of finished deals being computed by this server (docs/bots.md, "Analysis of
finished deals"), asked for by ``GET /api/games/{id}/analysis`` (``app.web.analysis``).

The first request for a deal starts its analysis; the result is stored (table ``analysis``) so
that no deal is analysed twice, across restarts too. The work runs in the bots' worker pool,
one short chunk after another (``DealAnalysis``), so that a computer player's move never waits
long behind it; one deal of a game at a time, and at most ``analysis_jobs`` deals of the whole
server at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.bots.analysis import ANALYSIS_VERSION, COSTLY, DealAnalysis, Options, analyse_chunk
from app.persistence.analysis import load_analysis, save_analysis
from app.persistence.writer import CommitQueue
from app.settings import Settings

log = logging.getLogger("atout.analysis")

CHUNK_SECONDS = 1.0  # the CPU one step of an analysis spends in the pool, at most about


@dataclass(slots=True)
class Job:
    """One deal's analysis while it is computed."""

    game_id: str
    deal: int
    status: str = "queued"  # queued | running
    done: int = 0
    total: int = 0
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    def progress(self) -> dict[str, Any]:
        return {"status": self.status, "deal": self.deal, "done": self.done, "total": self.total}


class Analyses:
    """The deal analyses being computed by this server, and the rule of one at a time."""

    def __init__(
        self,
        settings: Settings,
        executor: Executor,
        sessionmaker: async_sessionmaker[AsyncSession],
        writer: CommitQueue,
        chunk: Callable[..., dict[str, Any]] = analyse_chunk,
    ) -> None:
        self.options = Options(
            worlds=settings.analysis_worlds,
            bid_worlds=settings.analysis_worlds,
            cpu_seconds=settings.analysis_cpu_seconds,
            chunk_seconds=CHUNK_SECONDS,
        )
        self.executor = executor
        self.sessionmaker = sessionmaker
        self.writer = writer
        self.chunk = chunk
        self.jobs: dict[tuple[str, int], Job] = {}
        self.games: dict[str, asyncio.Lock] = {}
        self.slots = asyncio.Semaphore(settings.analysis_jobs)
        self.failed: dict[tuple[str, int], str] = {}

    async def stored(self, game_id: str, deal: int) -> dict[str, Any] | None:
        async with self.sessionmaker() as session:
            row = await session.run_sync(lambda s: load_analysis(s, game_id, deal))
        if row is None or row[0] != ANALYSIS_VERSION:
            return None
        return row[1]

    def job(self, game_id: str, deal: int) -> Job | None:
        return self.jobs.get((game_id, deal))

    def start(self, game_id: str, deal: int, record: dict[str, Any], seats: list[int]) -> Job:
        key = (game_id, deal)
        job = self.jobs.get(key)
        if job is None:
            job = self.jobs[key] = Job(game_id, deal)
            job.task = asyncio.create_task(
                self._run(job, record, seats), name=f"analysis-{game_id}-{deal}"
            )
        return job

    async def _run(self, job: Job, record: dict[str, Any], seats: list[int]) -> None:
        key = (job.game_id, job.deal)
        lock = self.games.setdefault(job.game_id, asyncio.Lock())
        loop = asyncio.get_running_loop()
        try:
            async with lock, self.slots:
                job.status = "running"
                analysis = await asyncio.to_thread(
                    DealAnalysis, record, job.deal, seats, self.options
                )
                job.total = analysis.total
                while (chunk := analysis.next_chunk()) is not None:
                    analysis.add(await loop.run_in_executor(self.executor, self.chunk, *chunk))
                    job.done = analysis.done
                data = {
                    "variant": record["variant"],
                    "players": record["players"],
                    "worlds": self.options.worlds,
                    "bid_worlds": self.options.bid_worlds,
                    "costly": COSTLY,
                    "seats": seats,
                    "deal": analysis.report(),
                }
                await self.writer.submit(
                    save_analysis(job.game_id, job.deal, ANALYSIS_VERSION, data)
                )
            log.info(
                "deal analysed",
                extra={
                    "event": "deal_analysed",
                    "game_id": job.game_id,
                    "deal": job.deal,
                    "cpu_seconds": data["deal"]["cpu_seconds"],
                },
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.failed[key] = f"{type(exc).__name__}: {exc}"[:300]
            log.error(
                "deal analysis failed",
                extra={
                    "event": "analysis_failed",
                    "game_id": job.game_id,
                    "deal": job.deal,
                    "error": self.failed[key],
                },
            )
        finally:
            self.jobs.pop(key, None)
            if not lock.locked() and not any(k[0] == job.game_id for k in self.jobs):
                self.games.pop(job.game_id, None)

    async def close(self) -> None:
        """Stop every analysis in progress (they start again when asked)."""
        tasks = [j.task for j in self.jobs.values() if j.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
