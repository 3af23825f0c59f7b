"""Experience points from records (RULES.md §9.2, D-20): scripted matches of every variant."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from app.engine import Phase, apply, legal_actions, new_match, start_deal
from app.engine.record import RecordRuleError, dump
from app.players.xp import (
    DEAL_XP,
    FINISH_XP,
    TRICK_XP,
    WIN_XP,
    SeatResult,
    deal_winning_sides,
    outcomes,
    ranks_of,
    xp_for,
)

DATA = Path(__file__).resolve().parents[1] / "data"


def test_the_xp_table_of_the_seed() -> None:
    assert (FINISH_XP, WIN_XP, DEAL_XP, TRICK_XP) == (15, 25, 2, 1)
    award = xp_for(SeatResult(won=True, deals_won=3, tricks_won=11))
    assert award.as_json() == {
        "finish": 15,
        "win": 25,
        "deals": 6,
        "tricks": 11,
        "total": 57,
        "left": False,
    }
    assert xp_for(SeatResult(won=False, deals_won=0, tricks_won=0)).total == 15


def test_a_player_who_left_gets_nothing() -> None:
    award = xp_for(SeatResult(won=True, deals_won=3, tricks_won=11), left=True)
    assert award.total == 0 and award.left


def test_golden_coinche_match() -> None:
    """tests/data/coinche.json: seat 3 bid capot in hearts, surcoinched, and fell (2 tricks to 6)."""
    record = json.loads((DATA / "coinche.json").read_text())
    [outcome] = outcomes(record)
    assert outcome.winner == 0 and outcome.scores == (1660, 0)
    totals = [xp_for(seat).total for seat in outcome.seats]
    # side 0 defeated the contract: finish 15 + win 25 + one deal 2 + its tricks
    assert [s.tricks_won for s in outcome.seats] == [0, 1, 2, 5]
    assert totals == [15 + 25 + 2 + 0, 15 + 1, 15 + 25 + 2 + 2, 15 + 5]


def test_golden_duel_table_every_played_deal_is_a_game() -> None:
    record = json.loads((DATA / "duel.json").read_text())
    games = outcomes(record)
    assert [g.part for g in games] == [0, 1]
    assert [g.winner for g in games] == [1, 0]
    assert [[xp_for(s).total for s in g.seats] for g in games] == [
        [15 + 6, 15 + 25 + 2 + 10],
        [15 + 25 + 2 + 11, 15 + 5],
    ]


def test_unfinished_matches_earn_nothing_yet() -> None:
    record = json.loads((DATA / "classic.json").read_text())  # two deals, match not over
    assert outcomes(record) == []


def test_litige_and_hanging_deals_are_won_by_nobody() -> None:
    def result(outcome: str, taker_side: int = 0, thrown_in: bool = False) -> Any:
        return SimpleNamespace(
            thrown_in=thrown_in, score=SimpleNamespace(outcome=outcome), taker_side=taker_side
        )

    assert deal_winning_sides(result("made", 1), 2) == {1}
    assert deal_winning_sides(result("failed", 1), 2) == {0}
    assert deal_winning_sides(result("failed", 1), 3) == {0, 2}  # bela 3p: both opponents
    assert deal_winning_sides(result("litige"), 2) == set()
    assert deal_winning_sides(result("hanging"), 2) == set()
    assert deal_winning_sides(result("made", 0, thrown_in=True), 2) == set()


def test_ranks_put_the_winner_first() -> None:
    assert ranks_of([1002, 500], 0) == (0, 1)
    assert ranks_of([300, 700, 500], 1) == (2, 0, 1)
    assert ranks_of([300, 300, 701], 2) == (1, 1, 0)


def play_match(variant: str, players: int, options: dict[str, Any], seed: int) -> tuple[Any, Any]:
    """A random match played to its end; returns (final state, independent tallies per seat)."""
    rng = random.Random(seed)
    state = new_match(variant, players, options, rng=rng)
    n = state.rules.players
    tally = {"tricks": [0] * n, "deals": [0] * n}
    while True:
        if state.phase is Phase.DEAL_OVER:
            if variant == "duel":
                break
            state, _ = start_deal(state, rng)
            continue
        if state.phase is Phase.MATCH_OVER:
            break
        state, events = apply(state, rng.choice(legal_actions(state)))
        for event in events:
            if event.type == "trick_won":
                tally["tricks"][event.data["seat"]] += 1
            if event.type == "deal_scored":
                r = event.data["result"]
                if r["outcome"] == "made":
                    winners = {r["taker_side"]}
                elif r["outcome"] == "failed":
                    winners = set(range(len(r["recorded"]))) - {r["taker_side"]}
                else:
                    winners = set()
                for seat in range(n):
                    if state.rules.side_of[seat] in winners:
                        tally["deals"][seat] += 1
        if variant == "duel" and state.phase is Phase.DEAL_OVER and state.results[-1].thrown_in:
            state, _ = start_deal(state, rng)
    return state, tally


CASES = [
    ("classic", 4, {"target": 501}),
    ("classic", 4, {"target": "one_deal"}),
    ("coinche", 4, {"target": 501}),
    ("bulgarian", 4, {}),
    ("bela", 2, {}),
    ("bela", 3, {}),
    ("bela", 4, {}),
    ("duel", 2, {}),
]


@pytest.mark.parametrize(("variant", "players", "options"), CASES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_xp_sum_per_player_over_scripted_matches(
    variant: str, players: int, options: dict[str, Any], seed: int
) -> None:
    state, tally = play_match(variant, players, options, seed)
    [outcome] = outcomes(dump(state))
    winner = state.results[-1].winner_side if variant == "duel" else state.winner
    for seat in range(state.rules.players):
        won = state.rules.side_of[seat] == winner
        expected = 15 + (25 if won else 0) + 2 * tally["deals"][seat] + tally["tricks"][seat]
        assert xp_for(outcome.seats[seat]).total == expected, seat
    # every trick of the match was won by exactly one seat
    assert sum(s.tricks_won for s in outcome.seats) == sum(
        r.tricks_won and sum(r.tricks_won) or 0 for r in state.results
    )


def test_an_invalid_record_is_refused_with_the_engine_reason() -> None:
    record = json.loads((DATA / "coinche.json").read_text())
    record["deals"][0]["actions"][3]["seat"] = 0
    with pytest.raises(RecordRuleError, match=r"^deal 0, action 3: "):
        outcomes(record)
