"""The server's metrics: one ``prometheus_client`` registry (``REGISTRY``), served as text at
``GET /metrics`` and as JSON at ``GET /api/stats`` (``stats_view()``, read by
``atout bench load``); and the server's garbage collection schedule.

What the registry holds (every name starts with ``atout_``):

* live gauges, read from the running RoomManager when scraped (``LIVE``): rooms in memory,
  sockets, players' sockets, spectators; rooms loaded and evicted since start; the
  group-commit writer's transactions, writes, retries and failures;
* ``atout_action_seconds``: an action's time in the server, from its frame being read to its
  acknowledgement being queued (the room's turn, the engine, the commit);
* ``atout_commit_seconds`` and ``atout_commit_batch_size``: each transaction of the
  group-commit writer, statements to commit, and how many writes it carried;
* ``atout_bot_think_seconds{level}``: a computer player's thinking, executor included;
* ``atout_gc_pause_seconds``: the garbage collector's pauses, from ``gc.callbacks``;
  ``atout_python_blocks``: the memory blocks Python's allocator holds (``python_blocks``);
* ``atout_loop_stall_seconds``: how late the stall watchdog woke up (``watch_loop``): the
  event loop was blocked that long, whatever blocked it (the latest long ones are also kept
  with their time, ``LONG_STALLS``, for ``/api/stats``);
* ``atout_errors_total{code,transport}``: error replies by code, over WebSocket or HTTP;
* the process's CPU, memory and file descriptors (``process_*``) and the collector's counts
  (``python_gc_*``), from prometheus_client's own collectors.

Each timing also keeps its longest value since start (``atout_..._max_seconds``). The
histograms share fixed bounds (``BOUNDS_MS``), so two readings can be subtracted to get a
window's distribution (``quantile_ms``).

``collect_garbage()`` (run by ``atout serve``) schedules the collector itself. With thousands of
sockets, every young collection had to walk the objects of every pending ``await`` (each socket's
read and write chain: about 80,000 objects at 10,000 sockets), so each one paused the server
40-60 ms, several times a second, and a full collection paused it for most of a second. So four
times a second (``FREEZE_SECONDS``) the schedule collects what is not frozen, which is only what
the last quarter second made (about a millisecond: the cycles that became garbage young, such as
an exception's frames, are reclaimed there), then freezes everything alive (``gc.freeze()``:
never walked again, still freed by refcounting when unused). A cycle among frozen objects (made
of objects that lived longer than a quarter second) is never reclaimed; the code keeps the
long-lived ones acyclic instead (a room's parts refer to it weakly, rooms/model.py ``owner``, and
tests/rooms/test_eviction_memory.py checks that an evicted room is freed by refcounting alone).
A host may still ask for a full collection every ``ATOUT_GC_FULL_SECONDS``
(``FULL_COLLECTION_SECONDS``; 0, the default: never), run only if the process's memory grew by
a quarter since the last one: it unfreezes everything and stops every table meanwhile (about
135 ms per million simple objects here; 1.5 s at 10,000 sockets).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    ProcessCollector,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from app.rooms import RoomManager

BOUNDS_MS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
BUCKETS = tuple(ms / 1000 for ms in BOUNDS_MS)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
BOT_BUCKETS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 12)
FREEZE_SECONDS = 0.25  # a busy second at 2,500 tables makes 8,000-19,000 net new objects
YOUNG_THRESHOLD = 20_000  # net new objects before a young collection
FULL_COLLECTION_SECONDS = 0.0  # 0: never unfreeze and collect everything
FULL_COLLECTION_GROWTH = 1.25  # ... and only if the memory grew by a quarter since the last one
WATCHDOG_SECONDS = 0.02  # the stall watchdog's sleep: a block of B is reported as >= B - this
TRACER: list[StallTracer | None] = [None]  # the server's stall tracer, when one runs
LONG_STALL_SECONDS = 0.05  # stalls at least this long are also kept with their time
# (time.monotonic() at the late wake-up, seconds late) of the latest long stalls: the system's
# monotonic clock is shared by every process of the machine, so a benchmark can set them
# beside other processes' pauses (app/bench/sentinel.py)
LONG_STALLS: deque[tuple[float, float]] = deque(maxlen=256)

REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)
GCCollector(registry=REGISTRY)


class Timing:
    """A histogram of durations in ``REGISTRY`` and the longest one since start."""

    def __init__(self, name: str, documentation: str) -> None:
        self.histogram = Histogram(
            f"{name}_seconds", documentation, buckets=BUCKETS, registry=REGISTRY
        )
        self.longest = Gauge(
            f"{name}_max_seconds",
            f"The longest value of {name}_seconds since start.",
            registry=REGISTRY,
        )
        self._max = 0.0

    def observe(self, seconds: float) -> None:
        self.histogram.observe(seconds)
        if seconds > self._max:
            self._max = seconds
            self.longest.set(seconds)

    def as_dict(self) -> dict[str, Any]:
        """The JSON of ``/api/stats``, read back from the registry's own samples:
        ``counts[i]`` holds the values <= ``BOUNDS_MS[i]`` (the last: above all)."""
        return histogram_dict(self.histogram.collect(), self.longest.collect())


def histogram_dict(families: list[Metric], longest: list[Metric] | None = None) -> dict[str, Any]:
    """Per-bucket counts (not cumulative), total and longest of a histogram's samples (summed
    over its labels)."""
    cumulative = [0.0] * (len(BOUNDS_MS) + 1)
    total = 0.0
    for family in families:
        for sample in family.samples:
            if sample.name.endswith("_bucket"):
                le = sample.labels["le"]
                i = len(BOUNDS_MS) if le == "+Inf" else BUCKETS.index(float(le))
                cumulative[i] += sample.value
            elif sample.name.endswith("_sum"):
                total += sample.value
    counts = [int(c - (cumulative[i - 1] if i else 0)) for i, c in enumerate(cumulative)]
    longest_s = max((s.value for f in longest or [] for s in f.samples), default=0.0)
    return {
        "bounds_ms": list(BOUNDS_MS),
        "counts": counts,
        "total_s": round(total, 4),
        "max_ms": round(longest_s * 1000.0, 2),
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


ACTIONS = Timing(
    "atout_action", "Actions: from the frame being read to the ack and the new views being queued."
)
COMMITS = Timing("atout_commit", "Group-commit transactions: from the first statement to commit.")
GC = Timing("atout_gc_pause", "Garbage collector pauses.")
STALLS = Timing("atout_loop_stall", "How late the event loop's watchdog woke up.")
BATCHES = Histogram(
    "atout_commit_batch_size",
    "Writes carried by one group-commit transaction.",
    buckets=BATCH_BUCKETS,
    registry=REGISTRY,
)
BOT_THINK = Histogram(
    "atout_bot_think_seconds",
    "A computer player's thinking, by level (executor hand-off included).",
    ["level"],
    buckets=BOT_BUCKETS,
    registry=REGISTRY,
)
FULL_COLLECTIONS = Counter(
    "atout_gc_full_collections",
    "Full collections of the schedule (everything unfrozen: every table paused meanwhile).",
    registry=REGISTRY,
)
ERRORS = Counter(
    "atout_errors",
    "Error replies by code, over WebSocket (ws) or HTTP (http).",
    ["code", "transport"],
    registry=REGISTRY,
)


class LiveCollector(Collector):
    """Gauges and counters read from the running RoomManager at each scrape."""

    def __init__(self) -> None:
        self.manager: RoomManager | None = None

    def collect(self) -> Iterator[Metric]:
        manager = self.manager
        if manager is None:
            return
        rooms = list(manager.rooms.values())
        sockets = players = 0
        for room in rooms:
            for listener in room.listeners:
                sockets += 1
                players += 1 if listener.seats else 0
        yield GaugeMetricFamily("atout_rooms", "Rooms in memory.", value=len(rooms))
        yield GaugeMetricFamily("atout_sockets", "Game WebSockets attached to rooms.", sockets)
        yield GaugeMetricFamily(
            "atout_players_connected", "Sockets that hold at least one seat.", players
        )
        yield GaugeMetricFamily(
            "atout_spectators", "Sockets that hold no seat (spectators).", sockets - players
        )
        yield CounterMetricFamily(
            "atout_rooms_loaded", "Rooms restored from the database.", manager.loads
        )
        yield CounterMetricFamily(
            "atout_rooms_evicted", "Idle rooms that left memory.", manager.evictions
        )
        yield GaugeMetricFamily(
            "atout_python_blocks",
            "Memory blocks held by Python's allocator: every live object and small buffer.",
            python_blocks(),
        )
        w = manager.writer.stats
        yield CounterMetricFamily(
            "atout_commit_transactions", "Group-commit transactions.", w.transactions
        )
        yield CounterMetricFamily("atout_commit_writes", "Writes committed.", w.works)
        yield GaugeMetricFamily(
            "atout_commit_largest_batch",
            "The most writes one transaction carried.",
            w.largest_batch,
        )
        yield CounterMetricFamily(
            "atout_commit_retried",
            "Writes retried alone after a shared transaction failed.",
            w.retried,
        )
        yield CounterMetricFamily(
            "atout_commit_failed", "Writes whose transaction failed (not committed).", w.failed
        )


LIVE = LiveCollector()
REGISTRY.register(LIVE)


def stats_view() -> dict[str, Any]:
    """``/api/stats``: the registry's values as JSON (one reading of ``REGISTRY``)."""
    values: dict[str, float] = {}
    families: dict[str, list[Metric]] = {}
    for family in REGISTRY.collect():
        families.setdefault(family.name, []).append(family)
        for sample in family.samples:
            if not sample.labels:
                values[sample.name] = sample.value

    def timing(name: str) -> dict[str, Any]:
        return histogram_dict(
            families.get(f"{name}_seconds", []), families.get(f"{name}_max_seconds")
        )

    def count(name: str) -> int:
        return int(values.get(name, 0))

    transactions, works = (
        count("atout_commit_transactions_total"),
        count("atout_commit_writes_total"),
    )
    commits = timing("atout_commit")
    stall = timing("atout_loop_stall")
    return {
        "rooms": count("atout_rooms"),
        "connections": count("atout_sockets"),
        "players_connected": count("atout_players_connected"),
        "spectators": count("atout_spectators"),
        "loads": count("atout_rooms_loaded_total"),
        "evictions": count("atout_rooms_evicted_total"),
        "writer": {
            "transactions": transactions,
            "works": works,
            "largest_batch": int(values.get("atout_commit_largest_batch", 0)),
            "mean_batch": round(works / transactions, 2) if transactions else 0,
            "retried": count("atout_commit_retried_total"),
            "failed": count("atout_commit_failed_total"),
            "mean_commit_ms": round(1000 * commits["total_s"] / max(1, sum(commits["counts"])), 3),
        },
        "actions": timing("atout_action"),
        "commits": commits,
        "gc": timing("atout_gc_pause"),
        "stall": stall,
        "longest_stall_ms": stall["max_ms"],
        # the latest stalls of LONG_STALL_SECONDS or more: [time.monotonic() at the wake-up, ms]
        "long_stalls": [[round(t, 3), round(1000 * late, 1)] for t, late in list(LONG_STALLS)],
        "py_blocks": count("atout_python_blocks"),
        "stall_culprits": TRACER[0].culprits() if TRACER[0] is not None else None,
    }


def python_blocks() -> int:
    """The memory blocks Python's allocator holds (``sys.getallocatedblocks``): every live
    object, frozen or not, and the small buffers. It adds up the allocator's pools: under a millisecond for 6 million blocks. Counting the
    objects the collector tracks instead would walk the list of frozen ones
    (``gc.get_freeze_count``), a cache miss per object: 70 ms per million objects on an idle
    core here and several hundred milliseconds on a busy one, the loop blocked meanwhile."""
    return sys.getallocatedblocks()


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
    """The server's garbage collection schedule (see the module's doc): collect what is not
    frozen and freeze the rest every ``FREEZE_SECONDS``; a full collection every
    ``full_seconds`` (default ``FULL_COLLECTION_SECONDS``; 0: never)."""
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
            if every > 0 and time.monotonic() - last_full >= every:
                last_full = time.monotonic()
                rss = _rss_bytes()
                if rss is None or baseline is None or rss > baseline * FULL_COLLECTION_GROWTH:
                    gc.unfreeze()
                    FULL_COLLECTIONS.inc()
                    baseline = None  # measured again once the collection below is done
            gc.collect()  # what is not frozen: the last quarter second's objects (or all)
            if baseline is None:
                baseline = _rss_bytes()
            gc.freeze()
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


async def watch_loop(interval: float | None = None, tracer: StallTracer | None = None) -> None:
    """The stall watchdog: sleep ``interval`` (``WATCHDOG_SECONDS``), note how late the wake-up
    came (``STALLS``; and ``LONG_STALLS`` from ``LONG_STALL_SECONDS``), forever (the app
    cancels it). A callback that blocks the loop for B seconds delays this wake-up by at least
    B - interval. Each wake-up is also the ``tracer``'s heartbeat."""
    every = WATCHDOG_SECONDS if interval is None else interval
    clock = time.perf_counter
    while True:
        before = clock()
        if tracer is not None:
            tracer.beat = before
        await asyncio.sleep(every)
        late = max(0.0, clock() - before - every)
        STALLS.observe(late)
        if late >= LONG_STALL_SECONDS:
            LONG_STALLS.append((time.monotonic(), late))


class StallTracer:
    """Names what blocks the event loop: a thread that looks, every ``TRACE_TICK_SECONDS``,
    how long ago the watchdog last woke (``beat``); once that is over ``threshold`` seconds
    more than the watchdog's sleep, it samples the loop thread's stack (``sys._current_frames``)
    until the watchdog wakes again, and counts the stall under the place most samples were in:
    the innermost frame of the application's own code, and the innermost frame of all.

    ``ATOUT_STALL_TRACE_MS`` (``stall_trace_ms``) starts one for the server, and
    ``GET /api/stats`` lists its ``culprits``. A thread runs only with the GIL, so a long C
    call that holds it (a garbage collection, say) is seen once it has returned: the sample
    then names what ran next, and a stall with no sample is counted as ``(no sample)``.
    """

    def __init__(self, threshold: float, loop_thread: int | None = None) -> None:
        self.threshold = threshold
        self.loop_thread = threading.get_ident() if loop_thread is None else loop_thread
        self.beat = time.perf_counter()
        self.stalls: dict[str, list[float]] = {}  # place -> [stalls, total s, longest s]
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="atout-stall-tracer", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(1.0)

    def culprits(self, top: int = 10) -> list[dict[str, Any]]:
        """The places that blocked the loop, by total time blocked."""
        rows = sorted(self.stalls.items(), key=lambda item: -item[1][1])[:top]
        return [
            {
                "where": place,
                "stalls": int(n),
                "total_ms": round(1000 * total, 1),
                "longest_ms": round(1000 * longest, 1),
            }
            for place, (n, total, longest) in rows
        ]

    def _run(self) -> None:
        clock = time.perf_counter
        limit = self.threshold + WATCHDOG_SECONDS
        while not self._stop.wait(TRACE_TICK_SECONDS):
            beat = self.beat
            if clock() - beat <= limit:
                continue
            samples: dict[str, int] = {}
            while self.beat == beat and not self._stop.is_set():
                frame = sys._current_frames().get(self.loop_thread)
                if frame is not None:
                    place = _place(frame)
                    samples[place] = samples.get(place, 0) + 1
                time.sleep(TRACE_TICK_SECONDS)
            if self.beat == beat:
                return
            late = self.beat - beat - WATCHDOG_SECONDS
            place = max(samples, key=samples.__getitem__) if samples else "(no sample)"
            row = self.stalls.setdefault(place, [0, 0.0, 0.0])
            row[0] += 1
            row[1] += late
            row[2] = max(row[2], late)


TRACE_TICK_SECONDS = 0.005
_APP_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _place(frame: Any) -> str:
    """``app/rooms/room.py:560 act`` for the innermost frame of the application's code, then
    `` < `` and the innermost frame of all when it is elsewhere (a library)."""

    def name(f: Any) -> str:
        path = f.f_code.co_filename
        if path.startswith(_APP_DIR):
            path = "app/" + path[len(_APP_DIR) :]
        else:
            path = "/".join(path.split(os.sep)[-2:])
        return f"{path}:{f.f_lineno} {f.f_code.co_name}"

    inner = frame
    own = None
    f = frame
    while f is not None:
        if f.f_code.co_filename.startswith(_APP_DIR):
            own = f
            break
        f = f.f_back
    if own is None:
        return name(inner)
    return name(own) if own is inner else f"{name(own)} < {name(inner)}"
