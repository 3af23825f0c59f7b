"""The state of a match and of its current deal, and the Phase enum.

A ``State`` is treated as immutable: ``apply`` copies it and changes the copy.
Card sets are int bitmasks; tuples hold per-seat values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

from .cards import format_mask

if TYPE_CHECKING:
    from .actions import Action
    from .declarations import Combo
    from .play import PlayFlags
    from .scoring import DealScore
    from .variants.base import Rules


class Phase(StrEnum):
    BIDDING = "bidding"
    DISCARD = "discard"  # bela 3p: the caller discards two cards
    PLAY = "play"
    DEAL_OVER = "deal_over"  # a chance node: the next deal is dealt by start_deal()
    MATCH_OVER = "match_over"


class Auction(NamedTuple):
    """Bidding progress; each variant reads only the fields it needs (a named tuple: one is
    made per bid)."""

    best_seat: int = -1
    best_denom: str | None = None
    best_value: int | None = None
    multiplier: int = 1
    doubler: int = -1
    passes: int = 0  # consecutive passes
    turns: int = 0  # bidding actions so far
    stage: int = 0  # variant-specific round / step


@dataclass(frozen=True, slots=True)
class Contract:
    denom: str  # "C" "D" "H" "S" "NT" "AT"
    trump: int  # suit 0..3, or play.NO_TRUMP / play.ALL_TRUMP
    taker: int  # seat
    value: int | None = None  # coinche: 80..160 or 250 (capot)
    multiplier: int = 1
    doubler: int = -1


class Trick(NamedTuple):
    """A finished trick (a named tuple: built once per trick, cheaply)."""

    leader: int
    plays: tuple[tuple[int, int], ...]  # (seat, card) in play order
    winner: int
    points: int


class DealResult(NamedTuple):
    """The outcome of one deal: thrown in, or scored with a full breakdown (a named tuple,
    like ``Trick`` and ``DealScore``: built once per deal, cheaply)."""

    number: int
    dealer: int
    thrown_in: bool
    contract: Contract | None = None
    taker_side: int | None = None
    score: DealScore | None = None
    tricks_won: tuple[int, ...] = ()  # per side
    last_trick_side: int | None = None
    declarations: tuple[tuple[Combo, ...], ...] = ()  # announced, per seat
    decl_awarded: tuple[int, ...] = ()  # per side, as scored
    belote_seats: tuple[int, ...] = ()  # seats that scored belote (one entry per pair)
    totals_after: tuple[int, ...] = ()  # match totals per side after this deal
    winner_side: int | None = None  # duel: the winner of the game; else the side that won


class DealLog(NamedTuple):
    """The record of one deal (RULES.md §12): dealer, deck order and actions."""

    dealer: int
    deck: tuple[int, ...]
    actions: tuple[tuple[int, Action], ...]


class Event:
    """Something that happened; ``to`` is a seat, or None for everyone.

    A plain slotted class rather than a frozen dataclass: ``apply`` makes one or more per
    action, and this is the cheapest object Python builds.  Treat it as immutable.
    """

    __slots__ = ("type", "data", "to")

    type: str
    data: dict[str, Any]
    to: int | None

    def __init__(self, type: str, data: dict[str, Any] | None = None, to: int | None = None):
        self.type = type
        self.data = {} if data is None else data
        self.to = to

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (self.type, self.data, self.to) == (other.type, other.data, other.to)

    __hash__ = None  # type: ignore[assignment]  # holds a dict

    def __repr__(self) -> str:
        return f"Event(type={self.type!r}, data={self.data!r}, to={self.to!r})"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **self.data}

    def is_for(self, seat: int | None) -> bool:
        """Whether ``seat`` (None: a spectator) may see this event."""
        return self.to is None or self.to == seat


class LazyEvent(Event):
    """An event whose data is built when first read: a deal's full breakdown, which only
    the code that shows or sends it reads (bots and playouts never do)."""

    __slots__ = ("_make", "_data")

    def __init__(self, type: str, make: Callable[[], dict[str, Any]], to: int | None = None):
        self.type = type
        self._make: Callable[[], dict[str, Any]] | None = make
        self._data: dict[str, Any] = {}
        self.to = to

    @property
    def data(self) -> dict[str, Any]:
        if self._make is not None:
            self._data = self._make()
            self._make = None
        return self._data

    @data.setter
    def data(self, value: dict[str, Any]) -> None:
        self._make = None
        self._data = value


def hand_event(seat: int, hand: int) -> Event:
    """The ``hand`` event of ``seat`` (its cards' names, to it alone), built when read: most
    callers of ``apply`` (bots, playouts, the benchmark) never read it."""
    return LazyEvent("hand", lambda: {"cards": format_mask(hand)}, seat)


class State:
    """One match: the rules, the scores so far and the deal in progress."""

    # match level
    rules: Rules
    scores: tuple[int, ...]
    reserve: int
    reserve_discarded: int  # a reserve still waiting when the match ended (§14, D-8)
    results: tuple[DealResult, ...]
    logs: tuple[DealLog, ...]  # finished deals
    first_dealer: int
    winner: int | None
    # deal level
    phase: Phase
    dealer: int
    deck: tuple[int, ...]
    hands: tuple[int, ...]  # playable cards per seat
    piles: tuple[tuple[int, ...], ...]  # duel: face-down card under each pile, -1 when freed
    talons: tuple[int, ...]  # bela: face-down talon per seat, 0 once picked up
    middle: int  # bela 3p: the two middle cards, 0 once taken
    stock: tuple[int, ...]  # cards still to deal after the bidding
    upcard: int  # classic turn-up, bela 2p / duel proposal card; -1 if none
    taken: int  # the face-up card a seat took into its hand (classic taker, bela 2p exchange); -1
    out_of_play: int  # bela 2p: cards laid aside (and the exchanged seven)
    to_act: int
    auction: Auction
    contract: Contract | None
    trick: tuple[tuple[int, int], ...]
    best: int  # index in ``trick`` of the card winning it so far (0 while it is empty)
    leader: int
    tricks: tuple[Trick, ...]
    points: tuple[int, ...]  # card points won in tricks, per seat (last trick 10 included)
    tricks_won: tuple[int, ...]  # per seat
    discard: int  # bela 3p: the caller's discards
    exchanged: int  # bela 2p: seat that exchanged, or -1
    exchange_seat: int  # bela 2p: seat that may still exchange the trump seven, or -1
    declared: tuple[bool, ...]  # seat has used its trick-1 declaration chance
    announced: tuple[tuple[Combo, ...], ...]
    belote_open: tuple[int, ...]  # per seat: suits (bitmask 1<<suit) whose first card was announced
    belote_seats: tuple[int, ...]  # seats that completed belote, one entry per pair
    belote_cards: int  # the kings and queens that can make belote in the contract (0 before)
    decl_sides: tuple[int | None, int | None]  # after trick 1: sides scoring sequences, carrés
    claimer: int  # the seat whose claim of the remaining tricks is being played out, or -1
    actions: tuple[tuple[int, Action], ...]
    bid_count: int  # how many of ``actions`` belong to the auction (once the contract is set)
    flags: PlayFlags | None  # the contract's play flags and card points, set with the contract
    table: tuple[int, ...]
    # Caches, each of one module: the cards the seat to act may play (game.legal_play_mask);
    # the common view (views.py: clear_view_cache); the score sheet's JSON with the results
    # tuple it was made of (views.py; a copy keeps it, as it names its own source).
    _legal: int | None
    _view: dict[str, Any] | None
    _results: tuple[tuple[DealResult, ...], list[dict[str, Any]]] | None

    @staticmethod
    def match_fields(rules: Rules, first_dealer: int) -> dict[str, Any]:
        """A new match's match-level fields (and the caches that live for the whole match),
        in one dict: ``new_match`` sets them, then the first deal's (``deal_fields``)."""
        return {
            "rules": rules,
            "scores": (0,) * rules.sides,
            "reserve": 0,
            "reserve_discarded": 0,
            "results": (),
            "logs": (),
            "first_dealer": first_dealer,
            "winner": None,
            "_view": None,
            "_results": None,
        }

    @staticmethod
    def deal_fields(players: int) -> dict[str, Any]:
        """A new deal's fields before the variant deals it (each rules object keeps this dict
        as ``Rules.deal_fields``; the values are immutable, so deals share them). ``_begin_deal``
        sets them in one update, then the dealer, deck, ``to_act`` and ``leader``.

        With ``match_fields`` these are every field declared above: tests/engine/test_state.py
        checks that the declarations and the two dicts name the same fields."""
        n = players
        return {
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
            "exchange_seat": -1,
            "declared": (False,) * n,
            "announced": ((),) * n,
            "belote_open": (0,) * n,
            "belote_seats": (),
            "belote_cards": 0,
            "decl_sides": (None, None),
            "_legal": None,
            "claimer": -1,
            "actions": (),
            "bid_count": 0,
            "flags": None,
            "table": (),
        }

    def copy(self) -> State:
        """A copy to change (``apply`` never changes the state it is given)."""
        new = object.__new__(State)
        d = self.__dict__.copy()
        d["_legal"] = None  # the legal cards and the common view are this state's own
        d["_view"] = None
        new.__dict__ = d
        return new

    @property
    def n(self) -> int:
        return self.rules.players

    def __repr__(self) -> str:
        return (
            f"<State {self.rules.variant} phase={self.phase.value} dealer={self.dealer} "
            f"to_act={self.to_act} scores={self.scores}>"
        )
