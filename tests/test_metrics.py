"""app/metrics.py: the histograms read by /api/stats and `atout bench load`; app/loop.py: the
server's garbage collection schedule."""

from __future__ import annotations

import asyncio
import gc
import math
import weakref

from app import loop, metrics
from app.metrics import BOUNDS_MS, REGISTRY, Timing, quantile_ms


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
    monkeypatch.setattr(loop, "FREEZE_SECONDS", 0.01)
    thresholds = gc.get_threshold()

    async def run() -> tuple[int, tuple[int, int, int]]:
        stop = asyncio.Event()
        task = asyncio.create_task(loop.collect_garbage(stop))
        for _ in range(1000):  # the schedule has started once all that is alive is frozen
            if gc.get_freeze_count():
                break
            await asyncio.sleep(0.01)
        before = gc.get_freeze_count()
        assert before > 0, "the schedule never started"
        alive = [[i] for i in range(1000)]  # made after the start: frozen by the next tick
        for _ in range(1000):  # a tick every 10 ms here
            if gc.get_freeze_count() >= before + 1000:
                break
            await asyncio.sleep(0.01)
        frozen, during = gc.get_freeze_count() - before, gc.get_threshold()
        stop.set()
        await task
        del alive
        return frozen, during

    frozen, during = asyncio.run(run())
    assert frozen >= 1000 and during[0] == loop.YOUNG_THRESHOLD
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == thresholds


class Cycle:
    other: object = None


def _cycle() -> tuple[list[Cycle], weakref.ref[Cycle]]:
    """Two objects that refer to each other (refcounting alone never frees them), held by a
    list; and a weak reference to one of them."""
    a, b = Cycle(), Cycle()
    a.other, b.other = b, a
    return [a, b], weakref.ref(a)


def test_a_cycle_that_dies_young_is_collected_at_the_next_tick(monkeypatch):
    monkeypatch.setattr(loop, "FREEZE_SECONDS", 0.01)
    monkeypatch.setattr(loop, "FULL_COLLECTION_SECONDS", 0.0)  # never a full collection

    async def run() -> bool:
        stop = asyncio.Event()
        task = asyncio.create_task(loop.collect_garbage(stop))
        await asyncio.sleep(0.005)
        holder, ref = _cycle()
        del holder  # garbage before any tick froze it
        for _ in range(1000):  # a tick (every 10 ms here) collects what is not frozen
            if ref() is None:
                break
            await asyncio.sleep(0.01)
        gone = ref() is None
        stop.set()
        await task
        return gone

    assert asyncio.run(run())


def test_a_frozen_cycle_waits_for_a_full_collection(monkeypatch):
    monkeypatch.setattr(loop, "FREEZE_SECONDS", 0.01)
    monkeypatch.setattr(loop, "_rss_bytes", lambda: None)  # memory unknown: always collect
    monkeypatch.setattr(loop, "FULL_COLLECTION_SECONDS", 0.0)  # the default: never

    async def run() -> tuple[bool, bool]:
        stop = asyncio.Event()
        task = asyncio.create_task(loop.collect_garbage(stop))
        await asyncio.sleep(0.005)
        holder, ref = _cycle()
        await asyncio.sleep(0.05)  # alive at a tick: frozen
        del holder  # garbage now, among frozen objects: no tick's collection sees it
        await asyncio.sleep(0.05)
        kept = ref() is not None
        monkeypatch.setattr(loop, "FULL_COLLECTION_SECONDS", 1e-9)
        await asyncio.sleep(0.05)  # the next tick unfreezes and collects everything
        stop.set()
        await task
        return kept, ref() is None

    assert asyncio.run(run()) == (True, True)


def test_a_full_collection_waits_for_the_memory_to_grow(monkeypatch):
    """Every full interval, the frozen objects are collected only if the process's memory grew
    by FULL_COLLECTION_GROWTH since the last full collection."""
    monkeypatch.setattr(loop, "FREEZE_SECONDS", 0.01)
    monkeypatch.setattr(loop, "FULL_COLLECTION_SECONDS", 1e-9)  # at every tick
    rss = [100 * 2**20]
    monkeypatch.setattr(loop, "_rss_bytes", lambda: rss[0])

    def full() -> float:
        return REGISTRY.get_sample_value("atout_gc_full_collections_total") or 0.0

    async def run() -> tuple[float, float]:
        stop = asyncio.Event()
        task = asyncio.create_task(loop.collect_garbage(stop))
        await asyncio.sleep(0.02)
        start = full()
        try:
            await asyncio.sleep(0.1)  # several intervals, no growth
            flat = full() - start
            rss[0] = 130 * 2**20  # grew by 30%
            await asyncio.sleep(0.05)
            grown = full() - start
        finally:
            stop.set()
            await task
        return flat, grown

    flat, grown = asyncio.run(run())
    assert flat == 0 and grown == 1


def test_python_blocks_count_live_objects_frozen_or_not():
    enabled = gc.isenabled()
    gc.disable()  # no collection in between: what is freed, is freed by reference counting
    try:
        before = metrics.python_blocks()
        alive = [[i] for i in range(5000)]  # 5,000 lists and their items
        made = metrics.python_blocks()
        assert made - before >= 5000
        gc.freeze()
        assert metrics.python_blocks() >= made - 50  # frozen objects still count
        del alive
        assert metrics.python_blocks() <= made - 4950
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()
