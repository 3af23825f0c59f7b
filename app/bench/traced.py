"""``python -m app.bench.traced DIR serve ...``: ``atout serve`` with ``tracemalloc`` on, for
``atout bench soak --tracemalloc``. Each SIGUSR2 writes a snapshot of the live allocations to
``DIR/snapshot-N.pickle`` (N = 1, 2, ...); the soak compares two of them taken on the plateau.

``tracemalloc`` costs the server CPU and memory of its own (``ATOUT_TRACEMALLOC_FRAMES``
frames per allocation, default 1): a traced run shows where memory goes, not how fast the
server is.
"""

from __future__ import annotations

import os
import signal
import sys
import tracemalloc
from pathlib import Path
from types import FrameType


def snapshot_path(folder: Path, number: int) -> Path:
    return folder / f"snapshot-{number}.pickle"


def main() -> int:
    folder = Path(sys.argv[1])
    tracemalloc.start(int(os.environ.get("ATOUT_TRACEMALLOC_FRAMES", "1")))
    taken = [0]

    def dump(signum: int, frame: FrameType | None) -> None:
        taken[0] += 1
        path = snapshot_path(folder, taken[0])
        tracemalloc.take_snapshot().dump(str(path) + ".part")
        os.replace(str(path) + ".part", path)  # whole, or not there

    signal.signal(signal.SIGUSR2, dump)
    from app.cli import main as atout

    return atout(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
