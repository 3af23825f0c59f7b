"""What the host's decisions do to the live server: sanctions, closed games, removed
spectators, renames; and the checks the rest of the server calls.

* ``Sanctions`` (``app.state.sanctions``): identity -> its sanctions (``mute``, ``public``,
  ``ban``), read from the database and cached for ``TTL`` seconds. A change made here drops
  the entry at once and tells the other processes (notify.py ``sanctions``), which drop theirs
  and close a banned identity's sockets: bans apply across processes.
* ``is_banned_from_public(app, identity_id)``: for public tables, quick play and tournaments;
  ``may_sit_together(app, identity_id, others)`` / ``blocked_pairs``: the players' blocks,
  which quick play respects.
* ``BanMiddleware``: a banned browser gets 403 on every page and API call (the page says so in
  its language) and its sockets are refused; a player banned while at a table is sent the
  ``banned`` error (the table shows it) and disconnected.
* A muted identity's chat lines are refused with the ``muted`` error (app/web/ws.py).
* ``close_game``: the players are sent ``room_closed`` and disconnected, the room leaves memory
  (every move is already saved), and ``closed_games`` keeps any room from serving it again.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import unicodedata
from typing import Any

from fastapi import FastAPI
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from app.persistence import admin as store
from app.persistence import repository as repo
from app.persistence.players import read
from app.rooms.messages import error
from app.web.i18n import translate

log = logging.getLogger("atout.moderation")

TTL = 10.0  # seconds a process trusts its cached sanctions without a notice
CLOSE_BANNED = 4003
CLOSE_REMOVED = 4004
CLOSE_CLOSED = 4005
CLOSE_CODES = {"banned": CLOSE_BANNED, "removed": CLOSE_REMOVED, "room_closed": CLOSE_CLOSED}
SKIP_PREFIXES = ("/static/", "/healthz", "/admin", "/metrics", "/favicon")


class Sanctions:
    def __init__(self, sessionmaker: Any) -> None:
        self.sessionmaker = sessionmaker
        self._cache: dict[int, tuple[frozenset[str], float]] = {}

    async def of(self, identity_id: int) -> frozenset[str]:
        if identity_id <= 0:
            return frozenset()
        cached = self._cache.get(identity_id)
        if cached is not None and time.monotonic() - cached[1] < TTL:
            return cached[0]
        found = await read(self.sessionmaker, lambda s: store.sanctions_of(s, [identity_id]))
        kinds = found.get(identity_id, frozenset())
        self._cache[identity_id] = (kinds, time.monotonic())
        if len(self._cache) > 50_000:
            self._cache.clear()
        return kinds

    async def has(self, identity_id: int, kind: str) -> bool:
        return kind in await self.of(identity_id)

    def drop(self, ids: list[int]) -> None:
        for identity_id in ids:
            self._cache.pop(identity_id, None)

    def clear(self) -> None:
        self._cache.clear()


def sanctions_of(app: Any) -> Sanctions:
    found: Sanctions | None = getattr(app.state, "sanctions", None)
    if found is None:
        found = Sanctions(app.state.sessionmaker)
        app.state.sanctions = found
    return found


async def is_banned_from_public(app: Any, identity_id: int) -> bool:
    """For public tables, quick play and tournaments: banned from them, or from everything."""
    kinds = await sanctions_of(app).of(identity_id)
    return "public" in kinds or "ban" in kinds


async def blocked_pairs(app: Any, identity_ids: list[int]) -> set[tuple[int, int]]:
    """The (blocker, blocked) pairs among ``identity_ids``: quick play seats no such pair at
    one public table."""
    return await read(app.state.sessionmaker, lambda s: store.blocked_pairs(s, identity_ids))


async def may_sit_together(app: Any, identity_id: int, others: list[int]) -> bool:
    """False when ``identity_id`` blocked one of ``others`` or one of them blocked it."""
    return not await blocked_pairs(app, [identity_id, *others])


async def is_muted(app: Any, identity_id: int) -> bool:
    return await sanctions_of(app).has(identity_id, "mute")


async def is_banned(app: Any, identity_id: int) -> bool:
    return await sanctions_of(app).has(identity_id, "ban")


def _listeners_of(app: Any, identity_id: int) -> list[tuple[Any, Any]]:
    rooms = getattr(app.state, "rooms", None)
    if rooms is None:
        return []
    return [
        (room, listener)
        for room in list(rooms.rooms.values())
        for listener in list(room.listeners)
        if listener.identity_id == identity_id
    ]


def _language_of_listener(listener: Any) -> str:
    return str(getattr(listener, "language", None) or "en")


def disconnect_banned(app: Any, identity_id: int) -> int:
    """Tell a banned identity's open sockets, then close them; returns how many."""
    found = _listeners_of(app, identity_id)
    for _room, listener in found:
        message = translate(_language_of_listener(listener), "error.banned")
        send_json = getattr(listener, "send_json", None)
        if send_json is not None:
            send_json(error("banned", message))
        listener.close(CLOSE_BANNED, "banned")
    lobby = getattr(app.state, "lobby", None)
    for watcher in list(getattr(lobby, "watchers", ()) or ()):
        if getattr(watcher, "identity_id", None) == identity_id:
            conn = getattr(watcher, "conn", None)
            if conn is not None:
                conn.close(CLOSE_BANNED, "banned")
    return len(found)


async def sanction(app: Any, identity_id: int, kind: str, on: bool) -> None:
    await app.state.writer.submit(store.set_sanction(identity_id, kind, on))
    await sanctions_changed(app, [identity_id])
    notifier = getattr(app.state, "notifier", None)
    if notifier is not None:
        await notifier.publish("sanctions", [identity_id])


async def sanctions_changed(app: Any, ids: list[int]) -> None:
    """A notice (or this process) changed these identities' sanctions."""
    sanctions = sanctions_of(app)
    sanctions.drop(ids)
    for identity_id in ids:
        if await sanctions.has(identity_id, "ban"):
            disconnect_banned(app, identity_id)


def neutral_name(identity_id: int) -> str:
    return f"Player {identity_id}"


async def rename(app: Any, identity_id: int, name: str) -> bool:
    found = await read(app.state.sessionmaker, lambda s: store.player(s, identity_id))
    if found is None:
        return False
    await app.state.writer.submit(repo.set_identity_name(identity_id, name))
    app.state.identities.renamed(identity_id, name)
    await app.state.rooms.rename(identity_id, name)
    notifier = getattr(app.state, "notifier", None)
    if notifier is not None:
        await notifier.publish("renamed", [identity_id])
    return True


async def close_game(app: Any, game_id: str) -> bool:
    """Close a game for good: False when there is no such game. The process that holds its
    room (this one, or another told by a ``closed`` notice) tells its players and lets it go."""

    def exists(session: Any) -> bool:
        from app.persistence.models import Game

        return session.get(Game, game_id) is not None

    if not await read(app.state.sessionmaker, exists):
        return False
    await app.state.writer.submit(store.close_game(game_id))
    await close_here(app, game_id)
    notifier = getattr(app.state, "notifier", None)
    if notifier is not None:  # the process holding it, and the others' caches
        await notifier.publish("closed", [game_id])
    return True


async def close_here(app: Any, game_id: str) -> bool:
    """Remember the game as closed; if this process holds its room, tell its players
    (``room_closed``) and evict it. True when the room was here."""
    closed = getattr(app.state, "closed_games", None)
    if closed is None:
        closed = app.state.closed_games = set()
    closed.add(game_id)
    rooms = app.state.rooms
    room = rooms.rooms.get(game_id)
    if room is None:
        return False
    for listener in list(room.listeners):
        send_json = getattr(listener, "send_json", None)
        if send_json is not None:
            text = translate(_language_of_listener(listener), "error.room_closed")
            send_json(error("room_closed", text))
    await asyncio.sleep(0)  # let the writers take the message first
    await rooms.evict(room)
    return True


async def is_closed(app: Any, game_id: str) -> bool:
    """Whether the host closed ``game_id``: known here, or read (a game found open is not
    read again for ``TTL`` seconds; another process's closing comes as a notice)."""
    closed = getattr(app.state, "closed_games", None)
    if closed is not None and game_id in closed:
        return True
    seen: dict[str, float] | None = getattr(app.state, "open_games", None)
    if seen is None:
        seen = app.state.open_games = {}
    checked = seen.get(game_id)
    if checked is not None and time.monotonic() - checked < TTL:
        return False
    found = await read(app.state.sessionmaker, lambda s: store.is_closed(s, game_id))
    if found:
        if closed is None:
            closed = app.state.closed_games = set()
        closed.add(game_id)
    else:
        if len(seen) > 50_000:
            seen.clear()
        seen[game_id] = time.monotonic()
    return found


def remove_spectator(app: Any, game_id: str, identity_id: int) -> bool:
    """Close a spectator's sockets to a room; it may not watch that room again."""
    removed = getattr(app.state, "removed_spectators", None)
    if removed is None:
        removed = app.state.removed_spectators = set()
    removed.add((game_id, identity_id))
    room = app.state.rooms.rooms.get(game_id)
    count = 0
    if room is not None:
        for listener in list(room.listeners):
            if listener.identity_id == identity_id and not listener.seats:
                send_json = getattr(listener, "send_json", None)
                if send_json is not None:
                    text = translate(_language_of_listener(listener), "error.removed")
                    send_json(error("removed", text))
                listener.close(CLOSE_REMOVED, "removed by the host")
                count += 1
    return count > 0


def is_removed(app: Any, game_id: str, identity_id: int) -> bool:
    removed: set[tuple[str, int]] | None = getattr(app.state, "removed_spectators", None)
    return removed is not None and (game_id, identity_id) in removed


async def refusal(app: Any, game_id: str, identity_id: int, seats: tuple[int, ...]) -> str | None:
    """Why a socket to ``game_id`` is refused, as an error code, or None."""
    if await is_banned(app, identity_id):
        return "banned"
    if await is_closed(app, game_id):
        return "room_closed"
    if not seats and is_removed(app, game_id, identity_id):
        return "removed"
    return None


# --------------------------------------------------------------------------- word filter


def _fold(char: str) -> str:
    """One character, lower case and without its accents (always one character)."""
    base = [c for c in unicodedata.normalize("NFD", char.lower()) if not unicodedata.combining(c)]
    return base[0] if len(base) == 1 else char.lower()


def fold(text: str) -> str:
    return "".join(_fold(c) for c in text)


def word_pattern(words: str) -> re.Pattern[str] | None:
    """The whole words of a comma-separated list, folded, as one pattern (None: no filter)."""
    listed = sorted({fold(w.strip()) for w in words.split(",") if w.strip()}, key=len, reverse=True)
    if not listed:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in listed) + r")(?!\w)")


def mask_words(pattern: re.Pattern[str] | None, text: str) -> str:
    """``text`` with every listed word replaced by as many asterisks."""
    if pattern is None or not text:
        return text
    folded = fold(text)
    out = list(text)
    for match in pattern.finditer(folded):
        for i in range(match.start(), match.end()):
            if not out[i].isspace():
                out[i] = "*"
    return "".join(out)


def mask(app: Any, text: str) -> str:
    """A chat text as the server's word filter (``ATOUT_WORD_FILTER``) lets it through."""
    words = app.state.settings.word_filter
    if not words:
        return text
    cached = getattr(app.state, "word_pattern", None)
    if cached is None or cached[0] != words:
        cached = (words, word_pattern(words))
        app.state.word_pattern = cached
    return mask_words(cached[1], text)


# --------------------------------------------------------------------------- the ban


class BanMiddleware:
    """403 for a banned browser on every page, API call and socket (but /static, /admin...)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope["path"].startswith(SKIP_PREFIXES):
            await self.app(scope, receive, send)
            return
        connection = HTTPConnection(scope)
        token = connection.cookies.get("atout_id")
        app = scope.get("app")
        if not token or app is None or getattr(app.state, "identities", None) is None:
            await self.app(scope, receive, send)
            return
        identity = await app.state.identities.find(token)
        kinds = await sanctions_of(app).of(identity.id) if identity is not None else frozenset()
        code = "banned" if "ban" in kinds else None
        if code is None and "public" in kinds and await _public_path(app, scope):
            code = "banned_public"
        if code is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": CLOSE_BANNED, "reason": code})
            return
        from app.web.pages import language_of, render

        request = _request(scope, receive)
        language = language_of(request)
        if scope["path"].startswith("/api/"):
            body = {"error": {"code": code, "message": translate(language, f"error.{code}")}}
            response: Any = JSONResponse(body, status_code=403)
        else:
            response = render(request, "banned.html", {"reason": f"error.{code}"}, status=403)
        # outside the security headers' middleware: the same headers, added here
        from app.web.security import SecurityHeadersMiddleware

        await SecurityHeadersMiddleware(response, app.state.settings)(scope, receive, send)


# What a browser banned from public tables and tournaments may not do: quick play, sit at or
# list a table, enter or play a tournament; and open a public or tournament game.
PUBLIC_ACTIONS = re.compile(
    r"^/api/(quickplay|games/[^/]+/(sit|public)|tournaments/[^/]+/(enter|boards/[^/]+/play))$"
)
GAME_PATHS = re.compile(r"^/(?:g|ws|api/games)/([A-Za-z0-9_-]{1,32})(?:/join)?$")


async def _public_path(app: Any, scope: Scope) -> bool:
    path = scope["path"]
    if scope.get("method") == "POST" and PUBLIC_ACTIONS.match(path):
        return True
    match = GAME_PATHS.match(path)
    if match is None:
        return False
    game_id = match.group(1)

    def public(session: Any) -> bool:
        from sqlalchemy import select

        from app.persistence import models

        game = session.get(models.Game, game_id)
        if game is None:
            return False
        if getattr(game, "public", False):
            return True
        tables = getattr(models, "TournamentTable", None)
        if tables is None:
            return False
        return session.scalar(select(tables.game_id).where(tables.game_id == game_id)) is not None

    return bool(await read(app.state.sessionmaker, public))


def _request(scope: Scope, receive: Receive) -> Any:
    from starlette.requests import Request

    return Request(scope, receive)


def install(app: FastAPI) -> None:
    from app.web import mydata, reports

    reports.install(app)  # POST /api/games/{id}/reports and /blocks
    mydata.install(app)  # GET /api/me/export, POST /api/me/delete
    app.add_middleware(BanMiddleware)
