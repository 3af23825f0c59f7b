"""The engine's form of §0.6 against the algorithm as written.

``apply`` keeps the index of the card winning the trick so far and computes legal cards
from the led suit and that card (``legal_mask_top``; ``legal_mask`` finds the card from the
trick).  ``written_rule`` below looks at every card of the trick, as RULES.md §0.6 reads.
They must agree on every trick, hand, trump mode, flag combination and partner case.
"""

from __future__ import annotations

import itertools
import random

import pytest

from app.engine.cards import ABOVE_PLAIN, ABOVE_TRUMP, PLAIN_STRENGTH, SUIT_MASK, TRUMP_STRENGTH
from app.engine.play import (
    ALL_TRUMP,
    BEATS,
    NO_TRUMP,
    PlayFlags,
    legal_mask,
    legal_mask_top,
    ruled_out,
    trick_winner_index,
)

FLAGS = [PlayFlags(*bits) for bits in itertools.product((False, True), repeat=3)]
TRUMPS = [0, 1, 2, 3, NO_TRUMP, ALL_TRUMP]


def _highest(cards: list[int], trump_order: bool) -> int:
    strength = TRUMP_STRENGTH if trump_order else PLAIN_STRENGTH
    return max(cards, key=lambda c: strength[c & 7])


def written_rule(
    hand: int, cards: list[int], trump: int, partner_master: bool, flags: PlayFlags
) -> int:
    """§0.6 as written: look at every card of the trick (the engine's first form, kept here as
    an independent reference)."""
    if not cards:
        return hand
    led = cards[0] >> 3
    follow = hand & SUIT_MASK[led]
    if trump == NO_TRUMP:
        return follow or hand
    if trump == ALL_TRUMP:
        if follow:
            top = _highest([c for c in cards if c >> 3 == led], True)
            return (follow & ABOVE_TRUMP[top]) or follow
        return hand
    trumps_on_table = [c for c in cards if c >> 3 == trump]
    if follow:
        if led == trump:
            return (follow & ABOVE_TRUMP[_highest(trumps_on_table, True)]) or follow
        if flags.overtake_plain and not trumps_on_table:
            top = _highest([c for c in cards if c >> 3 == led], False)
            return (follow & ABOVE_PLAIN[top]) or follow
        return follow
    if led == trump:
        return hand
    if flags.partner_exception and partner_master:
        return hand
    trumps = hand & SUIT_MASK[trump]
    if not trumps:
        return hand
    if trumps_on_table:
        higher = trumps & ABOVE_TRUMP[_highest(trumps_on_table, True)]
        if higher:
            return higher
        return trumps if flags.must_undertrump else hand
    return trumps


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
                expected = written_rule(hand, on_table, trump, partner, flags)
                got = legal_mask_top(hand, on_table[0] >> 3, top, trump, partner, flags)
                assert got == expected, (hand, on_table, trump, partner, flags)
                assert legal_mask(hand, on_table, trump, partner, flags) == expected
                checked += 1
    assert checked > 10_000


def test_a_played_card_rules_out_exactly_the_cards_the_legal_move_rule_says() -> None:
    """``ruled_out`` (cached per trick shape) against its definition: card ``c`` is ruled
    out when the card played would be illegal from the hand ``{played, c}`` on that trick."""
    rng = random.Random(5)
    for _ in range(5000):
        trump = rng.randrange(6)
        before = rng.sample(range(32), rng.randrange(1, 4) + 1)
        card = before.pop()
        flags = PlayFlags(*(rng.random() < 0.5 for _ in range(3)))
        partner_master = rng.random() < 0.5
        expected = 0
        for c in range(32):
            hand = (1 << card) | (1 << c)
            if c != card and not legal_mask(hand, before, trump, partner_master, flags) >> card & 1:
                expected |= 1 << c
        top = before[trick_winner_index(before, trump)]
        got = ruled_out(card, before[0] >> 3, top, trump, partner_master, flags)
        assert got == expected, (before, card, trump, partner_master, flags)
