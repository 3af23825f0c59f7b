"""``GET /ws/{game_id}``: the live table (docs/protocol.md).

One ``Connection`` per socket: it is the room's ``Listener``. Outgoing messages go through a
bounded queue and a writer task, so the room never waits for a client; incoming frames are read
one at a time, size-checked, rate-limited, parsed into the closed message set and handed to the
room (an action goes as its parsed model: the engine's action is made from it once). Every
message sent is built by app/rooms/messages.py. Errors are answered with
``{"type": "error", ...}`` and the connection stays open, except after ``frame_too_large``
(close 1009) and a flood of frames, ``rate_limited`` (close 1008). Chat has a limit of its own
(app/rooms/chat.py): a chat line over it gets ``rate_limited`` and the connection stays open.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket
from pydantic import BaseModel
from starlette.websockets import WebSocketDisconnect, WebSocketState

from app import metrics
from app.logging import game_fields
from app.rooms import CommandError, OwnedElsewhere, Room, RoomClosed, RoomManager
from app.rooms.messages import dumps, error, pong
from app.rooms.room import CLOSE_MOVED as ROOM_CLOSE_MOVED
from app.settings import Settings
from app.web import moderation
from app.web.i18n import negotiate, translate
from app.web.identity import identity_from_cookie
from app.web.messages import (
    MAX_FRAME_BYTES,
    ActionMessage,
    BackMessage,
    BadFrame,
    ChatMessage,
    ChatSettingsMessage,
    ClaimMessage,
    ConsentMessage,
    FreeSeatMessage,
    HintMessage,
    Incoming,
    LeaveMessage,
    PingMessage,
    ResumeMessage,
    SeatBotMessage,
    SetLevelMessage,
    SettingsMessage,
    StandInMessage,
    TakeSeatMessage,
    parse_incoming,
)

log = logging.getLogger("atout.ws")
router = APIRouter()

OUTGOING_QUEUE = 512  # messages; a client this far behind is disconnected (it can resume)

CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_RESTART = 1012
CLOSE_TRY_LATER = 1013
# docs/scaling.md: several processes share one database, each room is served by one of them
CLOSE_MOVED = ROOM_CLOSE_MOVED  # this process lost the room's lease: reconnect (it moved)
CLOSE_ELSEWHERE = 4002  # another process serves this room: reconnect after a pause

_CLOSE = object()


class TokenBucket:
    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.last = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Connection:
    """A WebSocket as the room sees it (``app.rooms.Listener``)."""

    def __init__(
        self,
        websocket: WebSocket,
        identity_id: int,
        seats: tuple[int, ...],
        name: str | None = None,
    ) -> None:
        self.websocket = websocket
        self.identity_id = identity_id
        self.name = name  # the browser's display name when it connected
        self.seats = seats
        self.language = "en"  # the browser's language, for what the server words itself
        self.auto_play = False  # forced cards played for this connection's seats (D-23)
        self.hidden = False  # the page is hidden (settings message; app/web/push.py)
        self.turn_pushed = False  # a "your turn" push went out since it was hidden
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._pending = 0
        self._close: tuple[int, str] | None = None

    def send(self, text: str) -> None:
        if self._close is not None:
            return
        if self._pending >= OUTGOING_QUEUE:
            self.close(CLOSE_TRY_LATER, "too far behind: reconnect and resume")
            return
        self._pending += 1
        self._queue.put_nowait(text)

    def send_json(self, message: Any) -> None:
        self.send(dumps(message))

    def close(self, code: int, reason: str) -> None:
        if self._close is None:
            self._close = (code, reason)
            self._queue.put_nowait(_CLOSE)

    @property
    def closing(self) -> bool:
        return self._close is not None

    async def run_writer(self) -> None:
        websocket = self.websocket
        try:
            while True:
                item = await self._queue.get()
                if item is _CLOSE:
                    assert self._close is not None
                    if websocket.application_state == WebSocketState.CONNECTED:
                        await websocket.close(*self._close)
                    return
                self._pending -= 1
                await websocket.send_text(item)
        except (WebSocketDisconnect, RuntimeError, OSError):
            return  # the client went away; the reader sees it too


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def origin_allowed(websocket: WebSocket, settings: Settings) -> bool:
    """Browsers always send Origin: it must be ours. Clients that send none are not browsers."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    origin = origin.strip().rstrip("/").lower()
    allowed = {o.lower() for o in settings.allowed_origins}
    allowed.add(_origin(settings.public_base_url))
    host = websocket.headers.get("host")
    if host:
        allowed.update({f"http://{host.lower()}", f"https://{host.lower()}"})
    return origin in allowed


async def ask_handover(app: Any, elsewhere: OwnedElsewhere) -> None:
    """The proxy sent a request or a socket of a game here while another live process owns
    it (the proxy's choice changed: a process came back or flapped). Ask that owner to let
    go (notify.py ``handover``): otherwise the players still connected there would keep the
    room, and the ones sent here would never get in. Used by the 4002 close and the 503."""
    notifier = getattr(app.state, "notifier", None)
    if notifier is not None and elsewhere.owner:
        await notifier.publish("handover", [elsewhere.game_id, elsewhere.epoch, elsewhere.owner])


async def _ask_handover(websocket: WebSocket, elsewhere: OwnedElsewhere) -> None:
    await ask_handover(websocket.app, elsewhere)


def language_of(websocket: WebSocket) -> str:
    return negotiate(websocket.cookies.get("atout_lang"), websocket.headers.get("accept-language"))


async def _refuse(websocket: WebSocket, code: str, message: str, close_code: int) -> None:
    await websocket.accept()
    await websocket.send_text(dumps(error(code, message)))
    await websocket.close(close_code, message[:120])


@router.websocket("/ws/{game_id}")
async def game_socket(websocket: WebSocket, game_id: str) -> None:
    settings: Settings = websocket.app.state.settings
    if not origin_allowed(websocket, settings):
        # Decided before accept(); the handshake completes only to carry the close code.
        await websocket.accept()
        await websocket.close(CLOSE_POLICY, "origin not allowed")
        return
    rooms: RoomManager = websocket.app.state.rooms
    identity = await identity_from_cookie(websocket)
    if identity is None:
        await _refuse(websocket, "no_identity", "open the game page first", CLOSE_POLICY)
        return
    refused = await moderation.refusal(websocket.app, game_id, identity.id, (0,))
    if refused is not None:
        text = translate(language_of(websocket), f"error.{refused}")
        await _refuse(websocket, refused, text, moderation.CLOSE_CODES[refused])
        return
    try:
        joined = await rooms.join(game_id, identity.id, identity.name)
    except OwnedElsewhere as elsewhere:
        # no error frame: the client's normal reconnection (with backoff) is the answer;
        # the owner is asked to hand the room over, so that all its players follow the proxy
        await _ask_handover(websocket, elsewhere)
        await websocket.accept()
        await websocket.close(CLOSE_ELSEWHERE, "served elsewhere: retry")
        return
    except CommandError as exc:
        await _refuse(websocket, exc.code, exc.message, CLOSE_TRY_LATER)
        return
    if joined is None:
        await _refuse(websocket, "not_found", "no such game", CLOSE_POLICY)
        return
    if joined.role == "full":
        await _refuse(websocket, "table_full", "the table is full", CLOSE_POLICY)
        return
    if not joined.seats and moderation.is_removed(websocket.app, game_id, identity.id):
        text = translate(language_of(websocket), "error.removed")
        await _refuse(websocket, "removed", text, moderation.CLOSE_REMOVED)
        return
    await websocket.accept()
    conn = Connection(websocket, identity.id, joined.seats, identity.name)
    conn.language = language_of(websocket)
    writer = asyncio.create_task(conn.run_writer(), name=f"ws-writer-{game_id}")
    room: Room | None = None
    try:
        for _ in range(3):
            try:
                room = await rooms.get(game_id)
            except OwnedElsewhere as elsewhere:
                await _ask_handover(websocket, elsewhere)
                conn.close(CLOSE_ELSEWHERE, "served elsewhere: retry")
                break
            if room is None:
                break
            conn.seats = room.seats_of(identity.id)
            try:
                room.attach(conn)
                break
            except RoomClosed:
                room = None
        if conn.closing:
            pass
        elif room is None:
            conn.send_json(error("not_found", "no such game"))
            conn.close(CLOSE_POLICY, "no such game")
        else:
            limiter = TokenBucket(settings.ws_rate, settings.ws_burst)
            await _read_loop(websocket, conn, room, limiter)
    finally:
        if room is not None:
            room.detach(conn)
        if not conn.closing:
            conn.close(1000, "bye")
        try:
            await asyncio.wait_for(writer, 5)
        except (TimeoutError, asyncio.CancelledError):
            writer.cancel()


async def _read_loop(
    websocket: WebSocket, conn: Connection, room: Room, limiter: TokenBucket
) -> None:
    hints: set[asyncio.Task[None]] = set()
    while not conn.closing:
        message = await websocket.receive()
        received = time.perf_counter()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        if text is None:
            data = message.get("bytes") or b""
            if len(data) > MAX_FRAME_BYTES:
                _too_big(conn)
                return
            conn.send_json(error("bad_message", "send text frames of JSON"))
            continue
        if (
            len(text) > MAX_FRAME_BYTES
            or len(text.encode("utf-8", "surrogatepass")) > MAX_FRAME_BYTES
        ):
            _too_big(conn)
            return
        if not limiter.take():
            conn.send_json(error("rate_limited", "too many messages; slow down"))
            conn.close(CLOSE_POLICY, "rate limited")
            return
        try:
            msg = parse_incoming(text)
        except BadFrame as exc:
            conn.send_json(error(exc.code, exc.message, exc.msg_id))
            continue
        try:
            await _dispatch(conn, room, msg, Frame(received, hints))
        except RoomClosed:
            # the one documented code of why it closed: 4001 when the room moved to another
            # process, 1012 when this process let it go (a restart, idle)
            if room.close_code == CLOSE_MOVED:
                conn.close(CLOSE_MOVED, "moved: reconnect")
            else:
                conn.close(CLOSE_RESTART, "the room closed; reconnect")
            return
        except Exception:
            log.exception(
                "command failed",
                extra=game_fields(
                    room.game_id, conn.seats[0] if conn.seats else None, event="command_failed"
                ),
            )
            msg_id = getattr(msg, "id", None)
            conn.send_json(
                error("server_error", "the server failed to handle this message", msg_id)
            )


def _too_big(conn: Connection) -> None:
    conn.send_json(error("frame_too_large", f"frames are limited to {MAX_FRAME_BYTES} bytes"))
    conn.close(CLOSE_TOO_BIG, "frame too large")


@dataclass(slots=True)
class Frame:
    """What a handler needs beside the connection, the room and the message: when the frame
    was read, and the connection's hint tasks."""

    received: float
    hints: set[asyncio.Task[None]]


Handler = Callable[[Connection, Room, Any, Frame], Awaitable[None]]
# One handler per incoming message type (app/web/messages.py ``Incoming``), as lila-ws's
# closed ``ClientOut`` and lichess's socket handlers: tests/web/test_dispatch.py checks that
# every type has one, and a message with none reaches ``_unexpected``.
HANDLERS: dict[type[BaseModel], Handler] = {}
M = TypeVar("M", bound=BaseModel)


def handles(
    model: type[M],
) -> Callable[
    [Callable[[Connection, Room, M, Frame], Awaitable[None]]],
    Callable[[Connection, Room, M, Frame], Awaitable[None]],
]:
    """Make the decorated coroutine the handler of ``model``'s messages."""

    def register(
        handler: Callable[[Connection, Room, M, Frame], Awaitable[None]],
    ) -> Callable[[Connection, Room, M, Frame], Awaitable[None]]:
        if model in HANDLERS:
            raise RuntimeError(f"{model.__name__} has a handler already")
        HANDLERS[model] = handler
        return handler

    return register


async def _dispatch(conn: Connection, room: Room, msg: Incoming, frame: Frame) -> None:
    handler = HANDLERS.get(type(msg), _unexpected)
    await handler(conn, room, msg, frame)


async def _unexpected(conn: Connection, room: Room, msg: Any, frame: Frame) -> None:
    """A message of the closed set that no handler takes: answered, never silently dropped."""
    log.error(
        "no handler for a message",
        extra=game_fields(room.game_id, None, event="unexpected_message", type=msg.type),
    )
    conn.send_json(error("unknown_type", f"{msg.type} is not handled", getattr(msg, "id", None)))


@handles(ActionMessage)
async def _action(conn: Connection, room: Room, msg: ActionMessage, frame: Frame) -> None:
    await room.act(conn, msg.id, msg.version, msg.action, msg.seat)
    metrics.ACTIONS.observe(time.perf_counter() - frame.received)


@handles(ClaimMessage)
async def _claim(conn: Connection, room: Room, msg: ClaimMessage, frame: Frame) -> None:
    await room.claim(conn, msg.id, msg.version, msg.seat)


@handles(ResumeMessage)
async def _resume(conn: Connection, room: Room, msg: ResumeMessage, frame: Frame) -> None:
    room.resume(conn, msg.version)


@handles(ConsentMessage)
async def _consent(conn: Connection, room: Room, msg: ConsentMessage, frame: Frame) -> None:
    await room.consent(conn, msg.kind, msg.id)


@handles(SetLevelMessage)
async def _set_level(conn: Connection, room: Room, msg: SetLevelMessage, frame: Frame) -> None:
    await room.set_level(conn, msg.level, msg.id)


@handles(SeatBotMessage)
async def _seat_bot(conn: Connection, room: Room, msg: SeatBotMessage, frame: Frame) -> None:
    await room.set_seat(conn, msg.seat, "bot", msg.level, msg.id)


@handles(FreeSeatMessage)
async def _free_seat(conn: Connection, room: Room, msg: FreeSeatMessage, frame: Frame) -> None:
    await room.set_seat(conn, msg.seat, "human", None, msg.id)


@handles(TakeSeatMessage)
async def _take_seat(conn: Connection, room: Room, msg: TakeSeatMessage, frame: Frame) -> None:
    await room.take_seat(conn, msg.seat, conn.name, msg.id)


@handles(HintMessage)
async def _hint(conn: Connection, room: Room, msg: HintMessage, frame: Frame) -> None:
    task = asyncio.create_task(room.hint(conn, msg.id))
    frame.hints.add(task)
    task.add_done_callback(frame.hints.discard)


@handles(PingMessage)
async def _ping(conn: Connection, room: Room, msg: PingMessage, frame: Frame) -> None:
    conn.send_json(pong())


@handles(StandInMessage)
async def _stand_in(conn: Connection, room: Room, msg: StandInMessage, frame: Frame) -> None:
    await room.stand_in(conn, msg.seat, msg.id)


@handles(BackMessage)
async def _back(conn: Connection, room: Room, msg: BackMessage, frame: Frame) -> None:
    await room.back(conn, msg.id)


@handles(LeaveMessage)
async def _leave(conn: Connection, room: Room, msg: LeaveMessage, frame: Frame) -> None:
    await room.leave_table(conn, msg.id)


@handles(SettingsMessage)
async def _settings(conn: Connection, room: Room, msg: SettingsMessage, frame: Frame) -> None:
    conn.auto_play = msg.auto_play
    if msg.hidden is not None:
        conn.hidden = msg.hidden
        if not msg.hidden:
            conn.turn_pushed = False
    room.connection_settings(conn, msg.id)


@handles(ChatMessage)
async def _chat(conn: Connection, room: Room, msg: ChatMessage, frame: Frame) -> None:
    if await moderation.is_muted(conn.websocket.app, conn.identity_id):
        conn.send_json(error("muted", translate(conn.language, "error.muted"), msg.id))
    else:
        await room.say(conn, msg.kind, moderation.mask(conn.websocket.app, msg.text), msg.id)


@handles(ChatSettingsMessage)
async def _chat_settings(
    conn: Connection, room: Room, msg: ChatSettingsMessage, frame: Frame
) -> None:
    await room.set_chat(conn, msg.chat, msg.spectator_chat, msg.id)
