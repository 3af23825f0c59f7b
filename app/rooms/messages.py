"""Builders for the server → client messages of docs/protocol.md (plain dicts).

The rooms layer produces these; the web layer only serialises and sends them.
"""

from __future__ import annotations

from typing import Any


def error(code: str, message: str, msg_id: str | None = None) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message, "id": msg_id}


def ack(msg_id: str, version: int) -> dict[str, Any]:
    return {"type": "ack", "id": msg_id, "version": version}


class CommandError(Exception):
    """A refused command: becomes an ``error`` message; the connection stays open."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class RoomClosed(RuntimeError):
    """The room left memory (idle, or shutdown) while a caller was using it: get it again."""
