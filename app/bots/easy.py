"""The easy bot: legal, plausible cards without much thought.

It bids only with an obvious trump holding (the jack and two more trumps, or the jack and
the nine), never doubles, and plays mostly at random among its legal cards, with two
habits a beginner has too: it does not throw away a master card worth ten points or more
on a trick it is not winning, and it usually cashes a master ace when it leads.
"""

from __future__ import annotations

import random
from typing import Any

from app.engine.actions import Bid, Pass, action_from_json
from app.engine.cards import R9, RJ, SUIT_MASK, card_list
from app.engine.variants.base import DENOM_TRUMP

from . import bidding
from .common import decide, table_of
from .knowledge import Knowledge, read_view
from .sim import beats


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    return decide(
        read_view(view),
        rng,
        card=choose_card,
        bid=_bid,
        discard=lambda k, _rng: bidding.discard(k),
        otherwise=lambda k, r: dict(r.choice(k.legal)),
    )


def _strong_in(hand: int, suit: int) -> bool:
    trumps = hand & SUIT_MASK[suit]
    has_j = (trumps >> (8 * suit + RJ)) & 1
    has_9 = (trumps >> (8 * suit + R9)) & 1
    return bool(has_j and (trumps.bit_count() >= 3 or has_9))


def _bid(k: Knowledge, rng: random.Random) -> dict[str, Any]:
    hand = bidding.visible(k)
    acts = [(a, action_from_json(a)) for a in k.legal]
    bids = [(a, b) for a, b in acts if isinstance(b, Bid) and b.contract in "CDHS"]
    strong = [(a, b) for a, b in bids if _strong_in(hand, DENOM_TRUMP[b.contract])]
    if k.variant == "coinche":
        strong = [(a, b) for a, b in strong if (b.value or 0) <= 90]
    if strong:
        return dict(min(strong, key=lambda ab: ab[1].value or 0)[0])
    passes = [a for a, b in acts if isinstance(b, Pass)]
    if passes:
        return dict(passes[0])
    # forced to name a trump: the longest suit
    return dict(
        max(bids, key=lambda ab: (hand & SUIT_MASK[DENOM_TRUMP[ab[1].contract]]).bit_count())[0]
    )


def choose_card(k: Knowledge, rng: random.Random) -> int:
    legal = k.legal_cards()
    cards = card_list(legal)
    if len(cards) == 1:
        return cards[0]
    t = table_of(k)
    outside = k.outside()

    def is_master(c: int) -> bool:
        return not (t.above[c] & outside)

    if not k.trick:
        aces = [
            c for c in cards if is_master(c) and t.points[c] >= 10 and (t.trump_mask >> c) & 1 == 0
        ]
        if aces and rng.random() < 0.6:
            return rng.choice(aces)
        return rng.choice(cards)
    _, best = k.trick_winner()
    keep = [c for c in cards if not (is_master(c) and t.points[c] >= 10 and not beats(c, best, t))]
    return rng.choice(keep or cards)
