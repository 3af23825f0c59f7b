"""The server's metrics: one ``prometheus_client`` registry (``REGISTRY``), served as text at
``GET /metrics`` and as JSON at ``GET /api/stats`` (``stats_view()``, read by
``atout bench load``). The garbage collection schedule, the stall watchdog and the stall
tracer that observe into it are ``app.loop``.

What the registry holds (every name starts with ``atout_``):

* live gauges, read at each scrape from the sources that registered with ``LIVE`` (the
  RoomManager registers its own: rooms in memory, sockets, players' sockets, spectators; rooms
  loaded and evicted since start);
* the group-commit writer's transactions, writes, retries, failures and largest batch, which
  the writer counts into the registry as they happen (``WRITER``; it is never read back);
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

"""

from __future__ import annotations

import contextlib
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    ProcessCollector,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

BOUNDS_MS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
BUCKETS = tuple(ms / 1000 for ms in BOUNDS_MS)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
BOT_BUCKETS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 12)
LONG_STALL_SECONDS = 0.05  # stalls at least this long are also kept with their time
# (time.monotonic() at the late wake-up, seconds late) of the latest long stalls: the system's
# monotonic clock is shared by every process of the machine, so a benchmark can set them
# beside other processes' pauses (bench/sentinel.py)
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
        return histogram_dict(list(self.histogram.collect()), list(self.longest.collect()))


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
    """Figures read at each scrape from the sources that registered: a source is a function
    that yields ``prometheus_client`` metric families of what it holds (the RoomManager's
    ``live_metrics``). This module reads no other part of the server."""

    def __init__(self) -> None:
        self.sources: list[Callable[[], Iterable[Metric]]] = []

    def add(self, source: Callable[[], Iterable[Metric]]) -> None:
        self.sources.append(source)

    def remove(self, source: Callable[[], Iterable[Metric]]) -> None:
        with contextlib.suppress(ValueError):
            self.sources.remove(source)

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily(
            "atout_python_blocks",
            "Memory blocks held by Python's allocator: every live object and small buffer.",
            python_blocks(),
        )
        for source in list(self.sources):
            yield from source()


class WriterFigures:
    """The group-commit writer's figures, counted as they happen (``CommitQueue`` calls
    ``committed``, ``retried`` and ``failed``); the registry never reads the writer."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.transactions = Counter(
            "atout_commit_transactions", "Group-commit transactions.", registry=registry
        )
        self.writes = Counter("atout_commit_writes", "Writes committed.", registry=registry)
        self.largest = Gauge(
            "atout_commit_largest_batch",
            "The most writes one transaction carried.",
            registry=registry,
        )
        self.retries = Counter(
            "atout_commit_retried",
            "Writes retried alone after a shared transaction failed.",
            registry=registry,
        )
        self.failures = Counter(
            "atout_commit_failed",
            "Writes whose transaction failed (not committed).",
            registry=registry,
        )
        self._largest = 0

    def committed(self, size: int, seconds: float) -> None:
        """One transaction of ``size`` writes committed in ``seconds``."""
        self.transactions.inc()
        self.writes.inc(size)
        if size > self._largest:
            self._largest = size
            self.largest.set(size)
        COMMITS.observe(seconds)
        BATCHES.observe(size)

    def retried(self, writes: int) -> None:
        self.retries.inc(writes)

    def failed(self) -> None:
        self.failures.inc()


WRITER = WriterFigures(REGISTRY)
LIVE = LiveCollector()
REGISTRY.register(LIVE)


def stats_view(stall_culprits: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """``/api/stats``: the registry's values as JSON (one reading of ``REGISTRY``), with the
    stall tracer's ``stall_culprits`` when one runs (``app.loop.culprits()``)."""
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
        "stall_culprits": stall_culprits,
    }


def python_blocks() -> int:
    """The memory blocks Python's allocator holds (``sys.getallocatedblocks``): every live
    object, frozen or not, and the small buffers. It adds up the allocator's pools: under a millisecond for 6 million blocks. Counting the
    objects the collector tracks instead would walk the list of frozen ones
    (``gc.get_freeze_count``), a cache miss per object: 70 ms per million objects on an idle
    core here and several hundred milliseconds on a busy one, the loop blocked meanwhile."""
    return sys.getallocatedblocks()
