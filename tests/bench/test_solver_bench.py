"""``atout bench solver``: the exact solver against the older one, on the same positions."""

from __future__ import annotations

import json

import pytest

from app import cli
from app.bots import dds


def test_bench_solver_reports_each_kind_and_agrees_with_the_older_solver(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "solver", "--deals", "2", "--variant", "bela-2p", "--variant", "bela-4p"]
    assert cli.main([*argv, "--kind", "endgame"]) == 0
    out = capsys.readouterr().out
    report = json.loads(out.strip().splitlines()[-1])
    rows = {r["variant"]: r for r in report["results"]}
    assert set(rows) == {"bela-2p", "bela-4p"}
    for row in rows.values():
        assert row["mismatches"] == 0
        end = row["endgame"]
        assert end["median_ms"] <= end["p95_ms"]
        assert end["nodes_per_s"] > 0 and end["old_nodes_per_s"] > 0
        assert end["old_unsolved"] == 0
        assert sum(row["contracts"].values()) == 2


def test_bench_solver_is_a_subcommand() -> None:
    args = cli.build_parser().parse_args(["bench", "solver", "--deals", "3", "--kind", "deal"])
    assert (args.deals, args.kind, args.func.__module__) == (3, ["deal"], "bench.solver")


@pytest.mark.skipif(not dds.has_c(), reason="app.bots._dds is not built")
def test_bench_solver_measures_the_c_search_against_the_python_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "solver", "--deals", "2", "--variant", "bela-3p", "--kind", "endgame"]
    assert cli.main([*argv, "--old-nodes", "1", "--impl", "c"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (report["impl"], report["reference"]) == ("c", "python")
    (row,) = report["results"]
    assert row["ref_mismatches"] == 0
    end = row["endgame"]
    assert end["ref_nodes_per_s"] > 0 and end["speedup"] > 0
    assert cli.main([*argv, "--old-nodes", "1", "--impl", "c", "--no-reference"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["reference"] is None
    assert "ref_median_ms" not in report["results"][0]["endgame"]
