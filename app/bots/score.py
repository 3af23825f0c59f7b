"""Deal outcome as the bots value it: the engine's scoring seen from one side.

:class:`Scorer` wraps ``app.engine.variants.score_deal`` for a fixed contract and fixed
declarations and belote, memoised on (card points per side, tricks per side), and turns
the recorded points into one number for a side:

* two sides: own recorded points minus the other side's;
* three players (bela): own recorded points.  (Minus the others' mean was tried: in the
  arena it gained 5 points per deal less; it makes a defender grudge the other
  defender the points that bring the caller down.)

A small share of the raw card-point difference is added so that, when the contract's
fate is settled, the bots still prefer taking more points (Bulgarian points are
divided by ten, coinched contracts score a flat amount).
"""

from __future__ import annotations

from functools import lru_cache

from app.engine.scoring import DealFacts
from app.engine.state import Contract
from app.engine.variants import score_deal

TIE_BREAK = 0.02


class Scorer:
    __slots__ = (
        "_key",
        "_memo",
        "base",
        "decl",
        "belote",
        "n_sides",
        "perspective",
        "side_of",
        "extra",
    )

    def __init__(
        self,
        variant: str,
        contract: Contract,
        side_of: tuple[int, ...],
        total_tricks: int,
        decl: tuple[int, ...],
        belote: tuple[int, ...],
        tie_rule: str = "fall",
        extra: tuple[int, ...] | None = None,
    ) -> None:
        self.side_of = side_of
        self.n_sides = max(side_of) + 1
        self.decl = decl
        self.belote = belote
        self.extra = extra or (0,) * self.n_sides  # card points outside tricks (bela-3p discard)
        self.base = dict(
            variant=variant,
            taker_side=side_of[contract.taker],
            denom=contract.denom,
            bid_value=contract.value,
            multiplier=contract.multiplier,
            total_tricks=total_tricks,
            decl_points=decl,
            belote_points=belote,
            reserve=0,
            tie_rule=tie_rule,
        )
        self._key = tuple(sorted(self.base.items()))
        self._memo: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}
        self.perspective = 0

    def recorded(
        self, side_points: tuple[int, ...], side_tricks: tuple[int, ...]
    ) -> tuple[int, ...]:
        key = (side_points, side_tricks)
        r = self._memo.get(key)
        if r is None:
            r = _recorded(self._key, side_points, side_tricks)
            self._memo[key] = r
        return r

    def side_totals(
        self, won: list[int], tricks: list[int]
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        pts = list(self.extra)
        trk = [0] * self.n_sides
        for seat, p in enumerate(won):
            side = self.side_of[seat]
            pts[side] += p
            trk[side] += tricks[seat]
        return tuple(pts), tuple(trk)

    def value(self, won: list[int], tricks: list[int], side: int) -> float:
        """The outcome for ``side`` (see the module docstring)."""
        pts, trk = self.side_totals(won, tricks)
        rec = self.recorded(pts, trk)
        if self.n_sides == 2:
            return rec[side] - rec[1 - side] + TIE_BREAK * (pts[side] - pts[1 - side])
        return rec[side] + TIE_BREAK * pts[side]

    def value_sides(self, pts: tuple[int, ...], trk: tuple[int, ...], side: int) -> float:
        """Like :meth:`value`, from card points and tricks already summed per side (card
        points outside tricks included)."""
        rec = self.recorded(pts, trk)
        if self.n_sides == 2:
            return rec[side] - rec[1 - side] + TIE_BREAK * (pts[side] - pts[1 - side])
        return rec[side] + TIE_BREAK * pts[side]


@lru_cache(maxsize=100_000)
def _recorded(
    base: tuple[tuple[str, object], ...], side_points: tuple[int, ...], side_tricks: tuple[int, ...]
) -> tuple[int, ...]:
    facts = DealFacts(card_points=side_points, tricks_won=side_tricks, **dict(base))  # type: ignore[arg-type]
    return score_deal(facts).recorded
