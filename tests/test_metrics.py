"""app/metrics.py: the histograms read by /api/stats and `atout bench load`, and the server's
garbage collection schedule."""

from __future__ import annotations

import asyncio
import gc
import math
import weakref

from app import metrics
from app.metrics import BOUNDS_MS, Timing, quantile_ms


def test_a_histogram_counts_each_value_in_its_bucket():
    h = Timing("atout_test_buckets", "test")
    for ms in (0.5, 1.0, 1.5, 7, 49.9, 50, 51, 10_000):
        h.observe(ms / 1000)
    d = h.as_dict()
    assert d["bounds_ms"] == list(BOUNDS_MS)
    by_bound = dict(zip([*BOUNDS_MS, math.inf], d["counts"], strict=True))
    assert by_bound[1] == 2 and by_bound[2] == 1 and by_bound[10] == 1
    assert by_bound[50] == 2 and by_bound[100] == 1 and by_bound[math.inf] == 1
    assert sum(d["counts"]) == 8 and d["max_ms"] == 10_000.0


def test_quantiles_of_a_window_subtract_the_earlier_reading():
    h = Timing("atout_test_quantiles", "test")
    for _ in range(99):
        h.observe(0.004)  # <= 5 ms
    before = h.as_dict()
    assert quantile_ms(None, before, 0.99) == 5.0
    for _ in range(98):
        h.observe(0.0005)  # <= 1 ms
    for _ in range(2):
        h.observe(0.3)  # <= 500 ms
    after = h.as_dict()
    # the window holds 98 values <= 1 ms and 2 <= 500 ms: the old 5 ms ones do not count
    assert quantile_ms(before, after, 0.50) == 1.0
    assert quantile_ms(before, after, 0.99) == 500.0
    assert quantile_ms(after, after, 0.5) is None


def test_the_gc_schedule_freezes_what_is_alive_and_restores_the_collector(monkeypatch):
    monkeypatch.setattr(metrics, "FREEZE_SECONDS", 0.01)
    thresholds = gc.get_threshold()

    async def run() -> tuple[int, tuple[int, int, int]]:
        stop = asyncio.Event()
        task = asyncio.create_task(metrics.collect_garbage(stop))
        await asyncio.sleep(0.05)
        alive = [[i] for i in range(1000)]  # made after the start: frozen by the next tick
        await asyncio.sleep(0.05)
        frozen, during = gc.get_freeze_count(), gc.get_threshold()
        stop.set()
        await task
        del alive
        return frozen, during

    frozen, during = asyncio.run(run())
    assert frozen > 1000 and during[0] == metrics.YOUNG_THRESHOLD
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == thresholds


def test_the_gc_schedule_collects_everything_once_per_full_interval(monkeypatch):
    monkeypatch.setattr(metrics, "FREEZE_SECONDS", 0.01)
    monkeypatch.setattr(metrics, "_rss_bytes", lambda: None)  # memory unknown: always collect
    monkeypatch.setattr(metrics, "FULL_COLLECTION_SECONDS", 3600.0)

    class Cycle:
        other: object = None

    async def run() -> tuple[bool, bool]:
        stop = asyncio.Event()
        task = asyncio.create_task(metrics.collect_garbage(stop))
        await asyncio.sleep(0.005)
        a, b = Cycle(), Cycle()
        a.other, b.other = b, a  # a cycle: refcounting alone never frees it
        ref = weakref.ref(a)
        del a, b
        await asyncio.sleep(0.05)  # frozen with the rest: no young collection sees it
        kept = ref() is not None
        monkeypatch.setattr(metrics, "FULL_COLLECTION_SECONDS", 0.0)
        await asyncio.sleep(0.05)  # the next tick runs a full collection
        stop.set()
        await task
        return kept, ref() is None

    assert asyncio.run(run()) == (True, True)


def test_a_full_collection_waits_for_the_memory_to_grow(monkeypatch):
    """Every full interval, the frozen objects are collected only if the process's memory grew
    by FULL_COLLECTION_GROWTH since the last full collection."""
    monkeypatch.setattr(metrics, "FREEZE_SECONDS", 0.01)
    monkeypatch.setattr(metrics, "FULL_COLLECTION_SECONDS", 0.0)
    rss = [100 * 2**20]
    monkeypatch.setattr(metrics, "_rss_bytes", lambda: rss[0])
    full: list[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "stop" and info["generation"] == 2:
            full.append(1)

    async def run() -> tuple[int, int]:
        stop = asyncio.Event()
        task = asyncio.create_task(metrics.collect_garbage(stop))
        await asyncio.sleep(0.02)
        gc.callbacks.append(count)
        try:
            await asyncio.sleep(0.1)  # several intervals, no growth
            flat = len(full)
            rss[0] = 130 * 2**20  # grew by 30%
            await asyncio.sleep(0.05)
            grown = len(full)
        finally:
            gc.callbacks.remove(count)
            stop.set()
            await task
        return flat, grown

    flat, grown = asyncio.run(run())
    assert flat == 0 and grown == 1


def test_gc_tracked_counts_frozen_objects_and_the_generations():
    enabled = gc.isenabled()
    gc.disable()  # no collection in between: the counts are exact
    try:
        before = metrics.gc_tracked(0)
        alive = [[i] for i in range(5000)]  # 5,001 tracked containers
        made = metrics.gc_tracked(0)
        assert made - before >= 5000
        gc.freeze()
        assert abs(metrics.gc_tracked(0) - made) <= 5 and gc.get_freeze_count() >= 5000
        gc.unfreeze()
        del alive
        assert metrics.gc_tracked(0) <= made - 4995
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()
