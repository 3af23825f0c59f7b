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

import logging
import time
import weakref
from collections import deque
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from app.persistence import repository as repo
from app.rooms import messages as out
from app.rooms.errors import CommandError
from app.rooms.model import Listener, Mode, owner

if TYPE_CHECKING:
    from app.rooms.room import Room

log = logging.getLogger("atout.rooms")

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
    def __init__(self, room: Room) -> None:
        self.room = owner(room)
        self.lines: deque[out.ChatLine] = deque(maxlen=HISTORY)
        # each connection's recent lines (monotonic times), for the rate limit
        self._sent: weakref.WeakKeyDictionary[Listener, deque[float]] = weakref.WeakKeyDictionary()

    def restore(self, rows: Iterable[repo.ChatRow]) -> None:
        self.lines.clear()
        self.lines.extend(line_of(r) for r in rows)

    def is_on(self) -> bool:
        return bool(self.room.settings["chat"])

    def history(self) -> list[out.ChatLine]:
        """What a ``state`` carries: the last lines, or nothing while chat is off."""
        return list(self.lines) if self.is_on() else []

    # ------------------------------------------------------------------ commands

    def _check_writer(self, listener: Listener) -> None:
        room = self.room
        if room.mode != Mode.FRIENDS:
            raise CommandError("not_allowed", "chat is for games with friends")
        if not self.is_on():
            raise CommandError("chat_off", "the host turned chat off")
        if not listener.seats and not room.settings["spectator_chat"]:
            raise CommandError("spectator", "spectators read the chat but may not write")

    def _take_rate(self, listener: Listener) -> None:
        settings = self.room.services.settings
        window, rate = settings.chat_window_seconds, settings.chat_rate
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

    async def say(self, listener: Listener, kind: str, text: str, msg_id: str | None) -> None:
        """A chat line from ``listener`` (kind and text already checked by the message model):
        stored, acknowledged, then broadcast to every listener of the room."""
        room = self.room
        self._check_writer(listener)
        self._take_rate(listener)
        seat = listener.seats[0] if listener.seats else None
        name = room.seats[seat].name if seat is not None else getattr(listener, "name", None)
        now = datetime.now(UTC)
        try:
            stored = await room.store(
                repo.insert_chat(room.game_id, seat, listener.identity_id, name, kind, text, now)
            )
        except Exception:
            log.exception("could not store a chat line", extra={"game": room.game_id})
            raise CommandError(
                "server_error", "the message could not be saved; try again"
            ) from None
        last = self.lines[-1]["id"] if self.lines else 0
        line: out.ChatLine = {
            "id": int(stored) if isinstance(stored, int) else last + 1,
            "seat": seat,
            "name": name,
            "kind": kind,
            "text": text,
            "at": epoch_ms(now),
        }
        self.lines.append(line)
        if msg_id is not None:
            room.send(listener, out.ack(msg_id, room.version))
        room.publisher.broadcast(out.chat(line))

    async def configure(
        self, listener: Listener, chat: bool, spectator_chat: bool, msg_id: str | None
    ) -> None:
        """The host turns chat on or off, and lets spectators write or not."""
        room = self.room
        if room.mode != Mode.FRIENDS:
            raise CommandError("not_allowed", "chat is for games with friends")
        if listener.identity_id != room.host_id:
            raise CommandError("not_host", "only the host may change the chat's settings")
        was_on = self.is_on()
        stored = {**room.settings, "chat": chat, "spectator_chat": spectator_chat}
        await room.store(repo.save_seats(room.game_id, [], settings=stored))
        room.settings = stored
        if msg_id is not None:
            room.send(listener, out.ack(msg_id, room.version))
        if chat and not was_on:
            # chat is back: every listener gets the state, which carries the history again
            for other in list(room.listeners):
                room.publisher.send_state(other)
        else:
            room.broadcast_room()
