"""Hand valuation: the card points a side can expect when it plays a contract.

``expected_points(config, hand, denom, ...)`` is a linear function of hand features
(per denomination kind: a trump suit, no trumps, all trumps), with coefficients fitted
offline by simulated deals (``atout bench tune``, results in
``valuation_coefs.py``).  A *config* names what the bidder sees and how the variant
plays: e.g. ``"classic-6"`` is a classic turn-up bidder (5 cards and the turn-up it would
receive), ``"bulgarian-5"`` a Bulgarian bidder on its first five cards.

The value is the card points of the bidder's side (last trick included, before any
doubling of Bulgarian NT), for a partner and opponents whose hands are unknown; belote
and declarations are added separately by the bidding rules, since they are certain.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import mul
from typing import Any

from app.engine.cards import PLAIN_STRENGTH, SUIT_MASK, TRUMP_STRENGTH

# Ranks (natural index) from the strongest to the weakest, per order.
TRUMP_ORDER = tuple(sorted(range(8), key=lambda r: -TRUMP_STRENGTH[r]))  # J 9 A T K Q 8 7
PLAIN_ORDER = tuple(sorted(range(8), key=lambda r: -PLAIN_STRENGTH[r]))  # A T K Q J 9 8 7

SUIT_FEATURES = (
    "tJ", "t9", "tA", "tT", "tKQ", "tsmall", "tlen4", "tlen5", "J9",
    "pA", "pT_A", "pT_guard", "pT_bare", "pK", "void", "single", "ruff",
    "leads", "opp_tJ", "opp_t9", "opp_tlen", "opp_pA", "one",
)  # fmt: skip
NT_FEATURES = (
    "A", "T_A", "T_guard", "T_bare", "K_top", "len4", "len5", "long_top",
    "leads", "opp_A", "opp_T", "one",
)  # fmt: skip
AT_FEATURES = (
    "J", "9_J", "9_guard", "9_bare", "A_top", "len3", "len4",
    "leads", "opp_J", "opp_9", "one",
)  # fmt: skip


def _holding(hand: int, suit: int, order: tuple[int, ...]) -> list[int]:
    """Bits of ``hand`` in ``suit``, strongest first (1 = held)."""
    b = (hand >> (8 * suit)) & 0xFF
    return [(b >> r) & 1 for r in order]


def suit_features_reference(hand: int, trump: int, leads: int, opp: int = 0) -> list[float]:
    """The definition of the trump-contract features (``suit_features`` computes the same)."""
    th = _holding(hand, trump, TRUMP_ORDER)
    n_t = sum(th)
    f = {name: 0.0 for name in SUIT_FEATURES}
    f["tJ"], f["t9"], f["tA"], f["tT"] = th[0], th[1], th[2], th[3]
    f["tKQ"] = th[4] + th[5]
    f["tsmall"] = th[6] + th[7]
    f["tlen4"] = float(n_t >= 4)
    f["tlen5"] = float(n_t >= 5)
    f["J9"] = float(th[0] and th[1])
    for s in range(4):
        if s == trump:
            continue
        h = _holding(hand, s, PLAIN_ORDER)
        n = sum(h)
        f["pA"] += h[0]
        if h[1]:
            if h[0]:
                f["pT_A"] += 1
            elif n >= 2:
                f["pT_guard"] += 1
            else:
                f["pT_bare"] += 1
        if h[2] and (h[0] or h[1]):
            f["pK"] += 1
        if n == 0:
            f["void"] += 1
        elif n == 1:
            f["single"] += 1
    f["ruff"] = (2 * f["void"] + f["single"]) * min(n_t, 4)
    f["leads"] = leads
    if opp:
        oh = _holding(opp, trump, TRUMP_ORDER)
        f["opp_tJ"], f["opp_t9"], f["opp_tlen"] = oh[0], oh[1], sum(oh)
        f["opp_pA"] = sum((opp >> (8 * s + 7)) & 1 for s in range(4) if s != trump)
    f["one"] = 1.0
    return [f[name] for name in SUIT_FEATURES]


def nt_features_reference(hand: int, leads: int, opp: int = 0) -> list[float]:
    """The definition of the no-trumps features (``nt_features`` computes the same)."""
    f = {name: 0.0 for name in NT_FEATURES}
    for s in range(4):
        h = _holding(hand, s, PLAIN_ORDER)
        n = sum(h)
        f["A"] += h[0]
        if h[1]:
            if h[0]:
                f["T_A"] += 1
            elif n >= 2:
                f["T_guard"] += 1
            else:
                f["T_bare"] += 1
        if h[2] and h[0] and h[1]:
            f["K_top"] += 1
        if n >= 4:
            f["len4"] += 1
        if n >= 5:
            f["len5"] += 1
        if n >= 4 and h[0]:
            f["long_top"] += 1
    f["leads"] = leads
    if opp:
        f["opp_A"] = sum((opp >> (8 * s + 7)) & 1 for s in range(4))
        f["opp_T"] = sum((opp >> (8 * s + 3)) & 1 for s in range(4))
    f["one"] = 1.0
    return [f[name] for name in NT_FEATURES]


def at_features_reference(hand: int, leads: int, opp: int = 0) -> list[float]:
    """The definition of the all-trumps features (``at_features`` computes the same)."""
    f = {name: 0.0 for name in AT_FEATURES}
    for s in range(4):
        h = _holding(hand, s, TRUMP_ORDER)
        n = sum(h)
        f["J"] += h[0]
        if h[1]:
            if h[0]:
                f["9_J"] += 1
            elif n >= 2:
                f["9_guard"] += 1
            else:
                f["9_bare"] += 1
        if h[2] and (h[0] or h[1]):
            f["A_top"] += 1
        if n >= 3:
            f["len3"] += 1
        if n >= 4:
            f["len4"] += 1
    f["leads"] = leads
    if opp:
        f["opp_J"] = sum((opp >> (8 * s + 4)) & 1 for s in range(4))
        f["opp_9"] = sum((opp >> (8 * s + 2)) & 1 for s in range(4))
    f["one"] = 1.0
    return [f[name] for name in AT_FEATURES]


# ----------------------------------------------------------------------------- fast forms
# The same features from per-suit tables.  Every feature is a small whole number, so the
# values (and the valuation computed from them, in the same order) are exactly those of the
# reference functions above; tests/bots/test_valuation.py checks it on random hands.  Per-suit
# counts are packed four bits each into one int, so three or four suits add up in one "+".


def _pack(values: list[int]) -> int:
    return sum(v << (4 * i) for i, v in enumerate(values))


def _plain_suit(b: int) -> list[int]:
    h = [(b >> r) & 1 for r in PLAIN_ORDER]
    n = sum(h)
    return [
        h[0],  # pA
        int(bool(h[1] and h[0])),  # pT_A
        int(bool(h[1] and not h[0] and n >= 2)),  # pT_guard
        int(bool(h[1] and not h[0] and n < 2)),  # pT_bare
        int(bool(h[2] and (h[0] or h[1]))),  # pK
        int(n == 0),  # void
        int(n == 1),  # single
    ]


def _trump_suit(b: int) -> tuple[int, ...]:
    th = [(b >> r) & 1 for r in TRUMP_ORDER]
    return (th[0], th[1], th[2], th[3], th[4] + th[5], th[6] + th[7], sum(th))


def _nt_suit(b: int) -> list[int]:
    h = [(b >> r) & 1 for r in PLAIN_ORDER]
    n = sum(h)
    return [
        h[0],  # A
        int(bool(h[1] and h[0])),  # T_A
        int(bool(h[1] and not h[0] and n >= 2)),  # T_guard
        int(bool(h[1] and not h[0] and n < 2)),  # T_bare
        int(bool(h[2] and h[0] and h[1])),  # K_top
        int(n >= 4),  # len4
        int(n >= 5),  # len5
        int(bool(n >= 4 and h[0])),  # long_top
    ]


def _at_suit(b: int) -> list[int]:
    h = [(b >> r) & 1 for r in TRUMP_ORDER]
    n = sum(h)
    return [
        h[0],  # J
        int(bool(h[1] and h[0])),  # 9_J
        int(bool(h[1] and not h[0] and n >= 2)),  # 9_guard
        int(bool(h[1] and not h[0] and n < 2)),  # 9_bare
        int(bool(h[2] and (h[0] or h[1]))),  # A_top
        int(n >= 3),  # len3
        int(n >= 4),  # len4
    ]


_PLAIN = tuple(_pack(_plain_suit(b)) for b in range(256))
_TRUMP = tuple(_trump_suit(b) for b in range(256))
_NT = tuple(_pack(_nt_suit(b)) for b in range(256))
_AT = tuple(_pack(_at_suit(b)) for b in range(256))
_ACES = sum(1 << (8 * s + 7) for s in range(4))  # rank 7 is the ace
_TENS = sum(1 << (8 * s + 3) for s in range(4))
_JACKS = sum(1 << (8 * s + 4) for s in range(4))
_NINES = sum(1 << (8 * s + 2) for s in range(4))


def suit_features(hand: int, trump: int, leads: int, opp: int = 0) -> list[float]:
    """Features for a trump contract (see ``suit_features_reference``)."""
    t_j, t_9, t_a, t_t, t_kq, t_small, n_t = _TRUMP[(hand >> (8 * trump)) & 0xFF]
    p = 0
    for s in range(4):
        if s != trump:
            p += _PLAIN[(hand >> (8 * s)) & 0xFF]
    void, single = (p >> 20) & 15, (p >> 24) & 15
    if opp:
        oh = _TRUMP[(opp >> (8 * trump)) & 0xFF]
        o_j, o_9, o_len = oh[0], oh[1], oh[6]
        o_a = (opp & _ACES & ~(0xFF << (8 * trump))).bit_count()
    else:
        o_j = o_9 = o_len = o_a = 0
    return [
        t_j, t_9, t_a, t_t, t_kq, t_small,
        float(n_t >= 4), float(n_t >= 5), float(bool(t_j and t_9)),
        p & 15, (p >> 4) & 15, (p >> 8) & 15, (p >> 12) & 15, (p >> 16) & 15, void, single,
        (2 * void + single) * min(n_t, 4),
        leads, o_j, o_9, o_len, o_a, 1.0,
    ]  # fmt: skip


def _packed_counts(table: Sequence[int], hand: int) -> int:
    """The per-suit table entries of a hand added up: counts packed four bits apiece."""
    return (
        table[hand & 0xFF]
        + table[(hand >> 8) & 0xFF]
        + table[(hand >> 16) & 0xFF]
        + table[hand >> 24]
    )


def nt_features(hand: int, leads: int, opp: int = 0) -> list[float]:
    """Features for no trumps (see ``nt_features_reference``)."""
    p = _packed_counts(_NT, hand)
    o_a = (opp & _ACES).bit_count()
    o_t = (opp & _TENS).bit_count()
    return [
        p & 15, (p >> 4) & 15, (p >> 8) & 15, (p >> 12) & 15,
        (p >> 16) & 15, (p >> 20) & 15, (p >> 24) & 15, (p >> 28) & 15,
        leads, o_a, o_t, 1.0,
    ]  # fmt: skip


def at_features(hand: int, leads: int, opp: int = 0) -> list[float]:
    """Features for all trumps (see ``at_features_reference``)."""
    p = _packed_counts(_AT, hand)
    o_j = (opp & _JACKS).bit_count()
    o_9 = (opp & _NINES).bit_count()
    return [
        p & 15, (p >> 4) & 15, (p >> 8) & 15, (p >> 12) & 15,
        (p >> 16) & 15, (p >> 20) & 15, (p >> 24) & 15,
        leads, o_j, o_9, 1.0,
    ]  # fmt: skip


def features(hand: int, trump: int, leads: int, opp: int = 0) -> list[float]:
    """Features for a contract: ``trump`` 0..3, 4 (no trumps) or 5 (all trumps)."""
    if trump < 4:
        return suit_features(hand, trump, leads, opp)
    if trump == 4:
        return nt_features(hand, leads, opp)
    return at_features(hand, leads, opp)


def kind_of(trump: int) -> str:
    return "suit" if trump < 4 else "nt" if trump == 4 else "at"


def expected_points(config: str, hand: int, trump: int, leads: int, opp: int = 0) -> float:
    """Expected card points of the bidder's side (see the module docstring)."""
    key = (config, trump if trump < 4 else trump - 8)  # one entry per kind (suit/nt/at)
    coefs = _COEFS_OF.get(key)
    if coefs is None:
        from .valuation_coefs import COEFS

        kind = kind_of(trump)
        coefs = COEFS.get((config, kind)) or COEFS[(_fallback(config), kind)]
        _COEFS_OF[key] = coefs
    if trump < 4:
        x = suit_features(hand, trump, leads, opp)
    elif trump == 4:
        x = nt_features(hand, leads, opp)
    else:
        x = at_features(hand, leads, opp)
    total: float = sum(map(mul, coefs, x))  # the same products, added in the same order
    return total


_COEFS_OF: dict[tuple[str, int], Any] = {}


def _fallback(config: str) -> str:
    return "fr4-8"


def suit_count(hand: int, suit: int) -> int:
    return (hand & SUIT_MASK[suit]).bit_count()


def mean_points(config: str, trump: int) -> float:
    """The mean of ``expected_points`` over random hands (an average hand's value)."""
    from .valuation_coefs import MEAN

    return MEAN.get((config, kind_of(trump)), MEAN[(_fallback(config), kind_of(trump))])


def spread(config: str, trump: int) -> float:
    """The standard deviation of the actual points around ``expected_points``."""
    from .valuation_coefs import RMSE

    return RMSE.get((config, kind_of(trump)), RMSE[(_fallback(config), kind_of(trump))])
