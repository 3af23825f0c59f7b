"""Process counters for ``/api/stats`` (localhost only) and ``atout bench load``.

* ``ACTIONS``: how long an action takes in the server, from its frame being read to its
  acknowledgement being queued (the room's turn, the engine, the commit): a histogram with
  fixed bounds, so two readings can be subtracted to get a window's distribution.
* ``COMMITS``: how long each transaction of the group-commit writer takes.
* ``GC``: the garbage collector's pauses (count, total, longest, histogram), from
  ``gc.callbacks``.

``collect_garbage()`` (run by ``atout serve``) schedules the collector itself. With thousands of
sockets, every young collection had to walk the objects of every pending ``await`` (each socket's
read and write chain: about 80,000 objects at 10,000 sockets), so each one paused the server
40-60 ms, several times a second, and a full collection paused it for most of a second. Garbage
in steady play is acyclic (refcounting frees it; young collections found nothing to collect), so
four times a second everything alive is frozen instead (``gc.freeze()``: never walked again,
still freed by refcounting when unused), young collections then only see what the last quarter
second made, and every ``FULL_COLLECTION_SECONDS`` (``ATOUT_GC_FULL_SECONDS``), if the process's
memory grew by a quarter since the last full collection, the frozen objects are unfrozen and
collected once, to reclaim the rare cycles. A full collection is what the schedule avoids: at
10,000 sockets it paused the server for about 1.5 s (measured: docs/benchmarks.md).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import gc
import os
import time
from typing import Any

BOUNDS_MS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
FREEZE_SECONDS = 0.25  # a busy second at 2,500 tables makes 8,000-19,000 net new objects
YOUNG_THRESHOLD = 20_000  # net new objects before a young collection
FULL_COLLECTION_SECONDS = 900.0
FULL_COLLECTION_GROWTH = 1.25  # ... and only if the memory grew by a quarter since the last one


class Histogram:
    """Counts per bucket: ``counts[i]`` holds values <= BOUNDS_MS[i] (the last: above all)."""

    def __init__(self) -> None:
        self.counts = [0] * (len(BOUNDS_MS) + 1)
        self.total_s = 0.0
        self.max_s = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(BOUNDS_MS, seconds * 1000.0)] += 1
        self.total_s += seconds
        if seconds > self.max_s:
            self.max_s = seconds

    def as_dict(self) -> dict[str, Any]:
        return {
            "bounds_ms": list(BOUNDS_MS),
            "counts": list(self.counts),
            "total_s": round(self.total_s, 4),
            "max_ms": round(self.max_s * 1000.0, 2),
        }


def quantile_ms(before: dict[str, Any] | None, after: dict[str, Any], q: float) -> float | None:
    """The bucket bound under which a fraction ``q`` of the values observed between two
    ``as_dict()`` readings fall (None: nothing observed; inf: above the last bound)."""
    counts = list(after["counts"])
    if before is not None:
        counts = [a - b for a, b in zip(counts, before["counts"], strict=True)]
    total = sum(counts)
    if total == 0:
        return None
    seen = 0
    for i, count in enumerate(counts):
        seen += count
        if seen >= q * total:
            return float(BOUNDS_MS[i]) if i < len(BOUNDS_MS) else float("inf")
    return float("inf")


ACTIONS = Histogram()
COMMITS = Histogram()  # each transaction of the group-commit writer, statements to commit
GC = Histogram()
_gc_started = [0.0]


def _gc_callback(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _gc_started[0] = time.perf_counter()
    else:
        GC.observe(time.perf_counter() - _gc_started[0])


def _rss_bytes() -> int | None:
    """This process's resident memory (Linux), or None where it cannot be read."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def time_gc() -> None:
    """Time every collection of this process (``GC``)."""
    if _gc_callback not in gc.callbacks:
        gc.callbacks.append(_gc_callback)


async def collect_garbage(stop: asyncio.Event, full_seconds: float | None = None) -> None:
    """The server's garbage collection schedule (see the module's doc): freeze every
    ``FREEZE_SECONDS``, a full collection every ``full_seconds`` (default
    ``FULL_COLLECTION_SECONDS``)."""
    gc.collect()
    gc.freeze()
    thresholds = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, thresholds[1], thresholds[2])
    last_full = time.monotonic()
    baseline = _rss_bytes()
    try:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):  # a tick, unless the server stops
                await asyncio.wait_for(stop.wait(), FREEZE_SECONDS)
            every = FULL_COLLECTION_SECONDS if full_seconds is None else full_seconds
            if time.monotonic() - last_full >= every:
                last_full = time.monotonic()
                rss = _rss_bytes()
                if rss is None or baseline is None or rss > baseline * FULL_COLLECTION_GROWTH:
                    gc.unfreeze()
                    gc.collect()
                    baseline = _rss_bytes()
            gc.freeze()
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def snapshot() -> dict[str, Any]:
    return {"actions": ACTIONS.as_dict(), "commits": COMMITS.as_dict(), "gc": GC.as_dict()}
