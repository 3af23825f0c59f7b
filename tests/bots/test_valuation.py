"""The table-driven hand features equal their reference definitions exactly.

The medium and hard bots value hands with ``expected_points`` (a linear model over these
features); the fast forms must give the very same numbers, or the bots' choices would change.
"""

from __future__ import annotations

import random

from app.bots import valuation as v


def _hand(rng: random.Random, lo: int, hi: int) -> int:
    mask = 0
    for card in rng.sample(range(32), rng.randint(lo, hi)):
        mask |= 1 << card
    return mask


def test_fast_features_equal_the_reference() -> None:
    rng = random.Random(5)
    for _ in range(20_000):
        hand = _hand(rng, 0, 10)
        opp = 0 if rng.random() < 0.3 else _hand(rng, 0, 8)
        leads = rng.randint(0, 1)
        for trump in range(4):
            assert v.suit_features(hand, trump, leads, opp) == v.suit_features_reference(
                hand, trump, leads, opp
            )
        assert v.nt_features(hand, leads, opp) == v.nt_features_reference(hand, leads, opp)
        assert v.at_features(hand, leads, opp) == v.at_features_reference(hand, leads, opp)


def test_expected_points_is_the_reference_dot_product() -> None:
    from app.bots.valuation_coefs import COEFS

    rng = random.Random(6)
    configs = sorted({config for config, _kind in COEFS})
    for _ in range(3_000):
        hand = _hand(rng, 5, 10)
        config = rng.choice(configs)
        trump = rng.randrange(6)
        kind = v.kind_of(trump)
        coefs = COEFS.get((config, kind)) or COEFS[("fr4-8", kind)]
        if trump < 4:
            x = v.suit_features_reference(hand, trump, 1, 0)
        elif trump == 4:
            x = v.nt_features_reference(hand, 1, 0)
        else:
            x = v.at_features_reference(hand, 1, 0)
        expected = sum(a * b for a, b in zip(coefs, x, strict=True))
        assert v.expected_points(config, hand, trump, 1) == expected
