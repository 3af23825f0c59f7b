"""The bots' rating anchors (bench/anchors.py): the method's steps, the command, and the tie
between the anchors of app/players/ratings.py and the levels' play."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from app.players.ratings import ANCHOR_FINGERPRINTS, ANCHOR_SIGMA, ANCHORS, FAMILIES
from bench import anchors

RECOMPUTE = (
    "the play of the {level} bot in the {family} family changed since its rating anchor was "
    "measured (fingerprint {stored} -> {now}). Measure the anchors again: "
    "`atout arena anchors --family {family} --deals 200 --seed 2026` (docs/players.md, "
    "'Where the anchors come from'), then put the mu of every level and the fingerprints it "
    "prints into ANCHORS and ANCHOR_FINGERPRINTS of app/players/ratings.py and the figures "
    "into docs/players.md."
)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_anchors_were_measured_with_the_levels_as_they_play(family: str) -> None:
    assert set(ANCHOR_FINGERPRINTS[family]) == set(ANCHORS[family]) == set(anchors.ANCHOR_LEVELS)
    for level in anchors.ANCHOR_LEVELS:
        stored = ANCHOR_FINGERPRINTS[family][level]
        now = anchors.fingerprint(family, level)
        assert now == stored, RECOMPUTE.format(level=level, family=family, stored=stored, now=now)


def test_fingerprint_positions_are_fixed_real_choices() -> None:
    for family in FAMILIES:
        one = anchors.fingerprint_positions(family)
        assert len(one) >= 10
        assert all(len(view["legal"]) > 1 for view in one)
        assert one == anchors.fingerprint_positions(family)
    # every family's game is covered by its own positions
    assert {anchors.fingerprint_positions(f)[0]["variant"] for f in FAMILIES} >= {"duel"}


def test_a_match_is_won_by_the_rules_of_the_target() -> None:
    rng = random.Random(1)
    # A always records 100 to B's 62: A reaches 1000 first, every time
    assert anchors.match_win_probability([[[100, 62, 1]]], 1000, rng, 50) == 1.0
    # equal plays, both at 1000 after ten deals: no single highest total, never decided
    assert anchors.one_match([[100, 100, None]], 1000, rng) == 0.5
    # one deal is a game (the duel): the share of decided plays A won
    decks = [[[120, 42, 1], [0, 0, None]], [[30, 132, 0], [162, 0, 1]]]
    assert anchors.match_win_probability(decks, None, rng) == pytest.approx(2 / 3)
    # a small per-deal edge becomes a bigger match edge over a long match
    edge = [[[90, 72, 1]], [[72, 90, 0]], [[95, 67, 1]]]
    assert anchors.match_win_probability(edge, 1000, rng, 2000) > 2 / 3


def test_the_mu_gap_inverts_openskills_prediction() -> None:
    for team_size in (1, 2):
        assert anchors.mu_gap(0.5, team_size, ANCHOR_SIGMA) == pytest.approx(0.0, abs=1e-6)
        for gap in (1.0, 4.0, 9.5):
            p = anchors.predicted(gap, team_size, ANCHOR_SIGMA)
            assert anchors.mu_gap(p, team_size, ANCHOR_SIGMA) == pytest.approx(gap, abs=1e-6)
    # a team of two of a level beats two of the other more surely than one beats one
    assert anchors.predicted(4.0, 2, ANCHOR_SIGMA) > anchors.predicted(4.0, 1, ANCHOR_SIGMA)


def test_pair_figures_give_intervals_around_the_estimate() -> None:
    rng = random.Random(3)
    decks = []
    for _ in range(40):
        a = rng.randrange(40, 130)
        decks.append([[a, 162 - a, int(a > 81)], [162 - a + 10, a - 10, int(162 - a + 10 > 81)]])
    f = anchors.pair_figures(decks, 1000, 2, ANCHOR_SIGMA, seed=2, matches=500, resamples=40)
    assert f["decks"] == 40 and f["plays"] == 80
    assert f["margin"] == pytest.approx(10.0)
    for key in ("margin", "match_win", "mu_gap"):
        lo, hi = f[f"{key}_ci95"]
        assert lo <= hi
    assert f["mu_gap"] > 0 and f["match_win"] > 0.5


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "arena", "anchors", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_cli_measures_from_given_plays(tmp_path: Path) -> None:
    from bench.arena import run

    files = []
    for strong, weak in (("medium", "easy"), ("hard", "medium")):
        # the same cheap plays stand for both pairs: the command checks the run's levels
        report = run("duel", 2, {}, strong if strong != "hard" else "medium", weak, 3, seed=4)
        report = {**report, "a": strong, "b": weak, "plays": [[[90, 72, 1], [60, 102, 0]]]}
        path = tmp_path / f"{strong}-{weak}.json"
        path.write_text(json.dumps(report))
        files += ["--from", f"{strong}-{weak}={path}"]
    out = _cli("--family", "duel", "--json", *files)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert r["family"] == "duel" and r["mu"]["medium"] == 25.0
    assert r["pairs"]["hard-medium"]["match_win"] == 0.5
    assert r["mu"]["hard"] == pytest.approx(25.0, abs=1e-6)
    assert set(r["fingerprints"]) == {"easy", "medium", "hard"}
    text = _cli("--family", "duel", *files)
    assert text.returncode == 0 and "hard-medium: 1 decks" in text.stdout


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--family", "duel", "--variant", "duel"],
        ["--family", "duel", "--from", "hard-easy=x.json"],
        ["--family", "duel", "--from", "hard-medium=/nonexistent.json"],
        ["--family", "nope"],
    ],
)
def test_cli_refuses_bad_arguments(args: list[str]) -> None:
    out = _cli(*args)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr


def test_cli_refuses_plays_of_another_game(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"variant": "classic", "players": 4, "a": "hard", "b": "medium",
                                "plays": []}))  # fmt: skip
    out = _cli("--family", "duel", "--from", f"hard-medium={path}")
    assert out.returncode == 2 and "needs hard vs medium in duel 2p" in out.stderr
