"""``python -m bench.traced DIR serve ...``: ``atout serve`` with ``tracemalloc`` on, for
``atout bench soak --tracemalloc``. Each SIGUSR2 writes a snapshot of the live allocations to
``DIR/snapshot-N.pickle`` (N = 1, 2, ...); the soak compares two of them taken on the plateau.
Each SIGUSR1 writes ``DIR/garbage-N.json``: the cyclic garbage that a full collection finds
among everything, frozen objects included (the server's collector never walks those:
app/loop.py), counted by type and by the source line that allocated it. That is what a
long-lived cycle leaks.

``tracemalloc`` costs the server CPU and memory of its own (``ATOUT_TRACEMALLOC_FRAMES``
frames per allocation, default 1): a traced run shows where memory goes, not how fast the
server is.
"""

from __future__ import annotations

import collections
import gc
import json
import os
import signal
import sys
import tracemalloc
from pathlib import Path
from types import FrameType


def snapshot_path(folder: Path, number: int) -> Path:
    return folder / f"snapshot-{number}.pickle"


def garbage_path(folder: Path, number: int) -> Path:
    return folder / f"garbage-{number}.json"


def garbage_census(top: int = 20) -> dict[str, object]:
    """Unfreeze, collect everything with the garbage kept (``gc.DEBUG_SAVEALL``), count it by
    type and by allocation site, free it, and freeze what is alive again. The loop stops for
    the length of a full collection."""
    gc.unfreeze()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        garbage = list(gc.garbage)
        gc.garbage.clear()
    finally:
        gc.set_debug(0)
    types: collections.Counter[str] = collections.Counter()
    sites: collections.Counter[str] = collections.Counter()
    for obj in garbage:
        types[type(obj).__qualname__] += 1
        trace = tracemalloc.get_object_traceback(obj)
        sites[f"{trace[0].filename}:{trace[0].lineno}" if trace else "?"] += 1
    count = len(garbage)
    del garbage
    gc.collect()  # now without keeping it: the cycles found above are freed
    gc.freeze()
    return {
        "objects": count,
        "types": types.most_common(top),
        "sites": sites.most_common(top),
    }


def main() -> int:
    folder = Path(sys.argv[1])
    tracemalloc.start(int(os.environ.get("ATOUT_TRACEMALLOC_FRAMES", "1")))
    taken = [0]

    def dump(signum: int, frame: FrameType | None) -> None:
        taken[0] += 1
        path = snapshot_path(folder, taken[0])
        tracemalloc.take_snapshot().dump(str(path) + ".part")
        os.replace(str(path) + ".part", path)  # whole, or not there

    censuses = [0]

    def census(signum: int, frame: FrameType | None) -> None:
        censuses[0] += 1
        path = garbage_path(folder, censuses[0])
        path.with_suffix(".part").write_text(json.dumps(garbage_census()), encoding="utf-8")
        os.replace(path.with_suffix(".part"), path)

    signal.signal(signal.SIGUSR2, dump)
    signal.signal(signal.SIGUSR1, census)
    from app.cli import main as atout

    return atout(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
