"""The view-parsing layer: what a seat can tell from its seat view, checked against the
true state it never sees."""

from __future__ import annotations

import itertools

import pytest

from app.bots.knowledge import read_view
from app.engine import Phase, seat_view
from app.engine.cards import SUIT_MASK

from .helpers import CONFIGS, IDS, states


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_knowledge_is_consistent_with_the_hidden_truth(variant: str, players: int) -> None:
    """Cards a seat "cannot hold" are never held, "known" cards always are, and the hidden
    cards exactly fill the slots they may lie in."""
    checked = 0
    for state in itertools.islice(states(variant, players, seed=11), 600):
        for seat in range(players):
            k = read_view(seat_view(state, seat))
            assert sum(s.size for s in k.slots) == k.hidden.bit_count()
            assert not k.hidden & k.hand
            assert not k.hidden & k.played
            for other in range(players):
                if other == seat:
                    continue
                actual = state.hands[other] | (state.talons[other] if state.talons else 0)
                assert not k.excluded[other] & actual, (variant, seat, other)
                assert not k.known[other] & ~actual, (variant, seat, other)
                if variant != "duel":
                    assert not actual & ~k.could_hold(other)
            checked += 1
    assert checked > 500


def test_a_void_is_remembered() -> None:
    """A player who did not follow suit cannot hold that suit, for every other seat."""
    found = 0
    for state in itertools.islice(states("classic", 4, seed=3), 4000):
        if state.phase is not Phase.PLAY:
            continue
        for t in state.tricks:
            led = t.plays[0][1] >> 3
            for seat, c in t.plays[1:]:
                if c >> 3 != led:
                    for viewer in range(4):
                        if viewer == seat:
                            continue
                        k = read_view(seat_view(state, viewer))
                        assert not k.could_hold(seat) & SUIT_MASK[led]
                        assert k.is_void(seat, led)
                        found += 1
        if found > 50:
            break
    assert found > 50


def test_master_and_trump_count() -> None:
    for state in itertools.islice(states("coinche", 4, seed=5), 3000):
        if state.phase is Phase.PLAY and len(state.tricks) >= 3:
            seat = state.to_act
            k = read_view(seat_view(state, seat))
            trump = state.contract.trump
            outside = 0
            for s in range(4):
                if s != seat:
                    outside |= state.hands[s]
            assert k.trumps_outside() == outside & SUIT_MASK[trump]
            for c in range(32):
                if (k.hand >> c) & 1:
                    stronger = outside & SUIT_MASK[c >> 3]
                    beaten = any(
                        k.strength(o) > k.strength(c) for o in range(32) if (stronger >> o) & 1
                    )
                    assert k.is_master(c) == (not beaten)
            return
    raise AssertionError("no position found")


@pytest.mark.parametrize(
    ("variant", "players"), [("classic", 4), ("bela", 2)], ids=["classic", "bela-2p"]
)
def test_the_taken_card_is_known_to_be_in_its_takers_hand(variant: str, players: int) -> None:
    """The face-up card a seat took (classic: the taker's turn-up; bela 2p: the proposal the
    exchanger took for the seven) is known to every other seat to lie in that hand, and the
    sampler deals it there in every world, until it is played."""
    import random

    from app.bots.sampler import place
    from app.engine.cards import parse_card

    rng = random.Random(5)
    found = 0
    for state in itertools.islice(states(variant, players, seed=8), 3000):
        for seat in range(players):
            view = seat_view(state, seat)
            taken = view.get("taken")
            if not taken or taken["seat"] == seat:
                continue
            bit = 1 << parse_card(taken["card"])
            k = read_view(view)
            if k.played & bit:
                assert not k.known[taken["seat"]] & bit
                continue
            assert k.known[taken["seat"]] & bit
            assert not k.hidden & bit
            assert place(k, rng).hands[taken["seat"]] & bit
            found += 1
    assert found > 100
