"""Players of one table through the proxy: they play random legal moves, reconnect after a
close (a killed or fenced-out process, a 4002 "served elsewhere") and keep every
acknowledgement they got, to check against the database afterwards.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import text
from websockets.exceptions import ConnectionClosed, InvalidStatus

from app.engine.record import replay
from app.persistence import repository as repo
from tests.database import Database
from tests.web.wsclient import Browser, Socket

RECONNECT_WITHIN = 5.0  # seconds: the bound for clients to go on after a failover


@dataclass
class Player:
    browser: Browser
    sock: Socket | None = None
    closes: list[int | None] = field(default_factory=list)

    async def connect(self, game_id: str, within: float = RECONNECT_WITHIN) -> Socket:
        """Connect through the proxy, retrying (short backoff) until a state arrives."""
        deadline = time.monotonic() + within
        delay = 0.05
        last: BaseException | None = None
        while time.monotonic() < deadline:
            try:
                self.sock = await self.browser.connect(game_id)
                return self.sock
            except (ConnectionClosed, InvalidStatus, OSError, TimeoutError) as exc:
                last = exc
                code = getattr(getattr(exc, "rcvd", None), "code", None)
                self.closes.append(code)
            await asyncio.sleep(delay)
            delay = min(0.4, delay * 2)
        raise AssertionError(f"no connection within {within} s: {last!r}")


@dataclass
class Table:
    game_id: str
    players: list[Player]
    rng: random.Random
    acked: dict[str, int] = field(default_factory=dict)  # client id -> acknowledged version
    version: int = 0

    @property
    def view(self) -> dict[str, Any]:
        sock = self.players[0].sock
        assert sock is not None and sock.view is not None
        return sock.view

    async def connect_all(self, within: float = RECONNECT_WITHIN) -> None:
        deadline = time.monotonic() + within
        for player in self.players:
            if player.sock is not None:
                await _close_quietly(player.sock)
            await player.connect(self.game_id, max(0.5, deadline - time.monotonic()))
        self.version = max(p.sock.version for p in self.players if p.sock is not None)
        await self.sync(self.version)

    async def sync(self, version: int, timeout: float = 10.0) -> None:
        """Every socket at ``version`` or later."""
        for player in self.players:
            assert player.sock is not None
            await player.sock.until(lambda s: s.version >= version, timeout)

    def actor(self) -> tuple[Player, int] | None:
        for player in self.players:
            if player.sock is not None:
                seat = player.sock.my_turn_seat()
                if seat is not None:
                    return player, seat
        return None

    async def step(self) -> str:
        """One move (or the Continue of a deal's summary); returns what happened: ``moved``,
        ``continued``, ``over``. A ConnectionClosed propagates (the caller reconnects)."""
        phase = self.view["phase"]
        if phase == "match_over":
            return "over"
        found = self.actor()
        if found is None:
            if phase == "deal_over":
                before = self.players[0].sock.version  # type: ignore[union-attr]
                for player in self.players:
                    assert player.sock is not None
                    await player.sock.send({"type": "consent", "kind": "next_deal"})
                await self.sync(before + 1)
                self.version = before + 1
                return "continued"
            # a bot or another seat is to act: wait for the next update
            sock = self.players[0].sock
            assert sock is not None
            await sock.until(lambda s, v=sock.version: s.version > v)
            return "moved"
        player, seat = found
        sock = player.sock
        assert sock is not None
        action = self.rng.choice(sock.legal(seat))
        msg_id = await sock.act(action, seat=seat if sock.views else None)
        answer = await sock.next_of("ack", "error")
        if answer["type"] == "error" and answer.get("code") == "paused":
            # Another player's socket may have been closed meanwhile (the room was handed
            # over: 4001), and the room waits for that player: surface that close, as the
            # browser that got it would reconnect.
            for other in self.players:
                if other is not player and other.sock is not None:
                    await other.sock.drain(0.5)  # raises ConnectionClosed if it was closed
        if answer["type"] == "error":
            raise AssertionError(f"move refused: {answer}")
        self.acked[msg_id] = int(answer["version"])
        self.version = int(answer["version"])
        await self.sync(self.version)
        return "moved"

    async def play(self, moves: int) -> None:
        for _ in range(moves):
            if await self.step() == "over":
                return

    async def play_until(self, predicate: Any, limit: int = 400) -> None:
        for _ in range(limit):
            if predicate(self.view):
                return
            if await self.step() == "over":
                break
        assert predicate(self.view), f"never reached: {self.view['phase']}"


async def _close_quietly(sock: Socket) -> None:
    try:
        await asyncio.wait_for(sock.close(), 0.5)
    except (ConnectionClosed, OSError, TimeoutError):
        pass


async def _join(browser: Browser, game_id: str) -> tuple[int, Any]:
    """POST join through the proxy; a 503 (another process owns the room right now, as
    after a process came back) is tried again after its Retry-After, as a browser does."""
    deadline = time.monotonic() + 15
    while True:
        status, body = await browser.post(f"/api/games/{game_id}/join")
        if status != 503 or time.monotonic() > deadline:
            return status, body
        await asyncio.sleep(1)


async def new_friends_table(
    proxy: Any,
    variant: str,
    seed: int,
    options: dict[str, Any] | None = None,
    host: Browser | None = None,
    **body: Any,
) -> Table:
    """A friends game of ``variant`` created (by ``host``, default a new browser) and filled
    through the proxy, every seat open; ``body``: more fields of the create request (clock)."""
    host = host or await Browser.new(proxy)
    game_id = await host.create(variant=variant, mode="friends", options=options or {}, **body)
    players = [Player(host)]
    status, first = await _join(host, game_id)
    assert status == 200, first
    needed = len(first["room"]["seats"])
    for _ in range(needed - 1):
        guest = await Browser.new(proxy)
        status, body = await _join(guest, game_id)
        assert status == 200 and body["role"] == "seat", body
        players.append(Player(guest))
    table = Table(game_id, players, random.Random(seed))
    await table.connect_all(within=10)
    return table


# ----------------------------------------------------------------------------- the database


async def stored(database_url: str, game_id: str) -> tuple[repo.StoredGame, tuple[str, int]]:
    """The game's rows and its lease (owner, epoch)."""
    async with Database.open(database_url) as db, db.sessionmaker() as session:
        game = await repo.load_game(session, game_id)
        lease = (
            await session.execute(
                text("SELECT owner, epoch FROM room_leases WHERE game_id = :g"), {"g": game_id}
            )
        ).one()
    assert game is not None
    return game, (str(lease.owner), int(lease.epoch))


async def owner_of(database_url: str, game_id: str) -> tuple[str, int]:
    return (await stored(database_url, game_id))[1]


async def check_history(database_url: str, table: Table) -> repo.StoredGame:
    """One history: actions numbered with no gap, the record replays, and every acknowledged
    move is there at the version it was acknowledged with."""
    game, _lease = await stored(database_url, table.game_id)
    assert [a.seq for a in game.actions] == list(range(len(game.actions)))
    assert [d.number for d in game.deals] == list(range(len(game.deals)))
    record = game.record()
    assert record is not None
    replay(record)  # raises on a record that does not follow the rules
    versions: dict[str, int] = {}
    version = 0
    by_deal: dict[int, list[repo.ActionRow]] = {}
    for a in game.actions:
        by_deal.setdefault(a.deal_number, []).append(a)
    for d in game.deals:
        version += 1
        for a in by_deal.get(d.number, []):
            version += 1
            if a.client_id is not None:
                versions[a.client_id] = version
    missing = {k: v for k, v in table.acked.items() if versions.get(k) != v}
    assert not missing, f"acknowledged moves missing or moved: {missing}"
    assert version == len(game.deals) + len(game.actions) >= table.version
    return game
