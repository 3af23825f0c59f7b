"""Croatian Bela for 2, 3 and 4 players (RULES.md §5)."""

from __future__ import annotations

from typing import Any, ClassVar

from ..actions import PASS, Action, Bid, Discard, Exchange, Pass, Play
from ..cards import R7, cards_of, format_card, format_mask
from ..errors import IllegalAction, InvalidAction
from ..scoring import FAILED, HANGING, MADE, DealScore, ScoreWork
from ..state import Contract, Event, Phase, State, hand_event
from .base import DENOM_TRUMP, SUIT_NAMES, Rules, packet_round

TARGETS = {2: 501, 3: 701, 4: 1001}


class BelaRules(Rules):
    variant = "bela"
    player_counts = (2, 3, 4)
    defaults: ClassVar[dict[str, Any]] = {
        "declarations": True,
        "auto_declare": False,
        "auto_belote": False,
        "eight_card_belot": False,
        "seven_exchange": True,
        "tie_rule": "fall",
    }
    fixed: ClassVar[dict[str, Any]] = {"undertrump_required": True}
    targets = (501, 701, 1001)
    overtake_plain = True
    partner_exception = False
    side_counts = (2, 3)
    has_talon = True
    upcard_kind = "proposal"

    def default_options(self) -> dict[str, Any]:
        return super().default_options() | {"target": TARGETS[self.players]}

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        if options["tie_rule"] not in ("fall", "hang"):
            raise InvalidAction('tie_rule must be "fall" or "hang"')
        return options

    @property
    def total_tricks(self) -> int:
        return 8 if self.players == 4 else 10

    def deal(self, state: State) -> list[Event]:
        n = self.players
        deck = state.deck
        hands = [0] * n
        talons = [0] * n
        order = self.order_from(self.eldest(state.dealer))
        events: list[Event] = []
        if n == 4:
            i = packet_round(deck, 0, 3, order, hands)
            i = packet_round(deck, i, 3, order, hands)
            packet_round(deck, i, 2, order, talons)
        elif n == 3:
            i = packet_round(deck, 0, 3, order, hands)
            i = packet_round(deck, i, 3, order, hands)
            packet_round(deck, i, 4, order, talons)
            state.middle = (1 << deck[30]) | (1 << deck[31])
        else:
            i = packet_round(deck, 0, 3, order, hands)
            i = packet_round(deck, i, 3, order, hands)
            state.upcard = deck[12]
            packet_round(deck, 13, 4, order, talons)
            state.out_of_play = sum(1 << c for c in deck[21:])
            events.append(Event("proposal", {"card": format_card(state.upcard)}))
        state.hands = tuple(hands)
        state.talons = tuple(talons)
        return events

    def legal_bids(self, state: State) -> list[Action]:
        a = state.auction
        if self.players == 2:
            up = SUIT_NAMES[state.upcard >> 3]
            if a.stage < 2:
                return [PASS, Bid(up)]
            others: list[Action] = [Bid(s) for s in SUIT_NAMES if s != up]
            return [PASS, *others] if a.stage == 2 else others
        suits: list[Action] = [Bid(s) for s in SUIT_NAMES]
        forced = state.to_act == state.dealer
        return suits if forced else [PASS, *suits]

    def apply_bid(self, state: State, seat: int, action: Action) -> list[Event]:
        a = state.auction
        if isinstance(action, Pass):
            if self.players == 2 and a.stage == 3 or self.players > 2 and seat == state.dealer:
                raise IllegalAction("pass: the dealer must name a trump")
            state.auction = a.__class__(turns=a.turns + 1, stage=a.stage + 1)
            state.to_act = (seat + 1) % self.players
            return [Event("bid", {"seat": seat, "bid": "pass"})]
        if not isinstance(action, Bid):
            raise IllegalAction(f"{action.type}: there is no doubling in bela")
        if action.value is not None or action.contract not in SUIT_NAMES:
            raise IllegalAction("bid: name a trump suit (C, D, H or S)")
        if self.players == 2:
            up = SUIT_NAMES[state.upcard >> 3]
            if a.stage < 2 and action.contract != up:
                raise IllegalAction(f"bid: in the first round only the proposal's suit {up}")
            if a.stage >= 2 and action.contract == up:
                raise IllegalAction(f"bid: in the second round name a suit other than {up}")
        events = [Event("bid", {"seat": seat, "bid": "bid", "contract": action.contract})]
        contract = Contract(action.contract, DENOM_TRUMP[action.contract], seat)
        state.auction = a.__class__(best_seat=seat, turns=a.turns + 1, stage=a.stage)
        return events + self.set_contract(state, contract)

    def after_contract(self, state: State) -> list[Event]:
        assert state.contract is not None
        if self.players == 2:  # the seven must be among the holder's first six cards
            state.exchange_seat = _exchange_holder(state)
        return _pick_up_talons(state)

    # ----- the seven exchange (2 players, §5.4, §12, §14) and the discard (3 players) -----
    # The holder of the trump seven may exchange it from the end of the bidding until the
    # first ``declare`` or ``play`` of either player (§5.4, §14): on his turn, or out of turn
    # while the leader thinks.  Declining writes nothing: the holder simply lets the play
    # begin, and the first declare or play closes the exchange (game.py clears
    # ``state.exchange_seat`` then).
    def exchange_actions(self, state: State, seat: int) -> list[Action]:
        assert state.contract is not None
        if any(state.declared):
            return []
        return [Exchange(state.contract.trump * 8 + R7)]

    def apply_exchange(self, state: State, seat: int, action: Action) -> list[Event]:
        assert state.contract is not None and isinstance(action, Exchange)
        seven = state.contract.trump * 8 + R7
        if state.exchange_seat != seat or not self.exchange_actions(state, seat):
            raise IllegalAction(_why_no_exchange(state, seat))
        if action.card != seven:
            raise IllegalAction(f"exchange: only the trump seven {format_card(seven)}")
        hands = list(state.hands)
        hands[seat] = (hands[seat] & ~(1 << seven)) | (1 << state.upcard)
        state.hands = tuple(hands)
        old = state.upcard
        state.taken = old  # everyone saw the exchanger take it
        state.out_of_play |= 1 << seven
        state.upcard = seven
        state.exchanged = seat
        state.exchange_seat = -1
        took = {"seat": seat, "card": format_card(seven), "took": format_card(old)}
        return [Event("exchanged", took), hand_event(seat, hands[seat])]

    def discard_actions(self, state: State) -> list[Action]:
        cards = list(cards_of(state.hands[state.to_act]))
        return [Discard((1 << a) | (1 << b)) for i, a in enumerate(cards) for b in cards[i + 1 :]]

    def apply_discard(self, state: State, seat: int, action: Action) -> list[Event]:
        if not isinstance(action, Discard):
            message = f"{action.type}: the caller must discard two cards first"
            raise IllegalAction(message, _no_play(action, Phase.DISCARD))
        hand = state.hands[seat]
        if action.cards.bit_count() != 2:
            raise InvalidAction("discard needs exactly two cards")
        if action.cards & ~hand:
            missing = format_mask(action.cards & ~hand)
            raise IllegalAction(f"discard: not in hand: {' '.join(missing)}")
        state.discard = action.cards
        hands = list(state.hands)
        hands[seat] = hand & ~action.cards
        state.hands = tuple(hands)
        state.phase = Phase.PLAY
        state.to_act = state.leader = self.eldest(state.dealer)
        return [
            Event("discarded", {"seat": seat, "count": 2}),
            Event("discard", {"cards": format_mask(action.cards)}, to=seat),
        ]

    # ----- the view --------------------------------------------------------------------
    def replay_fields(self, state: State) -> dict[str, Any]:
        fields: dict[str, Any] = {"talons": [format_mask(t) for t in state.talons]}
        if state.discard:
            fields["discard"] = format_mask(state.discard)
        return fields

    def view_fields(self, state: State) -> dict[str, Any]:
        return {
            "talon_counts": [t.bit_count() for t in state.talons],
            "middle_count": state.middle.bit_count(),
            "discarded": state.discard.bit_count(),
            "exchanged": state.exchanged if state.exchanged >= 0 else None,
        }

    # ----- scoring (§5.1-§5.4 and §14) -------------------------------------------------
    @classmethod
    def score_work(cls, w: ScoreWork) -> DealScore:
        """The caller must beat every opponent; a tie falls, or hangs (``tie_rule``)."""
        f = w.f
        caller = f.taker_side
        tot = w.tot
        n = w.n
        opponents = [s for s in range(n) if s != caller]
        best_opp = max(tot[s] for s in opponents)
        if tot[caller] > best_opp:
            return w.result(MADE, tot, caller, 0)
        rec = [0] * n
        if tot[caller] == best_opp and f.tie_rule == "hang":
            # §14: the caller records 0 and all his points (bela included) hang.
            for s in opponents:
                rec[s] = tot[s]
            return w.result(HANGING, rec, None, f.reserve + tot[caller])
        # Fall ("pad"): the opponents take everything; the caller records 0.
        if n == 2:
            opp = opponents[0]
            rec[opp] = tot[opp] + tot[caller]
            return w.result(FAILED, rec, opp, 0)
        shares = _d17_shares(tot[caller], caller, tot)
        for s in opponents:
            rec[s] = tot[s] + shares[s]
        reserve_to = _d17_shares(f.reserve, caller, tot)
        return w.result(FAILED, rec, reserve_to, 0)


def _exchange_holder(state: State) -> int:
    """The seat that may swap the trump seven for the proposal card, or -1 (§5.4)."""
    contract = state.contract
    rules = state.rules
    if contract is None or not rules.options.get("seven_exchange", True):
        return -1
    if state.auction.stage >= 2 or contract.trump != state.upcard >> 3:
        return -1  # trump named in the second round, or not the proposal's suit
    seven = contract.trump * 8 + R7
    for seat in range(2):
        if (state.hands[seat] >> seven) & 1:
            return seat
    return -1


def _why_no_exchange(state: State, seat: int) -> str:
    if state.exchanged >= 0:
        return "exchange: the seven was already exchanged"
    if any(state.declared) or state.tricks:
        return "exchange: only before the first declare or play (the card play has begun)"
    return "exchange: only the holder of the trump seven among his first six cards"


def _no_play(action: Action, phase: Phase) -> dict[str, Any] | None:
    """The reason refusing a card before the card play (game.explain_illegal_card's)."""
    return {"code": "no_card_play", "phase": phase.value} if isinstance(action, Play) else None


def _d17_shares(amount: int, caller: int, own: list[int]) -> tuple[int, ...]:
    """D-17: half of ``amount`` to each opponent of a 3-player caller; the odd point to
    the opponent with the larger own total, or to next(caller) on equal totals."""
    n = len(own)
    first, second = (caller + 1) % n, (caller + 2) % n
    odd_to = second if own[second] > own[first] else first
    shares = [0] * n
    shares[first] = shares[second] = amount // 2
    shares[odd_to] += amount % 2
    return tuple(shares)


def _pick_up_talons(state: State) -> list[Event]:
    rules = state.rules
    assert state.contract is not None
    hands = list(state.hands)
    for seat in range(rules.players):
        hands[seat] |= state.talons[seat]
    state.talons = (0,) * rules.players
    events: list[Event] = [Event("talons_picked_up", {})]
    if rules.players == 3:
        taker = state.contract.taker
        hands[taker] |= state.middle
        state.middle = 0
        state.hands = tuple(hands)
        state.phase = Phase.DISCARD
        state.to_act = taker
    else:
        state.hands = tuple(hands)
        state.phase = Phase.PLAY
        state.to_act = state.leader = rules.eldest(state.dealer)
    for seat in range(rules.players):
        events.append(Event("hand", {"cards": format_mask(hands[seat])}, to=seat))
    return events
