"""bench/sentinel.py: the machine's own pauses, the soak's reference.

The sentinel is a real process; a pause of the machine is made by stopping it (SIGSTOP) for
300 ms, which is what a host that does not run the virtual machine looks like from inside.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench.sentinel import Spans, read_pauses
from bench.soak import Soak, against_the_machine


def test_a_stopped_sentinel_writes_down_how_long_it_was_not_run(tmp_path: Path) -> None:
    out = tmp_path / "pauses.txt"
    sentinel = subprocess.Popen([sys.executable, "-m", "bench.sentinel", str(out), str(tmp_path)])
    try:
        time.sleep(1.0)  # started, and ticking
        stopped = time.monotonic()
        os.kill(sentinel.pid, signal.SIGSTOP)
        time.sleep(0.3)
        os.kill(sentinel.pid, signal.SIGCONT)
        deadline = time.monotonic() + 10
        pauses: list[tuple[str, float, float]] = []
        while time.monotonic() < deadline and not any(p[2] >= 0.25 for p in pauses):
            time.sleep(0.1)
            pauses, _ = read_pauses(out)
    finally:
        sentinel.send_signal(signal.SIGINT)
        # On a machine busy with other tests (browsers, databases), the exit can wait on a
        # write or an fsync of the disk thread for seconds: give it a minute.
        try:
            code = sentinel.wait(60)
        except subprocess.TimeoutExpired:
            sentinel.kill()
            sentinel.wait()
            raise
        assert code == 0
    kind, end, seconds = max(pauses, key=lambda p: p[2])
    assert kind == "cpu" and 0.25 <= seconds < 5
    assert stopped + 0.25 <= end <= time.monotonic()
    assert (tmp_path / "sentinel.sync").exists()  # the disk thread synced its file


def test_read_pauses_reads_on_from_an_offset_and_leaves_a_partial_line(tmp_path: Path) -> None:
    path = tmp_path / "pauses.txt"
    path.write_text("cpu 100.500 120.0\ndisk 101.000 60.5\ncpu 102")
    pauses, offset = read_pauses(path)
    assert pauses == [("cpu", 100.5, 0.12), ("disk", 101.0, 0.0605)]
    with open(path, "a") as f:
        f.write(".000 75.0\n")
    more, offset = read_pauses(path, offset)
    assert more == [("cpu", 102.0, 0.075)] and offset == path.stat().st_size
    assert read_pauses(tmp_path / "none.txt") == ([], 0)


def test_spans_say_which_spans_met_a_pause() -> None:
    spans = Spans([("cpu", 10.0, 0.5), ("cpu", 20.0, 2.0), ("disk", 12.0, 0.1)])
    assert spans.met(9.6, 0.2)  # inside the first pause
    assert spans.met(11.0, 2.0)  # covers it
    assert spans.met(18.5, 0.6)  # ends inside the second (18.0-20.0)
    assert not spans.met(9.4, 0.3)  # ended before the first began
    assert not spans.met(11.8, 0.5)  # between the first and the disk sync (11.9-12.0)
    assert not spans.met(17.9, 0.5)
    assert not Spans([]).met(5.0, 1.0)


def test_the_verdict_tells_the_servers_own_stalls_from_the_machines() -> None:
    soak = Soak(
        argparse.Namespace(idle_seconds=10),
        "http://127.0.0.1:1",
        random.Random(1),
        pauses_path=Path("unused"),
    )
    soak.plateau_at = 100.0
    soak.pauses = [("cpu", 50.0, 0.3), ("cpu", 200.0, 0.2), ("disk", 300.0, 0.15)]
    # the server stalled with the machine at 200 s, alone at 250 s, and before the plateau
    soak.server_stalls = {200.05: 0.22, 250.0: 0.12, 50.0: 0.3, 260.0: 0.06}
    # moves: one met the CPU pause, one came in its aftermath, one met the disk sync
    moves = [(199.9, 0.25), (200.5, 0.2), (299.9, 0.2)] + [(400.0 + i, 0.01) for i in range(97)]
    soak.plateau_sent.extend(sent for sent, _ in moves)
    soak.plateau_latencies.extend(lat for _, lat in moves)
    result = against_the_machine(soak)
    assert result["machine_pauses_over_100ms"] == 1  # after the plateau only
    assert result["longest_machine_pause_ms"] == 200.0
    assert result["disk_syncs_over_100ms"] == 1
    assert result["server_stalls_over_100ms"] == 2
    assert result["server_own_stalls_over_100ms"] == 1
    assert result["longest_own_stall_ms"] == 120.0
    assert result["moves_no_machine_pause_met"] == 97
    assert result["move_p99_no_machine_pause_ms"] == 10.0
