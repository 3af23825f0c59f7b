"""The canonical dealing maps of RULES.md (§2.2, §2.8, §3.1, §4.1, §5.2-5.4, §6.1)."""

from __future__ import annotations

import random

import pytest

from app.engine import Phase, action_from_json, apply, new_match
from app.engine.cards import format_card

from .dealing import destinations, hand_strs


def act(state, **action):
    return apply(state, action_from_json(action))[0]


def shuffled(seed: int) -> list[int]:
    deck = list(range(32))
    random.Random(seed).shuffle(deck)
    return deck


def expected(dests, deck, key):
    return {format_card(deck[i]) for i, d in enumerate(dests) if d == key}


@pytest.mark.parametrize("dealer", range(4))
def test_classic_turn_up_deal_and_completion(dealer):
    deck = shuffled(dealer)
    state = new_match("classic", first_dealer=dealer, deck=deck)
    taker = (dealer + 2) % 4
    dests = destinations("classic", dealer, taker=taker)
    for seat in range(4):
        assert hand_strs(state.hands[seat]) == expected(dests, deck, ("hand", seat))
    assert format_card(state.upcard) == format_card(deck[20])
    suit = format_card(deck[20])[1]
    seat = (dealer + 1) % 4
    while seat != taker:
        state = act(state, type="pass")
        seat = (seat + 1) % 4
    state = act(state, type="bid", contract=suit)
    assert state.phase is Phase.PLAY
    for seat in range(4):
        want = expected(dests, deck, ("hand", seat)) | expected(dests, deck, ("rest", seat))
        if seat == taker:
            want |= {format_card(deck[20])}
        assert hand_strs(state.hands[seat]) == want
        assert len(want) == 8


@pytest.mark.parametrize(
    "variant,options", [("coinche", {}), ("classic", {"bidding_mode": "free"})]
)
def test_three_two_three_deal(variant, options):
    deck = shuffled(7)
    state = new_match(variant, options=options, first_dealer=1, deck=deck)
    dests = destinations(variant, 1, free=True)
    for seat in range(4):
        assert hand_strs(state.hands[seat]) == expected(dests, deck, ("hand", seat))


def test_bulgarian_deal_then_three_more_after_contract():
    deck = shuffled(3)
    state = new_match("bulgarian", first_dealer=0, deck=deck)
    dests = destinations("bulgarian", 0)
    for seat in range(4):
        assert len(expected(dests, deck, ("hand", seat))) == 5
        assert hand_strs(state.hands[seat]) == expected(dests, deck, ("hand", seat))
    state = act(state, type="bid", contract="C")
    for _ in range(3):
        state = act(state, type="pass")
    for seat in range(4):
        want = expected(dests, deck, ("hand", seat)) | expected(dests, deck, ("rest", seat))
        assert hand_strs(state.hands[seat]) == want


@pytest.mark.parametrize("players", [2, 3, 4])
def test_bela_deal_talons_and_pickup(players):
    deck = shuffled(players)
    dealer = players - 1
    state = new_match("bela", players, first_dealer=dealer, deck=deck)
    dests = destinations("bela", dealer, players)
    for seat in range(players):
        assert hand_strs(state.hands[seat]) == expected(dests, deck, ("hand", seat))
        assert hand_strs(state.talons[seat]) == expected(dests, deck, ("talon", seat))
    if players == 2:
        assert format_card(state.upcard) == format_card(deck[12])
        assert hand_strs(state.out_of_play) == expected(dests, deck, ("out",))
    if players == 3:
        assert hand_strs(state.middle) == expected(dests, deck, ("middle",))


def test_duel_piles():
    deck = shuffled(11)
    state = new_match("duel", first_dealer=0, deck=deck)
    non_dealer, dealer = 1, 0
    assert [format_card(c) for c in state.piles[non_dealer]] == [format_card(c) for c in deck[0:8]]
    assert [format_card(c) for c in state.piles[dealer]] == [format_card(c) for c in deck[8:16]]
    assert hand_strs(state.hands[non_dealer]) == {format_card(c) for c in deck[16:24]}
    assert hand_strs(state.hands[dealer]) == {format_card(c) for c in deck[24:32]}
    assert state.upcard == deck[31]  # the proposal: the dealer's last face-up card


class _OwnShuffle(random.Random):
    """A generator with its own shuffle: the engine must use it as it is."""

    def shuffle(self, x: list[int]) -> None:  # type: ignore[override]
        x.reverse()


def test_new_match_deals_the_standard_shuffle_of_its_generator() -> None:
    # game._shuffled_deck writes random.Random.shuffle out for speed: same decks, same draws
    for seed in range(300):
        rng = random.Random(seed)
        state = new_match("classic", rng=rng, first_dealer=0)
        assert list(state.deck) == shuffled(seed)
        after = random.Random(seed)
        after.shuffle(list(range(32)))
        assert rng.getstate() == after.getstate()  # the same random numbers were drawn
    assert new_match("classic", rng=random.SystemRandom()).deck != tuple(range(32))
    assert new_match("classic", rng=_OwnShuffle(1), first_dealer=0).deck == tuple(range(31, -1, -1))
