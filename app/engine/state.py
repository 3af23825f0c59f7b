"""The state of a match and of its current deal, and the Phase enum.

A ``State`` is treated as immutable: ``apply`` copies it and changes the copy.
Card sets are int bitmasks; tuples hold per-seat values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .actions import Action
    from .declarations import Combo
    from .play import PlayFlags
    from .scoring import DealScore
    from .variants.base import Rules


class Phase(StrEnum):
    BIDDING = "bidding"
    EXCHANGE = "exchange"  # bela 2p: the trump-seven exchange
    DISCARD = "discard"  # bela 3p: the caller discards two cards
    PLAY = "play"
    DEAL_OVER = "deal_over"  # a chance node: the next deal is dealt by start_deal()
    MATCH_OVER = "match_over"


@dataclass(frozen=True, slots=True)
class Auction:
    """Bidding progress; each variant reads only the fields it needs."""

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


@dataclass(frozen=True, slots=True)
class Trick:
    leader: int
    plays: tuple[tuple[int, int], ...]  # (seat, card) in play order
    winner: int
    points: int


@dataclass(frozen=True, slots=True)
class DealResult:
    """The outcome of one deal: thrown in, or scored with a full breakdown."""

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


@dataclass(frozen=True, slots=True)
class DealLog:
    """The record of one deal (RULES.md §12): dealer, deck order and actions."""

    dealer: int
    deck: tuple[int, ...]
    actions: tuple[tuple[int, Action], ...]


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened; ``to`` is a seat, or None for everyone."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)
    to: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **self.data}

    def is_for(self, seat: int | None) -> bool:
        """Whether ``seat`` (None: a spectator) may see this event."""
        return self.to is None or self.to == seat


class State:
    """One match: the rules, the scores so far and the deal in progress."""

    # match level
    rules: Rules
    scores: tuple[int, ...]
    reserve: int
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
    out_of_play: int  # bela 2p: cards laid aside (and the exchanged seven)
    to_act: int
    auction: Auction
    contract: Contract | None
    trick: tuple[tuple[int, int], ...]
    leader: int
    tricks: tuple[Trick, ...]
    points: tuple[int, ...]  # card points won in tricks, per seat (last trick 10 included)
    tricks_won: tuple[int, ...]  # per seat
    discard: int  # bela 3p: the caller's discards
    exchanged: int  # bela 2p: seat that exchanged, or -1
    declared: tuple[bool, ...]  # seat has used its trick-1 declaration chance
    announced: tuple[tuple[Combo, ...], ...]
    belote_open: tuple[int, ...]  # per seat: suits (bitmask 1<<suit) whose first card was announced
    belote_seats: tuple[int, ...]  # seats that completed belote, one entry per pair
    actions: tuple[tuple[int, Action], ...]
    bid_count: int  # how many of ``actions`` belong to the auction (once the contract is set)
    flags: PlayFlags | None  # the contract's play flags and card points, set with the contract
    table: tuple[int, ...]

    def copy(self) -> State:
        new = object.__new__(State)
        d = new.__dict__
        d.update(self.__dict__)
        d.pop("_legal", None)  # caches (legal_play_mask, the common view): one state only
        d.pop("_view", None)
        return new

    @property
    def n(self) -> int:
        return self.rules.players

    def __repr__(self) -> str:
        return (
            f"<State {self.rules.variant} phase={self.phase.value} dealer={self.dealer} "
            f"to_act={self.to_act} scores={self.scores}>"
        )
