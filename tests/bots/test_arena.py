"""The arena (``atout arena``): duplicate seatings, per-deck figures, the report, the CLI."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from bench import arena
from bench.arena import deck_seed, play_deck, play_one, run, seatings


def test_two_sides_swap_every_seat() -> None:
    for players in (2, 4):
        first, second = seatings(players, "A", "B")
        assert [{"A": "B", "B": "A"}[lv] for lv in first] == second
        # Partners hold the same level.
        if players == 4:
            assert first[0] == first[2] and first[1] == first[3]


def test_three_players_focus_seat_rotates() -> None:
    for index in range(6):
        f = index % 3
        one, two = seatings(3, "A", "B", index)
        assert one[f] == "A" and [one[s] for s in range(3) if s != f] == ["B", "B"]
        assert two[f] == "B" and [two[s] for s in range(3) if s != f] == ["A", "A"]


def test_three_player_deck_figure_is_the_focus_seats_difference() -> None:
    args = ("bela", 3, {}, "medium", "easy", 11, 4, None)
    deck = play_deck(args)
    # Replay the two plays by hand and compare.
    import random

    rng = random.Random("11:4")
    cards = list(range(32))
    rng.shuffle(cards)
    dealer = rng.randrange(3)
    plays = seatings(3, "medium", "easy", 4)
    results = [play_one("bela", 3, {}, cards, dealer, lv, deck_seed(11, 4), None) for lv in plays]
    f = 4 % 3
    assert deck.diff == results[0].points[f] - results[1].points[f]
    taken = sum(v[0] for v in deck.contracts.values())
    assert taken == sum(1 for r in results if r.taker is not None)


def test_two_side_deck_figure_is_the_mean_of_both_plays() -> None:
    import random

    deck = play_deck(("classic", 4, {}, "medium", "easy", 5, 2, None))
    rng = random.Random("5:2")
    cards = list(range(32))
    rng.shuffle(cards)
    dealer = rng.randrange(4)
    plays = seatings(4, "medium", "easy")
    diffs = []
    for lv in plays:
        r = play_one("classic", 4, {}, cards, dealer, lv, deck_seed(5, 2), None)
        diffs.append(r.points[lv.index("medium")] - r.points[lv.index("easy")])
    assert deck.diff == sum(diffs) / 2


def test_a_level_against_itself_differs_by_exactly_nothing() -> None:
    # Both plays of a deck give each seat the same generator (common random numbers): the
    # same decisions play the deck the same way whichever side holds it, so the only
    # differences left between two levels are those of their decisions.
    report = run("classic", 4, {}, "medium", "medium+medium", 8, seed=21, keep_plays=True)
    assert report["mean_diff"] == 0 and report["sd"] == 0
    for first, second in report["plays"]:
        assert first[:2] == second[1::-1]  # A's points in one play are B's in the other
    assert any(first[0] for first, _ in report["plays"])  # not 8 thrown-in decks


def test_run_is_deterministic_and_reports_everything() -> None:
    one = run("duel", 2, {}, "medium", "easy", 6, seed=3)
    two = run("duel", 2, {}, "medium", "easy", 6, seed=3)
    for key in ("mean_diff", "ci95", "sd", "contracts", "thrown_in_plays"):
        assert one[key] == two[key]
    assert one["deals"] == 6 and one["plays_per_deal"] == 2
    lo, hi = one["ci95"]
    assert lo <= one["mean_diff"] <= hi
    for lv in ("medium", "easy"):
        c = one["contracts"][lv]
        assert 0 <= c["made"] <= c["taken"] <= 12
        for key in ("decision_ms", "decision_cpu_ms"):
            t = one[key][lv]
            assert t["decisions"] > 0
            assert 0 <= t["p50"] <= t["p95"] <= t["max"]
    text = arena.format_report(one)
    assert "95% CI" in text and "CPU p50" in text


def test_workers_give_the_same_figures() -> None:
    one = run("bela", 2, {}, "medium", "easy", 4, seed=9, workers=1)
    two = run("bela", 2, {}, "medium", "easy", 4, seed=9, workers=2)
    assert one["mean_diff"] == two["mean_diff"] and one["contracts"] == two["contracts"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "arena", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--variant", "classic", "--a", "medium", "--b", "easy", "--deals", "0"],
        ["--variant", "bela", "--players", "5", "--a", "medium", "--b", "easy"],
        ["--variant", "classic", "--a", "medium", "--b", "easy", "--options", "[1]"],
        ["--variant", "classic", "--a", "medium", "--b", "easy", "--options", '{"nope": 1}'],
    ],
)
def test_cli_refuses_bad_arguments(args: list[str]) -> None:
    out = _cli(*args)
    assert out.returncode == 2
    assert out.stderr.startswith("atout: ") and "Traceback" not in out.stderr


def test_cli_prints_json() -> None:
    out = _cli(
        "--variant", "bela", "--players", "3", "--a", "medium", "--b", "easy",
        "--deals", "3", "--seed", "2", "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["variant"] == "bela" and report["players"] == 3 and report["deals"] == 3


def test_a_pair_sits_first_level_in_the_sides_first_seat() -> None:
    one, two = seatings(4, "hard+medium", "medium+easy")
    # A holds seats 0 and 2, then 1 and 3: its first level in the side's first seat.
    assert one == ["hard", "medium", "medium", "easy"]
    assert two == ["medium", "hard", "easy", "medium"]
    # Duplicate: each seat's cards go to the other side's level of the same rank in the pair.
    assert [one[0], one[2]] == [two[1], two[3]] == ["hard", "medium"]
    assert [one[1], one[3]] == [two[0], two[2]] == ["medium", "easy"]
    # A plain level keeps meaning both seats of that level.
    assert seatings(4, "hard", "medium+easy")[0] == ["hard", "medium", "hard", "easy"]
    assert seatings(4, "hard+hard", "medium") == seatings(4, "hard", "medium")


@pytest.mark.parametrize("players", [2, 3])
def test_a_pair_needs_four_players(players: int) -> None:
    with pytest.raises(ValueError, match="pair of levels"):
        seatings(players, "hard+medium", "medium")
    with pytest.raises(ValueError, match="pair of levels"):
        run("bela", players, {}, "medium", "medium+easy", 1, seed=1)


def test_a_pair_run_reports_each_side_and_its_levels() -> None:
    r = run("classic", 4, {}, "medium+easy", "easy", 4, seed=7, keep_plays=True)
    assert r["a"] == "medium+easy" and r["b"] == "easy" and r["plays_per_deal"] == 2
    assert set(r["contracts"]) == {"medium+easy", "easy"}
    by_level = r["decision_cpu_ms_by_level"]
    assert set(by_level["medium+easy"]) == {"medium", "easy"} and set(by_level["easy"]) == {"easy"}
    side = r["decision_cpu_ms"]["medium+easy"]["decisions"]
    assert side == sum(t["decisions"] for t in by_level["medium+easy"].values())
    # Each deck's figure is the mean over its two plays of A's points minus B's.
    assert len(r["plays"]) == 4
    diffs = [sum(pa - pb for pa, pb, _ in deck) / 2 for deck in r["plays"]]
    assert r["mean_diff"] == pytest.approx(sum(diffs) / 4)
    assert all(won in (0, 1, None) for deck in r["plays"] for _, _, won in deck)
    text = arena.format_report(r)
    assert "medium+easy (A)" in text and "easy   (B)" in text and "of which medium" in text


def test_cli_refuses_a_pair_below_four_players() -> None:
    out = _cli("--variant", "duel", "--a", "hard+medium", "--b", "medium", "--deals", "1")
    assert out.returncode == 2
    assert out.stderr.startswith("atout: ") and "pair of levels" in out.stderr
    assert "Traceback" not in out.stderr
    out = _cli("--variant", "classic", "--a", "hard+nope", "--b", "medium", "--deals", "1")
    assert out.returncode == 2 and "unknown level 'nope'" in out.stderr


def test_cli_runs_a_pair() -> None:
    out = _cli(
        "--variant", "bela", "--players", "4", "--a", "medium+easy", "--b", "easy+medium",
        "--deals", "2", "--seed", "3", "--json", "--plays",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["a"] == "medium+easy" and report["b"] == "easy+medium"
    assert len(report["plays"]) == 2 and all(len(deck) == 2 for deck in report["plays"])


def test_a_hard_level_carries_its_own_budget() -> None:
    assert arena.level_budget("hard@200", 120.0) == ("hard", 200.0)
    assert arena.level_budget("hard-v1@80.5", None) == ("hard-v1", 80.5)
    assert arena.level_budget("medium", 50.0) == ("medium", 50.0)
    for bad in ("medium@200", "hard@", "hard@fast", "hard@0", "hard@-3", "hard@20000"):
        with pytest.raises(ValueError, match="a budget goes with a hard level"):
            arena.level_budget(bad, None)
    with pytest.raises(ValueError, match="unknown level 'hard-v9@100'"):
        arena.check_sides(2, "hard-v9@100", "hard")
    # A side's own budget is the budget its seats decide with: "hard@4" in a run without a
    # budget plays the deal exactly as "hard" in a run at 4 ms.
    rng = random.Random("budget")
    cards = list(range(32))
    rng.shuffle(cards)
    own = play_one("bela", 2, {}, cards, 0, ["hard@4", "medium"], 17, None)
    run_wide = play_one("bela", 2, {}, cards, 0, ["hard", "medium"], 17, 4.0)
    assert own.points == run_wide.points and own.taker == run_wide.taker
    assert len(own.cpu["hard@4"]) == len(run_wide.cpu["hard"]) > 0


def test_cli_refuses_a_budget_on_a_level_without_one() -> None:
    out = _cli("--variant", "duel", "--a", "medium@100", "--b", "easy", "--deals", "1")
    assert out.returncode == 2 and "a budget goes with a hard level" in out.stderr


def test_a_fixed_bidding_level_gives_both_plays_the_same_contract() -> None:
    """``bid_level``: every seat bids as that level on both sides, so both plays of a deck
    have the same auction (common random numbers) and only the card play differs: each
    contract is taken once by each side's seat."""
    r = run("coinche", 4, {}, "hard", "medium", 4, 5, budget_ms=5, bid_level="medium")
    assert r["bid_level"] == "medium"
    assert r["contracts"]["hard"]["taken"] == r["contracts"]["medium"]["taken"] > 0
    for index in range(4):
        plays = [
            play_one("coinche", 4, {}, *_deck(5, index), levels, deck_seed(5, index), 5, "medium")
            for levels in seatings(4, "hard", "medium", index)
        ]
        assert plays[0].taker == plays[1].taker


def _deck(seed: int, index: int) -> tuple[list[int], int]:
    rng = random.Random(f"{seed}:{index}")
    deck = list(range(32))
    rng.shuffle(deck)
    return deck, rng.randrange(4)


def test_cli_refuses_a_pair_as_the_bidding_level() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "arena",
            "--variant",
            "coinche",
            "--a",
            "hard",
            "--b",
            "medium",
            "--deals",
            "1",
            "--bid-level",
            "hard+medium",
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert "--bid-level" in out.stderr


def test_no_deadline_is_reported_and_restored() -> None:
    from app.bots import hard

    r = run("classic", 4, {}, "hard", "medium", 1, 3, budget_ms=5, deadline=False)
    assert r["deadline"] is False
    assert hard.WALL_DEADLINE is True
    assert r["mean_diff"] == run("classic", 4, {}, "hard", "medium", 1, 3, budget_ms=5)["mean_diff"]
