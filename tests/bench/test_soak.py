"""``atout bench soak``: a short real run goes through a table's whole life and loses nothing.

Not a timed test: it asserts what happened (moves acknowledged, rooms evicted and loaded back,
no acknowledged move lost), never how fast.
"""

from __future__ import annotations

import json
import subprocess
import sys


def test_a_short_soak_evicts_restores_and_loses_no_move() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "bench",
            "soak",
            "--tables",
            "3",
            "--computer-every",
            "3",
            "--duration",
            "45",
            "--idle-seconds",
            "4",
            "--pace",
            "0.05",
            "--report",
            "5",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    reports = [line for line in lines if "verdict" not in line]
    verdict = next(line["verdict"] for line in lines if "verdict" in line)
    assert len(reports) >= 5
    assert all({"rss_mib", "rooms", "sockets", "move_p99_ms", "lost"} <= set(r) for r in reports)
    assert verdict["moves"] > 100
    assert verdict["moves_lost"] == 0
    assert verdict["rooms_evicted"] >= 1 and verdict["rooms_loaded"] >= 1
    assert verdict["table_trips_away"] >= 1
