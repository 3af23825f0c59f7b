"""The event loop's health: the server's garbage collection schedule, the stall watchdog and
the stall tracer. They observe into ``app.metrics`` (``GC``, ``STALLS``, ``LONG_STALLS``,
``FULL_COLLECTIONS``); ``app.web.runtime`` starts and stops them with the server.

``collect_garbage()`` (run by ``atout serve``) schedules the collector itself. With thousands of
sockets, every young collection had to walk the objects of every pending ``await`` (each socket's
read and write chain: about 80,000 objects at 10,000 sockets), so each one paused the server
40-60 ms, several times a second, and a full collection paused it for most of a second. So four
times a second (``FREEZE_SECONDS``) the schedule collects what is not frozen, which is only what
the last quarter second made (about a millisecond: the cycles that became garbage young, such as
an exception's frames, are reclaimed there), then freezes everything alive (``gc.freeze()``:
never walked again, still freed by refcounting when unused). A cycle among frozen objects (made
of objects that lived longer than a quarter second) is never reclaimed: hence the invariant
below.
A host may still ask for a full collection every ``ATOUT_GC_FULL_SECONDS``
(``FULL_COLLECTION_SECONDS``; 0, the default: never), run only if the process's memory grew by
a quarter since the last one: it unfreezes everything and stops every table meanwhile (about
135 ms per million simple objects here; 1.5 s at 10,000 sockets).

The stall watchdog (``watch_loop``) is a task that sleeps ``WATCHDOG_SECONDS`` and records by how
much more it slept: a callback that holds the loop for B seconds shows as a stall of at least
B - 20 ms, whatever it was. ``StallTracer`` (``ATOUT_STALL_TRACE_MS``) names what blocked it.

The invariant: no reference cycles among long-lived objects
------------------------------------------------------------

Because the schedule freezes whatever lives longer than a quarter second and never collects
frozen objects again (unless a host asks for full collections), an object that outlives a
quarter second must be freed by reference counting alone: **no reference cycle may join
long-lived objects** (rooms, their parts, listeners, connections, sockets, timers' handles).
A cycle among them is a leak for the life of the process. The places that keep it, and point
here:

* a room's parts (``publisher``, ``chat``, ``consents``, ``live``, ``bots``; seating.py and
  public.py are functions) never refer back to their room: the room passes them what they
  read (tests/rooms/test_parts.py checks their sources). A pending timer's task (a bot's turn,
  a clock, a countdown, a fill) holds its room until it ends, and ``Room.close`` cancels every
  one. The publisher and chat key their per-listener data weakly;
* ``app.web.wsprotocol`` breaks the cycles the ``websockets`` library leaves in a closed
  connection;
* ``tests/rooms/test_eviction_memory.py`` checks that an evicted room, with its parts, is freed
  by refcounting alone (``gc`` disabled), and ``atout bench soak`` that memory stays flat.

Short-lived cycles (an exception's traceback and frames, a finished task) are reclaimed by the
young collections of the schedule, as long as they become garbage within the quarter second.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import sys
import threading
import time
from typing import Any

from app.metrics import FULL_COLLECTIONS, GC, LONG_STALL_SECONDS, LONG_STALLS, STALLS

FREEZE_SECONDS = 0.25  # a busy second at 2,500 tables makes 8,000-19,000 net new objects
YOUNG_THRESHOLD = 20_000  # net new objects before a young collection
FULL_COLLECTION_SECONDS = 0.0  # 0: never unfreeze and collect everything
FULL_COLLECTION_GROWTH = 1.25  # ... and only if the memory grew by a quarter since the last one
WATCHDOG_SECONDS = 0.02  # the stall watchdog's sleep: a block of B is reported as >= B - this
TRACER: list[StallTracer | None] = [None]  # the server's stall tracer, when one runs


def culprits() -> list[dict[str, Any]] | None:
    """The running stall tracer's ``culprits`` (``GET /api/stats``), or None when none runs."""
    tracer = TRACER[0]
    return tracer.culprits() if tracer is not None else None


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
