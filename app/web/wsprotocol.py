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
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol


def release(conn: Any) -> None:
    """Break the cycles of a websockets protocol object that will not be used again: close
    its parser (the generator's frame is cleared) and drop the traceback of its parse error."""
    close = getattr(getattr(conn, "parser", None), "close", None)
    if close is not None:
        close()
    exc = getattr(conn, "parser_exc", None)
    if isinstance(exc, BaseException):
        exc.__traceback__ = None


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets sans-I/O protocol, freed by reference counting once closed."""

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        release(self.conn)


class HTTPProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, freed by reference counting once upgraded."""

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        # the transport belongs to the WebSocket protocol now; this object is done with
        self.parser = None  # type: ignore[assignment]
