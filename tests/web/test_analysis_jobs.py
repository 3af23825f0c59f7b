"""``Analyses`` (app/web/analysis.py) in-process: one deal of a game at a time, the progress of
each job, the stored result, and a failure that is reported once and then tried again."""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from app.bots.analysis import ANALYSIS_VERSION, analyse_chunk
from app.persistence.analysis import load_analysis
from app.persistence.db import create_sessionmaker, open_database
from app.persistence.models import Game
from app.persistence.writer import CommitQueue
from app.players.analyses import Analyses
from app.settings import Settings

RECORD = json.loads((Path(__file__).resolve().parents[1] / "data" / "bela2.json").read_text())
GAME = "analysisjobs1"


class Gate:
    """A chunk function that waits for the test's go, and counts who runs at once."""

    def __init__(self, fail: bool = False) -> None:
        self.go = threading.Event()
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.calls: list[int] = []  # the deal of each chunk
        self.fail = fail

    def __call__(self, record: Any, deal: int, *args: Any) -> dict[str, Any]:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
            self.calls.append(deal)
        try:
            assert self.go.wait(30)
            if self.fail:
                raise RuntimeError("the solver broke")
            return analyse_chunk(record, deal, *args)
        finally:
            with self.lock:
                self.running -= 1


async def wait_for(predicate: Any, seconds: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not predicate():
        assert loop.time() < deadline
        await asyncio.sleep(0.01)


async def setup(url: str, gate: Gate) -> tuple[Any, CommitQueue, Analyses, ThreadPoolExecutor]:
    engine = await open_database(url)
    writer = CommitQueue(engine)
    await writer.start()

    def add_game(session: Any) -> None:
        session.add(
            Game(
                id=GAME,
                variant="bela",
                players=2,
                options={},
                mode="local",
                status="finished",
                spectators=True,
            )
        )

    await writer.submit(add_game)
    pool = ThreadPoolExecutor(max_workers=4)
    settings = Settings(analysis_worlds=1, analysis_jobs=4)
    analyses = Analyses(settings, pool, create_sessionmaker(engine), writer, chunk=gate)
    return engine, writer, analyses, pool


async def test_one_deal_of_a_game_at_a_time_then_stored(migrated_database_url: str) -> None:
    gate = Gate()
    engine, writer, analyses, pool = await setup(migrated_database_url, gate)
    try:
        first = analyses.start(GAME, 0, RECORD, [0, 1])
        second = analyses.start(GAME, 1, RECORD, [0, 1])
        assert analyses.start(GAME, 0, RECORD, [0, 1]) is first  # asked again: the same job
        await wait_for(lambda: gate.running == 1)
        assert (first.status, second.status) == ("running", "queued")
        assert first.progress() == {"status": "running", "deal": 0, "done": 0, "total": first.total}
        assert first.total > 0 and second.total == 0
        gate.go.set()
        await wait_for(lambda: not analyses.jobs)
        assert gate.most == 1  # never two chunks of the same game at once
        # deal 0's chunks all ran before deal 1's
        assert gate.calls == sorted(gate.calls) and set(gate.calls) == {0, 1}
        for deal in (0, 1):
            data = await analyses.stored(GAME, deal)
            assert data is not None and data["deal"]["deal"] == deal
            assert data["seats"] == [0, 1] and data["worlds"] == 1
        async with create_sessionmaker(engine)() as session:
            version, _ = await session.run_sync(lambda s: load_analysis(s, GAME, 0))
        assert version == ANALYSIS_VERSION
    finally:
        await analyses.close()
        await writer.close()
        pool.shutdown()
        await engine.dispose()


async def test_a_failed_analysis_is_reported_and_nothing_is_stored(
    migrated_database_url: str,
) -> None:
    gate = Gate(fail=True)
    gate.go.set()
    engine, writer, analyses, pool = await setup(migrated_database_url, gate)
    try:
        analyses.start(GAME, 0, RECORD, [0])
        await wait_for(lambda: not analyses.jobs)
        assert "the solver broke" in analyses.failed[(GAME, 0)]
        assert await analyses.stored(GAME, 0) is None
    finally:
        await analyses.close()
        await writer.close()
        pool.shutdown()
        await engine.dispose()
