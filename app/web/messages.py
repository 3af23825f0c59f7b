"""The closed set of client → server WebSocket messages (docs/protocol.md), and the HTTP bodies.

Every incoming frame is parsed by ``parse_incoming`` into exactly one of these models, or
refused with an error code (``bad_json``, ``unknown_type``, ``bad_message``). Models are
strict (no type coercion), forbid unknown fields and bound every size.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from app.engine import Action, Bid, Declare, Discard, Exchange, InvalidAction
from app.engine.actions import CAPOT, DOUBLE, PASS, PLAYS, PLAYS_BELOTE, REDOUBLE
from app.engine.cards import mask_of, parse_card
from app.web.identity import clean_name

MAX_FRAME_BYTES = 16 * 1024  # larger frames: error frame_too_large, then close 1009
TRANSPORT_MAX_FRAME_BYTES = 64 * 1024  # uvicorn closes (1009) beyond this without reading
MAX_VERSION = 2**31 - 1

ClientId = Annotated[StrictStr, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9._:~-]+$")]
Card = Annotated[StrictStr, Field(min_length=2, max_length=2)]
Version = Annotated[StrictInt, Field(ge=0, le=MAX_VERSION)]
SeatNo = Annotated[StrictInt, Field(ge=0, le=3)]
Level = Literal["easy", "medium", "hard"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


# ----------------------------------------------------------------- engine actions (§12)
#
# Each model makes the engine's action itself (``to_engine``), once, when the room applies it:
# what pydantic checked is not checked again from a dict. What only the engine's notation
# knows (a card's name, a value's step of 10, a card named twice) raises ``InvalidAction``
# with the engine's own words (``action_from_json``; tests/web/test_protocol.py compares them).


def _card(value: str, where: str) -> int:
    try:
        return parse_card(value)
    except ValueError:
        raise InvalidAction(f"{where}: not a card: {value!r}") from None


class PassAction(_Strict):
    type: Literal["pass"]

    def to_engine(self) -> Action:
        return PASS


class DoubleAction(_Strict):
    type: Literal["double"]

    def to_engine(self) -> Action:
        return DOUBLE


class RedoubleAction(_Strict):
    type: Literal["redouble"]

    def to_engine(self) -> Action:
        return REDOUBLE


class BidAction(_Strict):
    type: Literal["bid"]
    contract: Literal["C", "D", "H", "S", "NT", "AT"]
    value: Annotated[StrictInt, Field(ge=80, le=160)] | Literal["capot"] | None = None

    def to_engine(self) -> Action:
        value = self.value
        if value is None:
            return Bid(self.contract)
        if value == "capot":
            return Bid(self.contract, CAPOT)
        if value % 10:
            raise InvalidAction('value must be 80, 90, ..., 160 or "capot"')
        return Bid(self.contract, value)


class PlayAction(_Strict):
    type: Literal["play"]
    card: Card
    belote: StrictBool | None = None

    def to_engine(self) -> Action:
        card = _card(self.card, "card")
        return PLAYS_BELOTE[card] if self.belote else PLAYS[card]


class DeclareAction(_Strict):
    type: Literal["declare"]
    combos: Annotated[
        list[Annotated[list[Card], Field(min_length=1, max_length=8)]], Field(max_length=8)
    ]

    def to_engine(self) -> Action:
        masks = []
        for combo in self.combos:
            cards = [_card(c, "combos") for c in combo]
            if len(set(cards)) != len(cards):
                raise InvalidAction("a combination names a card twice")
            masks.append(mask_of(cards))
        return Declare(tuple(masks))


class ExchangeAction(_Strict):
    type: Literal["exchange"]
    card: Card

    def to_engine(self) -> Action:
        return Exchange(_card(self.card, "card"))


class DiscardAction(_Strict):
    type: Literal["discard"]
    cards: Annotated[list[Card], Field(min_length=2, max_length=2)]

    def to_engine(self) -> Action:
        parsed = [_card(c, "cards") for c in self.cards]
        if parsed[0] == parsed[1]:
            raise InvalidAction("discard names the same card twice")
        return Discard(mask_of(parsed))


EngineAction = Annotated[
    PassAction
    | DoubleAction
    | RedoubleAction
    | BidAction
    | PlayAction
    | DeclareAction
    | ExchangeAction
    | DiscardAction,
    Field(discriminator="type"),
]


# ----------------------------------------------------------------- client → server


class ActionMessage(_Strict):
    type: Literal["action"]
    id: ClientId
    version: Version
    action: EngineAction
    seat: SeatNo | None = None

    def action_json(self) -> dict[str, Any]:
        """The action in the engine's JSON form (fields that were not sent left out)."""
        return self.action.model_dump(exclude_none=True)


class ResumeMessage(_Strict):
    type: Literal["resume"]
    version: Version


class ConsentMessage(_Strict):
    type: Literal["consent"]
    kind: Literal["next_deal", "rematch"]
    id: ClientId | None = None


class SetLevelMessage(_Strict):
    type: Literal["set_level"]
    level: Level
    id: ClientId | None = None


class SeatBotMessage(_Strict):
    type: Literal["seat_bot"]
    seat: SeatNo
    level: Level = "medium"
    id: ClientId | None = None


class FreeSeatMessage(_Strict):
    type: Literal["free_seat"]
    seat: SeatNo
    id: ClientId | None = None


class TakeSeatMessage(_Strict):
    type: Literal["take_seat"]
    seat: SeatNo
    id: ClientId | None = None


class HintMessage(_Strict):
    type: Literal["hint"]
    id: ClientId


class PingMessage(_Strict):
    type: Literal["ping"]


class StandInMessage(_Strict):
    """Agree to let the stand-in play an away seat (RULES.md D-22)."""

    type: Literal["stand_in"]
    seat: SeatNo
    id: ClientId | None = None


class BackMessage(_Strict):
    """ "I'm back": the stand-in stops playing the sender's seats."""

    type: Literal["back"]
    id: ClientId | None = None


class LeaveMessage(_Strict):
    """Leave the table: the stand-in plays the sender's seats to the end of the match."""

    type: Literal["leave"]
    id: ClientId | None = None


class SettingsMessage(_Strict):
    """This connection's own settings: ``auto_play``, forced cards played for me (D-23)."""

    type: Literal["settings"]
    auto_play: StrictBool
    id: ClientId | None = None


Incoming = Annotated[
    ActionMessage
    | ResumeMessage
    | ConsentMessage
    | SetLevelMessage
    | SeatBotMessage
    | FreeSeatMessage
    | TakeSeatMessage
    | HintMessage
    | PingMessage
    | StandInMessage
    | BackMessage
    | LeaveMessage
    | SettingsMessage,
    Field(discriminator="type"),
]
INCOMING_TYPES = (
    "action",
    "resume",
    "consent",
    "set_level",
    "seat_bot",
    "free_seat",
    "take_seat",
    "hint",
    "ping",
    "stand_in",
    "back",
    "leave",
    "settings",
)
_incoming = TypeAdapter(Incoming)


class BadFrame(Exception):
    def __init__(self, code: str, message: str, msg_id: str | None = None):
        super().__init__(message)
        self.code, self.message, self.msg_id = code, message, msg_id


def parse_incoming(text: str) -> Any:
    """One of the message models above, or ``BadFrame`` with the error code to answer."""
    try:
        return _incoming.validate_json(text)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        kinds = {e["type"] for e in errors}
        if "json_invalid" in kinds or "json_type" in kinds:
            raise BadFrame("bad_json", "not a JSON object") from None
        if kinds & {"union_tag_invalid"}:
            raise BadFrame(
                "unknown_type", f"type must be one of {', '.join(INCOMING_TYPES)}"
            ) from None
        if kinds & {"union_tag_not_found", "model_type", "model_attributes_type"}:
            raise BadFrame("bad_message", "a message is a JSON object with a type") from None
        first = errors[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        raise BadFrame("bad_message", f"{where}: {first['msg']}"[:200]) from None


# ----------------------------------------------------------------- HTTP bodies


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


OptionValue = StrictBool | StrictInt | Annotated[StrictStr, Field(max_length=32)]


class SeatBody(_Body):
    kind: Literal["human", "bot"]
    level: Level | None = None


class CreateGameBody(_Body):
    variant: Annotated[StrictStr, Field(max_length=32)]
    players: Annotated[StrictInt, Field(ge=2, le=4)] | None = None
    options: Annotated[
        dict[Annotated[str, Field(max_length=40)], OptionValue], Field(max_length=16)
    ] = Field(default_factory=dict)
    mode: Literal["friends", "computer", "local"] = "friends"
    seats: Annotated[list[SeatBody], Field(min_length=2, max_length=4)] | None = None
    level: Level = "medium"
    spectators: StrictBool | None = None
    name: str | None = None
    # the table's settings (friends games; docs/protocol.md "Table settings")
    clock: Literal["none", 15, 30, 60, 120] = "none"
    stand_in: Level = "medium"
    away_seconds: Annotated[StrictInt, Field(ge=5, le=3600)] = 120
    chat: StrictBool = True
    spectator_chat: StrictBool = False

    def table_settings(self) -> dict[str, Any]:
        return {
            "clock": self.clock,
            "stand_in": self.stand_in,
            "away_seconds": self.away_seconds,
            "chat": self.chat,
            "spectator_chat": self.spectator_chat,
        }

    @field_validator("name")
    @classmethod
    def _name(cls, value: str | None) -> str | None:
        return None if value is None else clean_name(value)


class NameBody(_Body):
    name: str

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return clean_name(value)


class JoinBody(_Body):
    name: str | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str | None) -> str | None:
        return None if value is None else clean_name(value)


class SeatsBody(_Body):
    swaps: Annotated[
        list[
            Annotated[
                list[Annotated[StrictInt, Field(ge=0, le=3)]], Field(min_length=2, max_length=2)
            ]
        ],
        Field(min_length=1, max_length=8),
    ]
