"""The two ways an action can be refused."""

from __future__ import annotations

from typing import Any


class InvalidAction(ValueError):
    """The action is malformed: unknown type, missing field, not a card, wrong seat format."""


class IllegalAction(ValueError):
    """The action is well formed but breaks a rule; the message names the rule.

    Example: ``"must overtrump: holds JH"``.  ``reason`` is the same as data for the refusals
    of the card play (``{"code": "must_overtrump", "suit": "H", "over": "9H", "card": "7H",
    "legal": ["JH"]}``; the codes are listed in docs/engine.md, "Why a card is refused"), and
    None for the others, whose message alone names the rule.
    """

    def __init__(self, message: str, reason: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.reason = reason
