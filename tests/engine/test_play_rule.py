"""The engine's incremental form of §0.6 against the written algorithm.

``apply`` keeps the index of the card winning the trick so far and computes legal cards
from the led suit and that card (``legal_mask_top``); ``legal_mask`` looks at every card
of the trick.  They must agree on every trick, hand, trump mode and flag combination.
"""

from __future__ import annotations

import itertools
import random

import pytest

from app.engine.cards import SUIT_MASK
from app.engine.play import (
    ALL_TRUMP,
    BEATS,
    NO_TRUMP,
    PlayFlags,
    legal_mask,
    legal_mask_top,
    trick_winner_index,
)

FLAGS = [PlayFlags(*bits) for bits in itertools.product((False, True), repeat=3)]
TRUMPS = [0, 1, 2, 3, NO_TRUMP, ALL_TRUMP]


@pytest.mark.parametrize("trump", TRUMPS)
def test_incremental_winner_is_the_trick_winner(trump: int) -> None:
    rng = random.Random(trump)
    for _ in range(3000):
        cards = rng.sample(range(32), rng.randint(1, 4))
        best = 0
        for i in range(1, len(cards)):
            if BEATS[trump][cards[best] * 32 + cards[i]]:
                best = i
        assert best == trick_winner_index(cards, trump), (cards, trump)


@pytest.mark.parametrize("trump", TRUMPS)
def test_legal_cards_from_the_winning_card_equal_the_written_rule(trump: int) -> None:
    rng = random.Random(100 + trump)
    checked = 0
    for _ in range(4000):
        deck = rng.sample(range(32), 32)
        on_table = deck[: rng.randint(1, 3)]
        size = rng.randint(1, 8)
        hand = 0
        for c in deck[4 : 4 + size]:
            hand |= 1 << c
        if rng.random() < 0.3:  # often void in the led suit, to reach the trump rules
            hand &= ~SUIT_MASK[on_table[0] >> 3]
            if not hand:
                continue
        top = on_table[trick_winner_index(on_table, trump)]
        for flags in FLAGS:
            for partner in (False, True):
                expected = legal_mask(hand, on_table, trump, partner, flags)
                got = legal_mask_top(hand, on_table[0] >> 3, top, trump, partner, flags)
                assert got == expected, (hand, on_table, trump, partner, flags)
                checked += 1
    assert checked > 10_000
