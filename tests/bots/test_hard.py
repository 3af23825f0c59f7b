"""The hard bot's machinery: world sampling, the fast simulator, the endgame solver."""

from __future__ import annotations

import itertools
import random

import pytest

from app.bots.common import public_voids, table_of
from app.bots.hard import world_deal, world_scorer
from app.bots.knowledge import read_view
from app.bots.sampler import sample_world
from app.bots.sim import allowed_cards, play_card, trick_best
from app.bots.solver import solve
from app.engine import Phase, seat_view
from app.engine.cards import SUIT_MASK, card_list
from app.engine.game import legal_play_mask

from .helpers import CONFIGS, IDS, random_chooser, states


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_samples_respect_voids_and_known_cards(variant: str, players: int) -> None:
    rng = random.Random(1)
    checked = 0
    for state in itertools.islice(states(variant, players, 3, random_chooser), 0, 3000, 7):
        if state.phase is not Phase.PLAY:
            continue
        seat = state.to_act
        k = read_view(seat_view(state, seat))
        voids = public_voids(k)
        for _ in range(20):
            w = sample_world(k, rng)
            assert not w.relaxed
            for other in range(players):
                if other == seat:
                    continue
                hand = w.hands[other]
                assert k.known[other] & ~k.played == k.known[other] & hand
                assert not hand & k.excluded[other]
                if variant != "duel":  # duel: face-down cards are not playable yet
                    for suit in range(4):
                        if (voids[other] >> suit) & 1:
                            assert not hand & SUIT_MASK[suit], (variant, other, suit)
            checked += 1
    assert checked > 200


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_fast_legal_moves_are_the_engines(variant: str, players: int) -> None:
    checked = 0
    for state in itertools.islice(states(variant, players, 5, random_chooser), 6000):
        if state.phase is not Phase.PLAY or not state.trick:
            continue
        k = read_view(seat_view(state, state.to_act))
        t = table_of(k)
        trick = k.trick_cards()
        best_i, best = trick_best(trick, t)
        pm = t.partner_exc and (best_i - len(trick)) % 4 == 2
        assert allowed_cards(state.hands[state.to_act], trick, best, pm, t) == legal_play_mask(
            state
        )
        checked += 1
    assert checked > 300


def _minimax(d, t, scorer, side, extra):  # type: ignore[no-untyped-def]
    """Plain minimax, no pruning: the reference for the solver."""
    if d.tricks_left == 0:
        pts = list(extra)
        trk = [0] * t.sides
        for s in range(t.n):
            pts[t.side_of[s]] += d.won[s]
            trk[t.side_of[s]] += d.tricks[s]
        return scorer.value_sides(tuple(pts), tuple(trk), side)
    seat = (d.leader + len(d.trick)) % t.n
    if d.trick:
        bi, b = trick_best(d.trick, t)
        legal = allowed_cards(
            d.hands[seat], d.trick, b, t.partner_exc and (bi - len(d.trick)) % 4 == 2, t
        )
    else:
        legal = d.hands[seat]
    values = []
    for c in card_list(legal):
        dd = d.copy()
        play_card(dd, c, t)
        values.append(_minimax(dd, t, scorer, side, extra))
    return max(values) if t.side_of[seat] == side else min(values)


@pytest.mark.parametrize(
    ("variant", "players", "cards_left"),
    [("coinche", 4, 8), ("bela", 2, 8), ("duel", 2, 8), ("bela", 3, 9), ("classic", 4, 12)],
)
def test_solver_matches_plain_minimax(variant: str, players: int, cards_left: int) -> None:
    rng = random.Random(2)
    checked = 0
    for state in itertools.islice(states(variant, players, 9, random_chooser), 20000):
        if state.phase is not Phase.PLAY or len(state.tricks) < state.rules.total_tricks - 4:
            continue
        k = read_view(seat_view(state, state.to_act))
        left = sum(k.hand_counts) + len(k.trick) + sum(len(c) for c in k.duel_covers)
        if left != cards_left:
            continue
        moves = card_list(k.legal_cards())
        t = table_of(k)
        w = sample_world(k, rng)
        d = world_deal(k, w, public_voids(k))
        scorer, extra = world_scorer(k, w, {})
        side = k.my_side

        def value(p: tuple[int, ...], tr: tuple[int, ...], sc=scorer, sd=side) -> float:  # type: ignore[no-untyped-def]
            return float(sc.value_sides(p, tr, sd))

        values, _ = solve(d, t, value, side, moves, extra)
        for c, v in zip(moves, values, strict=True):
            dd = d.copy()
            play_card(dd, c, t)
            assert v == pytest.approx(_minimax(dd, t, scorer, side, extra))
        checked += 1
        if checked >= 8:
            return
    assert checked >= 5
