"""One frame serialized once, written to many sockets (app/web/wsprotocol.py ``text_frame``,
``FrameWriter``; the lobby's fan-out, app/rooms/lobby.py)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import orjson
from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from app.web.lobby import LobbyConnection
from app.web.wsprotocol import FrameWriter, WebSocketProtocol, text_frame
from tests.web.test_ws_memory import HANDSHAKE


def parse_frames(data: bytes) -> list[Frame]:
    """The server's frames in ``data``, read by the websockets library's own parser."""
    reader = StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    frames = []
    while reader.buffer:  # what is left to parse
        parser = Frame.parse(reader.read_exact, mask=False, extensions=[])
        try:
            while True:
                next(parser)
        except StopIteration as done:
            frames.append(done.value)
    return frames


def test_a_text_frame_reads_back_as_its_text_at_every_length() -> None:
    for text in ("", "é", "x" * 125, "y" * 126, "z" * 70_000, '{"type":"lobby_table"}'):
        (frame,) = parse_frames(text_frame(text))
        assert (frame.opcode, frame.fin, frame.data.decode()) == (Opcode.TEXT, True, text)


async def _served() -> tuple[Any, socket.socket, list[dict[str, Any]], asyncio.Event]:
    """A WebSocketProtocol on one end of a socket pair, an application that accepts and
    waits; the other end has sent the handshake."""
    scopes: list[dict[str, Any]] = []
    done = asyncio.Event()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        scopes.append(scope)
        await done.wait()
        await send({"type": "websocket.close", "code": 1000})

    config = Config(app, ws=WebSocketProtocol, log_config=None, lifespan="off")
    config.load()
    state = ServerState()
    ours, theirs = socket.socketpair()
    loop = asyncio.get_running_loop()
    await loop.connect_accepted_socket(
        lambda: WebSocketProtocol(config=config, server_state=state, app_state={}), ours
    )
    theirs.setblocking(False)
    await loop.sock_sendall(theirs, HANDSHAKE)
    while not scopes:
        await asyncio.sleep(0.01)
    return loop, theirs, scopes, done


async def _read_until(loop: Any, sock: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        data += await asyncio.wait_for(loop.sock_recv(sock, 65536), 10)
    return data


def test_a_frame_written_through_the_scope_reaches_the_peer_whole() -> None:
    async def run() -> list[Frame]:
        loop, theirs, scopes, done = await _served()
        writer = FrameWriter.of(scopes[0])
        assert writer is not None
        assert writer.write(text_frame('{"type":"lobby_counts","online":3}')) is True
        assert writer.write(text_frame('{"type":"lobby_counts","online":4}')) is True
        data = await _read_until(loop, theirs, b'"online":4}')
        done.set()
        await _read_until(loop, theirs, b"\x88")  # the close frame: the socket is closing
        assert writer.write(text_frame("late")) is None  # nothing after the close
        theirs.close()
        return parse_frames(data.split(b"\r\n\r\n", 1)[1])

    frames = asyncio.run(run())
    assert [orjson.loads(f.data)["online"] for f in frames] == [3, 4]


def test_a_socket_whose_peer_does_not_read_takes_no_more_frames() -> None:
    async def run() -> tuple[int, bool | None]:
        loop, theirs, scopes, done = await _served()
        writer = FrameWriter.of(scopes[0])
        assert writer is not None
        protocol = scopes[0]["extensions"]["atout.frames"]["protocol"]()
        protocol.transport.set_write_buffer_limits(high=16_384)
        frame = text_frame("x" * 60_000)
        written = 0
        while writer.write(frame) and written < 10_000:  # the peer never reads
            written += 1
        result = writer.write(frame)
        done.set()
        theirs.close()
        await asyncio.sleep(0.05)
        return written, result

    written, result = asyncio.run(run())
    assert written < 10_000  # the transport asked to pause: the writer said so
    assert result is False


class _Frames:
    def __init__(self, answer: bool | None) -> None:
        self.answer = answer
        self.frames: list[bytes] = []

    def write(self, frame: bytes) -> bool | None:
        self.frames.append(frame)
        return self.answer


class _Conn:
    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None

    @property
    def closing(self) -> bool:
        return self.closed is not None

    def send(self, text: str) -> None:
        self.sent.append(text)

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


def _watcher(answer: bool | None, frames: bool = True) -> LobbyConnection:
    watcher = LobbyConnection.__new__(LobbyConnection)
    watcher.identity_id = 1
    watcher.conn = _Conn()  # type: ignore[assignment]
    watcher.frames = _Frames(answer) if frames else None  # type: ignore[assignment]
    return watcher


def test_a_lobby_watcher_writes_the_shared_frames_and_queues_nothing() -> None:
    watcher = _watcher(True)
    watcher.deliver(["text"], b"frame")
    assert watcher.frames.frames == [b"frame"]  # type: ignore[union-attr]
    assert watcher.conn.sent == [] and watcher.conn.closed is None  # type: ignore[attr-defined]


def test_a_lobby_watcher_too_far_behind_is_closed_with_1013() -> None:
    watcher = _watcher(False)
    watcher.deliver(["text"], b"frame")
    assert watcher.conn.closed is not None and watcher.conn.closed[0] == 1013  # type: ignore[attr-defined]
    watcher.deliver(["next"], b"next")  # closing: nothing more is written
    assert watcher.frames.frames == [b"frame"]  # type: ignore[union-attr]


def test_a_lobby_watcher_without_a_frame_writer_uses_its_queue() -> None:
    watcher = _watcher(None, frames=False)
    watcher.deliver(["text", "more"], b"frames")
    watcher.deliver(["plain"], None)
    assert watcher.conn.sent == ["text", "more", "plain"]  # type: ignore[attr-defined]
