"""The two ways a room refuses a command."""

from __future__ import annotations


class CommandError(Exception):
    """A refused command: becomes an ``error`` message; the connection stays open."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class RoomClosed(RuntimeError):
    """The room left memory (idle, or shutdown) while a caller was using it: get it again."""
