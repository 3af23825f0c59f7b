"""Structured logs: one JSON object per line on stdout.

Each line has ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``, then any extra
fields passed with ``logger.info("...", extra={"event": "x"})``, and ``exception`` when there is
one (the traceback text stays inside the JSON string, so it is still one line). Every line that
concerns a game carries ``game_id`` and ``seat`` (``extra=game_fields(game_id, seat, ...)``).
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

# Attributes every LogRecord has; anything else on a record came from ``extra=``.
_STANDARD_ATTRS = frozenset(
    logging.LogRecord("", 0, "", 0, "", (), None).__dict__.keys()
    | {"message", "asctime", "color_message", "taskName"}
)

# uvicorn configures these itself; we make them flow through the root handler instead.
_UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")


class JsonFormatter(logging.Formatter):
    """Formats a record as a single line of JSON."""

    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD_ATTRS and not key.startswith("_") and key not in payload:
                payload[key] = value
        if record.exc_info:
            payload["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            payload["stack"] = self.formatStack(record.stack_info)
        return json.dumps(payload, default=str, ensure_ascii=False)


class _StdoutHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stdout`` is at emit time (test runners swap it).

    Also a marker: configuring twice replaces this handler instead of adding a second one.
    """

    def __init__(self) -> None:
        super().__init__(sys.stdout)

    @property
    def stream(self) -> Any:
        return sys.stdout

    @stream.setter
    def stream(self, value: Any) -> None:  # StreamHandler.__init__ assigns it; ignore
        pass


def configure_logging(level: str = "INFO") -> None:
    """Send every log record (ours and uvicorn's) to stdout as JSON lines. Idempotent."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if isinstance(handler, _StdoutHandler):
            root.removeHandler(handler)
    handler = _StdoutHandler()
    handler.setFormatter(JsonFormatter())
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in _UVICORN_LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
        logger.setLevel(logging.NOTSET)


def game_fields(game_id: str, seat: int | None = None, **fields: Any) -> dict[str, Any]:
    """``extra=`` of a line that concerns a game: always ``game_id`` and ``seat`` (None when
    the line concerns the whole table), then ``fields``."""
    return {"game_id": game_id, "seat": seat, **fields}
