"""The lobby over the wire: ``/ws/lobby``, ``GET /api/lobby``, quick play and "Sit here".

* ``GET /ws/lobby``: the home page's connection. It gets ``lobby`` (the whole list and the
  counts) once, then only the changes: ``lobby_table``, ``lobby_remove``, ``lobby_counts``
  (app/rooms/lobby.py). The client may send ``ping`` (answered ``pong``); anything else is
  answered with a structured ``error`` and the connection stays open.
* ``POST /api/quickplay`` ``{"variant", "players"?, "create"?}``: the best public tables with
  a free seat for this browser (``candidates``, best first: the client asks each for a seat in
  turn); with ``create`` (or when there is none), a new public table of that variant, whose
  first seat is the browser's.
* ``POST /api/games/{id}/sit`` ``{"seat"?}``: "Sit here" at a public table; goes, like every
  request naming a game, to the process that serves it. ``seat_taken`` (409) when somebody was
  first: exactly one of two browsers asking for the last seat gets it (the room's lock).
* ``POST /api/games/{id}/public`` ``{"public", "rated"?}``: the host lists a waiting table or
  takes it off.

Creating public tables is limited per browser (``settings.public_tables_per_hour``, counted in
the database, so the same on every process).
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request, WebSocket
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, TypeAdapter
from pydantic import ValidationError as PydanticValidationError
from starlette.websockets import WebSocketDisconnect

from app.persistence import public as store
from app.persistence.models import utcnow
from app.players.levels import level_for
from app.players.ratings import family_of
from app.rooms import CommandError, GameSpec, RoomManager
from app.rooms.lobby import Lobby
from app.rooms.messages import error, pong
from app.web import moderation
from app.web.deps import IdentitiesDep, RoomsDep, SettingsDep
from app.web.errors import ApiError, from_command
from app.web.identity import IdentityDep, ViewerDep, identity_from_cookie
from app.web.ws import CLOSE_POLICY, CLOSE_TRY_LATER, TokenBucket, origin_allowed
from app.web.wsprotocol import FrameWriter, text_frame

router = APIRouter()
MAX_LOBBY_FRAME = 1024
Variant = Literal["classic", "coinche", "bulgarian", "bela", "duel"]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class QuickPlayBody(_Body):
    variant: Variant
    players: Annotated[StrictInt, Field(ge=2, le=4)] | None = None
    create: StrictBool = False


class SitBody(_Body):
    seat: Annotated[StrictInt, Field(ge=0, le=3)] | None = None


class PublicBody(_Body):
    public: StrictBool
    rated: StrictBool | None = None


class LobbyPing(_Body):
    type: Literal["ping"]


_PING = TypeAdapter(LobbyPing)


def lobby_of(app: Any) -> Lobby:
    lobby: Lobby = app.state.lobby
    return lobby


def make_lobby(app: Any, rooms: RoomManager) -> Lobby:
    """The process's lobby, wired to the rooms (app/web/runtime.py starts it)."""
    lobby = Lobby(app.state.sessionmaker, rooms.services.url, level_for)
    lobby.encode = text_frame

    def online() -> set[int]:
        ids = {w.identity_id for w in lobby.watchers}
        for room in list(rooms.rooms.values()):
            ids.update(listener.identity_id for listener in room.listeners)
        return ids

    lobby.local_online = online
    rooms.services.lobby = lobby
    return lobby


async def check_public_limit(settings: Any, session_maker: Any, identity_id: int) -> None:
    since = utcnow() - timedelta(hours=1)
    async with session_maker() as session:
        made = await store.public_created_since(session, identity_id, since)
    if made >= settings.public_tables_per_hour:
        raise ApiError(
            429, "rate_limited", "you have created many public tables this hour; join one instead"
        )


# ---------------------------------------------------------------------------- HTTP


@router.get("/api/lobby")
async def lobby_list(rooms: RoomsDep, viewer: ViewerDep) -> dict[str, Any]:
    """The same ``lobby`` message the socket starts with."""
    lobby: Lobby | None = rooms.services.lobby
    if lobby is None:
        raise ApiError(503, "busy", "the lobby is starting")
    return lobby.snapshot()


@router.post("/api/quickplay")
async def quick_play(
    body: QuickPlayBody,
    identity: IdentityDep,
    rooms: RoomsDep,
    settings: SettingsDep,
    request: Request,
) -> dict[str, Any]:
    lobby: Lobby | None = rooms.services.lobby
    if lobby is None:
        raise ApiError(503, "busy", "the lobby is starting")
    if body.create:
        return await _create_public(body, identity, rooms, settings, lobby)
    # One quick play of a variant at a time (this process, and every process on PostgreSQL):
    # two browsers asking at once with no table open meet at the table the first one makes.
    lock = _QUICK_LOCKS.setdefault(body.variant, asyncio.Lock())
    async with lock, store.quick_play_lock(rooms.sessionmaker, body.variant):
        async with rooms.sessionmaker() as session:
            recent = await store.recent_waiting(session, body.variant, RECENT_SECONDS)
        unseen = [game_id for game_id in recent if game_id not in lobby.tables]
        if unseen:  # made on another process a moment ago: its notice may not be here yet
            await lobby.refresh(unseen)
        waiting = [  # asked again: the table this browser already waits at
            t
            for game_id, t in lobby.tables.items()
            if t["variant"] == body.variant
            and t["status"] == "waiting"
            and identity.id in lobby.members.get(game_id, ())
        ]
        if waiting:
            t = waiting[0]
            return {"candidates": [{"game_id": t["game_id"], "url": t["url"], "status": "waiting"}]}
        family = family_of(body.variant)
        members = {i for ids in lobby.members.values() for i in ids} | {identity.id}
        async with rooms.sessionmaker() as session:
            mu = await store.mu_of(session, members, family)
        found = lobby.candidates(
            body.variant,
            body.players,
            identity.id,
            mu,
            mu.get(identity.id, 25.0),
            await _blocked_filter(request.app, identity.id, members),
        )
        if found:
            return {
                "candidates": [
                    {"game_id": t["game_id"], "url": t["url"], "status": t["status"]}
                    for t in found[:5]
                ]
            }
        return await _create_public(body, identity, rooms, settings, lobby)


# quick play's lock per variant (app/persistence/public.py quick_play_lock across processes)
_QUICK_LOCKS: dict[str, asyncio.Lock] = {}
RECENT_SECONDS = 120.0


async def _blocked_filter(app: Any, identity_id: int, members: set[int]) -> Any:
    """The tables quick play skips: those with a player this browser blocked or who blocked
    it (app/web/moderation.py); None when there is none."""
    others = sorted(members - {identity_id})
    if not others:
        return None
    pairs = await moderation.blocked_pairs(app, [identity_id, *others])
    avoid = {b if a == identity_id else a for a, b in pairs if identity_id in (a, b)}
    if not avoid:
        return None
    return lambda seated: bool(avoid.intersection(seated))


async def _create_public(
    body: QuickPlayBody, identity: Any, rooms: RoomManager, settings: Any, lobby: Lobby
) -> dict[str, Any]:
    """A new public table of the variant, the browser in its first seat; listed in this
    process's lobby before the answer (the next quick play finds it)."""
    await check_public_limit(settings, rooms.sessionmaker, identity.id)
    spec = GameSpec(
        variant=body.variant,
        players=body.players,
        options={},
        mode="friends",
        public=True,
        spectators=True,
    )
    try:
        room = await rooms.create_game(identity.id, identity.name, spec)
    except CommandError as exc:
        raise from_command(exc) from None
    await lobby.refresh([room.game_id])
    return {"candidates": [], "created": {"game_id": room.game_id, "url": room.url}}


@router.post("/api/games/{game_id}/sit")
async def sit(
    game_id: str,
    identity: IdentityDep,
    rooms: RoomsDep,
    body: SitBody | None = None,
) -> dict[str, Any]:
    seat = body.seat if body is not None else None
    if rooms.services.levels is not None:
        await rooms.services.levels.ensure([identity.id])
    try:
        result: dict[str, Any] = await rooms.with_room(
            game_id, lambda room: room.sit(identity.id, seat, identity.name)
        )
    except CommandError as exc:
        if exc.code == "seat_taken":
            raise ApiError(409, exc.code, exc.message) from None
        raise from_command(exc) from None
    return {**result, "url": rooms.services.url(game_id)}


@router.post("/api/games/{game_id}/public")
async def set_public(
    game_id: str,
    body: PublicBody,
    identity: IdentityDep,
    identities: IdentitiesDep,
    rooms: RoomsDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    if body.public:
        await check_public_limit(settings, rooms.sessionmaker, identity.id)
    try:
        await rooms.with_room(
            game_id, lambda room: room.set_public(identity.id, body.public, body.rated)
        )
    except CommandError as exc:
        raise from_command(exc) from None
    return {"public": body.public}


# ---------------------------------------------------------------------------- the socket


class LobbyConnection:
    """A lobby watcher. The lobby's messages, the same for every watcher, are written as
    frames serialized once (``frames``, app/web/wsprotocol.py), straight to the socket; the
    answers to this socket alone (``pong``, ``error``) and the close go through a bounded queue
    and a writer task, as the tables' connections. A watcher whose socket asks to pause (it
    reads too slowly) is closed with 1013: the page reconnects and gets the whole list again."""

    def __init__(self, websocket: WebSocket, identity_id: int) -> None:
        from app.web.ws import Connection

        self.identity_id = identity_id
        self.conn = Connection(websocket, identity_id, ())
        self.frames = FrameWriter.of(websocket.scope)

    def deliver(self, texts: list[str], frames: bytes | None) -> None:
        if self.conn.closing:
            return
        if frames is None or self.frames is None:
            for text in texts:
                self.conn.send(text)
            return
        written = self.frames.write(frames)
        if written is False:
            self.conn.close(CLOSE_TRY_LATER, "too far behind: reconnect")


@router.websocket("/ws/lobby")
async def lobby_socket(websocket: WebSocket) -> None:
    settings = websocket.app.state.settings
    await websocket.accept()
    if not origin_allowed(websocket, settings):
        await websocket.close(CLOSE_POLICY, "origin not allowed")
        return
    rooms: RoomManager = websocket.app.state.rooms
    lobby: Lobby | None = rooms.services.lobby
    if lobby is None:
        await websocket.close(1013, "the lobby is starting")
        return
    identity = await identity_from_cookie(websocket)
    watcher = LobbyConnection(websocket, identity.id if identity is not None else 0)
    writer = asyncio.create_task(watcher.conn.run_writer(), name="ws-lobby-writer")
    lobby.attach(watcher)
    limiter = TokenBucket(settings.ws_rate, settings.ws_burst)
    try:
        while not watcher.conn.closing:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None or len(text) > MAX_LOBBY_FRAME:
                watcher.conn.send_json(error("bad_message", "send small text frames of JSON"))
                continue
            if not limiter.take():
                watcher.conn.send_json(error("rate_limited", "too many messages; slow down"))
                watcher.conn.close(CLOSE_POLICY, "rate limited")
                return
            try:
                _PING.validate_json(text)
            except PydanticValidationError:
                watcher.conn.send_json(
                    error("bad_message", 'the lobby understands {"type": "ping"} only')
                )
                continue
            watcher.conn.send_json(pong())
    except WebSocketDisconnect:
        return
    finally:
        lobby.detach(watcher)
        if not watcher.conn.closing:
            watcher.conn.close(1000, "bye")
        try:
            await asyncio.wait_for(writer, 5)
        except (TimeoutError, asyncio.CancelledError):
            writer.cancel()
