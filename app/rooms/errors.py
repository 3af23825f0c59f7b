"""The two ways a room refuses a command."""

from __future__ import annotations

from typing import Any


class CommandError(Exception):
    """A refused command: becomes an ``error`` message; the connection stays open."""

    def __init__(self, code: str, message: str, reason: dict[str, Any] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason  # illegal_action: the rule, as data (the engine's reason)


class RoomClosed(RuntimeError):
    """The room left memory (idle, or shutdown) while a caller was using it: get it again."""
