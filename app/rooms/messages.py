"""The closed set of server → client messages (docs/protocol.md), built in this module only.

Two faces of the same set:

* **Builders** (``error``, ``ack``, ``state``, ``update``, ``room``, ``rematch``, ``hint``,
  ``pong``) return ``TypedDict``s: plain dicts with a checked shape, as cheap to make as a dict
  literal. The publisher makes many of them per move (``atout bench publish``), so no model
  object is built on the hot path. ``dumps`` turns one into the compact JSON text sent.
* **Models** (``ServerMessage``: one pydantic model per ``type``, and one per engine event
  ``type`` inside ``update.events``) describe and validate what the builders make. They are what
  the protocol's JSON Schema is generated from; ``validate_outgoing`` checks a sent text against
  them (the tests run it on every message of whole games).

Views (``view``, ``views``) are the engine's ``seat_view``/``spectator_view`` dicts
(docs/engine.md); here they are open objects.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, TypedDict

import orjson
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, TypeAdapter

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


class TableSettings(TypedDict):
    clock: str | int  # "none" | 15 | 30 | 60 | 120
    stand_in: str  # the stand-in's level
    away_seconds: int
    chat: bool
    spectator_chat: bool


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
    "suit": "H"}``) is sent only when there is one."""
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
) -> StateMsg:
    return {
        "type": "state",
        "version": version,
        "role": "seat" if seats else "spectator",
        "seats_you_hold": list(seats),
        "view": view,
        "views": views,
        "room": room_info,
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


def iso_time(value: Any) -> str | None:
    """A stored timestamp as ISO 8601 UTC with ``Z`` (``GameSummary``'s dates)."""
    if value is None:
        return None
    text = value.isoformat()
    if value.tzinfo is None:
        text += "Z"
    return str(text).replace("+00:00", "Z")


# ----------------------------------------------------------------- models (validation, schema)


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


SeatNo = Annotated[StrictInt, Field(ge=0, le=3)]
Obj = dict[str, Any]
By = Literal["stand_in", "auto"]  # who played an action for its seat (RULES.md §12)
Level = Literal["easy", "medium", "hard"]


# --- engine events (``update.events``; RULES.md §12 names the actions they follow)


class DealStartedEvent(_Out):
    type: Literal["deal_started"]
    number: StrictInt
    dealer: SeatNo


class HandEvent(_Out):
    """To its seat only: the cards it holds now."""

    type: Literal["hand"]
    cards: list[StrictStr]


class TurnUpEvent(_Out):
    type: Literal["turn_up"]
    card: StrictStr


class ProposalEvent(_Out):
    type: Literal["proposal"]
    card: StrictStr


class BidEvent(_Out):
    type: Literal["bid"]
    seat: SeatNo
    bid: Literal["pass", "bid", "double", "redouble"]
    contract: StrictStr | None = None
    value: StrictInt | Literal["capot"] | None = None
    by: By | None = None


class ContractEvent(_Out):
    type: Literal["contract"]
    contract: Obj


class UpcardTakenEvent(_Out):
    type: Literal["upcard_taken"]
    seat: SeatNo
    card: StrictStr


class ExchangedEvent(_Out):
    type: Literal["exchanged"]
    seat: SeatNo
    card: StrictStr
    took: StrictStr
    by: By | None = None


class ExchangeDeclinedEvent(_Out):
    type: Literal["exchange_declined"]
    seat: SeatNo
    by: By | None = None


class TalonsPickedUpEvent(_Out):
    type: Literal["talons_picked_up"]


class DiscardedEvent(_Out):
    type: Literal["discarded"]
    seat: SeatNo
    count: StrictInt
    by: By | None = None


class DiscardEvent(_Out):
    """To the discarding seat only: the two cards it put away."""

    type: Literal["discard"]
    cards: list[StrictStr]


class DeclaredEvent(_Out):
    type: Literal["declared"]
    seat: SeatNo
    combos: list[Obj]
    by: By | None = None


class DeclarationsShownEvent(_Out):
    type: Literal["declarations_shown"]
    side: StrictInt | None
    shown: list[Obj]


class BeloteEvent(_Out):
    type: Literal["belote"]
    seat: SeatNo
    stage: Literal["belote", "rebelote"]
    suit: Literal["C", "D", "H", "S"]


class CardPlayedEvent(_Out):
    type: Literal["card_played"]
    seat: SeatNo
    card: StrictStr
    by: By | None = None


class TrickWonEvent(_Out):
    type: Literal["trick_won"]
    seat: SeatNo
    points: StrictInt
    number: StrictInt


class RevealedEvent(_Out):
    type: Literal["revealed"]
    seat: SeatNo
    pile: StrictInt
    card: StrictStr


class DealScoredEvent(_Out):
    type: Literal["deal_scored"]
    result: Obj


class DealThrownInEvent(_Out):
    type: Literal["deal_thrown_in"]
    dealer: SeatNo


class MatchOverEvent(_Out):
    type: Literal["match_over"]
    winner: StrictInt | None
    scores: list[StrictInt] | None = None
    reason: StrictStr | None = None


GameEvent = Annotated[
    DealStartedEvent
    | HandEvent
    | TurnUpEvent
    | ProposalEvent
    | BidEvent
    | ContractEvent
    | UpcardTakenEvent
    | ExchangedEvent
    | ExchangeDeclinedEvent
    | TalonsPickedUpEvent
    | DiscardedEvent
    | DiscardEvent
    | DeclaredEvent
    | DeclarationsShownEvent
    | BeloteEvent
    | CardPlayedEvent
    | TrickWonEvent
    | RevealedEvent
    | DealScoredEvent
    | DealThrownInEvent
    | MatchOverEvent,
    Field(discriminator="type"),
]


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
    deadline: Annotated[StrictInt, Field(ge=0)] | None
    stand_in: Literal["away", "left"] | None
    away_since: Annotated[StrictInt, Field(ge=0)] | None
    stand_in_votes: list[SeatNo]


class TableSettingsModel(_Out):
    clock: Literal["none", 15, 30, 60, 120]
    stand_in: Level
    away_seconds: Annotated[StrictInt, Field(ge=5, le=3600)]
    chat: StrictBool
    spectator_chat: StrictBool


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
    variant: StrictStr
    players: Annotated[StrictInt, Field(ge=2, le=4)]
    options: Obj
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
    clock_seconds: Annotated[float, Field(gt=0)] | None


# --- the messages


class ErrorOut(_Out):
    type: Literal["error"]
    code: StrictStr
    message: StrictStr
    id: StrictStr | None
    reason: Obj | None = None


class AckOut(_Out):
    type: Literal["ack"]
    id: StrictStr
    version: Annotated[StrictInt, Field(ge=0)]


class StateOut(_Out):
    type: Literal["state"]
    version: Annotated[StrictInt, Field(ge=0)]
    role: Literal["seat", "spectator"]
    seats_you_hold: list[SeatNo]
    view: Obj | None
    views: dict[str, Obj]
    room: RoomModel


class UpdateOut(_Out):
    type: Literal["update"]
    version: Annotated[StrictInt, Field(ge=1)]
    events: list[GameEvent]
    view: Obj
    views: dict[str, Obj] | None = None


class RoomOut(_Out):
    type: Literal["room"]
    room: RoomModel


class RematchOut(_Out):
    type: Literal["rematch"]
    game_id: StrictStr
    url: StrictStr


class HintOut(_Out):
    type: Literal["hint"]
    id: StrictStr
    action: Obj


class PongOut(_Out):
    type: Literal["pong"]


ServerMessage = Annotated[
    StateOut | UpdateOut | AckOut | ErrorOut | RoomOut | RematchOut | HintOut | PongOut,
    Field(discriminator="type"),
]
OUTGOING_TYPES = ("state", "update", "ack", "error", "room", "rematch", "hint", "pong")
_outgoing: TypeAdapter[Any] = TypeAdapter(ServerMessage)


def validate_outgoing(text: str | bytes) -> BaseModel:
    """The model of a sent text; raises ``pydantic.ValidationError`` if it is not one."""
    model: BaseModel = _outgoing.validate_json(text)
    return model


def outgoing_schema() -> dict[str, Any]:
    """The JSON Schema of every server → client message."""
    schema: dict[str, Any] = _outgoing.json_schema()
    return schema
