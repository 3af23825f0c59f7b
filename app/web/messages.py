"""The closed set of client → server WebSocket messages (docs/protocol.md), and the HTTP bodies.

Every incoming frame is parsed by ``parse_incoming`` into exactly one of these models, or
refused with an error code (``bad_json``, ``unknown_type``, ``bad_message``,
``invalid_action``). Models are strict (no type coercion), forbid unknown fields and bound
every size. They are the JSON Schema of this direction (app/web/schema.py). ``Incoming`` is
their closed union, and ``app.web.ws.HANDLERS`` has one handler for each (docs/protocol.md,
"Adding a message").

The boundary between the codes (docs/protocol.md, "Errors"):

* ``bad_json``: the frame is not a JSON object (``NaN`` and ``Infinity`` are not JSON);
* ``unknown_type``: its ``type`` is none of the messages;
* ``bad_message``: the envelope is wrong: a field of the message itself is missing, unknown or
  of the wrong form (whatever its ``action`` holds);
* ``invalid_action``: the envelope of an ``action`` is right, but its ``action`` is not a
  well-formed action (its ``type``, or any of its fields).

``bad_message`` and ``invalid_action`` carry the frame's ``id`` when it had a well-formed one.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Annotated, Any, Literal, TypeAlias, get_args

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
    model_validator,
)

from app.players.identities import clean_name
from app.rooms.actions import ACTION_TYPES, EngineAction
from app.rooms.chat import EMOTES, MAX_TEXT, PHRASES, clean_text

MAX_FRAME_BYTES = 16 * 1024  # larger frames: error frame_too_large, then close 1009
TRANSPORT_MAX_FRAME_BYTES = 64 * 1024  # uvicorn closes (1009) beyond this without reading
MAX_VERSION = 2**31 - 1

CLIENT_ID_PATTERN = r"^[A-Za-z0-9._:~-]+$"
ClientId = Annotated[StrictStr, Field(min_length=1, max_length=64, pattern=CLIENT_ID_PATTERN)]
Version = Annotated[StrictInt, Field(ge=0, le=MAX_VERSION)]
SeatNo = Annotated[StrictInt, Field(ge=0, le=3)]
Level = Literal["easy", "medium", "hard"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


# ----------------------------------------------------------------- client → server


class ActionMessage(_Strict):
    """Play, bid, declare, exchange or discard: ``action`` is one entry of the view's ``legal``,
    sent as it is. ``seat`` names the seat when the socket holds several (``local`` games; by
    default the held seat that is to act)."""

    type: Literal["action"]
    id: ClientId
    version: Version
    action: EngineAction
    seat: SeatNo | None = None

    def action_json(self) -> dict[str, Any]:
        """The action in the engine's JSON form (fields that were not sent left out)."""
        return self.action.model_dump(exclude_none=True)


class ClaimMessage(_Strict):
    """Claim every remaining trick (RULES.md §15), on your lead when the view's ``can_claim``
    is true; ``seat`` as for ``action``. Refused with ``claim_not_certain`` when your view
    cannot prove it: nothing changes."""

    type: Literal["claim"]
    id: ClientId
    version: Version
    seat: SeatNo | None = None


class ResumeMessage(_Strict):
    """I have everything up to ``version``: the missed updates, or a state."""

    type: Literal["resume"]
    version: Version


class ConsentMessage(_Strict):
    """Continue after a deal's summary (``next_deal``), or agree to a rematch."""

    type: Literal["consent"]
    kind: Literal["next_deal", "rematch"]
    id: ClientId | None = None


class SetLevelMessage(_Strict):
    """Computer games: the bots' level."""

    type: Literal["set_level"]
    level: Level
    id: ClientId | None = None


class SeatBotMessage(_Strict):
    """Friends games, waiting room, host only: a computer player on a free seat."""

    type: Literal["seat_bot"]
    seat: SeatNo
    level: Level = "medium"
    id: ClientId | None = None


class FreeSeatMessage(_Strict):
    """Friends games, waiting room, host only: take the computer player off a seat."""

    type: Literal["free_seat"]
    seat: SeatNo
    id: ClientId | None = None


class TakeSeatMessage(_Strict):
    """Friends games, waiting room: move to a free human seat."""

    type: Literal["take_seat"]
    seat: SeatNo
    id: ClientId | None = None


class HintMessage(_Strict):
    """Computer games: the hard bot's suggestion for your seat."""

    type: Literal["hint"]
    id: ClientId


class PingMessage(_Strict):
    """Keep-alive: answered with ``pong``."""

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
    """This connection's own settings: ``auto_play``, forced cards played for me (D-23), and
    ``hidden``, whether the page is hidden now (a push notification tells its player of his
    turn while it is: app/web/push.py)."""

    type: Literal["settings"]
    auto_play: StrictBool
    hidden: StrictBool | None = None
    id: ClientId | None = None


class ChatMessage(_Strict):
    """A table-chat line: ``text`` is the words (kind ``text``: 1..200 characters once control
    characters are spaces and the ends stripped), or a quick phrase's or an emote's key."""

    type: Literal["chat"]
    kind: Literal["text", "phrase", "emote"]
    text: Annotated[StrictStr, Field(max_length=4 * MAX_TEXT)]
    id: ClientId | None = None

    @model_validator(mode="after")
    def _text(self) -> ChatMessage:
        if self.kind == "phrase":
            if self.text not in PHRASES:
                raise ValueError(f"a phrase is one of {', '.join(PHRASES)}")
            return self
        if self.kind == "emote":
            if self.text not in EMOTES:
                raise ValueError(f"an emote is one of {', '.join(EMOTES)}")
            return self
        text = clean_text(self.text)
        if not text:
            raise ValueError("a chat message needs some text")
        if len(text) > MAX_TEXT:
            raise ValueError(f"a chat message is at most {MAX_TEXT} characters")
        return self if text == self.text else self.model_copy(update={"text": text})


class ChatSettingsMessage(_Strict):
    type: Literal["chat_settings"]
    chat: StrictBool
    spectator_chat: StrictBool
    id: ClientId | None = None


# The closed set of client → server messages: a frame parses into exactly one of them
# (``parse_incoming``), and ``app.web.ws.HANDLERS`` has one handler for each. The order is
# the one ``unknown_type`` lists and the schema shows.
Incoming: TypeAlias = (
    ActionMessage
    | ClaimMessage
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
    | SettingsMessage
    | ChatMessage
    | ChatSettingsMessage
)
INCOMING: tuple[type[BaseModel], ...] = get_args(Incoming)


@cache
def _adapter() -> TypeAdapter[Incoming]:
    return TypeAdapter(Annotated[Incoming, Field(discriminator="type")])


def incoming_types() -> tuple[str, ...]:
    """The ``type`` of every client → server message, in the order of ``Incoming``."""
    return tuple(_tag(m) for m in INCOMING)


def _tag(model: type[BaseModel]) -> str:
    tag: str = model.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
    return tag


def incoming_adapter() -> TypeAdapter[Incoming]:
    """The discriminated union of every registered message (validation, JSON Schema)."""
    return _adapter()


class BadFrame(Exception):
    def __init__(self, code: str, message: str, msg_id: str | None = None):
        super().__init__(message)
        self.code, self.message, self.msg_id = code, message, msg_id


_ID_RE = re.compile(CLIENT_ID_PATTERN)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _frame_id(data: Any) -> str | None:
    """The frame's ``id`` when it is a well-formed one (``ClientId``), else None."""
    if not isinstance(data, dict):
        return None
    value = data.get("id")
    if isinstance(value, str) and 1 <= len(value) <= 64 and _ID_RE.fullmatch(value):
        return value
    return None


_FIELD_RE = re.compile(r"^[a-z_]+$")
_TYPE_NAMES = {"int", "str", "bool", "float", "none", "list", "dict"}  # union members


def _where(loc: tuple[Any, ...], in_action: bool) -> str:
    """A location without the union members pydantic puts in it: ``action.card``,
    ``version``, ``action.combos.0``."""
    path = list(loc[1:])  # loc[0] is the message's tag
    if in_action and len(path) >= 2:
        del path[1]  # the action's tag
    kept = [
        str(p)
        for p in path
        if isinstance(p, int) or (_FIELD_RE.match(str(p)) and str(p) not in _TYPE_NAMES)
    ]
    return ".".join(kept) or "message"


def _in_action(error: Any) -> bool:
    """The error is about the action object an ``action`` message carries (not its absence)."""
    loc = error["loc"]
    if len(loc) < 2 or loc[:2] != ("action", "action"):
        return False
    return not (len(loc) == 2 and error["type"] == "missing")


def parse_incoming(text: str) -> Incoming:
    """The frame as one of the ``Incoming`` messages, or ``BadFrame`` with the error code to
    answer."""
    try:
        return _adapter().validate_json(text)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
    # The refusal path: read the frame as JSON once more (strictly: no NaN, no Infinity), to
    # tell the codes apart and find its id.
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise BadFrame("bad_json", "not a JSON object") from None
    if not isinstance(data, dict):
        raise BadFrame("bad_json", "not a JSON object") from None
    msg_id = _frame_id(data)
    kinds = {e["type"] for e in errors}
    if "union_tag_invalid" in kinds and all(len(e["loc"]) == 0 for e in errors):
        raise BadFrame("unknown_type", f"type must be one of {', '.join(incoming_types())}", msg_id)
    if "union_tag_not_found" in kinds and all(len(e["loc"]) == 0 for e in errors):
        raise BadFrame("bad_message", "a message is a JSON object with a type", msg_id)
    in_action = [_in_action(e) for e in errors]
    if all(in_action):
        first = errors[0]
        if len(first["loc"]) == 2 and first["type"] == "union_tag_invalid":
            text = f"action.type must be one of {', '.join(ACTION_TYPES)}"
        elif len(first["loc"]) == 2 and first["type"] == "union_tag_not_found":
            text = f"action is an object with a type: one of {', '.join(ACTION_TYPES)}"
        elif len(first["loc"]) == 2:
            text = "action is an object with a type"
        else:
            text = f"{_where(first['loc'], True)}: {first['msg']}"
        raise BadFrame("invalid_action", text[:200], msg_id)
    first = next(e for e, inside in zip(errors, in_action, strict=True) if not inside)
    raise BadFrame("bad_message", f"{_where(first['loc'], False)}: {first['msg']}"[:200], msg_id)


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
    # a public table (friends games): listed in the lobby, rated unless ``rated`` is false
    public: StrictBool = False
    rated: StrictBool = True

    # local games: the players' names by seat (null or missing: the creator's name)
    names: Annotated[list[str | None], Field(max_length=4)] | None = None

    @field_validator("names")
    @classmethod
    def _names(cls, value: list[str | None] | None) -> list[str | None] | None:
        if value is None:
            return None
        return [None if n is None or not n.strip() else clean_name(n) for n in value]

    def table_settings(self) -> dict[str, Any]:
        return {
            "clock": self.clock,
            "stand_in": self.stand_in,
            "away_seconds": self.away_seconds,
            "chat": self.chat,
            "spectator_chat": self.spectator_chat,
            "rated": self.rated,
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
