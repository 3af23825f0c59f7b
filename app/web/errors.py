"""The error answer of the JSON API: ``{"error": {"code", "message", ...}}`` with a 4xx or 5xx
status (docs/protocol.md). A route raises ``ApiError``; ``app.web.api.install`` turns it into
the answer. ``from_command`` maps a room's ``CommandError`` to its HTTP status."""

from __future__ import annotations

from typing import Any

from app.rooms import CommandError

STATUS_OF = {
    "not_found": 404,
    "not_allowed": 403,
    "not_host": 403,
    "table_full": 403,
    "busy": 503,
}


class ApiError(Exception):
    """An error answer; ``data`` (optional) is more of it as data, beside code and message."""

    def __init__(self, status: int, code: str, message: str, data: dict[str, Any] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.data = status, code, message, data


def from_command(exc: CommandError) -> ApiError:
    """A room's refusal as an API error (422 unless ``STATUS_OF`` names its code)."""
    return ApiError(STATUS_OF.get(exc.code, 422), exc.code, exc.message)
