"""Table chat of a friends game: who may write, the rate limit, the stored history.

Chat lives beside the game, never in it: a line is stored in ``chat_messages`` (not in the
record, so exports and replays never hold one), carries no version, and is only the players'
text (a short text, a quick phrase's key or an emote's key) with the seat and name of who wrote
it: no card, no view, nothing the engine's views would hide (RULES.md §13).

* Players write while the host leaves chat on (``settings.chat``); spectators read, and write
  only when the host allows it (``settings.spectator_chat``).
* Each connection may send ``chat_rate`` lines per ``chat_window_seconds`` (sliding window);
  one more is refused with ``rate_limited`` and the connection stays usable.
* The last ``HISTORY`` lines are kept in memory (loaded with the room) and sent in every
  ``state`` message.
"""

from __future__ import annotations

import time
import weakref
from collections import deque
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from app.persistence import repository as repo
from app.rooms import messages as out
from app.rooms.errors import CommandError
from app.rooms.model import Listener, Mode

HISTORY = 100  # lines kept and sent with the state
MAX_TEXT = 200  # characters of a text line, after stripping
KINDS = ("text", "phrase", "emote")
# the quick phrases and emotes: keys only on the wire, each client shows them in its language
PHRASES = ("well_played", "bravo", "oops", "thanks", "hurry_up")
EMOTES = ("smile", "laugh", "wow", "sad", "heart", "thumbs_up")


def clean_text(text: str) -> str:
    """A text line as stored: control characters (line breaks included) become spaces, and
    the ends are stripped."""
    return "".join(" " if ord(c) < 32 or 127 <= ord(c) < 160 else c for c in text).strip()


def epoch_ms(value: datetime) -> int:
    if value.tzinfo is None:  # SQLite gives naive UTC datetimes back
        value = value.replace(tzinfo=UTC)
    return int(value.timestamp() * 1000)


def line_of(row: repo.ChatRow) -> out.ChatLine:
    return {
        "id": row.id,
        "seat": row.seat,
        "name": row.name,
        "kind": row.kind,
        "text": row.text,
        "at": epoch_ms(row.created_at),
    }


class Chat:
    """A room's chat lines and each connection's rate. It decides (who may write, a line as
    it is kept) and holds no reference to its room: the room passes what it reads, and
    stores, acknowledges and broadcasts (room.py ``say``, ``set_chat``)."""

    def __init__(self) -> None:
        self.lines: deque[out.ChatLine] = deque(maxlen=HISTORY)
        # each connection's recent lines (monotonic times), for the rate limit
        self._sent: weakref.WeakKeyDictionary[Listener, deque[float]] = weakref.WeakKeyDictionary()

    def restore(self, rows: Iterable[repo.ChatRow]) -> None:
        self.lines.clear()
        self.lines.extend(line_of(r) for r in rows)

    def history(self, on: bool) -> list[out.ChatLine]:
        """What a ``state`` carries: the last lines, or nothing while chat is off (``on``:
        the table's ``settings.chat``)."""
        return list(self.lines) if on else []

    # ------------------------------------------------------------------ decisions

    def check_writer(self, listener: Listener, mode: Mode, settings: dict[str, Any]) -> None:
        """Refuse a line ``listener`` may not write at a table of ``mode`` and ``settings``."""
        if mode != Mode.FRIENDS:
            raise CommandError("not_allowed", "chat is for games with friends")
        if not settings["chat"]:
            raise CommandError("chat_off", "the host turned chat off")
        if not listener.seats and not settings["spectator_chat"]:
            raise CommandError("spectator", "spectators read the chat but may not write")

    def take_rate(self, listener: Listener, window: float, rate: int) -> None:
        """Count a line of ``listener`` against its ``rate`` lines per ``window`` seconds (a
        sliding window), or refuse it with ``rate_limited``."""
        now = time.monotonic()
        sent = self._sent.get(listener)
        if sent is None:
            sent = self._sent[listener] = deque()
        while sent and now - sent[0] >= window:
            sent.popleft()
        if len(sent) >= rate:
            wait = max(1, round(window - (now - sent[0])))
            raise CommandError(
                "rate_limited", f"at most {rate} chat messages in {window:g} s: wait {wait} s"
            )
        sent.append(now)

    def add(
        self, stored: Any, seat: int | None, name: str | None, kind: str, text: str, at: datetime
    ) -> out.ChatLine:
        """Keep a line once stored (``stored``: what the insert returned, its id) and return it
        as the ``chat`` message carries it."""
        last = self.lines[-1]["id"] if self.lines else 0
        line: out.ChatLine = {
            "id": int(stored) if isinstance(stored, int) else last + 1,
            "seat": seat,
            "name": name,
            "kind": kind,
            "text": text,
            "at": epoch_ms(at),
        }
        self.lines.append(line)
        return line


def check_configure(listener: Listener, mode: Mode, host_id: int | None) -> None:
    """Refuse chat switches that ``listener`` may not change."""
    if mode != Mode.FRIENDS:
        raise CommandError("not_allowed", "chat is for games with friends")
    if listener.identity_id != host_id:
        raise CommandError("not_host", "only the host may change the chat's settings")
