"""``atout bench tournament --live``: a live duplicate Swiss event run by the real runtime
(app/tournaments/live.py) in this process, on a temporary SQLite database.

N pairs register alone (the house player partners each). Seven registered players in eight
play at once (a seeded random legal move as soon as it is their turn, through the rooms'
command path, as a socket's action would); the eighth never comes: the stand-in plays his
seat when its clock (``--clock`` seconds, short) runs out, and his pair is withdrawn after
round 1. The house partners and house pairs are bots (``--level``), in worker processes as
on a server. The event runs R rounds of B boards in lockstep. Reported:

* the time to pair each round (``swiss.pair_round`` as the runtime calls it, its datum table
  aside);
* the **deal gap**: from the moment the last table of a round finishes board k (its last
  action committed) to board k+1 dealt at every table (its games written in one transaction
  and their rooms loaded), for every board after a round's first;
* the **move** time: each action's ``Room.execute`` (checked, applied, committed through the
  group-commit writer, published), p50, p99 and the worst;
* the **event pages**: every registered player who came keeps the event's page open (a
  listener of ``/ws/tournaments/{id}``); each change of the event (a board dealt or finished, a
  round paired) is read once and sent to every page: the time of that update, p50, p99 and the
  worst, and the bytes sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import multiprocessing
import random
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from app.engine import current_player, legal_actions
from app.persistence import repository as repo
from app.persistence.db import create_engine_from_url, create_sessionmaker
from app.persistence.migrate import upgrade_head
from app.persistence.writer import CommitQueue
from app.rooms import RoomManager
from app.rooms.room import Act, Room
from app.settings import Settings
from app.tournaments import swiss
from app.tournaments.live import SwissSpec
from app.tournaments.service import Tournaments


async def _players(rooms: RoomManager, present: set[int], seed: int) -> None:
    """The registered players who came: each plays a random legal move on its turn."""
    rng = random.Random(seed)
    while True:
        for room in list(rooms.rooms.values()):
            state = room.state
            if room.closed or state is None or room.lock.locked() or state.claimer >= 0:
                continue
            seat = current_player(state)
            if seat is None or room.seats[seat].identity_id not in present:
                continue
            version = room.version
            action = rng.choice(legal_actions(state))
            with contextlib.suppress(Exception):
                await room.post(Act(seat, action, version), functools.partial(_at, room, version))
        await asyncio.sleep(0.005)


class _Page:
    """An open event page: it counts what it is sent."""

    def __init__(self, identity_id: int) -> None:
        self.identity_id = identity_id
        self.messages = 0
        self.bytes = 0

    def send(self, text: str) -> None:
        self.messages += 1
        self.bytes += len(text.encode())


def _at(room: Room, version: int) -> bool:
    return room.version == version


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _run(
    pairs: int, rounds: int, boards: int, clock: float, level: str, workers: int, folder: Path
) -> dict[str, Any]:
    url = f"sqlite+aiosqlite:///{folder / 'bench.db'}"
    await asyncio.to_thread(upgrade_head, url)
    settings = Settings(
        database_url=url,
        bot_delay_ms=0,
        clock_seconds=clock,
        tournament_live_seconds=0.5,
        test_seed=1,
    )
    engine = create_engine_from_url(url)
    writer = CommitQueue(engine)
    await writer.start()
    executor = ProcessPoolExecutor(
        max_workers=workers, mp_context=multiprocessing.get_context("spawn")
    )
    rooms = RoomManager(settings, create_sessionmaker(engine), writer, executor)
    await rooms.start()
    service = Tournaments(settings, rooms.sessionmaker, writer, rooms)
    rooms.services.board_reader = service.may_read
    rooms.services.board_over = service.live.board_over

    moves: list[float] = []
    execute = Room.execute

    async def timed(self: Room, *args: Any, **kwargs: Any) -> None:
        started = time.perf_counter()
        try:
            await execute(self, *args, **kwargs)
        finally:
            moves.append(time.perf_counter() - started)

    pair_times: list[float] = []
    pair_round = swiss.pair_round

    def timed_pairing(*args: Any, **kwargs: Any) -> list[swiss.Pairing]:
        started = time.perf_counter()
        try:
            return pair_round(*args, **kwargs)
        finally:
            pair_times.append(time.perf_counter() - started)

    updates: list[float] = []
    changed = service.live.changed

    async def timed_changed(event_id: str) -> None:
        started = time.perf_counter()
        try:
            await changed(event_id)
        finally:
            updates.append(time.perf_counter() - started)

    Room.execute = timed  # type: ignore[method-assign]
    swiss.pair_round = timed_pairing
    service.live.changed = timed_changed  # type: ignore[method-assign]
    started = time.perf_counter()
    try:
        ids = [
            await writer.submit(repo.insert_identity(repo.hash_token(f"bench-{n}")))
            for n in range(pairs)
        ]
        spec = SwissSpec(
            variant="classic",
            options={},
            rounds=rounds,
            boards=boards,
            clock=15,
            starts_at=datetime.now(UTC) + timedelta(seconds=2 + pairs / 20),
            level=level,
        )
        event_id = await service.live.create(spec)
        for n, identity in enumerate(ids):
            await service.live.register(event_id, identity, f"P{n + 1}", "house")
        present = {identity for n, identity in enumerate(ids) if n % 8 != 7}
        pages = [_Page(identity) for identity in sorted(present)]
        for page in pages:
            service.live.attach(event_id, page)
        players = asyncio.create_task(_players(rooms, present, 1))
        await service.start()
        while True:
            data = await service.live._read(event_id)
            if data.event.status == "finished":
                break
            await asyncio.sleep(0.5)
        gaps = list(service.live.deal_gaps)
        players.cancel()
        withdrawn = sum(p.withdrawn_round is not None for p in data.pairs.values())
    finally:
        Room.execute = execute  # type: ignore[method-assign]
        swiss.pair_round = pair_round
        await service.stop()
        await rooms.stop()
        await writer.close()
        await engine.dispose()
        executor.shutdown(cancel_futures=True)
    return {
        "pairs": pairs,
        "rounds": rounds,
        "boards": boards,
        "tables": (pairs + 1) // 2,
        "level": level,
        "clock_s": clock,
        "workers": workers,
        "seconds": round(time.perf_counter() - started, 1),
        "absent_pairs": pairs - len(present),
        "withdrawn": withdrawn,
        "pair_ms": [round(t * 1000, 1) for t in pair_times],
        "deal_gap_ms": {
            "count": len(gaps),
            "median": round(statistics.median(gaps) * 1000, 1) if gaps else None,
            "max": round(max(gaps) * 1000, 1) if gaps else None,
        },
        "pages": {
            "open": len(pages),
            "updates": len(updates),
            "p50_ms": round(_percentile(updates, 0.50) * 1000, 1),
            "p99_ms": round(_percentile(updates, 0.99) * 1000, 1),
            "max_ms": round(max(updates) * 1000, 1) if updates else None,
            "messages": sum(p.messages for p in pages),
            "kb": round(sum(p.bytes for p in pages) / 1024),
        },
        "move_ms": {
            "count": len(moves),
            "p50": round(_percentile(moves, 0.50) * 1000, 1),
            "p99": round(_percentile(moves, 0.99) * 1000, 1),
            "max": round(max(moves) * 1000, 1) if moves else None,
        },
    }


def run_live_bench(
    pairs: int, rounds: int, boards: int, clock: float, level: str, workers: int
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="atout-bench-live-") as folder:
        return asyncio.run(_run(pairs, rounds, boards, clock, level, workers, Path(folder)))


def print_live(r: dict[str, Any]) -> None:
    print(
        f"live event: {r['pairs']} pairs at {r['tables']} tables, {r['rounds']} rounds of "
        f"{r['boards']} boards, house level {r['level']}, stand-in clock {r['clock_s']} s, "
        f"{r['workers']} bot workers: {r['seconds']} s"
    )
    print(f"pairs absent (the stand-in plays): {r['absent_pairs']}, withdrawn: {r['withdrawn']}")
    print(f"time to pair each round: {', '.join(f'{t} ms' for t in r['pair_ms'])}")
    gap = r["deal_gap_ms"]
    print(
        f"last table's end of board k to board k+1 dealt everywhere: median {gap['median']} ms, "
        f"worst {gap['max']} ms ({gap['count']} boards)"
    )
    pages = r["pages"]
    print(
        f"event pages: {pages['open']} open, {pages['updates']} updates to all of them: "
        f"p50 {pages['p50_ms']} ms, p99 {pages['p99_ms']} ms, worst {pages['max_ms']} ms; "
        f"{pages['messages']} messages, {pages['kb']} KB"
    )
    move = r["move_ms"]
    print(
        f"move (Room.execute: applied, committed, published): p50 {move['p50']} ms, "
        f"p99 {move['p99']} ms, worst {move['max']} ms ({move['count']} moves)"
    )
