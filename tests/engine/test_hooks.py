"""Hooks of ``Rules`` that the server reads, and the view cache's one owner."""

from __future__ import annotations

import random

from app.engine import Phase, State, apply, legal_actions, new_match, spectator_view, start_deal
from app.engine.actions import PASS
from app.engine.views import clear_view_cache


def _to_deal_over(state: State, rng: random.Random) -> State:
    while state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER):
        state, _ = apply(state, rng.choice(legal_actions(state)))
    return state


def test_a_played_duel_deal_needs_consent_for_the_next() -> None:
    rng = random.Random(5)
    state = new_match("duel", rng=rng)
    while True:
        state = _to_deal_over(state, rng)
        if not state.results[-1].thrown_in:
            break
        assert not state.rules.next_deal_needs_consent(state)
        state, _ = start_deal(state, rng)
    assert state.rules.next_deal_needs_consent(state)


def test_a_thrown_in_duel_deal_is_dealt_again_at_once() -> None:
    state = new_match("duel", seed=2)
    for _ in range(4):
        state, _ = apply(state, PASS)
    assert state.phase is Phase.DEAL_OVER and state.results[-1].thrown_in
    assert not state.rules.next_deal_needs_consent(state)


def test_other_variants_deal_the_next_deal_at_once() -> None:
    for variant, players in (("classic", 4), ("coinche", 4), ("bulgarian", 4), ("bela", 3)):
        rng = random.Random(1)
        state = _to_deal_over(new_match(variant, players, rng=rng), rng)
        assert not state.rules.next_deal_needs_consent(state), variant


def test_clear_view_cache_rebuilds_the_same_view() -> None:
    state = new_match("bela", 2, seed=4)
    first = spectator_view(state)
    assert spectator_view(state)["bids"] is first["bids"]  # the cached common view
    clear_view_cache(state)
    again = spectator_view(state)
    assert again == first and again["bids"] is not first["bids"]


def test_a_copy_does_not_inherit_the_view() -> None:
    state = new_match("classic", seed=4)
    spectator_view(state)
    new, _ = apply(state, legal_actions(state)[0])
    assert spectator_view(new)["to_act"] != spectator_view(state)["to_act"]
