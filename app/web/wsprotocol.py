"""The HTTP and WebSocket protocols that ``atout serve`` gives uvicorn.

The WebSocket protocol is uvicorn's own sans-I/O protocol over the websockets library, with one change: once the
connection is lost, it breaks the reference cycles the library leaves behind
(``release``). The library parses with a generator whose frame refers to its protocol object
(``ServerProtocol.parser``), and a parse error (a peer gone without a closing handshake)
is kept with a traceback that refers to that frame again (``parser_exc``). Only the garbage
collector reclaims such cycles, and the server's collection schedule (app/loop.py: the invariant)
freezes every object that lives longer than a quarter second and never walks frozen objects
again: without this, every socket closed before its peer's end of stream (its protocol,
reader, buffers and frames) would stay in memory for the life of the process. With the cycles
broken, reference counting frees the connection at once.

The HTTP protocol is uvicorn's httptools protocol, with the same kind of change. Its parser
refers back to it (the parser's callbacks are its methods); uvicorn drops the parser when the
connection is lost, but not when the connection is upgraded to a WebSocket, after which the
HTTP protocol object is used no more. If the collection schedule froze it between the
connection and the upgrade (a few milliseconds in every quarter second), the object, its
parser, its scope and the transport it refers to stayed for the life of the process.
``HTTPProtocol`` drops the parser at the upgrade.

``tests/web/test_ws_memory.py`` checks both on the protocols and through a real server.

**One frame, many sockets.** The lobby sends the same message to every watcher
(app/rooms/lobby.py). Through the ASGI ``send`` each socket would build the same frame again,
behind a writer task that wakes for it: about 25 µs a socket. ``text_frame`` serializes the
message once (the websockets library's ``Frame``: a server's frames are not masked, so the
bytes are the same for every socket), and ``FrameWriter.write`` hands those bytes to one
socket's transport at once. The protocol offers itself to the application under the scope's
extension ``atout.frames`` (a weak reference: no cycle through the scope). A socket that is
closing, closed or whose transport asks to pause writing takes no frame (``write`` says so);
frames are whole transport writes, so they never interleave with the ones the ASGI path
writes. An uncompressed frame is valid whether or not permessage-deflate was negotiated
(RFC 7692: a message's RSV1 bit says whether it is compressed).
"""

from __future__ import annotations

import weakref
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State

FRAMES_EXTENSION = "atout.frames"


def release(conn: Any) -> None:
    """Break the cycles of a websockets protocol object that will not be used again: close
    its parser (the generator's frame is cleared) and drop the traceback of its parse error."""
    close = getattr(getattr(conn, "parser", None), "close", None)
    if close is not None:
        close()
    exc = getattr(conn, "parser_exc", None)
    if isinstance(exc, BaseException):
        exc.__traceback__ = None


def text_frame(text: str) -> bytes:
    """A server's text frame of ``text``, as the websockets library writes it."""
    return Frame(Opcode.TEXT, text.encode()).serialize(mask=False, extensions=[])


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets sans-I/O protocol, freed by reference counting once closed, that
    also takes frames serialized once for many sockets (``write_frame``)."""

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"][FRAMES_EXTENSION] = {"protocol": weakref.ref(self)}

    def write_frame(self, frame: bytes) -> bool:
        """Write a serialized frame now; False (nothing written) when the socket is not open
        for messages or its transport asked to pause (the peer reads too slowly)."""
        if (
            self.close_sent
            or self.disconnected
            or not self.handshake_complete
            or self.initial_response is not None
            or not self.writable.is_set()
            or self.transport.is_closing()
            or self.conn.state is not State.OPEN
        ):
            return False
        self.transport.write(frame)
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        release(self.conn)


class FrameWriter:
    """A socket's ``write_frame``, found through its scope (None when the server runs another
    protocol, as under a test client)."""

    def __init__(self, protocol: Any) -> None:
        self._protocol = protocol

    @classmethod
    def of(cls, scope: Any) -> FrameWriter | None:
        ref = scope.get("extensions", {}).get(FRAMES_EXTENSION, {}).get("protocol")
        return cls(ref) if ref is not None else None

    def write(self, frame: bytes) -> bool | None:
        """True: written; False: the socket is open but cannot take it now (paused);
        None: the socket is gone or closing."""
        protocol = self._protocol()
        if protocol is None or protocol.disconnected or protocol.close_sent:
            return None
        if protocol.write_frame(frame):
            return True
        return False if not protocol.writable.is_set() else None


class HTTPProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, freed by reference counting once upgraded."""

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        # the transport belongs to the WebSocket protocol now; this object is done with
        self.parser = None  # type: ignore[assignment]
