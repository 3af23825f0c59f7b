"""``atout bench lobby`` runs end to end at a tiny size (what it measures is for the command,
docs/benchmarks.md; here only that it works and reports every field)."""

from __future__ import annotations

import json
import subprocess
import sys

from app import cli
from tests.conftest import PROJECT_ROOT


def test_bench_lobby_is_a_subcommand() -> None:
    args = cli.build_parser().parse_args(["bench", "lobby", "--watchers", "3", "--public", "2"])
    assert (args.watchers, args.public, args.func.__module__) == (3, 2, "bench.lobby")


def test_bench_lobby_reports_moves_and_lobby_latency() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "bench",
            "lobby",
            "--watchers", "6",
            "--public", "8",
            "--tables", "1",
            "--pace", "0.2",
            "--changes", "4",
            "--duration", "3",
            "--warmup", "0.5",
            "--watcher-processes", "1",
            "--watcher-nice", "0",  # on a busy machine a niced watcher may hear after the window
            "--json",
        ],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    lobby = result["with_watchers"]["lobby_ms"]
    assert lobby["changes_measured"] > 0 and lobby["changes_not_heard_by_all"] == 0
    assert lobby["deliveries"] == 6 * lobby["changes_measured"]
    assert result["without_watchers"]["move_ms"]["p99"] > 0
    assert "move_p99_cost_pct" in result and result["errors"] == {}
