"""The open-card two-player duel (RULES.md §6): eight piles each, face up on face down."""

from __future__ import annotations

from typing import Any, ClassVar

from ..actions import PASS, Action, Bid, Pass
from ..cards import format_card
from ..errors import IllegalAction
from ..play import PlayFlags
from ..state import Contract, Event, State, Trick
from .base import DENOM_TRUMP, SUIT_NAMES, Rules


class DuelRules(Rules):
    variant = "duel"
    player_counts = (2,)
    defaults: ClassVar[dict[str, Any]] = {}
    fixed: ClassVar[dict[str, Any]] = {"declarations": False}
    targets = ()

    @property
    def total_tricks(self) -> int:
        return 16

    @property
    def target(self) -> int | None:
        return None

    def flags(self, contract: Contract) -> PlayFlags:
        return PlayFlags(overtake_plain=False, partner_exception=False, must_undertrump=False)

    def belote_suits(self, contract: Contract) -> int:
        return 0

    def deal(self, state: State) -> list[Event]:
        deck = state.deck
        non_dealer = self.eldest(state.dealer)
        hands = [0, 0]
        piles: list[tuple[int, ...]] = [(), ()]
        hands[non_dealer] = sum(1 << c for c in deck[16:24])
        hands[state.dealer] = sum(1 << c for c in deck[24:32])
        piles[non_dealer] = tuple(deck[0:8])
        piles[state.dealer] = tuple(deck[8:16])
        state.hands = tuple(hands)
        state.piles = tuple(piles)
        state.upcard = deck[31]
        return [Event("proposal", {"card": format_card(state.upcard)})]

    def legal_bids(self, state: State) -> list[Action]:
        up = SUIT_NAMES[state.upcard >> 3]
        if state.auction.stage < 2:
            return [PASS, Bid(up)]
        return [PASS, *(Bid(s) for s in SUIT_NAMES if s != up)]

    def apply_bid(self, state: State, seat: int, action: Action) -> list[Event]:
        a = state.auction
        up = SUIT_NAMES[state.upcard >> 3]
        if isinstance(action, Pass):
            state.auction = a.__class__(turns=a.turns + 1, stage=a.stage + 1)
            events = [Event("bid", {"seat": seat, "bid": "pass"})]
            if a.stage + 1 == 4:
                return events + self.throw_in(state)
            state.to_act = 1 - seat
            return events
        if not isinstance(action, Bid):
            raise IllegalAction(f"{action.type}: there is no doubling in duel")
        if action.value is not None or action.contract not in SUIT_NAMES:
            raise IllegalAction("bid: name a trump suit (C, D, H or S)")
        if a.stage < 2 and action.contract != up:
            raise IllegalAction(f"bid: in the first round only the proposal's suit {up}")
        if a.stage >= 2 and action.contract == up:
            raise IllegalAction(f"bid: in the second round name a suit other than {up}")
        events = [Event("bid", {"seat": seat, "bid": "bid", "contract": action.contract})]
        return events + self.set_contract(
            state, Contract(action.contract, DENOM_TRUMP[action.contract], seat)
        )


def pile_up_card(state: State, seat: int, pile: int) -> int:
    """The card that lay face up on ``pile`` of ``seat`` at the deal."""
    base = 16 if seat != state.dealer else 24
    return state.deck[base + pile]


def reveal_after_trick(state: State, trick: Trick) -> list[Event]:
    """Turn face up the cards freed by the trick, once it is complete (D-18)."""
    events: list[Event] = []
    piles = [list(p) for p in state.piles]
    hands = list(state.hands)
    for seat, card in trick.plays:
        for i in range(8):
            if piles[seat][i] >= 0 and pile_up_card(state, seat, i) == card:
                freed = piles[seat][i]
                piles[seat][i] = -1
                hands[seat] |= 1 << freed
                events.append(
                    Event("revealed", {"seat": seat, "pile": i, "card": format_card(freed)})
                )
    state.piles = tuple(tuple(p) for p in piles)
    state.hands = tuple(hands)
    return events
