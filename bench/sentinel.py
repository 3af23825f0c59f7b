"""The machine's own pauses: a reference that a benchmark runs beside the server it measures.

``python -m bench.sentinel OUT DIR`` does almost nothing, and writes down when even that was
late. Its main thread sleeps ``TICK_SECONDS`` at a time and notes each wake-up that came
``PAUSE_SECONDS`` or more late: ``cpu T MS``. A second thread writes a few bytes to a file in
``DIR`` every ``SYNC_EVERY_SECONDS`` and ``fsync``s it, and notes each sync that took
``PAUSE_SECONDS`` or more: ``disk T MS``. ``T`` is ``time.monotonic()`` when the pause ended,
the system's monotonic clock that every process of the machine shares, so that a benchmark can
set these pauses beside the server's own (``GET /api/stats`` ``long_stalls``, app/loop.py).

A process this small is late only when the machine did not run it: a host that paused the
virtual machine, or a CPU that every runnable process shared. A server stall at the same moment
is the machine's, not the server's.
"""

from __future__ import annotations

import bisect
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import TextIO

TICK_SECONDS = 0.01
SYNC_EVERY_SECONDS = 0.1
PAUSE_SECONDS = 0.05


def note(out: TextIO, lock: threading.Lock, kind: str, seconds: float) -> None:
    with lock:
        out.write(f"{kind} {time.monotonic():.3f} {1000 * seconds:.1f}\n")
        out.flush()


def watch_disk(out: TextIO, lock: threading.Lock, directory: Path, stop: threading.Event) -> None:
    path = directory / "sentinel.sync"
    with open(path, "wb") as f:
        while not stop.wait(SYNC_EVERY_SECONDS):
            f.seek(0)
            f.write(b"%.6f\n" % time.monotonic())
            f.flush()
            began = time.perf_counter()
            os.fsync(f.fileno())
            took = time.perf_counter() - began
            if took >= PAUSE_SECONDS:
                note(out, lock, "disk", took)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m bench.sentinel OUT DIR", file=sys.stderr)
        return 2
    lock = threading.Lock()
    stop = threading.Event()
    with open(argv[0], "a") as out:
        disk = threading.Thread(
            target=watch_disk, args=(out, lock, Path(argv[1]), stop), daemon=True
        )
        disk.start()
        clock = time.perf_counter
        # SIGINT/SIGTERM only set ``stop``: an exception raised inside ``note`` (a lock or the
        # file's buffer held) could leave the process unable to exit
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        while not stop.is_set():
            before = clock()
            time.sleep(TICK_SECONDS)
            late = clock() - before - TICK_SECONDS
            if late >= PAUSE_SECONDS and not stop.is_set():
                note(out, lock, "cpu", late)
    return 0


def read_pauses(path: Path, offset: int = 0) -> tuple[list[tuple[str, float, float]], int]:
    """The pauses written to ``path`` from byte ``offset`` on: ``[(kind, end, seconds)]``
    (``end`` on the monotonic clock), and the offset to read on from."""
    pauses: list[tuple[str, float, float]] = []
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except FileNotFoundError:
        return pauses, offset
    complete = data[: data.rfind(b"\n") + 1]
    for line in complete.decode().splitlines():
        kind, end, ms = line.split()
        pauses.append((kind, float(end), float(ms) / 1000))
    return pauses, offset + len(complete)


class Spans:
    """Pauses as spans of the monotonic clock, asked whether another span met one of them
    (a binary search: a soak sets each of a million moves beside them)."""

    def __init__(self, pauses: list[tuple[str, float, float]]) -> None:
        spans = sorted((end - seconds, end) for _, end, seconds in pauses)
        self.starts = [start for start, _ in spans]
        self.reach: list[float] = []  # the latest end among the spans up to each one
        for _, end in spans:
            self.reach.append(max(end, self.reach[-1]) if self.reach else end)

    def met(self, end: float, seconds: float) -> bool:
        """Whether the span of ``seconds`` that ended at ``end`` met one of the pauses."""
        i = bisect.bisect_right(self.starts, end)  # the pauses that began by ``end``
        return i > 0 and self.reach[i - 1] >= end - seconds


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
