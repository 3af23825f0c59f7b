"""The closed set of server → client messages (docs/protocol.md), built in this module only.

Two faces of the same set:

* **Builders** (``error``, ``ack``, ``state``, ``update``, ``room``, ``rematch``, ``hint``,
  ``pong``, ``chat``) return ``TypedDict``s: plain dicts with a checked shape, as cheap to make as a dict
  literal. The publisher makes many of them per move (``atout bench publish``), so no model
  object is built on the hot path. ``dumps`` turns one into the compact JSON text sent.
* **Models** (one pydantic model per ``type``, registered with ``@outgoing``, and one per
  engine event ``type`` inside ``update.events``, registered with ``@event``) describe and
  validate what the builders make. They are what the protocol's JSON Schema is generated from
  (app/web/schema.py, docs/schema/); ``validate_outgoing`` checks a sent text against them.
  tests/rooms/test_messages.py checks that each builder's TypedDict has its model's fields.

Views (``view``, ``views``) are the engine's ``seat_view``/``spectator_view`` dicts
(docs/engine.md), modelled per variant and role (``SpectatorView``, ``BelaSeatView``, ...);
an update's view is a ``ViewDelta``: any of their fields, only those that changed.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal, NotRequired, TypedDict, TypeVar, Union

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    TypeAdapter,
    create_model,
)

from app import metrics
from app.rooms.actions import BidValue, Card, Denom, EngineAction, Rank, Suit

# ----------------------------------------------------------------- shapes (TypedDict)

View = dict[str, Any]


class SeatInfo(TypedDict):
    seat: int
    kind: str
    name: str | None
    level: str | None
    taken: bool
    connected: bool
    you: bool
    xp_level: int | None
    deadline: int | None  # when this seat's running decision clock runs out (epoch ms)
    stand_in: str | None  # away | left: the stand-in holds the seat
    away_since: int | None  # since when no connection holds the seat (epoch ms)
    stand_in_votes: list[int]  # the seats that agreed to the stand-in for this seat
    open: NotRequired[bool]  # a public table's computer player that gives way to a human
    heir: NotRequired[str | None]  # the name of the human taking it at the end of the deal


class TableSettings(TypedDict):
    clock: str | int  # "none" | 15 | 30 | 60 | 120
    stand_in: str  # the stand-in's level
    away_seconds: int
    chat: bool
    spectator_chat: bool
    board: BoardInfo | None  # a tournament board (app/tournaments), else None


class BoardInfo(TypedDict):
    event: str
    round: int
    board: int
    table: int
    direction: str


class ConsentInfo(TypedDict):
    kind: str | None
    agreed: list[int]
    needed: list[int]


class NextDealInfo(TypedDict):
    waiting_for: list[int]  # the seats whose "Continue" the next deal waits for
    deadline: int | None  # friends games: when it is dealt anyway (epoch milliseconds)


class RematchInfo(TypedDict):
    game_id: str
    url: str


class RoomInfo(TypedDict):
    game_id: str
    mode: str
    variant: str
    players: int
    options: dict[str, Any]
    status: str
    url: str
    host: bool
    seats: list[SeatInfo]
    paused: bool
    consent: ConsentInfo
    next_deal: NextDealInfo | None
    level: str | None
    spectators: int
    spectators_allowed: bool
    rematch: RematchInfo | None
    version: int
    settings: TableSettings
    clock_seconds: float | None  # a decision's length, or None without a clock
    now: int  # the server's clock when this was sent (epoch ms): deadlines are on it
    public: NotRequired[bool]  # listed in the lobby
    rated: NotRequired[bool]


class ChatLine(TypedDict):
    """One table-chat line as every listener gets it: who wrote what, and when. Never a card
    or a view: chat is the players' text only (app/rooms/chat.py)."""

    id: int
    seat: int | None  # None: a spectator
    name: str | None
    kind: str  # text | phrase | emote
    text: str  # kind text: the words; phrase and emote: the key
    at: int  # epoch milliseconds


class ErrorMsg(TypedDict):
    type: Literal["error"]
    code: str
    message: str
    id: str | None
    reason: NotRequired[dict[str, Any]]


class AckMsg(TypedDict):
    type: Literal["ack"]
    id: str
    version: int


class StateMsg(TypedDict):
    type: Literal["state"]
    version: int
    role: str
    seats_you_hold: list[int]
    view: View | None
    views: dict[str, View]
    room: RoomInfo
    chat: list[ChatLine]  # the last 100 lines; empty while chat is off
    moves_by: list[dict[str, Any]]  # this deal's moves made for their seat (Room.moves_by)


class RoomMsg(TypedDict):
    type: Literal["room"]
    room: RoomInfo


class RematchMsg(TypedDict):
    type: Literal["rematch"]
    game_id: str
    url: str


class HintMsg(TypedDict):
    type: Literal["hint"]
    id: str
    action: dict[str, Any]


class PongMsg(TypedDict):
    type: Literal["pong"]


class ChatMsg(TypedDict):
    type: Literal["chat"]
    message: ChatLine


# ``update`` is built field by field on the hot path (``update`` below): a dict whose ``view``
# and ``views`` are added as needed.
UpdateMsg = dict[str, Any]


# ----------------------------------------------------------------- builders


def dumps(message: Any) -> str:
    """Compact JSON, UTF-8 as is (orjson: a fifteenth of the stdlib's time on an update)."""
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


def error(
    code: str, message: str, msg_id: str | None = None, reason: dict[str, Any] | None = None
) -> ErrorMsg:
    """``reason`` (an ``illegal_action``'s rule as data, e.g. ``{"code": "must_follow",
    "suit": "H"}``) is sent only when there is one. Counted in ``atout_errors_total``."""
    metrics.ERRORS.labels(code=code, transport="ws").inc()
    if reason is None:
        return {"type": "error", "code": code, "message": message, "id": msg_id}
    return {"type": "error", "code": code, "message": message, "id": msg_id, "reason": reason}


def ack(msg_id: str, version: int) -> AckMsg:
    return {"type": "ack", "id": msg_id, "version": version}


def state(
    version: int,
    seats: tuple[int, ...],
    view: View | None,
    views: dict[str, View],
    room_info: RoomInfo,
    chat_lines: list[ChatLine] | None = None,
    moves_by: list[dict[str, Any]] | None = None,
) -> StateMsg:
    return {
        "type": "state",
        "version": version,
        "role": "seat" if seats else "spectator",
        "seats_you_hold": list(seats),
        "view": view,
        "views": views,
        "room": room_info,
        "chat": chat_lines if chat_lines is not None else [],
        "moves_by": moves_by if moves_by is not None else [],
    }


def update(version: int, events: list[dict[str, Any]]) -> UpdateMsg:
    """An ``update`` without its view(s): the publisher adds ``view`` (and ``views``)."""
    return {"type": "update", "version": version, "events": events}


def room(room_info: RoomInfo) -> RoomMsg:
    return {"type": "room", "room": room_info}


def rematch(game_id: str, url: str) -> RematchMsg:
    return {"type": "rematch", "game_id": game_id, "url": url}


def hint(msg_id: str, action: dict[str, Any]) -> HintMsg:
    return {"type": "hint", "id": msg_id, "action": action}


def pong() -> PongMsg:
    return {"type": "pong"}


def chat(line: ChatLine) -> ChatMsg:
    return {"type": "chat", "message": line}


def iso_time(value: Any) -> str | None:
    """A stored timestamp as ISO 8601 UTC with ``Z`` (``GameSummary``'s dates)."""
    if value is None:
        return None
    text = value.isoformat()
    if value.tzinfo is None:
        text += "Z"
    return str(text).replace("+00:00", "Z")


# ----------------------------------------------------------------- models (validation, schema)
#
# Adding a message is one change here: its model, registered with ``@outgoing`` (a top-level
# message) or ``@event`` (an engine event inside ``update.events``), plus its builder above.
# The unions, ``validate_outgoing`` and the published schema (app/web/schema.py) follow.


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


SeatNo = Annotated[StrictInt, Field(ge=0, le=3)]
Side = Annotated[StrictInt, Field(ge=0, le=3)]
Count = Annotated[StrictInt, Field(ge=0)]
Obj = dict[str, Any]
By = Literal["stand_in", "auto", "claim"]  # who played an action for its seat (RULES.md §12)
Level = Literal["easy", "medium", "hard"]
Variant = Literal["classic", "coinche", "bulgarian", "bela", "duel"]
OptionValue = StrictBool | StrictInt | StrictStr
Options = dict[str, OptionValue]

_OUTGOING: list[type[BaseModel]] = []
_EVENTS: list[type[BaseModel]] = []
M = TypeVar("M", bound=type[BaseModel])


@cache
def _outgoing() -> TypeAdapter[Any]:
    models = [_with_events(m) if _tag(m) == "update" else m for m in _OUTGOING]
    union: Any = Annotated[Union[tuple(models)], Field(discriminator="type")]  # noqa: UP007
    return TypeAdapter(union)


def _event_union() -> Any:
    return Annotated[Union[tuple(_EVENTS)], Field(discriminator="type")]  # noqa: UP007


def outgoing(model: M) -> M:
    """Register ``model`` as one of the server → client messages (its ``type`` is its tag)."""
    _OUTGOING.append(model)
    _outgoing.cache_clear()
    return model


def event(model: M) -> M:
    """Register ``model`` as one of the engine events an ``update`` carries."""
    _EVENTS.append(model)
    _outgoing.cache_clear()
    return model


def _tag(model: type[BaseModel]) -> str:
    tag: str = model.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
    return tag


def outgoing_types() -> tuple[str, ...]:
    return tuple(_tag(m) for m in _OUTGOING)


def event_types() -> tuple[str, ...]:
    return tuple(_tag(m) for m in _EVENTS)


# --- parts of views and events


class ContractModel(_Out):
    """The contract: its denomination (a suit, ``NT`` no trumps, ``AT`` all trumps), the seat
    that took it, 1/2/4 for undoubled/doubled/redoubled, and coinche's value."""

    denom: Denom
    taker: SeatNo
    multiplier: Literal[1, 2, 4]
    value: BidValue | None = None


class BidEntry(_Out):
    """One bid of the auction: the seat and its action (RULES.md §12)."""

    seat: SeatNo
    type: Literal["pass", "bid", "double", "redouble"]
    contract: Denom | None = None
    value: BidValue | None = None


class SeatCard(_Out):
    seat: SeatNo
    card: Card


class TrickModel(_Out):
    """A completed trick: who led, the cards in order, who won it and its card points."""

    leader: SeatNo
    plays: list[SeatCard]
    winner: SeatNo
    points: Count


class PublicSequence(_Out):
    """A declared sequence as everyone learns it: its length, top rank and points."""

    kind: Literal["sequence"]
    length: Annotated[StrictInt, Field(ge=3, le=8)]
    top: Rank
    points: Count


class PublicCarre(_Out):
    """A declared carre (four of a rank) as everyone learns it."""

    kind: Literal["carre"]
    rank: Rank
    points: Count


PublicCombo = Annotated[PublicSequence | PublicCarre, Field(discriminator="kind")]


class ScoredSequence(_Out):
    """A sequence counted in a deal's result, with its suit and cards."""

    kind: Literal["sequence"]
    length: Annotated[StrictInt, Field(ge=3, le=8)]
    top: Rank
    suit: Suit
    points: Count
    cards: list[Card]


class ScoredCarre(_Out):
    kind: Literal["carre"]
    rank: Rank
    points: Count
    cards: list[Card]


ScoredCombo = Annotated[ScoredSequence | ScoredCarre, Field(discriminator="kind")]


class ShownDeclaration(_Out):
    """A seat's declared cards shown to everyone once trick 1 is over (RULES.md §1.2)."""

    seat: SeatNo
    combos: list[list[Card]]


class BeloteEntry(_Out):
    """A belote announced: ``belote`` names its suit (the first card of the pair played),
    ``rebelote`` completes it."""

    seat: SeatNo
    stage: Literal["belote", "rebelote"]
    suit: Suit | None = None


class DealResultModel(_Out):
    """One deal's line of the score sheet (the engine's ``result_json``). A deal thrown in has
    only ``number``, ``dealer``, ``thrown_in`` and ``totals_after`` (and ``winner_side`` with
    ``eight_card_belot`` when an eight-card belot ended the match); a played deal has the rest.
    Lists are per side unless named per seat."""

    number: Count
    dealer: SeatNo
    thrown_in: StrictBool
    totals_after: list[StrictInt]
    eight_card_belot: StrictBool | None = None
    contract: ContractModel | None = None
    taker_side: Side | None = None
    outcome: Literal["made", "failed", "litige", "hanging"] | None = None
    card_points: list[StrictInt] | None = None
    tricks_won: list[Count] | None = None
    last_trick_side: Side | None = None
    capot_side: Side | None = None
    declarations: list[list[ScoredCombo]] | None = Field(
        default=None, description="per seat: the combinations counted, with their cards"
    )
    declaration_points: list[StrictInt] | None = None
    belote_points: list[StrictInt] | None = None
    belote_seats: list[SeatNo] | None = None
    totals: list[StrictInt] | None = None
    recorded: list[StrictInt] | None = None
    reserve_paid: StrictInt | None = None
    reserve_paid_to: Side | None = None
    reserve: StrictInt | None = None
    rounding: Obj | None = Field(
        default=None, description="how the totals were rounded, when they were (kind, figures)"
    )
    winner_side: Side | None = None


class PileModel(_Out):
    """Duel: one of a seat's eight table piles: its face-up card (null once played) and
    whether a face-down card lies under it."""

    up: Card | None
    down: StrictBool


# --- views (the engine's seat_view / spectator_view, docs/engine.md)


class ClaimModel(_Out):
    """A claim of every remaining trick being played out (RULES.md §15): the claimer and the
    cards he has left, shown to everyone."""

    seat: SeatNo
    cards: list[Card]


class TraitsModel(_Out):
    """What the variant is like (``Rules.traits``): a client asks these, never the name."""

    player_counts: list[Annotated[StrictInt, Field(ge=2, le=4)]] = Field(
        description="the numbers of players the variant is played by"
    )
    deal_is_game: StrictBool = Field(
        description="each deal is a whole game, scored and rated when it ends (duel): no match"
    )
    hand_in_piles: StrictBool = Field(
        description="each seat's cards lie face up in its table piles (piles), none in a "
        "hidden hand (duel)"
    )
    has_talon: StrictBool = Field(
        description="each seat has a talon it picks up after the bidding (talon_counts)"
    )
    upcard: Literal["turn_up", "proposal"] | None = Field(
        description="what the auction's face-up card is when there is one: a turn-up the "
        "taker takes (shown during the bidding), or a proposal lying on the rest of the deck "
        "all deal long; null: the variant has none"
    )
    scoring_sides: Annotated[StrictInt, Field(ge=2, le=3)] = Field(
        description="how many sides the score sheet has (scores, trick_points)"
    )
    declarations: StrictBool = Field(description="combinations are declared in this game")
    denominations: list[Denom] = Field(description="the contracts this game can play")
    points_scale: Literal["french", "standard"] = Field(
        description="card points of NT and AT contracts: the French SA/TA tables, or the "
        "plain and trump points (RULES.md §0.3)"
    )
    no_trumps_doubled: StrictBool = Field(
        description="in NT, card points and the last trick count double (bulgarian)"
    )


class SpectatorView(_Out):
    """What everyone at the table sees (RULES.md §13), in classic, coinche and bulgarian."""

    variant: Literal["classic", "coinche", "bulgarian"]
    players: Annotated[StrictInt, Field(ge=2, le=4)]
    traits: TraitsModel = Field(
        description="what the variant is like, the same all game long: ask these, not variant"
    )
    options: Options = Field(description="the match's options (RULES.md §11), defaults filled")
    sides: list[Side] = Field(description="per seat: its side (team, or the seat itself)")
    target: Count | None = Field(description="the score that ends the match (duel: null)")
    phase: Literal["bidding", "exchange", "discard", "play", "deal_over", "match_over"]
    deal_number: StrictInt = Field(description="the deal in progress or just scored, from 0")
    dealer: SeatNo
    to_act: SeatNo | None = Field(description="the seat to act, null when nobody is")
    hand_counts: list[Count] = Field(description="per seat: how many cards it holds")
    bids: list[BidEntry] = Field(description="the auction of this deal so far, in order")
    contract: ContractModel | None
    upcard: Card | None = Field(description="the face-up card of the auction, if any")
    taken: SeatCard | None = Field(description="the face-up card a seat took into its hand")
    trick: list[SeatCard] = Field(description="the trick being played, in order")
    leader: SeatNo = Field(description="the seat that leads (or led) the current trick")
    last_trick: TrickModel | None = Field(description="the last completed trick")
    tricks: list[TrickModel] = Field(description="every completed trick of the deal")
    tricks_played: Count
    tricks_won: list[Count] = Field(description="per seat: tricks won this deal")
    trick_points: list[Count] = Field(description="per side: card points won in tricks")
    declarations: list[list[PublicCombo]] = Field(
        description="per seat: the combinations it declared (kind and strength only)"
    )
    shown_declarations: list[ShownDeclaration]
    belote: list[BeloteEntry]
    scores: list[StrictInt] = Field(description="per side: the match score")
    reserve: StrictInt = Field(description="points hanging, carried to the next deal")
    reserve_discarded: StrictInt | None = Field(
        description="once the match is over: the reserve still waiting, discarded (D-8)"
    )
    results: list[DealResultModel] = Field(description="the score sheet: one line per deal")
    winner: Side | None = Field(description="the side that won the match, once it is over")
    claim: ClaimModel | None = Field(
        description="a claim of the remaining tricks being played out (RULES.md §15), or null"
    )


class _BelaFields(_Out):
    talon_counts: list[Count] = Field(description="per seat: cards left in its talon")
    middle_count: Count = Field(description="bela for three: cards in the middle")
    discarded: Count = Field(description="bela for three: cards the taker put away")
    exchanged: SeatNo | None = Field(description="bela for two: the seat that took the seven")


class _DuelFields(_Out):
    piles: list[list[PileModel]] = Field(description="per seat: its eight table piles")


class _SeatFields(_Out):
    seat: SeatNo = Field(description="the seat this view is for")
    hand: list[Card] = Field(description="the cards this seat holds")
    legal: list[EngineAction] = Field(
        description="what this seat may do now (empty when it is not to act): send one as is"
    )
    can_claim: StrictBool = Field(
        description="this seat may claim every remaining trick now (RULES.md §15): send claim"
    )
    discard: list[Card] | None = Field(description="bela for three: the taker's own discards")


class BelaSpectatorView(SpectatorView, _BelaFields):
    variant: Literal["bela"]  # type: ignore[assignment]


class DuelSpectatorView(SpectatorView, _DuelFields):
    variant: Literal["duel"]  # type: ignore[assignment]


class SeatView(SpectatorView, _SeatFields):
    """A seat's view: the common one plus its hand and its legal actions."""


class BelaSeatView(BelaSpectatorView, _SeatFields):
    """A bela seat's view: the bela fields plus its hand and legal actions."""


class DuelSeatView(DuelSpectatorView, _SeatFields):
    """A duel seat's view: the piles plus its hand and legal actions."""


AnySpectatorView = Annotated[
    SpectatorView | BelaSpectatorView | DuelSpectatorView, Field(discriminator="variant")
]
AnySeatView = Annotated[SeatView | BelaSeatView | DuelSeatView, Field(discriminator="variant")]
VIEW_MODELS: tuple[type[BaseModel], ...] = (
    SpectatorView,
    BelaSpectatorView,
    DuelSpectatorView,
    SeatView,
    BelaSeatView,
    DuelSeatView,
)


def _delta_fields() -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for model in VIEW_MODELS:
        for name, info in model.model_fields.items():
            if name not in fields:
                annotation = info.annotation
                if name == "variant":
                    annotation = Variant
                fields[name] = (
                    annotation,
                    Field(default=None, description=info.description),
                )
    return fields


def _no_defaults(schema: dict[str, Any]) -> None:
    for prop in schema.get("properties", {}).values():
        prop.pop("default", None)


ViewDelta = create_model(
    "ViewDelta",
    __config__=ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        json_schema_extra=_no_defaults,
        title="ViewDelta",
    ),
    __doc__="An update's view: only the fields of the recipient's view that changed since the "
    "previous version (any field of a seat or spectator view). Merge it into the view held.",
    **_delta_fields(),
)


# --- engine events (``update.events``; RULES.md §12 names the actions they follow)


@event
class DealStartedEvent(_Out):
    type: Literal["deal_started"]
    number: Count
    dealer: SeatNo


@event
class HandEvent(_Out):
    """To its seat only: the cards it holds now."""

    type: Literal["hand"]
    cards: list[Card]


@event
class TurnUpEvent(_Out):
    """Classic in turn_up bidding: the turned card."""

    type: Literal["turn_up"]
    card: Card


@event
class ProposalEvent(_Out):
    """Bela for two, duel: the proposed trump card."""

    type: Literal["proposal"]
    card: Card


@event
class BidEvent(_Out):
    type: Literal["bid"]
    seat: SeatNo
    bid: Literal["pass", "bid", "double", "redouble"]
    contract: Denom | None = None
    value: BidValue | None = None
    by: By | None = None


@event
class ContractEvent(_Out):
    type: Literal["contract"]
    contract: ContractModel


@event
class UpcardTakenEvent(_Out):
    type: Literal["upcard_taken"]
    seat: SeatNo
    card: Card


@event
class ExchangedEvent(_Out):
    """Bela for two: ``seat`` gave the seven ``card`` and took ``took``."""

    type: Literal["exchanged"]
    seat: SeatNo
    card: Card
    took: Card
    by: By | None = None


@event
class TalonsPickedUpEvent(_Out):
    """Bela: every seat picked up its talon."""

    type: Literal["talons_picked_up"]


@event
class DiscardedEvent(_Out):
    type: Literal["discarded"]
    seat: SeatNo
    count: Count
    by: By | None = None


@event
class DiscardEvent(_Out):
    """To the discarding seat only: the two cards it put away."""

    type: Literal["discard"]
    cards: list[Card]


@event
class DeclaredEvent(_Out):
    """A seat declared combinations (kind and strength only)."""

    type: Literal["declared"]
    seat: SeatNo
    combos: list[PublicCombo]
    by: By | None = None


@event
class DeclarationsShownEvent(_Out):
    """After trick 1: the side whose declarations count (null: none) and their cards."""

    type: Literal["declarations_shown"]
    side: Side | None
    shown: list[ShownDeclaration]


@event
class BeloteEvent(_Out):
    type: Literal["belote"]
    seat: SeatNo
    stage: Literal["belote", "rebelote"]
    suit: Suit


@event
class CardPlayedEvent(_Out):
    type: Literal["card_played"]
    seat: SeatNo
    card: Card
    by: By | None = None


@event
class ClaimedEvent(_Out):
    """A valid claim (RULES.md §15): the claimer's remaining cards, shown to everyone; the
    server plays the deal out (``card_played`` with ``by``: ``claim``)."""

    type: Literal["claimed"]
    seat: SeatNo
    cards: list[Card]


@event
class TrickWonEvent(_Out):
    """``number`` counts the deal's tricks from 1; ``points`` are the trick's card points."""

    type: Literal["trick_won"]
    seat: SeatNo
    points: Count
    number: Count


@event
class RevealedEvent(_Out):
    """Duel: the face-down card of a pile turned up."""

    type: Literal["revealed"]
    seat: SeatNo
    pile: Annotated[StrictInt, Field(ge=0, le=7)]
    card: Card


@event
class DealScoredEvent(_Out):
    type: Literal["deal_scored"]
    result: DealResultModel


@event
class DealThrownInEvent(_Out):
    """Everybody passed: no score, the next dealer deals."""

    type: Literal["deal_thrown_in"]
    dealer: SeatNo


@event
class MatchOverEvent(_Out):
    """The match is over: ``winner`` is the winning side; ``scores``, or ``reason``
    (``eight_card_belot``)."""

    type: Literal["match_over"]
    winner: Side | None
    scores: list[StrictInt] | None = None
    reason: Literal["eight_card_belot"] | None = None
    reserve_discarded: StrictInt | None = None  # a reserve left at the end (RULES.md D-8)


# --- the room


class SeatModel(_Out):
    seat: SeatNo
    kind: Literal["human", "bot"]
    name: StrictStr | None
    level: Literal["easy", "medium", "hard"] | None
    taken: StrictBool
    connected: StrictBool
    you: StrictBool
    xp_level: StrictInt | None
    deadline: Annotated[StrictInt, Field(ge=0)] | None = Field(
        description="when this seat's decision clock runs out (epoch ms), or null"
    )
    stand_in: Literal["away", "left"] | None = Field(
        description="the stand-in holds the seat: its player is away (the others agreed) or left"
    )
    away_since: Annotated[StrictInt, Field(ge=0)] | None = Field(
        description="since when no connection holds this human seat (epoch ms), or null"
    )
    stand_in_votes: list[SeatNo] = Field(
        description="the seats that agreed to let the stand-in play for this seat"
    )
    open: StrictBool = Field(
        default=False,
        description="a public table's computer player that gives the seat to a human at the "
        "end of a deal",
    )
    heir: StrictStr | None = Field(
        default=None,
        description="the name of the human who takes this computer seat at the end of the deal",
    )


class TableSettingsModel(_Out):
    """The table's settings (friends games; the host chooses them at creation)."""

    clock: Literal["none", 15, 30, 60, 120]
    stand_in: Level
    away_seconds: Annotated[StrictInt, Field(ge=5, le=3600)]
    chat: StrictBool
    spectator_chat: StrictBool
    board: BoardModel | None = Field(
        description="a tournament board (docs/tournaments.md): the game is that one deal"
    )


class BoardModel(_Out):
    """Which tournament board a game is: its event, round, board (from 1), table (0: the
    datum table of house players) and the direction of the entrant's seat 0."""

    event: Annotated[str, Field(max_length=32)]
    round: Annotated[StrictInt, Field(ge=1)]
    board: Annotated[StrictInt, Field(ge=1)]
    table: Annotated[StrictInt, Field(ge=0)]
    direction: Literal["NS", "S"]


class ConsentModel(_Out):
    kind: Literal["next_deal", "rematch"] | None
    agreed: list[SeatNo]
    needed: list[SeatNo]


class NextDealModel(_Out):
    waiting_for: list[SeatNo]
    deadline: Annotated[StrictInt, Field(ge=0)] | None


class RematchInfoModel(_Out):
    game_id: StrictStr
    url: StrictStr


class RoomModel(_Out):
    game_id: StrictStr
    mode: Literal["friends", "computer", "local"]
    variant: Variant
    players: Annotated[StrictInt, Field(ge=2, le=4)]
    options: Options
    status: Literal["waiting", "playing", "finished"]
    url: StrictStr
    host: StrictBool
    seats: list[SeatModel]
    paused: StrictBool
    consent: ConsentModel
    next_deal: NextDealModel | None
    level: Literal["easy", "medium", "hard"] | None
    spectators: Annotated[StrictInt, Field(ge=0)]
    spectators_allowed: StrictBool
    rematch: RematchInfoModel | None
    version: Annotated[StrictInt, Field(ge=0)]
    settings: TableSettingsModel
    clock_seconds: Annotated[float, Field(gt=0)] | None = Field(
        description="the length of a decision's clock in seconds, or null without a clock"
    )
    now: Annotated[StrictInt, Field(ge=0)] = Field(
        description="the server's clock when the message was sent (epoch ms): a client "
        "measures the deadlines against it, so its own clock need not be right"
    )
    public: StrictBool = Field(default=False, description="listed in the lobby")
    rated: StrictBool = Field(default=True, description="the match is rated")


class ChatLineModel(_Out):
    id: Annotated[StrictInt, Field(ge=0)]
    seat: SeatNo | None
    name: StrictStr | None
    kind: Literal["text", "phrase", "emote"]
    text: Annotated[StrictStr, Field(min_length=1, max_length=200)]
    at: Annotated[StrictInt, Field(ge=0)]


# --- the messages


class ReasonModel(BaseModel):
    """An ``illegal_action``'s rule as data: its ``code`` (docs/engine.md, "Why a card is
    refused") and the code's own fields."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True)
    code: StrictStr


# Every code an ``error`` may carry (docs/protocol.md, "error"); a new code is added here.
ErrorCode = Literal[
    "bad_json",
    "bad_message",
    "unknown_type",
    "invalid_action",
    "illegal_action",
    "claim_not_certain",
    "not_your_lead",
    "claimed",
    "not_your_seat",
    "not_your_turn",
    "stale_version",
    "paused",
    "spectator",
    "game_over",
    "not_host",
    "not_allowed",
    "frame_too_large",
    "rate_limited",
    "no_identity",
    "not_found",
    "table_full",
    "busy",
    "server_error",
    "not_away",
    "chat_off",
    "seat_taken",
    "banned",
    "removed",
    "room_closed",
    "muted",
]


@outgoing
class ErrorOut(_Out):
    """A refusal; nothing changed. ``id`` is the refused frame's, when it had one."""

    type: Literal["error"]
    code: ErrorCode
    message: StrictStr
    id: StrictStr | None
    reason: ReasonModel | None = None


@outgoing
class AckOut(_Out):
    type: Literal["ack"]
    id: StrictStr
    version: Annotated[StrictInt, Field(ge=0)]


class CardPlayedByModel(_Out):
    """A card of this deal played for its seat, as its ``card_played`` event said."""

    type: Literal["card_played"]
    seat: SeatNo
    card: Card
    by: By


class CallByModel(_Out):
    """A seat whose last call of this auction was made for it, as its ``bid`` event said."""

    type: Literal["bid"]
    seat: SeatNo
    by: By


@outgoing
class StateOut(_Out):
    """The whole picture: on connect, on a resume that cannot be served by updates, after a
    stale action. ``view`` is null while the table waits; ``views`` holds one seat view per
    seat held when the socket holds several (``local`` games), else it is empty."""

    type: Literal["state"]
    version: Annotated[StrictInt, Field(ge=0)]
    role: Literal["seat", "spectator"]
    seats_you_hold: list[SeatNo]
    view: AnySeatView | AnySpectatorView | None
    views: dict[str, AnySeatView]
    room: RoomModel
    chat: Annotated[list[ChatLineModel], Field(max_length=100)]
    # the current deal's moves made for their seat (a page opened mid-deal learns the tags
    # "computer" and "auto" it would have seen in the events)
    moves_by: list[CardPlayedByModel | CallByModel]


# ``events`` (a list of the registered events) is added when the union is built:
# ``_with_events``.
@outgoing
class UpdateOut(_Out):
    """One change of the game: ``version`` grows by one; ``events`` are the engine events this
    recipient may see; ``view`` (``views``: per seat held) holds the fields that changed."""

    type: Literal["update"]
    version: Annotated[StrictInt, Field(ge=1)]
    view: ViewDelta  # type: ignore[valid-type]
    views: dict[str, ViewDelta] | None = None  # type: ignore[valid-type]


@outgoing
class RoomOut(_Out):
    type: Literal["room"]
    room: RoomModel


@outgoing
class RematchOut(_Out):
    type: Literal["rematch"]
    game_id: StrictStr
    url: StrictStr


@outgoing
class HintOut(_Out):
    type: Literal["hint"]
    id: StrictStr
    action: EngineAction


@outgoing
class PongOut(_Out):
    type: Literal["pong"]


@outgoing
class ChatOut(_Out):
    type: Literal["chat"]
    message: ChatLineModel


# ----------------------------------------------------------------- the lobby (/ws/lobby)


class LobbySeatModel(_Out):
    seat: SeatNo
    kind: Literal["human", "computer", "free"]
    name: StrictStr | None = Field(description="a human's display name (text, never HTML)")
    xp_level: StrictInt | None
    level: Level | None = Field(description="a computer player's level")
    free: StrictBool = Field(
        description="a seat this browser may ask for: free while the table waits, or a "
        "computer's that it gives to a human at the end of the deal in progress"
    )


class LobbyTableModel(_Out):
    """A public table with a free seat (app/rooms/lobby.py ``entry_of``). Never a card."""

    game_id: StrictStr
    url: StrictStr
    variant: Variant
    players: Annotated[StrictInt, Field(ge=2, le=4)]
    target: StrictInt | StrictStr | None
    clock: StrictInt = Field(description="seconds per decision")
    rated: StrictBool
    spectators: StrictBool = Field(description="spectators may watch")
    status: Literal["waiting", "playing"]
    level: Level = Field(description="the level of the computer players that fill free seats")
    seats: list[LobbySeatModel]
    free: Annotated[StrictInt, Field(ge=1)]
    created_at: StrictStr | None


@outgoing
class LobbyOut(_Out):
    """The lobby's whole list, once, when its socket opens."""

    type: Literal["lobby"]
    tables: list[LobbyTableModel]
    online: Annotated[StrictInt, Field(ge=0)] = Field(description="browsers connected")
    playing: Annotated[StrictInt, Field(ge=0)] = Field(description="tables being played")


@outgoing
class LobbyTableOut(_Out):
    """A table joined the list or changed."""

    type: Literal["lobby_table"]
    table: LobbyTableModel


@outgoing
class LobbyRemoveOut(_Out):
    """A table left the list (full, finished, made private)."""

    type: Literal["lobby_remove"]
    game_id: StrictStr


@outgoing
class LobbyCountsOut(_Out):
    type: Literal["lobby_counts"]
    online: Annotated[StrictInt, Field(ge=0)]
    playing: Annotated[StrictInt, Field(ge=0)]


def _with_events(model: type[BaseModel]) -> type[BaseModel]:
    """``update`` with its ``events``: a list of the events registered so far."""
    return create_model(
        "UpdateOut",
        __base__=model,
        __doc__=model.__doc__,
        events=(list[_event_union()], ...),  # type: ignore[misc,arg-type]
    )


def validate_outgoing(text: str | bytes) -> BaseModel:
    """The model of a sent text; raises ``pydantic.ValidationError`` if it is not one."""
    model: BaseModel = _outgoing().validate_json(text)
    return model


def outgoing_adapter() -> TypeAdapter[Any]:
    """The discriminated union of every registered message (validation, JSON Schema)."""
    return _outgoing()


def outgoing_schema() -> dict[str, Any]:
    """The JSON Schema of every server → client message."""
    schema: dict[str, Any] = _outgoing().json_schema()
    return schema
