"""The closed set of actions (RULES.md §12) and their JSON form.

Actions never carry the seat: the engine knows whose turn it is.  The record
and the wire protocol add ``seat`` around them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import cards_of, format_card, mask_of, parse_card
from .errors import InvalidAction

DENOMS = ("C", "D", "H", "S", "NT", "AT")
SUIT_DENOMS = ("C", "D", "H", "S")


@dataclass(frozen=True, slots=True)
class Pass:
    type = "pass"


@dataclass(frozen=True, slots=True)
class Bid:
    """A contract: suit ``C D H S``, ``NT``/``AT``; ``value`` only in coinche (250 = capot)."""

    contract: str
    value: int | None = None
    type = "bid"


@dataclass(frozen=True, slots=True)
class Double:
    type = "double"


@dataclass(frozen=True, slots=True)
class Redouble:
    type = "redouble"


@dataclass(frozen=True, slots=True)
class Declare:
    """Manual declarations: each combination as a card bitmask."""

    combos: tuple[int, ...]
    type = "declare"


@dataclass(frozen=True, slots=True)
class Exchange:
    card: int
    type = "exchange"


@dataclass(frozen=True, slots=True)
class Discard:
    cards: int  # bitmask of the two cards
    type = "discard"


@dataclass(frozen=True, slots=True)
class Play:
    card: int
    belote: bool = False
    type = "play"


Action = Pass | Bid | Double | Redouble | Declare | Exchange | Discard | Play

PASS = Pass()
DOUBLE = Double()
REDOUBLE = Redouble()
PLAYS = tuple(Play(c) for c in range(32))
PLAYS_BELOTE = tuple(Play(c, True) for c in range(32))
CAPOT = 250


def action_to_json(action: Action) -> dict[str, Any]:
    """The record form of an action, without ``seat``."""
    if isinstance(action, Play):
        out: dict[str, Any] = {"type": "play", "card": format_card(action.card)}
        if action.belote:
            out["belote"] = True
        return out
    if isinstance(action, Bid):
        out = {"type": "bid", "contract": action.contract}
        if action.value is not None:
            out["value"] = "capot" if action.value == CAPOT else action.value
        return out
    if isinstance(action, Declare):
        return {
            "type": "declare",
            "combos": [[format_card(c) for c in cards_of(m)] for m in action.combos],
        }
    if isinstance(action, Exchange):
        return {"type": "exchange", "card": format_card(action.card)}
    if isinstance(action, Discard):
        return {"type": "discard", "cards": [format_card(c) for c in cards_of(action.cards)]}
    return {"type": action.type}


def _card(value: Any, field: str) -> int:
    try:
        return parse_card(value)
    except ValueError:
        raise InvalidAction(f"{field}: not a card: {value!r}") from None


def _only(data: dict[str, Any], allowed: set[str]) -> None:
    extra = set(data) - allowed - {"type", "seat"}
    if extra:
        raise InvalidAction(f"unknown field(s) for {data.get('type')}: {', '.join(sorted(extra))}")


def action_from_json(data: Any) -> Action:
    """Parse the record/wire form of an action; ``seat`` is ignored here.

    Raises ``InvalidAction`` naming what is malformed.
    """
    if not isinstance(data, dict):
        raise InvalidAction("an action must be an object")
    kind = data.get("type")
    if kind == "pass":
        _only(data, set())
        return PASS
    if kind == "double":
        _only(data, set())
        return DOUBLE
    if kind == "redouble":
        _only(data, set())
        return REDOUBLE
    if kind == "play":
        _only(data, {"card", "belote"})
        belote = data.get("belote", False)
        if not isinstance(belote, bool):
            raise InvalidAction("belote must be true or false")
        card = _card(data.get("card"), "card")
        return PLAYS_BELOTE[card] if belote else PLAYS[card]
    if kind == "bid":
        _only(data, {"contract", "value"})
        contract = data.get("contract")
        if contract not in DENOMS:
            raise InvalidAction(f"contract must be one of {', '.join(DENOMS)}")
        value = data.get("value")
        if value is None:
            return Bid(contract)
        if value == "capot":
            return Bid(contract, CAPOT)
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidAction('value must be an integer or "capot"')
        if value < 80 or value > 160 or value % 10:
            raise InvalidAction('value must be 80, 90, ..., 160 or "capot"')
        return Bid(contract, value)
    if kind == "declare":
        _only(data, {"combos"})
        combos = data.get("combos")
        if not isinstance(combos, list) or len(combos) > 8:
            raise InvalidAction("combos must be a list of card lists")
        masks = []
        for combo in combos:
            if not isinstance(combo, list) or not combo or len(combo) > 8:
                raise InvalidAction("each combination must be a non-empty list of cards")
            cards = [_card(c, "combos") for c in combo]
            if len(set(cards)) != len(cards):
                raise InvalidAction("a combination names a card twice")
            masks.append(mask_of(cards))
        return Declare(tuple(masks))
    if kind == "exchange":
        _only(data, {"card"})
        return Exchange(_card(data.get("card"), "card"))
    if kind == "discard":
        _only(data, {"cards"})
        pair = data.get("cards")
        if not isinstance(pair, list) or len(pair) != 2:
            raise InvalidAction("discard needs exactly two cards")
        parsed = [_card(c, "cards") for c in pair]
        if parsed[0] == parsed[1]:
            raise InvalidAction("discard names the same card twice")
        return Discard(mask_of(parsed))
    raise InvalidAction(f"unknown action type: {kind!r}")
