"""Closed WebSockets leave memory without a full collection (app/web/wsprotocol.py).

The server's collection schedule freezes what lives longer than a quarter second and never
walks it again (app/loop.py, the invariant), so a reference cycle left by a closed connection would stay
for the life of the process. The websockets library leaves two: its parser generator and the
traceback of its parse error both refer to the protocol object.
"""

from __future__ import annotations

import asyncio
import gc
import os
import weakref
from collections.abc import Iterator
from http.cookiejar import CookieJar, DefaultCookiePolicy

import httpx
import pytest
import uvicorn
import websockets
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.server import ServerProtocol

from app.web.messages import TRANSPORT_MAX_FRAME_BYTES
from app.web.wsprotocol import HTTPProtocol, WebSocketProtocol, release
from bench.load import setup_table
from tests.conftest import free_port

HANDSHAKE = (
    b"GET /ws/g HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


def masked_close(code: int, reason: bytes) -> bytes:
    """A client's close frame (clients mask their frames)."""
    payload = code.to_bytes(2, "big") + reason
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x88, 0x80 | len(payload)]) + mask + body


@pytest.fixture
def refcount_only() -> Iterator[None]:
    """No automatic collection meanwhile: what dies, dies by reference counting."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def opened() -> ServerProtocol:
    conn = ServerProtocol()
    conn.receive_data(HANDSHAKE)
    conn.send_response(conn.accept(conn.events_received()[0]))
    return conn


def end_open(conn: ServerProtocol) -> None:
    """The peer vanished mid-stream (a reset): the parser waits for a frame."""


def end_eof(conn: ServerProtocol) -> None:
    """The peer's end of stream without a closing handshake: a parse error is kept."""
    conn.receive_eof()


def end_server_close(conn: ServerProtocol) -> None:
    """The server sent its close frame, and the connection was lost before the reply."""
    conn.send_close(1000, "bye")


def end_handshake(conn: ServerProtocol) -> None:
    """The closing handshake done, the server closes TCP first (the parser waits for EOF)."""
    conn.send_close(1000, "bye")
    conn.receive_data(masked_close(1000, b"ok"))


@pytest.mark.parametrize("end", [end_open, end_eof, end_server_close, end_handshake])
def test_a_released_protocol_is_freed_by_reference_counting(refcount_only: None, end) -> None:
    conn = opened()
    end(conn)
    release(conn)
    ref = weakref.ref(conn)
    del conn
    assert ref() is None


def count_server_protocols() -> int:
    """Server-side websockets protocol objects alive, frozen ones included (not collecting)."""
    gc.unfreeze()
    try:
        return sum(1 for o in gc.get_objects() if isinstance(o, ServerProtocol))
    finally:
        gc.freeze()


async def closed_sockets_left(protocol: type, how: str) -> tuple[int, int]:
    """Serve the app with ``protocol`` under its collection schedule, open eight real sockets
    to two friends tables, keep them past several freezes, end them (``how``: a closing
    handshake, or a reset); count the server's protocol objects while they are open, and
    once they are closed."""
    from app.main import create_app

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    config = uvicorn.Config(
        create_app(),
        host="127.0.0.1",
        port=port,
        ws=protocol,
        ws_max_size=TRANSPORT_MAX_FRAME_BYTES,
        log_config=None,
        log_level="warning",
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    try:
        for _ in range(200):
            if server.started:
                break
            await asyncio.sleep(0.05)
        assert server.started
        no_jar = CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))
        async with httpx.AsyncClient(timeout=30, cookies=no_jar) as http:
            tables = [await setup_table(base, "classic", http) for _ in range(2)]
        sockets = []
        for game_id, cookies in tables:
            for cookie in cookies:
                ws = await websockets.connect(
                    f"ws://127.0.0.1:{port}/ws/{game_id}",
                    origin=base,
                    additional_headers={"Cookie": f"atout_id={cookie}"},
                )
                await ws.recv()  # the first view: the socket is in its room
                sockets.append(ws)
        alive = count_server_protocols()
        await asyncio.sleep(1.0)  # four ticks of the schedule: every connection is frozen
        for ws in sockets:
            if how == "reset":
                ws.transport.abort()
            else:
                await ws.close()
        await asyncio.sleep(1.0)  # the server sees every end and drops the connections
        return alive, count_server_protocols()
    finally:
        server.should_exit = True
        await serving


@pytest.mark.parametrize("how", ["close", "reset"])
def test_closed_sockets_of_a_real_server_leave_memory(
    migrated_database_url: str, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    monkeypatch.setenv("ATOUT_DATABASE_URL", migrated_database_url)
    alive, left = asyncio.run(closed_sockets_left(WebSocketProtocol, how))
    assert alive >= 8  # the count sees the open connections, frozen or not
    assert left == 0
    # the same with uvicorn's own protocol: the eight closed connections stay
    alive, left = asyncio.run(closed_sockets_left(WebSocketsSansIOProtocol, how))
    if left == 0:
        pytest.skip("uvicorn's own protocol no longer leaves the cycle: the subclass is moot")
    assert left >= 8


def test_atout_serve_gives_uvicorn_this_protocol(
    migrated_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app import cli
    from app.persistence import db

    monkeypatch.setenv("ATOUT_DATABASE_URL", migrated_database_url)
    monkeypatch.setattr(db, "single_process_lock", lambda url: None)
    seen: dict[str, object] = {}
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: seen.update(kwargs))
    assert cli.main(["serve", "--port", str(free_port())]) == 0
    assert seen["ws"] is WebSocketProtocol
    assert seen["http"] is HTTPProtocol


async def _upgraded_http_protocol_left(protocol: type) -> bool:
    """Run ``protocol`` (an HTTP protocol class of uvicorn) on one end of a socket pair, send
    a WebSocket handshake from the other end, let the connection upgrade, and say whether the
    HTTP protocol object is still alive once nothing refers to it but itself."""
    import socket

    from uvicorn.config import Config
    from uvicorn.server import ServerState

    async def app(scope: dict, receive: object, send: object) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1000})  # type: ignore[operator]

    config = Config(app, ws=WebSocketProtocol, log_config=None, lifespan="off")
    config.load()
    state = ServerState()
    made: list[weakref.ref[object]] = []

    def factory() -> asyncio.Protocol:
        p = protocol(config=config, server_state=state, app_state={})
        made.append(weakref.ref(p))
        return p

    ours, theirs = socket.socketpair()
    loop = asyncio.get_running_loop()
    transport, first = await loop.connect_accepted_socket(factory, ours)
    del first  # the test keeps a weak reference only
    theirs.setblocking(False)
    await loop.sock_sendall(theirs, HANDSHAKE)
    await asyncio.wait_for(loop.sock_recv(theirs, 4096), 10)  # the 101, or the close after it
    # the transport has moved on (to the WebSocket protocol, or to none once that one closed)
    moved_on = not isinstance(transport.get_protocol(), protocol)
    assert moved_on
    await asyncio.sleep(0.1)
    transport.abort()
    theirs.close()
    await asyncio.sleep(0.1)
    return made[0]() is not None


def test_an_upgraded_http_protocol_is_freed_by_reference_counting(refcount_only: None) -> None:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    assert asyncio.run(_upgraded_http_protocol_left(HTTPProtocol)) is False
    # uvicorn's own protocol keeps its parser after the upgrade: a cycle only a collection frees
    if not asyncio.run(_upgraded_http_protocol_left(HttpToolsProtocol)):
        pytest.skip("uvicorn's own protocol no longer leaves the cycle: the subclass is moot")
