"""Cross-process notices (PostgreSQL ``LISTEN/NOTIFY`` through asyncpg; docs/scaling.md).

Each process keeps caches of what other processes may change: the token -> identity cache
(app/web/identity.py), the XP level badges (app/players/awards.py) and, in its rooms, the
seats' names. When one process changes such a thing it publishes a notice; every other
process drops or refreshes what it holds. A notice carries a kind and ids, never game data::

    renamed:12          identity 12 changed its name
    moved:12            identity 12 went to another browser (a transfer code was claimed)
    levels:12,40        these identities' XP changed (a match ended)
    sanctions:12        the host muted, banned or pardoned identity 12 (app/web/moderation.py)
    closed:AbC12        the host closed game AbC12: the process that holds it tells its
                        players and lets it go
    handover:AbC12,3,n1 a player of game AbC12 reached another process, which refused it
                        (503, 4002) because node n1 holds the room at epoch 3: if it still does, it
                        closes the room's sockets (4001) and releases the lease, so that every
                        player follows the proxy
    lobby:AbC12,XyZ34   these games' lobby entries may have changed (app/rooms/lobby.py): read
                        their rows again
    online:81723,14     the process whose lobby key is 81723 has 14 browsers connected

A process never handles its own notices (it already did the work). If the listening
connection drops, the process reconnects and, since it may have missed notices, empties its
caches (``on_reset``). SQLite has one process: there is no Notifier, nothing to tell.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from sqlalchemy.engine import make_url

log = logging.getLogger("atout.notify")

CHANNEL = "atout"
KINDS = ("renamed", "moved", "levels", "handover", "sanctions", "closed", "lobby", "online")
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
Handler = Callable[[list[Any]], Awaitable[None]]  # ids: ints, or game ids for "handover"


def asyncpg_dsn(database_url: str) -> str:
    url = make_url(database_url).set(drivername="postgresql")
    return url.render_as_string(hide_password=False)


def encode(kind: str, ids: Iterable[Any]) -> str:
    if kind in ("handover", "lobby", "closed"):
        return f"{kind}:{','.join(str(i) for i in ids)}"
    return f"{kind}:{','.join(str(int(i)) for i in ids)}"


def decode(payload: str) -> tuple[str, list[Any]] | None:
    kind, _, rest = payload.partition(":")
    if kind not in KINDS:
        return None
    if kind == "handover":  # a game id, its lease's epoch and the node id of its owner
        game_id, _, rest = rest.partition(",")
        epoch, _, owner = rest.partition(",")
        if (
            GAME_ID.fullmatch(game_id)
            and epoch.isdigit()
            and 0 < len(owner) <= 64
            and owner.isprintable()
        ):
            return kind, [game_id, owner, int(epoch)]
        return None
    if kind == "closed":  # one game id: the host closed it (app/web/moderation.py)
        return (kind, [rest]) if GAME_ID.fullmatch(rest) else None
    if kind == "lobby":  # game ids
        games = [x for x in rest.split(",") if x]
        if games and all(GAME_ID.fullmatch(g) for g in games):
            return kind, games
        return None
    parts = [x for x in rest.split(",") if x]
    try:
        return kind, [int(x) for x in parts]
    except ValueError:
        return None


class Notifier:
    def __init__(self, database_url: str, *, retry_seconds: float = 1.0) -> None:
        self.dsn = asyncpg_dsn(database_url)
        self.retry_seconds = retry_seconds
        self.handlers: dict[str, Handler] = {}
        self.on_reset: Callable[[], None] | None = None
        self._conn: Any = None
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.received = 0
        self.sent = 0

    def on(self, kind: str, handler: Handler) -> None:
        assert kind in KINDS
        self.handlers[kind] = handler

    async def start(self) -> None:
        """Listen; if the database refuses now, the watcher keeps trying in the background."""
        try:
            await self._connect()
        except Exception:
            log.warning("no notice connection yet; retrying", exc_info=True)
        self._task = asyncio.create_task(self._watch(), name="atout-notify")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            await conn.close()

    async def publish(self, kind: str, ids: Iterable[Any]) -> None:
        """Tell the other processes; a failure is logged, never raised (their caches then
        catch up when they reconnect, or when the entry is reloaded)."""
        payload = encode(kind, ids)
        try:
            async with self._lock:
                if self._conn is None or self._conn.is_closed():
                    raise ConnectionError("no notice connection")
                await self._conn.execute("SELECT pg_notify($1, $2)", CHANNEL, payload)
            self.sent += 1
        except Exception:
            log.warning("could not publish a notice", extra={"notice": payload}, exc_info=True)

    async def _connect(self) -> None:
        import asyncpg

        conn = await asyncpg.connect(self.dsn, timeout=10)
        await conn.add_listener(CHANNEL, self._received)
        self._conn = conn

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.retry_seconds)
            if self._conn is not None and not self._conn.is_closed():
                continue
            try:
                await self._connect()
            except Exception:
                log.warning("notice connection down; retrying", exc_info=True)
                continue
            log.info("notice connection back", extra={"event": "notify_reconnected"})
            if self.on_reset is not None:
                self.on_reset()

    def _received(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        if pid == conn.get_server_pid():
            return  # our own
        notice = decode(payload)
        if notice is None:
            return
        kind, ids = notice
        handler = self.handlers.get(kind)
        if handler is None:
            return
        self.received += 1
        task = asyncio.create_task(self._handle(handler, ids, payload))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _handle(self, handler: Handler, ids: list[int], payload: str) -> None:
        try:
            await handler(ids)
        except Exception:
            log.exception("a notice failed", extra={"notice": payload})
