"""Belote coinchée / contrée (RULES.md §3): value auction, coinche and surcoinche."""

from __future__ import annotations

from typing import Any, ClassVar

from ..actions import CAPOT, DOUBLE, PASS, REDOUBLE, Action, Bid, Double, Pass, Redouble
from ..errors import IllegalAction
from ..scoring import FAILED, MADE, DealFacts, DealScore, ScoreWork
from ..state import Auction, Contract, Event, State
from .base import DENOM_TRUMP, LADDER, Rules, packet_round

VALUES = (80, 90, 100, 110, 120, 130, 140, 150, 160, CAPOT)
BASE = 160  # 160 + B of §3.5


def round10(x: int) -> int:
    """Coinche rounding (§3.5): nearest multiple of 10, a units digit of 5 rounds up."""
    return (x + 5) // 10 * 10


class CoincheRules(Rules):
    variant = "coinche"
    defaults: ClassVar[dict[str, Any]] = {
        "target": 1000,
        "declarations": True,
        "auto_declare": True,
        "auto_belote": True,
        "undertrump_required": True,
        "allow_sa_ta": False,
    }
    targets = (501, 1000, 2000, 5000, "one_deal")
    doubling = True

    @property
    def denoms(self) -> tuple[str, ...]:
        return LADDER if self.options["allow_sa_ta"] else LADDER[:4]

    @property
    def denominations(self) -> tuple[str, ...]:
        return self.denoms

    def deal(self, state: State) -> list[Event]:
        hands = [0] * 4
        order = self.order_from(self.eldest(state.dealer))
        i = packet_round(state.deck, 0, 3, order, hands)
        i = packet_round(state.deck, i, 2, order, hands)
        packet_round(state.deck, i, 3, order, hands)
        state.hands = tuple(hands)
        return []

    def legal_bids(self, state: State) -> list[Action]:
        a = state.auction
        seat = state.to_act
        if a.doubler >= 0:  # after a coinche: an attacker surcoinches or passes
            return [PASS, REDOUBLE]
        higher = [v for v in VALUES if a.best_value is None or v > a.best_value]
        out: list[Action] = [PASS, *(Bid(d, v) for v in higher for d in self.denoms)]
        if a.best_seat >= 0 and a.best_seat % 2 != seat % 2:
            out.append(DOUBLE)
        return out

    def _contract(self, a: Auction, multiplier: int, doubler: int) -> Contract:
        assert a.best_denom is not None
        return Contract(
            a.best_denom, DENOM_TRUMP[a.best_denom], a.best_seat, a.best_value, multiplier, doubler
        )

    def apply_bid(self, state: State, seat: int, action: Action) -> list[Event]:
        a = state.auction
        if a.doubler >= 0:
            return self._after_coinche(state, seat, action)
        if isinstance(action, Pass):
            passes = a.passes + 1
            state.auction = Auction(
                a.best_seat, a.best_denom, a.best_value, 1, -1, passes, a.turns + 1
            )
            events = [Event("bid", {"seat": seat, "bid": "pass"})]
            if a.best_seat < 0 and passes == 4:
                return events + self.throw_in(state)
            if a.best_seat >= 0 and passes == 3:
                return events + self.set_contract(state, self._contract(a, 1, -1))
            state.to_act = (seat + 1) % 4
            return events
        if isinstance(action, Bid):
            if action.value is None:
                raise IllegalAction("bid: a coinche bid needs a value (80..160 or capot)")
            if action.contract not in self.denoms:
                raise IllegalAction(f"bid: {action.contract} is not allowed (allow_sa_ta is off)")
            if a.best_value is not None and action.value <= a.best_value:
                if a.best_value == CAPOT:
                    raise IllegalAction("bid: nothing can be bid above capot")
                raise IllegalAction(f"bid: must bid more than {a.best_value}")
            state.auction = Auction(seat, action.contract, action.value, 1, -1, 0, a.turns + 1)
            state.to_act = (seat + 1) % 4
            value = "capot" if action.value == CAPOT else action.value
            return [
                Event(
                    "bid",
                    {"seat": seat, "bid": "bid", "contract": action.contract, "value": value},
                )
            ]
        if isinstance(action, Double):
            if a.best_seat < 0:
                raise IllegalAction("coinche: there is no bid to coinche")
            if a.best_seat % 2 == seat % 2:
                raise IllegalAction("coinche: only on the opponents' bid")
            state.auction = Auction(
                a.best_seat, a.best_denom, a.best_value, 2, seat, 0, a.turns + 1, 0
            )
            state.to_act = (seat + 1) % 4  # an attacker speaks next
            return [Event("bid", {"seat": seat, "bid": "double"})]
        if isinstance(action, Redouble):
            raise IllegalAction("surcoinche: only after a coinche")
        raise IllegalAction(f"{action.type}: not possible in this auction")

    def _after_coinche(self, state: State, seat: int, action: Action) -> list[Event]:
        a = state.auction
        if isinstance(action, Redouble):
            state.auction = Auction(
                a.best_seat, a.best_denom, a.best_value, 4, a.doubler, 0, a.turns + 1, a.stage
            )
            events = [Event("bid", {"seat": seat, "bid": "redouble"})]
            return events + self.set_contract(state, self._contract(a, 4, a.doubler))
        if isinstance(action, Pass):
            events = [Event("bid", {"seat": seat, "bid": "pass"})]
            if a.stage == 1:  # both attackers passed
                return events + self.set_contract(state, self._contract(a, 2, a.doubler))
            state.auction = Auction(
                a.best_seat, a.best_denom, a.best_value, 2, a.doubler, 1, a.turns + 1, 1
            )
            state.to_act = (seat + 2) % 4  # skip the coincher's partner
            return events
        raise IllegalAction(f"{action.type}: after a coinche only surcoinche or pass")

    @classmethod
    def check_deal_facts(cls, f: DealFacts) -> None:
        if f.bid_value not in VALUES:
            raise ValueError(f"coinche bid_value must be 80..160 or 250, not {f.bid_value!r}")

    @classmethod
    def score_work(cls, w: ScoreWork) -> DealScore:
        """§3.4-§3.5 (D-12: a tie fails, no litige; belote never multiplied)."""
        f = w.f
        a = f.taker_side
        d = 1 - a
        bid = f.bid_value
        assert bid is not None
        m = f.multiplier
        tot = w.tot
        if bid == CAPOT:
            made = f.tricks_won[a] == f.total_tricks
        else:
            made = tot[a] >= bid and tot[a] > tot[d]
        decl_all = w.decl[a] + w.decl[d]
        rec = [0, 0]
        rounding = None
        if m == 1 and made:
            rounded = [round10(tot[0]), round10(tot[1])]
            rec[a], rec[d] = bid + rounded[a], rounded[d]
            rounding = {"kind": "round10", "raw": [tot[0], tot[1]], "rounded": rounded}
        elif m == 1:
            rec[a], rec[d] = w.bel[a], BASE + bid + decl_all + w.bel[d]
        elif made:
            rec[a], rec[d] = (BASE + bid) * m + decl_all + w.bel[a], w.bel[d]
        else:
            rec[a], rec[d] = w.bel[a], (BASE + bid) * m + decl_all + w.bel[d]
        # There is no reserve in coinche (§3.6): whatever came in is carried unchanged.
        return w.result(MADE if made else FAILED, rec, None, f.reserve, rounding)
