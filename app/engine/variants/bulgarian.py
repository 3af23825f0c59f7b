"""Bulgarian Belot (RULES.md §4): ladder with NT/AT, contra and recontra, no undertrump."""

from __future__ import annotations

from typing import Any, ClassVar

from .. import declarations as decl
from ..actions import Action
from ..cards import format_mask
from ..scoring import FAILED, HANGING, MADE, SUIT_DENOMS, DealFacts, DealScore, ScoreWork
from ..state import Contract, Event, Phase, State
from .base import LADDER, Rules, packet_round, points_table
from .ladder import apply_ladder, ladder_actions

# §4.3: the standard scales in every contract (NT: plain points, AT: trump points).
_POINTS = {t: points_table(t, "bulgarian") for t in range(6)}
VALAT_GAME_POINTS = 9  # §4.12 valat bonus in game points (§14: never 9 x m)


def _theta(denom: str) -> int:
    if denom in SUIT_DENOMS:
        return 6
    if denom in ("NT", "AT"):
        return 5
    raise ValueError(f"unknown denomination: {denom!r}")


def bg_round(x: int, denom: str) -> int:
    """R_c of §4.9: ``x div 10``, plus one if ``x mod 10 >= θ`` (6 for suits, 5 for NT/AT)."""
    return x // 10 + (1 if x % 10 >= _theta(denom) else 0)


def _bg_special(p: int, o: int, denom: str) -> bool:
    if denom in SUIT_DENOMS:
        return p % 10 == 6 and o % 10 == 6
    return denom == "AT" and p % 10 == 4 and o % 10 == 4


def bg_split(p: int, o: int, denom: str) -> tuple[int, int]:
    """§4.9 pair rounding: (bidders' game points, defenders' game points).

    In the "problem" cases (suit: both end in 6; AT: both end in 4) the team with fewer
    raw points rounds up and the other down; on equal raw points the bidders' (hanging)
    value is the one rounded up.  Otherwise each team gets R_c of its own raw points.
    """
    _theta(denom)
    if not _bg_special(p, o, denom):
        return bg_round(p, denom), bg_round(o, denom)
    if p < o:
        return p // 10 + 1, o // 10
    if p > o:
        return p // 10, o // 10 + 1
    return p // 10 + 1, o // 10


class BulgarianRules(Rules):
    variant = "bulgarian"
    defaults: ClassVar[dict[str, Any]] = {
        "target": 151,
        "declarations": True,
        "auto_declare": False,
        "auto_belote": True,
        "valat_can_end_without_bonus": False,
    }
    fixed: ClassVar[dict[str, Any]] = {"undertrump_required": False, "allow_sa_ta": True}
    targets = (151,)
    comparison = "bulgarian"
    belote_restricted = True
    doubling = True
    trickless_lose_declarations = False
    points_scale = "standard"
    no_trumps_doubled = True
    denominations = LADDER

    def deal(self, state: State) -> list[Event]:
        hands = [0] * 4
        order = self.order_from(self.eldest(state.dealer))
        i = packet_round(state.deck, 0, 3, order, hands)
        packet_round(state.deck, i, 2, order, hands)
        state.hands = tuple(hands)
        state.stock = state.deck[20:]
        return []

    def legal_bids(self, state: State) -> list[Action]:
        return ladder_actions(state, LADDER, doubles=True)

    def apply_bid(self, state: State, seat: int, action: Action) -> list[Event]:
        return apply_ladder(self, state, seat, action, LADDER, doubles=True)

    def after_contract(self, state: State) -> list[Event]:
        hands = list(state.hands)
        order = self.order_from(self.eldest(state.dealer))
        packet_round(state.stock, 0, 3, order, hands)
        state.hands = tuple(hands)
        state.stock = ()
        state.phase = Phase.PLAY
        state.to_act = state.leader = self.eldest(state.dealer)
        return [Event("hand", {"cards": format_mask(hands[s])}, to=s) for s in range(4)]

    def points(self, contract: Contract) -> tuple[int, ...]:
        return _POINTS[contract.trump]

    # ----- declarations: compared per kind, none shown after trick 1 (§4.5) ----
    def declaration_sides(self, state: State) -> tuple[int | None, int | None]:
        return decl.best_bulgarian(state.announced, self.side_of)

    def shown_declarations(self, state: State) -> list[dict[str, Any]]:
        return []

    # ----- scoring --------------------------------------------------------------
    @classmethod
    def deal_card_points(cls, f: DealFacts) -> list[int]:
        if f.denom == "NT":
            return [2 * c for c in f.card_points]  # §4.3: NT card points and last trick doubled
        return list(f.card_points)

    @classmethod
    def score_work(cls, w: ScoreWork) -> DealScore:
        """§4.7-§4.11: raw totals, Bulgarian rounding, contra, hanging points."""
        f = w.f
        c = f.denom
        pi = f.taker_side
        oi = 1 - pi
        m = f.multiplier
        tot = w.tot
        p, o = tot[pi], tot[oi]
        raw = [tot[0], tot[1]]
        rec = [0, 0]
        if m == 1 and p >= o:  # each team its own points, by the pair rounding
            split_p, split_o = bg_split(p, o, c)
            split = [0, 0]
            split[pi], split[oi] = split_p, split_o
            note = {
                "kind": "bg_split",
                "raw": raw,
                "split": split,
                "problem_case": _bg_special(p, o, c),
            }
            if p > o:
                rec[pi], rec[oi] = split_p, split_o
                return w.result(MADE, rec, pi, 0, note)
            rec[oi] = split_o
            return w.result(HANGING, rec, None, f.reserve + split_p, note)
        whole = bg_round(p + o, c)  # the whole deal's points, to one side or hanging
        note = {
            "kind": "bg_whole",
            "raw": raw,
            "total": p + o,
            "rounded_total": whole,
            "multiplier": m,
        }
        if p > o:
            rec[pi] = whole * m  # §14: the defenders record 0, valat or not
            return w.result(MADE, rec, pi, 0, note)
        if p < o:
            rec[oi] = whole * m  # everything, P's declarations and belote included
            return w.result(FAILED, rec, oi, 0, note)
        return w.result(HANGING, rec, None, f.reserve + whole * m, note)

    # ----- the match's end: a valat delays it (§4.12) ---------------------------
    def match_end(self, scores: tuple[int, ...], score: DealScore | None) -> int | None:
        """§4.12: no end on a deal with a valat, unless the option
        ``valat_can_end_without_bonus`` is on and the valat side still reaches the target
        without the 9-point bonus (9, never 9 x m, §14). The bonus removed is at most what the
        valat side recorded in that deal (a valat team that failed its contract recorded no
        bonus). Otherwise the usual end (``Rules.match_end``)."""
        valat_side = None if score is None else score.capot_side
        if score is not None and valat_side is not None:
            if not self.options.get("valat_can_end_without_bonus"):
                return None
            bonus = max(0, min(VALAT_GAME_POINTS, score.recorded[valat_side]))
            target = self.target
            if target is not None and scores[valat_side] - bonus < target:
                return None
        return super().match_end(scores, score)
