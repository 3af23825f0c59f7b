"""A small test client of docs/protocol.md: a browser (cookie) with HTTP calls and sockets.

    browser = await Browser.new(server)                 # POST /api/me: gets its atout_id cookie
    status, body = await browser.post("/api/games", {...})
    sock = await browser.connect(game_id)              # the first message (state) is read
    await sock.act({"type": "pass"})                    # sends with the current version
    msg = await sock.next_of("ack", "error")

Every message a socket receives is kept in ``sock.log`` (for the leak checker), after it was
validated against the protocol's published JSON Schema (tests/schema.py): a frame the schema
refuses fails the test that received it. What a socket knows of its table (version, views,
room, seats) is the benchmarks' own ``TableState`` (bench/table_client.py).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from collections.abc import Callable
from typing import Any

import httpx
import websockets

from bench.table_client import TableState
from tests.schema import check_sent

TIMEOUT = 20.0
_ids = itertools.count(1)


class Browser:
    def __init__(self, server: Any, token: str | None = None) -> None:
        self.server = server
        self.token = token

    @classmethod
    async def new(cls, server: Any) -> Browser:
        browser = cls(server)
        await browser.post("/api/me")
        assert browser.token, "the server did not set atout_id"
        return browser

    def _headers(self) -> dict[str, str]:
        return {"Cookie": f"atout_id={self.token}"} if self.token else {}

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        async with httpx.AsyncClient(base_url=self.server.base_url, timeout=TIMEOUT) as client:
            response = await client.request(method, path, json=body, headers=self._headers())
        cookie = response.cookies.get("atout_id")
        if cookie:
            self.token = cookie
        try:
            data = response.json()
        except ValueError:
            data = response.text
        return response.status_code, data

    async def get(self, path: str) -> tuple[int, Any]:
        return await self.request("GET", path)

    async def post(self, path: str, body: Any = None) -> tuple[int, Any]:
        return await self.request("POST", path, body)

    async def create(self, **body: Any) -> str:
        status, data = await self.post("/api/games", body)
        assert status == 201, data
        return str(data["game_id"])

    async def connect(
        self, game_id: str, *, origin: str | None = None, read_state: bool = True
    ) -> Socket:
        headers = self._headers()
        if origin is not None:
            headers["Origin"] = origin
        ws = await websockets.connect(
            f"{self.server.ws_url}/ws/{game_id}",
            additional_headers=headers,
            max_size=2**22,
            open_timeout=TIMEOUT,
        )
        sock = Socket(ws, self)
        if read_state:
            first = await sock.recv()
            assert first["type"] == "state", first
        return sock


class Socket(TableState):
    """One socket of a browser; what it knows of its table is bench/table_client.py's
    ``TableState`` (updates checked in order)."""

    def __init__(self, ws: Any, browser: Browser) -> None:
        super().__init__()
        self.ws = ws
        self.browser = browser
        self.log: list[dict[str, Any]] = []

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        msg: dict[str, Any] = check_sent(raw)
        self.log.append(msg)
        self.seen(msg)
        return msg

    async def next_of(self, *types: str, timeout: float = TIMEOUT) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            msg = await self.recv(max(0.01, deadline - loop.time()))
            if msg.get("type") in types:
                return msg

    async def until(self, predicate: Callable[[Socket], bool], timeout: float = TIMEOUT) -> None:
        """Read messages until ``predicate(self)`` holds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate(self):
            await self.recv(max(0.01, deadline - loop.time()))

    async def drain(self, quiet: float = 0.2) -> list[dict[str, Any]]:
        """Read whatever arrives until nothing came for ``quiet`` seconds."""
        out = []
        while True:
            try:
                out.append(await self.recv(quiet))
            except TimeoutError:
                return out

    async def send(self, message: Any) -> None:
        await self.ws.send(message if isinstance(message, str | bytes) else json.dumps(message))

    async def act(
        self,
        action: dict[str, Any],
        *,
        seat: int | None = None,
        msg_id: str | None = None,
        version: int | None = None,
    ) -> str:
        msg_id = msg_id or f"t-{next(_ids)}"
        message: dict[str, Any] = {
            "type": "action",
            "id": msg_id,
            "version": self.version if version is None else version,
            "action": action,
        }
        if seat is not None:
            message["seat"] = seat
        await self.send(message)
        return msg_id

    async def play_random(self, rng: random.Random) -> str | None:
        """If one of this socket's seats is to act, send a random legal action."""
        seat = self.my_turn_seat()
        if seat is None:
            return None
        action = rng.choice(self.legal(seat))
        return await self.act(action, seat=seat if self.views else None)

    async def close(self) -> None:
        await self.ws.close()

    @property
    def close_code(self) -> int | None:
        return self.ws.close_code
