"""What every variant shares, as overridable hooks (python-chess's variant style).

A variant module subclasses ``Rules`` and overrides only what differs.  A
``Rules`` instance is immutable: a variant plus its resolved options and player
count.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from ..actions import PASS, Action, Bid, Pass
from ..cards import PLAIN_POINTS, RK, RQ, SA_POINTS, TA_POINTS, TRUMP_POINTS
from ..errors import IllegalAction, InvalidAction
from ..play import ALL_TRUMP, NO_TRUMP, PlayFlags
from ..state import Auction, Contract, Event, Phase, State

DENOM_TRUMP = {"C": 0, "D": 1, "H": 2, "S": 3, "NT": NO_TRUMP, "AT": ALL_TRUMP}
LADDER = ("C", "D", "H", "S", "NT", "AT")
SUIT_NAMES = "CDHS"

ONE_DEAL = "one_deal"

# Option name -> allowed JSON type, for validation messages.
_BOOL_OPTIONS = (
    "declarations",
    "auto_declare",
    "auto_belote",
    "undertrump_required",
    "allow_sa_ta",
    "eight_card_belot",
    "seven_exchange",
    "valat_can_end_without_bonus",
)


def packet_round(
    deck: tuple[int, ...], start: int, k: int, order: list[int], hands: list[int]
) -> int:
    """Give ``k`` consecutive cards to each seat of ``order``; return the next deck index."""
    for seat in order:
        for i in range(start, start + k):
            hands[seat] |= 1 << deck[i]
        start += k
    return start


def packet_seats(order: list[int], packets: tuple[int, ...]) -> tuple[int, ...]:
    """The seat receiving each card of the deck when every seat of ``order`` gets a packet of
    each size in turn (the dealing map of ``packet_round`` as a table, made once)."""
    return tuple(seat for k in packets for seat in order for _ in range(k))


def points_table(trump: int, scale: str = "french") -> tuple[int, ...]:
    """Card points per card for a contract (§0.3). ``scale`` "bulgarian" keeps STD tables."""
    table = []
    for card in range(32):
        rank, suit = card & 7, card >> 3
        if trump == NO_TRUMP:
            table.append(PLAIN_POINTS[rank] if scale == "bulgarian" else SA_POINTS[rank])
        elif trump == ALL_TRUMP:
            table.append(TRUMP_POINTS[rank] if scale == "bulgarian" else TA_POINTS[rank])
        else:
            table.append(TRUMP_POINTS[rank] if suit == trump else PLAIN_POINTS[rank])
    return tuple(table)


# _KINGS_QUEENS[suits]: the kings and queens of the suits of ``suits`` (bitmask 1 << suit).
_KINGS_QUEENS = tuple(
    sum(((1 << RK) | (1 << RQ)) << (8 * s) for s in range(4) if suits >> s & 1)
    for suits in range(16)
)
_POINTS_FR = {t: points_table(t) for t in range(6)}
_POINTS_BG = {t: points_table(t, "bulgarian") for t in range(6)}


class Rules(ABC):
    variant: ClassVar[str] = ""
    player_counts: ClassVar[tuple[int, ...]] = (4,)
    defaults: ClassVar[dict[str, Any]] = {}
    fixed: ClassVar[dict[str, Any]] = {}  # options the variant fixes
    targets: ClassVar[tuple[Any, ...]] = ()
    overtake_plain: ClassVar[bool] = False
    partner_exception: ClassVar[bool] = True
    comparison: ClassVar[str] = "unified"  # or "bulgarian"
    belote_restricted: ClassVar[bool] = False  # the Bulgarian rule of §4.6
    bulgarian_points: ClassVar[bool] = False

    def __init__(self, players: int | None = None, options: Mapping[str, Any] | None = None):
        players = self.player_counts[-1] if players is None else players
        if isinstance(players, bool) or players not in self.player_counts:
            counts = ", ".join(map(str, self.player_counts))
            raise InvalidAction(f"{self.variant} is played by {counts} players, not {players!r}")
        self.players = players
        self.options = self.resolve_options(dict(options or {}))
        self.sides = 2 if players != 3 else 3
        self.side_of = tuple(s % 2 if players == 4 else s for s in range(players))
        # Read by the state machine on every card: belote announced by the engine (else a
        # ``Play(card, belote=True)`` is offered), and declarations made by hand (§1.2, §14).
        self.auto_belote = bool(self.options.get("auto_belote", True))
        self.manual_declarations = bool(self.options.get("declarations")) and not self.options.get(
            "auto_declare", True
        )
        # A new deal's fields, which game._begin_deal sets in one dict update (the values are
        # immutable, so deals share them); it then sets the dealer, deck, to_act and leader.
        n = players
        self.deal_fields: dict[str, Any] = {
            "phase": Phase.BIDDING,
            "dealer": 0,
            "deck": (),
            "hands": (0,) * n,
            "piles": (),
            "talons": (0,) * n,
            "middle": 0,
            "stock": (),
            "upcard": -1,
            "taken": -1,
            "out_of_play": 0,
            "to_act": 0,
            "auction": Auction(),
            "contract": None,
            "trick": (),
            "best": 0,
            "leader": 0,
            "tricks": (),
            "points": (0,) * n,
            "tricks_won": (0,) * n,
            "discard": 0,
            "exchanged": -1,
            "declared": (False,) * n,
            "announced": ((),) * n,
            "belote_open": (0,) * n,
            "belote_seats": (),
            "belote_cards": 0,
            "decl_sides": (None, None),
            "_legal": None,
            "actions": (),
            "bid_count": 0,
            "flags": None,
            "table": (),
        }
        self._play_flags = PlayFlags(
            overtake_plain=self.overtake_plain,
            partner_exception=self.partner_exception and self.players == 4,
            must_undertrump=bool(self.options.get("undertrump_required", True)),
        )

    # ----- options -------------------------------------------------------------
    def default_options(self) -> dict[str, Any]:
        return dict(self.defaults) | dict(self.fixed)

    def resolve_options(self, given: dict[str, Any]) -> dict[str, Any]:
        options = self.default_options()
        for key, value in given.items():
            if key not in options:
                raise InvalidAction(f"unknown option for {self.variant}: {key}")
            if key in self.fixed and value != self.fixed[key]:
                raise InvalidAction(f"{self.variant} fixes {key} = {_json(self.fixed[key])}")
            if key in _BOOL_OPTIONS and not isinstance(value, bool):
                raise InvalidAction(f"option {key} must be true or false")
            if key == "target" and value not in self.targets:
                allowed = ", ".join(_json(t) for t in self.targets)
                raise InvalidAction(f"target must be one of {allowed}")
            options[key] = value
        return self.check_options(options)

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return options

    def non_default_options(self) -> dict[str, Any]:
        base = self.default_options()
        return {k: v for k, v in self.options.items() if base.get(k) != v}

    @property
    def target(self) -> int | None:
        t = self.options.get("target")
        return None if t == ONE_DEAL else t

    # ----- dealing -------------------------------------------------------------
    @property
    def total_tricks(self) -> int:
        return 8

    def eldest(self, dealer: int) -> int:
        return (dealer + 1) % self.players

    def order_from(self, seat: int) -> list[int]:
        return [(seat + i) % self.players for i in range(self.players)]

    @abstractmethod
    def deal(self, state: State) -> list[Event]:
        """Deal the initial cards from ``state.deck``; set hands, stock, upcard, to_act."""

    # ----- bidding -------------------------------------------------------------
    @abstractmethod
    def legal_bids(self, state: State) -> list[Action]:
        """The legal bidding actions of the seat to act."""

    @abstractmethod
    def apply_bid(self, state: State, seat: int, action: Action) -> list[Event]:
        """Apply a bidding action (already known to be the seat's turn) to ``state``."""

    def after_contract(self, state: State) -> list[Event]:
        """Deal what is left once the contract is fixed and enter the next phase."""
        state.phase = Phase.PLAY
        state.to_act = state.leader = self.eldest(state.dealer)
        return []

    # ----- play ----------------------------------------------------------------
    def flags(self, contract: Contract) -> PlayFlags:
        return self._play_flags  # the same for every contract here (immutable, made once)

    def points(self, contract: Contract) -> tuple[int, ...]:
        return (_POINTS_BG if self.bulgarian_points else _POINTS_FR)[contract.trump]

    def declarations_allowed(self, contract: Contract) -> bool:
        return bool(self.options.get("declarations")) and contract.trump != NO_TRUMP

    def belote_suits(self, contract: Contract) -> int:
        """Suits (bitmask 1 << suit) in which K+Q makes belote."""
        if contract.trump == NO_TRUMP:
            return 0
        if contract.trump == ALL_TRUMP:
            return 0b1111
        return 1 << contract.trump

    # ----- shared bidding helpers ---------------------------------------------
    def set_contract(self, state: State, contract: Contract) -> list[Event]:
        state.contract = contract
        state.flags = self.flags(contract)
        state.table = self.points(contract)
        state.belote_cards = _KINGS_QUEENS[self.belote_suits(contract)]
        state.bid_count = len(state.actions) + 1  # the deal's actions so far, this bid included
        events = [Event("contract", {"contract": contract_json(contract)})]
        return events + self.after_contract(state)

    def throw_in(self, state: State) -> list[Event]:
        from ..game import end_thrown_in

        return end_thrown_in(state)

    def ladder_bids(self, state: State, ladder: tuple[str, ...]) -> list[Action]:
        a = state.auction
        start = 0 if a.best_denom is None else ladder.index(a.best_denom) + 1
        return [PASS, *(Bid(d) for d in ladder[start:])]


def contract_json(c: Contract) -> dict[str, Any]:
    out: dict[str, Any] = {"denom": c.denom, "taker": c.taker, "multiplier": c.multiplier}
    if c.value is not None:
        out["value"] = "capot" if c.value == 250 else c.value
    return out


def _json(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def next_seat(state: State, seat: int) -> int:
    return (seat + 1) % state.rules.players


def require(condition: bool, rule: str) -> None:
    if not condition:
        raise IllegalAction(rule)


def is_pass(action: Action) -> bool:
    return isinstance(action, Pass)


def fresh_auction(**kw: Any) -> Auction:
    return Auction(**kw)
