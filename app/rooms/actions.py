"""The engine's actions on the wire (RULES.md §12), both ways.

A client sends one of these as an ``action`` message's ``action`` (app/web/messages.py); the
server lists them in a seat view's ``legal`` and in a ``hint`` (app/rooms/messages.py). One set
of models describes both, so a client acts by sending an entry of ``legal`` as it is.

The models hold every rule of an action's form (a card's name, a value's step of 10, a card
named twice), so a frame whose action is malformed is refused when it is parsed
(``invalid_action``). Each model then makes the engine's action itself (``to_engine``), once,
when the room applies it; the engine's own notation checks stay behind it
(tests/web/test_protocol.py compares the two).
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    TypeAdapter,
    field_validator,
)

from app.engine import Action, Bid, Declare, Discard, Exchange, InvalidAction
from app.engine.actions import CAPOT, DOUBLE, PASS, PLAYS, PLAYS_BELOTE, REDOUBLE
from app.engine.cards import mask_of, parse_card

Card = Annotated[
    StrictStr,
    Field(
        min_length=2,
        max_length=2,
        pattern=r"^[789TJQKA][CDHS]$",
        description="rank (7 8 9 T J Q K A) then suit (C D H S), e.g. TH",
    ),
]
Denom = Literal["C", "D", "H", "S", "NT", "AT"]
Rank = Literal["7", "8", "9", "T", "J", "Q", "K", "A"]
Suit = Literal["C", "D", "H", "S"]
BidValue = Annotated[StrictInt, Field(ge=80, le=160, multiple_of=10)] | Literal["capot"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


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
    """``value`` is coinche's (80, 90, ..., 160 or ``capot``); other variants name a contract
    only."""

    type: Literal["bid"]
    contract: Denom
    value: BidValue | None = None

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
    """``belote: true`` announces belote (or rebelote) with this card (RULES.md §12)."""

    type: Literal["play"]
    card: Card
    belote: StrictBool | None = None

    def to_engine(self) -> Action:
        card = _card(self.card, "card")
        return PLAYS_BELOTE[card] if self.belote else PLAYS[card]


class DeclareAction(_Strict):
    """The combinations declared, each as its cards (an empty list declares nothing)."""

    type: Literal["declare"]
    combos: Annotated[
        list[
            Annotated[
                list[Card],
                Field(min_length=1, max_length=8, json_schema_extra={"uniqueItems": True}),
            ]
        ],
        Field(max_length=8),
    ]

    @field_validator("combos")
    @classmethod
    def _combos(cls, combos: list[list[str]]) -> list[list[str]]:
        for combo in combos:
            if len(set(combo)) != len(combo):
                raise ValueError("a combination names a card twice")
        return combos

    def to_engine(self) -> Action:
        masks = []
        for combo in self.combos:
            cards = [_card(c, "combos") for c in combo]
            if len(set(cards)) != len(cards):
                raise InvalidAction("a combination names a card twice")
            masks.append(mask_of(cards))
        return Declare(tuple(masks))


class ExchangeAction(_Strict):
    """Bela for two: give the trump seven for the proposed card."""

    type: Literal["exchange"]
    card: Card

    def to_engine(self) -> Action:
        return Exchange(_card(self.card, "card"))


class DiscardAction(_Strict):
    """Bela for three: the taker puts two cards away."""

    type: Literal["discard"]
    cards: Annotated[
        list[Card], Field(min_length=2, max_length=2, json_schema_extra={"uniqueItems": True})
    ]

    @field_validator("cards")
    @classmethod
    def _cards(cls, cards: list[str]) -> list[str]:
        if len(set(cards)) != len(cards):
            raise ValueError("discard names the same card twice")
        return cards

    def to_engine(self) -> Action:
        parsed = [_card(c, "cards") for c in self.cards]
        if parsed[0] == parsed[1]:
            raise InvalidAction("discard names the same card twice")
        return Discard(mask_of(parsed))


ACTION_MODELS: tuple[type[_Strict], ...] = (
    PassAction,
    DoubleAction,
    RedoubleAction,
    BidAction,
    PlayAction,
    DeclareAction,
    ExchangeAction,
    DiscardAction,
)
ACTION_TYPES = tuple(m.model_fields["type"].annotation.__args__[0] for m in ACTION_MODELS)  # type: ignore[union-attr]

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


@cache
def _adapter() -> TypeAdapter[Any]:
    return TypeAdapter(EngineAction)


def parse_action(data: Any) -> Action:
    """An action in its wire form (an entry of a seat view's ``legal``, as a computer player
    answers) made the engine's action through the grammar a human's ``action`` message is
    parsed with. Raises ``ValueError`` (pydantic's ``ValidationError``, or ``InvalidAction``)
    when it is not one. The engine's record reader (``action_from_json``) stays for records."""
    model: Any = _adapter().validate_python(data)
    action: Action = model.to_engine()
    return action
