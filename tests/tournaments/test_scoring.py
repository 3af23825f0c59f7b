"""The matchpoints and standings of docs/tournaments.md, its worked examples computed again."""

from __future__ import annotations

from app.tournaments.scoring import Matchpoints, matchpoints, net_score, standings


def test_the_classic_example() -> None:
    nets = {
        "datum": net_score([110, 52], 0),
        "Ann": net_score([0, 162], 0),
        "Bob": net_score([110, 52], 0),
        "Cy": net_score([152, 10], 0),
    }
    assert nets == {"datum": 58, "Ann": -162, "Bob": 58, "Cy": 142}
    mp = matchpoints(nets)
    assert mp["Cy"] == Matchpoints(6, 6, 100.0)
    assert mp["datum"] == mp["Bob"] == Matchpoints(3, 6, 50.0)
    assert mp["Ann"] == Matchpoints(0, 6, 0.0)
    assert sum(m.points for m in mp.values()) == 4 * 3
    # Bob: 50% on board 1 and 100% on board 2 -> 75%
    board2 = matchpoints({"Bob": 10.0, "Ann": 0.0})
    rows = standings({1: mp, 2: board2}, ["Ann", "Bob", "Cy"])
    assert [(r.key, r.percent, r.rank) for r in rows] == [
        ("Cy", 100.0, 1),
        ("Bob", 75.0, 2),
        ("Ann", 0.0, 3),
    ]


def test_the_bela_for_three_example() -> None:
    nets = {
        "datum": net_score([116, 45, 21], 0),
        "Ann": net_score([0, 162, 20], 0),
        "Bob": net_score([116, 45, 21], 0),
    }
    assert nets == {"datum": 83, "Ann": -91, "Bob": 83}
    mp = matchpoints(nets)
    assert mp["datum"] == mp["Bob"] == Matchpoints(3, 4, 75.0)
    assert mp["Ann"] == Matchpoints(0, 4, 0.0)


def test_the_duel_example() -> None:
    mp = matchpoints({"datum": net_score([0, 125], 0), "Ann": net_score([92, 70], 0)})
    assert mp["Ann"] == Matchpoints(2, 2, 100.0) and mp["datum"] == Matchpoints(0, 2, 0.0)


def test_a_lone_result_scores_fifty_and_ties_share_a_rank() -> None:
    assert matchpoints({"x": 12.0})["x"] == Matchpoints(0, 0, 50.0)
    both = matchpoints({"a": 1.0, "b": 1.0})
    rows = standings({1: both}, ["a", "b", "c"])
    assert [(r.key, r.rank) for r in rows] == [("a", 1), ("b", 1)]  # c played nothing
