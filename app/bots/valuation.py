"""Hand valuation: the card points a side can expect when it plays a contract.

``expected_points(config, hand, denom, ...)`` is a linear function of hand features
(per denomination kind: a trump suit, no trumps, all trumps), with coefficients fitted
offline by simulated deals (``python -m app.bots.tune``, results in
``valuation_coefs.py``).  A *config* names what the bidder sees and how the variant
plays: e.g. ``"classic-6"`` is a classic turn-up bidder (5 cards and the turn-up it would
receive), ``"bulgarian-5"`` a Bulgarian bidder on its first five cards.

The value is the card points of the bidder's side (last trick included, before any
doubling of Bulgarian NT), for a partner and opponents whose hands are unknown; belote
and declarations are added separately by the bidding rules, since they are certain.
"""

from __future__ import annotations

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


def suit_features(hand: int, trump: int, leads: int, opp: int = 0) -> list[float]:
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


def nt_features(hand: int, leads: int, opp: int = 0) -> list[float]:
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


def at_features(hand: int, leads: int, opp: int = 0) -> list[float]:
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
    from .valuation_coefs import COEFS

    coefs = COEFS.get((config, kind_of(trump)))
    if coefs is None:
        coefs = COEFS[(_fallback(config), kind_of(trump))]
    x = features(hand, trump, leads, opp)
    return sum(a * b for a, b in zip(coefs, x, strict=True))


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
