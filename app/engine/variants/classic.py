"""French Belote classique (RULES.md §2): turn-up bidding, or the free SA/TA ladder."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..actions import PASS, Action, Bid, Pass
from ..cards import format_card
from ..errors import IllegalAction, InvalidAction
from ..scoring import FAILED, LITIGE, MADE, DealScore, ScoreWork
from ..state import Auction, Contract, Event, Phase, State, hand_event
from .base import DENOM_TRUMP, LADDER, SUIT_NAMES, Rules, packet_seats
from .ladder import apply_ladder, ladder_actions

DEAL_POINTS = 162  # cards* of §2.6 when the defence did not sweep
SWEEP_POINTS = 252  # cards* of §2.6 when it did


def _eldest_first(dealer: int) -> list[int]:
    return [(dealer + i) % 4 for i in range(1, 5)]


# The turn-up bids (actions are immutable, so they are made once): the turn-up's suit in the
# first round, the three others in the second.
_BIDS = {suit: Bid(suit) for suit in SUIT_NAMES}
_OTHER_BIDS = {up: tuple(_BIDS[s] for s in SUIT_NAMES if s != up) for up in SUIT_NAMES}
# The auction after 1..8 passes of the turn-up bidding, and each seat's "pass" event (auctions
# and events are immutable, so they are made once too).
_PASSED = tuple(Auction(turns=turns, stage=turns // 4) for turns in range(9))
_PASS_EVENTS = tuple(Event("bid", {"seat": seat, "bid": "pass"}) for seat in range(4))
# The 16 turn-up contracts (suit, taker), made once like the bids (contracts are immutable).
_CONTRACTS = {(s, seat): Contract(s, DENOM_TRUMP[s], seat) for s in SUIT_NAMES for seat in range(4)}


# Who receives each card of the deck, per dealer (§2.2): packets of 3 then 2 from eldest (the
# 21st card is the turn-up), or 3-2-3 in the free mode; after the bidding, the 11 cards of the
# stock go 3 to each seat from eldest and 2 to the taker (_REST_SEATS[dealer][taker]).
_TURN_UP_SEATS = tuple(packet_seats(_eldest_first(dealer), (3, 2)) for dealer in range(4))
_FREE_SEATS = tuple(packet_seats(_eldest_first(dealer), (3, 2, 3)) for dealer in range(4))
_REST_SEATS = tuple(
    tuple(
        tuple(seat for seat in _eldest_first(dealer) for _ in range(2 if seat == taker else 3))
        for taker in range(4)
    )
    for dealer in range(4)
)


def _positions(seats: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Per seat, the indexes of its cards in a table of ``seats`` (see the deals below)."""
    return tuple(tuple(i for i, s in enumerate(seats) if s == seat) for seat in range(4))


# The same maps per seat, for turn-up deals written out card by card (twice as fast as a loop
# over the cards): the 5 deck indexes of each seat's first cards, per dealer; and after the
# bidding, per dealer and taker, 3 indexes of stock + (turn-up,): the taker's are 2 stock
# cards and the turn-up (index 11).
_TURN_UP_POSITIONS = tuple(_positions(seats) for seats in _TURN_UP_SEATS)
_REST_POSITIONS = tuple(
    tuple(_positions((*_REST_SEATS[dealer][taker], taker)) for taker in range(4))
    for dealer in range(4)
)


class ClassicRules(Rules):
    variant = "classic"
    defaults: ClassVar[dict[str, Any]] = {
        "target": 1000,
        "declarations": True,
        "auto_declare": True,
        "auto_belote": True,
        "undertrump_required": True,
        "bidding_mode": "turn_up",
        "allow_sa_ta": True,
    }
    targets = (501, 1000, 2000, 5000, "one_deal")
    upcard_kind = "turn_up"

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        if options["bidding_mode"] not in ("turn_up", "free"):
            raise InvalidAction('bidding_mode must be "turn_up" or "free"')
        return options

    def resolve_options(self, given: dict[str, Any]) -> dict[str, Any]:
        """SA and TA exist only in the free mode's ladder (RULES.md §11): ``allow_sa_ta: true``
        with ``turn_up`` is refused, and a turn-up game's options say ``false``."""
        options = super().resolve_options(given)
        if options["bidding_mode"] == "turn_up":
            if given.get("allow_sa_ta") is True:
                raise InvalidAction('allow_sa_ta exists only with bidding_mode "free"')
            options["allow_sa_ta"] = False
        return options

    def non_default_options(self) -> dict[str, Any]:
        out = super().non_default_options()
        if self.options["bidding_mode"] == "turn_up":
            out.pop("allow_sa_ta", None)  # not an option of the turn-up mode
        return out

    @classmethod
    def stored_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """Options stored with ``allow_sa_ta: true`` in a turn-up game (the default before
        it was refused there) read as ``false``."""
        out = dict(options)
        if out.get("bidding_mode", "turn_up") == "turn_up" and out.get("allow_sa_ta") is True:
            out["allow_sa_ta"] = False
        return out

    def __init__(self, players: int | None = None, options: Mapping[str, Any] | None = None):
        super().__init__(players, options)
        self.free = self.options["bidding_mode"] == "free"  # the SA/TA ladder, no turn-up

    @property
    def ladder(self) -> tuple[str, ...]:
        return LADDER if self.options["allow_sa_ta"] else LADDER[:4]

    @property
    def denominations(self) -> tuple[str, ...]:
        return self.ladder

    def deal(self, state: State) -> list[Event]:
        deck = state.deck
        if self.free:
            hands = [0] * 4
            for seat, card in zip(_FREE_SEATS[state.dealer], deck, strict=False):
                hands[seat] |= 1 << card
            state.hands = tuple(hands)
            return []
        state.hands = tuple(
            [
                (1 << deck[a]) | (1 << deck[b]) | (1 << deck[c]) | (1 << deck[d]) | (1 << deck[e])
                for a, b, c, d, e in _TURN_UP_POSITIONS[state.dealer]
            ]
        )
        state.upcard = state.deck[20]
        state.stock = state.deck[21:]
        return [Event("turn_up", {"card": format_card(state.upcard)})]

    def legal_bids(self, state: State) -> list[Action]:
        if self.free:
            return ladder_actions(state, self.ladder, doubles=False)
        up = SUIT_NAMES[state.upcard >> 3]
        if state.auction.stage == 0:
            return [PASS, _BIDS[up]]
        return [PASS, *_OTHER_BIDS[up]]

    def apply_bid(self, state: State, seat: int, action: Action) -> list[Event]:
        if self.free:
            return apply_ladder(self, state, seat, action, self.ladder, doubles=False)
        a = state.auction
        up = SUIT_NAMES[state.upcard >> 3]
        if isinstance(action, Pass):
            turns = a.turns + 1
            state.auction = _PASSED[turns]
            events = [_PASS_EVENTS[seat]]
            if turns == 8:
                return events + self.throw_in(state)
            state.to_act = (seat + 1) % 4
            return events
        if not isinstance(action, Bid):
            raise IllegalAction(f"{action.type}: there is no doubling in classic")
        if action.value is not None:
            raise IllegalAction("bid: classic bids carry no value")
        if a.stage == 0 and action.contract != up:
            raise IllegalAction(
                f"bid: in the first round only the turn-up's suit {up} can be taken"
            )
        if a.stage == 1 and (action.contract == up or action.contract not in SUIT_NAMES):
            raise IllegalAction(f"bid: in the second round name a suit other than {up}")
        events = [Event("bid", {"seat": seat, "bid": "bid", "contract": action.contract})]
        return events + self.set_contract(state, _CONTRACTS[action.contract, seat])

    def after_contract(self, state: State) -> list[Event]:
        events: list[Event] = []
        if not self.free:
            assert state.contract is not None
            taker = state.contract.taker
            events.append(Event("upcard_taken", {"seat": taker, "card": format_card(state.upcard)}))
            cards = (*state.stock, state.upcard)
            hands = state.hands = tuple(
                [
                    hand | (1 << cards[a]) | (1 << cards[b]) | (1 << cards[c])
                    for hand, (a, b, c) in zip(
                        state.hands, _REST_POSITIONS[state.dealer][taker], strict=True
                    )
                ]
            )
            state.stock = ()
            state.taken = state.upcard  # everyone saw it go to the taker
            state.upcard = -1
            for seat in range(4):
                events.append(hand_event(seat, hands[seat]))
        state.phase = Phase.PLAY
        state.to_act = state.leader = self.eldest(state.dealer)
        return events

    @classmethod
    def score_work(cls, w: ScoreWork) -> DealScore:
        """§2.6: made / failed ("dedans") / litige with the reserve of D-8."""
        t = w.f.taker_side
        d = 1 - t
        tot = w.tot
        rec = [0, 0]
        if tot[t] > tot[d]:
            rec[t], rec[d] = tot[t], tot[d]
            return w.result(MADE, rec, t, 0)
        if tot[t] < tot[d]:
            swept = w.capot_side == d
            cards_star = SWEEP_POINTS if swept else DEAL_POINTS
            rec[t] = w.bel[t]  # belote stays with its holder
            rec[d] = cards_star + w.decl[t] + w.decl[d] + w.bel[d]
            return w.result(FAILED, rec, d, 0)
        # Litige: the attack records its belote now; its cards and declarations are held.
        rec[t], rec[d] = w.bel[t], tot[d]
        held = w.cards[t] + w.decl[t]
        return w.result(LITIGE, rec, None, w.f.reserve + held)
