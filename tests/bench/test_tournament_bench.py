"""``atout bench tournament``: the live Swiss's time to pair a round, on a small field."""

from __future__ import annotations

import json

import pytest

from app import cli


def test_bench_tournament_reports_each_round_of_each_field(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "tournament", "--pairs", "5", "--pairs", "12", "--rounds", "3"]
    assert cli.main([*argv, "--boards", "2", "--events", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["fields"]) == {"5", "12"}
    assert report["machine"]["cpus"] and report["date"].endswith("UTC")
    for field in report["fields"].values():
        assert [r["round"] for r in field["rounds"]] == [1, 2, 3]
        for r in field["rounds"]:
            assert 0 <= r["pair_ms_median"] <= r["pair_ms_max"] <= field["pair_ms_max"]
    assert cli.main(["bench", "tournament", "--pairs", "4", "--rounds", "2"]) == 0
    assert "worst time to pair a round" in capsys.readouterr().out


def test_bench_tournament_refuses_an_empty_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "tournament", "--pairs", "0"]) == 2
    assert "at least 1" in capsys.readouterr().err


def test_bench_tournament_is_a_subcommand() -> None:
    args = cli.build_parser().parse_args(["bench", "tournament", "--rounds", "5"])
    assert (args.rounds, args.pairs, args.func.__module__) == (5, None, "bench.tournament")
