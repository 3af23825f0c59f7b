"""Legal card play (the one algorithm of RULES.md §0.6) and trick winners."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .cards import (
    ABOVE_PLAIN,
    ABOVE_TRUMP,
    PLAIN_STRENGTH,
    SUIT_MASK,
    SUITS,
    TRUMP_STRENGTH,
    format_card,
    format_mask,
)

# Trump modes: a suit 0..3, or one of these.
NO_TRUMP = 4  # SA / NT: every suit plain
ALL_TRUMP = 5  # TA / AT: every suit trump


@dataclass(frozen=True, slots=True)
class PlayFlags:
    overtake_plain: bool  # must beat in a non-trump led suit (bela)
    partner_exception: bool  # void and partner master => free
    must_undertrump: bool  # void, cannot overtrump => still a lower trump


def highest(cards: list[int], trump_order: bool) -> int:
    strength = TRUMP_STRENGTH if trump_order else PLAIN_STRENGTH
    best = cards[0]
    for c in cards[1:]:
        if strength[c & 7] > strength[best & 7]:
            best = c
    return best


def trick_winner_index(cards: list[int], trump: int) -> int:
    """Index in ``cards`` (play order) of the card that wins the trick so far."""
    led = cards[0] >> 3
    best = 0
    best_card = cards[0]
    if trump < 4:
        best_is_trump = led == trump
        for i in range(1, len(cards)):
            c = cards[i]
            s = c >> 3
            if s == trump:
                if not best_is_trump or TRUMP_STRENGTH[c & 7] > TRUMP_STRENGTH[best_card & 7]:
                    best, best_card, best_is_trump = i, c, True
            elif s == led and not best_is_trump:
                if PLAIN_STRENGTH[c & 7] > PLAIN_STRENGTH[best_card & 7]:
                    best, best_card = i, c
        return best
    strength = TRUMP_STRENGTH if trump == ALL_TRUMP else PLAIN_STRENGTH
    for i in range(1, len(cards)):
        c = cards[i]
        if c >> 3 == led and strength[c & 7] > strength[best_card & 7]:
            best, best_card = i, c
    return best


def _beats(card: int, top: int, trump: int) -> bool:
    """``card`` takes the lead from ``top``, the card winning the trick so far."""
    suit, top_suit = card >> 3, top >> 3
    if trump < 4:
        if suit == trump:
            return top_suit != trump or TRUMP_STRENGTH[card & 7] > TRUMP_STRENGTH[top & 7]
        return suit == top_suit and PLAIN_STRENGTH[card & 7] > PLAIN_STRENGTH[top & 7]
    strength = TRUMP_STRENGTH if trump == ALL_TRUMP else PLAIN_STRENGTH
    return suit == top_suit and strength[card & 7] > strength[top & 7]


# BEATS[trump][top * 32 + card]: 1 when ``card`` beats ``top``, the card winning so far (which is
# of the led suit, or a trump).  The engine keeps the index of that card as each card is played.
BEATS = tuple(
    bytes(_beats(card, top, trump) for top in range(32) for card in range(32)) for trump in range(6)
)


def legal_mask_top(
    hand: int, led: int, top: int, trump: int, partner_master: bool, flags: PlayFlags
) -> int:
    """The §0.6 algorithm for a trick that has begun, from its led suit and the card winning
    it so far (``top``): the highest trump when a trump is on the table, else the highest card
    of the led suit; nothing else about the trick matters.  The engine keeps ``top`` as cards
    are played; ``legal_mask`` finds it from the trick's cards."""
    follow = hand & SUIT_MASK[led]
    if trump == NO_TRUMP:
        return follow or hand
    if trump == ALL_TRUMP:
        if follow:
            return (follow & ABOVE_TRUMP[top]) or follow
        return hand
    top_is_trump = top >> 3 == trump
    if follow:
        if led == trump:
            return (follow & ABOVE_TRUMP[top]) or follow
        if flags.overtake_plain and not top_is_trump:
            return (follow & ABOVE_PLAIN[top]) or follow
        return follow
    if led == trump:
        return hand
    if flags.partner_exception and partner_master:
        return hand
    trumps = hand & SUIT_MASK[trump]
    if not trumps:
        return hand
    if top_is_trump:
        higher = trumps & ABOVE_TRUMP[top]
        if higher:
            return higher
        return trumps if flags.must_undertrump else hand
    return trumps


def legal_mask(
    hand: int, cards: list[int], trump: int, partner_master: bool, flags: PlayFlags
) -> int:
    """The cards of ``hand`` that may be played on the trick ``cards`` (in play order)."""
    if not cards:
        return hand
    top = cards[trick_winner_index(cards, trump)]
    return legal_mask_top(hand, cards[0] >> 3, top, trump, partner_master, flags)


@lru_cache(maxsize=1 << 16)
def ruled_out(
    card: int, led: int, top: int, trump: int, partner_master: bool, flags: PlayFlags
) -> int:
    """What playing ``card`` shows its seat did not hold (§0.6): the cards ``c`` from whose
    hand ``{card, c}`` the card could not have been played, on a trick led in ``led`` and won
    so far by ``top`` (as in ``legal_mask_top``). The legal-move rule only narrows as a hand
    grows, so this holds whatever else the seat held. Worked out once per trick shape."""
    out = 0
    bit_p = 1 << card
    for c in range(32):
        if c != card and not (
            legal_mask_top(bit_p | (1 << c), led, top, trump, partner_master, flags) & bit_p
        ):
            out |= 1 << c
    return out


def illegal_reason(
    hand: int, cards: list[int], trump: int, partner_master: bool, flags: PlayFlags, card: int
) -> tuple[str, dict[str, Any]]:
    """Why ``card`` (held, and not legal on the trick ``cards``) is refused: the message
    naming the obligation, and the same as data (docs/engine.md, "Why a card is refused").

    One code per obligation of §0.6: ``must_follow`` (the led suit), ``must_overtake`` (a
    higher card of the led suit: sans-atout excepted, on a trump lead, in tout-atout, and with
    ``overtake_plain``), ``must_trump``, ``must_overtrump``, ``must_undertrump``.  Every reason
    names the refused ``card`` and the ``legal`` cards; ``suit`` is the led suit (follow,
    overtake) or the trump suit; ``over`` the card winning the trick so far, to be beaten.
    """
    allowed = legal_mask(hand, cards, trump, partner_master, flags)
    legal = format_mask(allowed)
    holds = " ".join(legal)
    led = cards[0] >> 3
    top = cards[trick_winner_index(cards, trump)]
    base: dict[str, Any] = {"card": format_card(card), "legal": legal}
    follow = hand & SUIT_MASK[led]
    if follow:
        led_suit = SUITS[led]
        if card >> 3 != led:
            if allowed != follow:
                message = f"must follow suit and overtake: holds {holds}"
                return message, {
                    "code": "must_overtake",
                    "suit": led_suit,
                    "over": format_card(top),
                    **base,
                }
            return f"must follow suit: holds {holds}", {
                "code": "must_follow",
                "suit": led_suit,
                **base,
            }
        over = {"code": "must_overtake", "suit": led_suit, "over": format_card(top), **base}
        if trump == ALL_TRUMP or led == trump:
            return f"must overtake in the led suit: holds {holds}", over
        return f"must beat the highest card of the led suit: holds {holds}", over
    trump_suit = SUITS[trump]  # void in the led suit: only a suit contract refuses a card here
    trumps_on_table = any(c >> 3 == trump for c in cards)
    if card >> 3 == trump and trumps_on_table:
        reason = {"code": "must_overtrump", "suit": trump_suit, "over": format_card(top), **base}
        return f"must overtrump: holds {holds}", reason
    if trumps_on_table and allowed & SUIT_MASK[trump] == allowed:
        higher = allowed & ABOVE_TRUMP[highest([c for c in cards if c >> 3 == trump], True)]
        code = "must_overtrump" if higher else "must_undertrump"
        reason = {"code": code, "suit": trump_suit, "over": format_card(top), **base}
        return f"{code.replace('_', ' ')}: holds {holds}", reason
    return f"must trump: holds {holds}", {"code": "must_trump", "suit": trump_suit, **base}
