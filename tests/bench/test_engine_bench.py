"""The fast path plays exactly the rules of the public API."""

from __future__ import annotations

import random

import pytest

from app.engine import Phase, apply, legal_actions, new_match
from app.engine.actions import PLAYS
from app.engine.game import legal_play_mask
from bench.engine import _pick, playout, position_of

CONFIGS = [
    ("classic", 4, {}),
    ("classic", 4, {"bidding_mode": "free"}),
    ("coinche", 4, {"allow_sa_ta": True}),
    ("bulgarian", 4, {}),
    ("bela", 2, {}),
    ("bela", 3, {}),
    ("bela", 4, {}),
    ("duel", 2, {}),
]


def slow_playout(state, rng):
    """The same random policy through the public API."""
    while state.phase is Phase.PLAY:
        card = _pick(legal_play_mask(state), rng.random())
        state, _ = apply(state, PLAYS[card])
    return state


@pytest.mark.parametrize("variant,players,options", CONFIGS)
def test_fast_playout_matches_the_engine(variant, players, options):
    rng = random.Random(42)
    checked = 0
    while checked < 40:
        state = new_match(variant, players, options, rng=rng)
        while state.phase not in (Phase.PLAY, Phase.DEAL_OVER, Phase.MATCH_OVER):
            actions = [a for a in legal_actions(state) if a.type != "declare"]
            state, _ = apply(state, rng.choice(actions))
        if state.phase is not Phase.PLAY:
            continue
        # advance a random number of cards so positions start mid-trick too
        for _ in range(rng.randrange(6)):
            state, _ = apply(state, PLAYS[_pick(legal_play_mask(state), rng.random())])
        seed = rng.randrange(10**9)
        fast = playout(position_of(state), random.Random(seed))
        end = slow_playout(state, random.Random(seed))
        start_points = list(state.points)
        assert [a + b for a, b in zip(start_points, fast, strict=True)] == list(end.points)
        checked += 1
