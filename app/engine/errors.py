"""The two ways an action can be refused."""

from __future__ import annotations


class InvalidAction(ValueError):
    """The action is malformed: unknown type, missing field, not a card, wrong seat format."""


class IllegalAction(ValueError):
    """The action is well formed but breaks a rule; the message names the rule.

    Example: ``"must overtrump: holds JH"``.
    """
