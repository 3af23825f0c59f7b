"""Bulgarian Belot (RULES.md §4): ladder with NT/AT, contra and recontra, no undertrump."""

from __future__ import annotations

from typing import Any, ClassVar

from ..actions import Action
from ..cards import format_mask
from ..state import Event, Phase, State
from .base import LADDER, Rules, packet_round
from .ladder import apply_ladder, ladder_actions


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
    bulgarian_points = True

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
