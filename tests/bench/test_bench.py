"""bench: the developer tools live apart from the product and load under ``atout bench``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app import cli

# That no product package imports the tools is one row of the layer table: tests/test_layers.py.


def test_the_tools_are_subcommands_of_atout_bench() -> None:
    parser = cli.build_parser()
    args = parser.parse_args(["bench", "load", "--tables", "3", "--pace", "0"])
    assert (args.tables, args.pace, args.func.__module__) == (3, 0.0, "bench.load")
    args = parser.parse_args(["bench", "tune", "--samples", "10", "--only", "duel-8"])
    assert (args.samples, args.only, args.func.__module__) == (10, ["duel-8"], "bench.tune")
    args = parser.parse_args(["bench", "publish", "--versions", "10"])
    assert (args.versions, args.func.__module__) == (10, "bench.publish")
    assert parser.parse_args(["bench", "engine"]).bench_command == "engine"  # still loads too


def test_bench_tune_writes_a_coefficients_module(tmp_path: Path) -> None:
    out = tmp_path / "coefs.py"
    assert (
        cli.main(["bench", "tune", "--samples", "40", "--only", "duel-8", "--out", str(out)]) == 0
    )
    namespace: dict[str, object] = {}
    exec(compile(out.read_text(encoding="utf-8"), str(out), "exec"), namespace)
    coefs = namespace["COEFS"]
    assert isinstance(coefs, dict)
    from app.bots.valuation import SUIT_FEATURES
    from app.bots.valuation_coefs import COEFS

    assert set(coefs) == set(COEFS)  # the other configs are kept from the committed file
    assert len(coefs[("duel-8", "suit")]) == len(SUIT_FEATURES)
    assert coefs[("bela4-8", "suit")] == COEFS[("bela4-8", "suit")]


def test_bench_tune_refuses_an_unknown_config_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["bench", "tune", "--only", "nope", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("atout: --samples") and len(err.strip().splitlines()) == 1


def test_python_m_app_bench_tune_still_runs() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.tune",
            "--samples",
            "20",
            "--only",
            "duel-8",
            "--dry-run",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("duel-8 suit: n=20 ")


def test_bench_failover_refuses_sqlite_and_bad_counts(capsys: pytest.CaptureFixture[str]) -> None:
    """``atout bench failover`` needs PostgreSQL; its kill and freeze counts are checked before
    anything starts (tests/scale runs the same kills and freezes for real)."""
    sqlite = "sqlite+aiosqlite:///unused.db"
    postgresql = "postgresql+asyncpg://nobody@127.0.0.1:1/none"
    for argv in (
        ["--database-url", sqlite],
        ["--database-url", postgresql, "--kills", "0"],
        ["--database-url", postgresql, "--freezes", "-1"],
    ):
        assert cli.main(["bench", "failover", *argv]) == 2
        assert "needs PostgreSQL, --kills >= 1 and --freezes >= 0" in capsys.readouterr().err
