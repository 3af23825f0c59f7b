"""The exact solver (``app.bots.dds``) against a plain minimax, in every variant.

The reference knows nothing of the solver's tricks: it plays every legal card (the engine's
``legal_mask`` from the trick's cards, ``trick_winner_index``), scores the deal at the end
by the rules of card play (card points, the last trick's 10, the 90 of a capot when one side
took every trick, Bulgarian no-trump doubled) and takes the max or the min.  Positions come
from deals played at random through the engine.
"""

from __future__ import annotations

import itertools
import os
import random
from dataclasses import replace

import pytest

from app.bots.dds import Position, parties, position_of, solve_position
from app.engine import Phase
from app.engine.cards import card_list
from app.engine.play import legal_mask, trick_winner_index
from app.engine.scoring import CAPOT_BONUS

from .helpers import CONFIGS, IDS, random_chooser, states

# Positions per variant; DDS_POSITIONS=2000 (for example) runs a larger check.
POSITIONS = int(os.environ.get("DDS_POSITIONS", "400"))


def reference(pos: Position, side: int) -> dict[int, int]:
    """Each legal card's value by plain minimax: the card-play difference of ``side``'s
    party at the end of the deal."""
    t = pos.table
    d = pos.deal
    mx = parties(t, side)
    hands = d.hands[:]
    won = [0] * t.sides
    trk = [0] * t.sides
    for s in range(t.n):
        won[t.side_of[s]] += d.won[s]
        trk[t.side_of[s]] += d.tricks[s]
    for s, p in enumerate(pos.extra):
        won[s] += p

    def final() -> int:
        score = [p * pos.scale for p in won]
        for s in range(t.sides):
            if trk[s] == t.total_tricks:
                score[s] += CAPOT_BONUS
        own = sum(score[s] for s in range(t.sides) if mx[t.side_of.index(s)])
        return 2 * own - sum(score)

    def value(trick: list[int], leader: int, left: int) -> int:
        if left == 0:
            return final()
        seat = (leader + len(trick)) % t.n
        if trick:
            wi = trick_winner_index(trick, t.trump)
            pm = t.partner_exc and (wi - len(trick)) % 4 == 2
            legal = legal_mask(hands[seat], trick, t.trump, pm, t.flags)
        else:
            legal = hands[seat]
        vals = [play(c, seat, trick, leader, left) for c in card_list(legal)]
        return max(vals) if mx[seat] else min(vals)

    def play(c: int, seat: int, trick: list[int], leader: int, left: int) -> int:
        hands[seat] &= ~(1 << c)
        trick = [*trick, c]
        if len(trick) < t.n:
            v = value(trick, leader, left)
        else:
            w = (leader + trick_winner_index(trick, t.trump)) % t.n
            p = sum(t.points[x] for x in trick) + (10 if left == 1 else 0)
            ws = t.side_of[w]
            won[ws] += p
            trk[ws] += 1
            freed = [d.reveal[x] for x in trick if x in d.reveal]
            for f in freed:
                hands[d.owner[f]] |= 1 << f
            v = value([], w, left - 1)
            for f in freed:
                hands[d.owner[f]] &= ~(1 << f)
            won[ws] -= p
            trk[ws] -= 1
        hands[seat] |= 1 << c
        return v

    seat = pos.seat
    trick = d.trick
    if trick:
        wi = trick_winner_index(trick, t.trump)
        legal = legal_mask(
            hands[seat], trick, t.trump, t.partner_exc and (wi - len(trick)) % 4 == 2, t.flags
        )
    else:
        legal = hands[seat]
    return {c: play(c, seat, trick, d.leader, d.tricks_left) for c in card_list(legal)}


def deal_total(pos: Position) -> int:
    """The card-play points of both parties together, without a capot."""
    d = pos.deal
    out = 0
    for h in d.hands:
        out |= h
    out |= sum(1 << c for c in d.trick) | sum(1 << f for f in d.reveal.values())
    raw = sum(pos.table.points[c] for c in card_list(out)) + sum(d.won) + sum(pos.extra)
    return (raw + 10) * pos.scale


def cards_left(pos: Position) -> int:
    return sum(h.bit_count() for h in pos.deal.hands) + len(pos.deal.reveal)


# the largest positions the plain minimax settles quickly, per player count
SMALL = {4: 12, 3: 12, 2: 10}


def small_positions(variant: str, players: int, seed: int):  # type: ignore[no-untyped-def]
    limit = SMALL[players]
    for state in states(variant, players, seed, random_chooser):
        if state.phase is not Phase.PLAY:
            continue
        pos = position_of(state)
        if cards_left(pos) <= limit:
            yield pos


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_solver_is_exact_against_plain_minimax(variant: str, players: int) -> None:
    rng = random.Random(7)
    checked = 0
    for pos in itertools.islice(small_positions(variant, players, 11), POSITIONS):
        side = rng.randrange(pos.table.sides)
        sol = solve_position(pos, side)
        ref = reference(pos, side)
        assert sol.values == ref, (variant, players, pos)
        assert sol.value == max(ref.values())
        for c, (own, other) in sol.scores.items():
            assert own - other == sol.values[c]
        checked += 1
    assert checked == POSITIONS


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_solver_counts_the_capot(variant: str, players: int) -> None:
    """The tricks already played given to one seat, so that its side may still take them
    all: the capot is in play, and its 90 points show in the scores."""
    rng = random.Random(8)
    capots = 0
    for pos in itertools.islice(small_positions(variant, players, 12), POSITIONS // 2):
        d = pos.deal
        sweeper = rng.randrange(pos.table.n)
        done = pos.table.total_tricks - d.tricks_left
        won = [sum(d.won) if s == sweeper else 0 for s in range(pos.table.n)]
        tricks = [done if s == sweeper else 0 for s in range(pos.table.n)]
        deal = replace(d, won=won, tricks=tricks)
        swept = Position(deal, pos.table, pos.extra, pos.scale)
        side = rng.randrange(pos.table.sides)
        sol = solve_position(swept, side)
        assert sol.values == reference(swept, side)
        total = deal_total(swept)
        for own, other in sol.scores.values():
            assert own + other in (total, total + CAPOT_BONUS)
            capots += own + other == total + CAPOT_BONUS
    assert capots > 0


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_a_table_kept_through_a_deal_gives_the_same_values(variant: str, players: int) -> None:
    """Every decision of one deal's last tricks solved with one table kept between them
    (for one side, then the other) equals a fresh solve."""
    rng = random.Random(9)
    deals = 0
    tt: dict[int, tuple[int, int, int]] = {}
    first = None
    for state in states(variant, players, 13, random_chooser):
        if state.phase is not Phase.PLAY:
            continue
        pos = position_of(state)
        if cards_left(pos) > SMALL[players] + players:
            continue
        if first is None or state.tricks[:1] != first:
            first = state.tricks[:1]
            tt = {}
            deals += 1
            if deals > 3:
                break
        side = rng.randrange(pos.table.sides)
        kept = solve_position(pos, side, tt=tt)
        assert kept.values == solve_position(pos, side).values
        assert kept.scores == solve_position(pos, side).scores
    assert deals > 3


def best_trump_run(pos: Position, side: int) -> int:
    """The card points of the run of trumps from the best one out that one party holds
    (positive for ``side``'s party, negative for the other), 0 without a trump suit."""
    t = pos.table
    if t.trump >= 4:
        return 0
    mx = parties(t, side)
    out = 0
    for h in pos.deal.hands:
        out |= h
    out |= sum(1 << f for f in pos.deal.reveal.values())
    run = [c for c in t.desc[t.trump] if (out >> c) & 1]
    if not run:
        return 0

    def party(c: int) -> bool:
        seat = next(
            s for s in range(t.n) if (pos.deal.hands[s] >> c) & 1 or pos.deal.owner.get(c) == s
        )
        return mx[seat]

    who = party(run[0])
    pts = 0
    for c in run:
        if party(c) != who:
            break
        pts += t.points[c]
    return pts if who else -pts


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_a_run_of_best_trumps_held_by_one_party_is_valued_exactly(
    variant: str, players: int
) -> None:
    """Positions where one party holds the best trumps still out, worth 14 points or more:
    the bound their tricks give each lead (that party's points at least, no capot for the
    other) leaves every value as the plain minimax finds it."""
    rng = random.Random(10)
    checked = 0
    for pos in itertools.islice(small_positions(variant, players, 14), 8 * POSITIONS):
        side = rng.randrange(pos.table.sides)
        if abs(best_trump_run(pos, side)) < 14:
            continue
        sol = solve_position(pos, side)
        assert sol.values == reference(pos, side), (variant, players, pos)
        checked += 1
        if checked == POSITIONS // 4:
            break
    assert checked >= 5  # Bulgarian deals are often played in no-trump or all-trump


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_values_of_either_parity_are_found_exactly(variant: str, players: int) -> None:
    """The root's searches probe only values of the parity of the points still out (the
    first one at 0, whatever the value): positions with an odd and an even number of points
    still out both get the plain minimax's values."""
    rng = random.Random(11)
    seen = [0, 0]
    for pos in itertools.islice(small_positions(variant, players, 15), POSITIONS // 2):
        out = deal_total(pos) - (sum(pos.deal.won) + sum(pos.extra)) * pos.scale
        side = rng.randrange(pos.table.sides)
        sol = solve_position(pos, side)
        ref = reference(pos, side)
        assert sol.values == ref, (variant, players, pos)
        assert all((v - deal_total(pos)) % 2 == 0 for v in ref.values())
        seen[out & 1] += 1
    assert min(seen) > 0
