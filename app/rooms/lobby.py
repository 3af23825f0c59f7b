"""The lobby: the public tables with a free seat, the people online, the tables being played.

Every process keeps the same list, built from the database: an entry is always made from a
game's stored rows (``entry_of``), never from a room's memory, so two processes that read the
same rows list the same thing. A room whose listed fields may have changed (seats, status, the
public flag: ``room_changed``, called with every ``room`` broadcast) has its game read again
and, when its entry differs, every lobby watcher of this process gets the change
(``lobby_table`` or ``lobby_remove``) and the other processes are told through the
notifications that already link them (notify.py ``lobby:<game ids>``); they read the same rows.
Several changes close together are read and told in one go (``FLUSH_SECONDS``).

The counts: "online" is the number of browsers connected to this process (tables and lobby),
plus what the other processes announce every ``COUNTS_SECONDS`` (notify.py ``online``);
"playing" is the number of tables in play that moved in the last ``ACTIVE_SECONDS``, read from
the database. A full reading of the list every ``RESYNC_SECONDS`` (and when the notification
connection comes back) repairs whatever a lost notice missed.

A watcher is anything with ``deliver(texts, frames)`` (app/web/lobby.py's connection). Nothing in an entry
comes from a hand, a deck or a private table.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.persistence import public as store
from app.persistence.repository import GameRow, SeatRow
from app.rooms import messages as out

if TYPE_CHECKING:
    from app.rooms.room import Room

log = logging.getLogger("atout.lobby")

FLUSH_SECONDS = 0.02
# the fan-out (``_fanout``): watchers written to at a time, and the pause between two chunks
FANOUT_CHUNK = 64
FANOUT_PAUSE_SECONDS = 0.004
COUNTS_SECONDS = 5.0
RESYNC_SECONDS = 60.0
ACTIVE_SECONDS = 600.0
ONLINE_TTL_SECONDS = 3 * COUNTS_SECONDS
PUBLIC_CLOCK = 30


class Watcher(Protocol):
    identity_id: int

    def deliver(self, texts: list[str], frames: bytes | None) -> None:
        """Send these messages, in order (never blocks); ``frames``: the same, encoded once
        for every watcher by ``Lobby.encode`` and joined (None when the lobby has no
        encoder)."""


def _target(options: dict[str, Any]) -> Any:
    return options.get("target")


def entry_of(
    game: GameRow,
    seats: list[SeatRow],
    levels: dict[int, int],
    url: Callable[[str], str],
) -> dict[str, Any] | None:
    """``LobbyTable`` of docs/protocol.md, or None when the game is not listed: a public
    friends table, not finished, with a free seat (a free human seat while it waits, or a
    computer seat that gives way and has nobody waiting for it while it is played)."""
    if not game.public or game.mode != "friends" or game.status == "finished":
        return None
    settings = game.settings or {}
    listed = []
    free = 0
    for s in seats:
        if s.kind == "bot":
            takeable = s.open and s.heir_id is None and game.status == "playing"
            kind = "computer"
        elif s.identity_id is None:
            takeable = game.status == "waiting"
            kind = "free"
        else:
            takeable = False
            kind = "human"
        free += takeable
        listed.append(
            {
                "seat": s.seat,
                "kind": kind,
                "name": s.display_name if kind == "human" else None,
                "xp_level": levels.get(s.identity_id) if s.identity_id is not None else None,
                "level": s.bot_level if kind == "computer" else None,
                "free": takeable,
            }
        )
    if not free:
        return None
    clock = settings.get("clock", "none")
    return {
        "game_id": game.id,
        "url": url(game.id),
        "variant": game.variant,
        "players": game.players,
        "target": _target(game.options),
        "clock": clock if isinstance(clock, int) else PUBLIC_CLOCK,
        "rated": bool(settings.get("rated", True)),
        "spectators": bool(game.spectators),
        "status": game.status,
        "level": settings.get("stand_in", "medium"),
        "seats": listed,
        "free": free,
        "created_at": out.iso_time(game.created_at),
    }


def _signature(room: Room) -> tuple[Any, ...]:
    """What of a room can change its lobby entry (cheap: compared at each room broadcast)."""
    return (
        room.public,
        room.status,
        room.spectators_allowed,
        tuple((s.kind, s.identity_id, s.name, s.level, s.open, s.heir_id) for s in room.seats),
        room.settings.get("clock"),
        room.settings.get("rated"),
        room.settings.get("stand_in"),
    )


class Lobby:
    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        url: Callable[[str], str],
        level_for: Callable[[int], int] | None = None,
    ) -> None:
        self.sessionmaker = sessionmaker
        self.url = url
        self.level_for = level_for or (lambda xp: 1)
        self.tables: dict[str, dict[str, Any]] = {}
        self.members: dict[str, tuple[int, ...]] = {}  # listed game -> its players (never sent)
        self.watchers: set[Watcher] = set()
        self.online = 0
        self.playing = 0
        self.local_online: Callable[[], set[int]] = set
        self.notifier: Any = None  # notify.Notifier when several processes share the database
        self.node_key = random.SystemRandom().randrange(1, 2**31)
        self._others: dict[int, tuple[int, float]] = {}  # node key -> (online, when)
        self._signatures: dict[str, tuple[Any, ...]] = {}
        self._pending: set[str] = set()  # read again soon
        self._told: set[str] = set()  # and tell the other processes
        self._flush: asyncio.Task[None] | None = None
        self._loop: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._outbox: deque[tuple[str, bytes | None]] = deque()  # for every watcher, in order
        self._fanning: asyncio.Task[None] | None = None
        # a message's wire form, made once for every watcher (app/web/wsprotocol.py text_frame)
        self.encode: Callable[[str], bytes | None] = lambda text: None
        self.updates = 0  # changes pushed (tests, the benchmark)
        self._counts_due = False

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Read the list, then keep the counts; a database that cannot be read yet (not
        migrated) leaves the list empty until the next resync, never stops the server."""
        try:
            await self.resync()
        except Exception:
            log.warning("could not read the lobby's tables", exc_info=True)
        self._loop = asyncio.create_task(self._counts_loop(), name="atout-lobby")

    async def stop(self) -> None:
        for task in (self._loop, self._flush, self._fanning, *self._tasks):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    # ------------------------------------------------------------------ watchers

    def snapshot(self) -> dict[str, Any]:
        """``lobby``: the whole list, for a watcher that just connected."""
        return {
            "type": "lobby",
            "tables": sorted(self.tables.values(), key=lambda t: (t["created_at"], t["game_id"])),
            "online": self.online,
            "playing": self.playing,
        }

    def attach(self, watcher: Watcher) -> None:
        self.watchers.add(watcher)
        text = out.dumps(self.snapshot())
        watcher.deliver([text], self.encode(text))

    def detach(self, watcher: Watcher) -> None:
        self.watchers.discard(watcher)

    def _push(self, message: dict[str, Any]) -> None:
        """Send a change to every watcher, in order, a few watchers per turn of the loop."""
        if not self.watchers:
            return
        text = out.dumps(message)
        self._outbox.append((text, self.encode(text)))
        if self._fanning is None or self._fanning.done():
            self._fanning = asyncio.create_task(self._fanout(), name="atout-lobby-fanout")

    async def _fanout(self) -> None:
        """Every message is encoded once (``encode``) and each watcher writes those bytes to
        its socket. The messages waiting when a round starts go together: one write per
        watcher however many changed meanwhile, so a burst of changes costs a round, not a
        round each. A round writes ``FANOUT_CHUNK`` watchers, pauses ``FANOUT_PAUSE_SECONDS``,
        writes the next chunk: a change reaches 1,000 watchers over about 70 ms rather than
        in one burst of 10-15 ms of socket writes, whose sending and receiving would take the
        CPU from the tables' moves at the same moment (docs/benchmarks.md, the lobby). The
        messages keep their order (one outbox, one task). A watcher that attaches meanwhile
        may get a change its snapshot already has: every lobby message says a state, so it
        reads the same twice."""
        while self._outbox:
            batch = list(self._outbox)
            self._outbox.clear()
            texts = [text for text, _ in batch]
            frames = [frame for _, frame in batch]
            joined = b"".join(f for f in frames if f is not None) if None not in frames else None
            watchers = list(self.watchers)
            for start in range(0, len(watchers), FANOUT_CHUNK):
                for watcher in watchers[start : start + FANOUT_CHUNK]:
                    watcher.deliver(texts, joined)
                if start + FANOUT_CHUNK < len(watchers):
                    await asyncio.sleep(FANOUT_PAUSE_SECONDS)

    # ------------------------------------------------------------------ changes

    def room_changed(self, room: Room) -> None:
        """A room broadcast its seats: read its game again if its entry may have changed."""
        signature = _signature(room)
        known = self._signatures.get(room.game_id)
        if known == signature:
            return
        if known is None and not room.public and room.game_id not in self.tables:
            self._signatures[room.game_id] = signature
            return  # a private table that never was listed here
        self._signatures[room.game_id] = signature
        if len(self._signatures) > 20_000:
            self._signatures.clear()
        self.changed([room.game_id])

    def changed(self, game_ids: Iterable[str], *, tell: bool = True) -> None:
        """These games changed (committed): read them again soon, and (``tell``) tell the
        other processes."""
        ids = set(game_ids)
        self._pending |= ids
        if tell:
            self._told |= ids
        if self._flush is None or self._flush.done():
            self._flush = asyncio.create_task(self._flush_soon(), name="atout-lobby-flush")

    async def _flush_soon(self) -> None:
        await asyncio.sleep(FLUSH_SECONDS)
        while self._pending:
            ids, self._pending = self._pending, set()
            told, self._told = self._told & ids, self._told - ids
            try:
                await self.refresh(ids)
            except Exception:
                log.warning("could not read the lobby's tables", exc_info=True)
            if told and self.notifier is not None:
                ordered = sorted(told)
                for i in range(0, len(ordered), 200):  # a notice's payload stays small
                    await self.notifier.publish("lobby", ordered[i : i + 200])
        if self._counts_due:  # a table started or ended: "tables in play" now, not in 5 s
            self._counts_due = False
            try:
                await self.update_counts()
            except Exception:
                log.warning("could not count the lobby", exc_info=True)

    async def refresh(self, game_ids: Iterable[str]) -> None:
        """Read these games and push what changed in their entries."""
        ids = set(game_ids)
        async with self.sessionmaker() as session:
            rows = await store.public_games(session, ids)
            levels = await self._levels(session, rows)
        found = {game.id: entry_of(game, seats, levels, self.url) for game, seats in rows}
        self._members(rows)
        for game_id in ids:
            self._set(game_id, found.get(game_id))

    async def resync(self) -> None:
        """Read the whole list again (start, a lost notification connection, periodically)."""
        async with self.sessionmaker() as session:
            rows = await store.public_games(session)
            levels = await self._levels(session, rows)
        found = {game.id: entry_of(game, seats, levels, self.url) for game, seats in rows}
        self._members(rows)
        for game_id in set(self.tables) | set(found):
            self._set(game_id, found.get(game_id))

    async def _levels(
        self, session: AsyncSession, rows: list[tuple[GameRow, list[SeatRow]]]
    ) -> dict[int, int]:
        ids = {s.identity_id for _, seats in rows for s in seats if s.identity_id is not None}
        xp = await store.xp_of(session, ids)
        return {i: self.level_for(xp.get(i, 0)) for i in ids}

    def _members(self, rows: list[tuple[GameRow, list[SeatRow]]]) -> None:
        for game, seats in rows:
            self.members[game.id] = tuple(
                i for s in seats for i in (s.identity_id, s.heir_id) if i is not None
            )

    def _set(self, game_id: str, entry: dict[str, Any] | None) -> None:
        old = self.tables.get(game_id)
        if entry is None:
            self.members.pop(game_id, None)
        if entry == old:
            return
        self.updates += 1
        if (entry or {}).get("status") != (old or {}).get("status"):
            self._counts_due = True
        if entry is None:
            del self.tables[game_id]
            self._push({"type": "lobby_remove", "game_id": game_id})
        else:
            self.tables[game_id] = entry
            self._push({"type": "lobby_table", "table": entry})

    # ------------------------------------------------------------------ counts

    def online_received(self, values: list[int]) -> None:
        """notify.py ``online:<node key>,<count>`` from another process."""
        if len(values) == 2:
            self._others[values[0]] = (values[1], time.monotonic())

    async def _counts_loop(self) -> None:
        last_resync = time.monotonic()
        while True:
            await asyncio.sleep(COUNTS_SECONDS)
            try:
                await self.update_counts()
                if time.monotonic() - last_resync >= RESYNC_SECONDS:
                    last_resync = time.monotonic()
                    await self.resync()
            except Exception:
                log.warning("could not count the lobby", exc_info=True)

    async def update_counts(self) -> None:
        local = len(self.local_online())
        if self.notifier is not None:
            await self.notifier.publish("online", [self.node_key, local])
        now = time.monotonic()
        self._others = {k: v for k, v in self._others.items() if now - v[1] < ONLINE_TTL_SECONDS}
        async with self.sessionmaker() as session:
            playing = await store.tables_playing(session, ACTIVE_SECONDS)
        online = local + sum(count for count, _ in self._others.values())
        if (online, playing) != (self.online, self.playing):
            self.online, self.playing = online, playing
            self._push({"type": "lobby_counts", "online": online, "playing": playing})

    # ------------------------------------------------------------------ quick play

    def candidates(
        self,
        variant: str,
        players: int | None,
        identity_id: int,
        mu: dict[int, float],
        my_mu: float,
        blocked: Callable[[tuple[int, ...]], bool] | None = None,
    ) -> list[dict[str, Any]]:
        """The listed tables of ``variant`` (and ``players``) with a free seat for this
        browser, best first: waiting tables before tables in play, the fullest first (about to
        start), then the players nearest to ``my_mu`` (μ of the players seated, ``mu``:
        absent ones count as newcomers, 25), then the oldest. ``blocked``: tables to skip."""
        ranked = []
        for game_id, entry in self.tables.items():
            if entry["variant"] != variant or (players is not None and entry["players"] != players):
                continue
            members = self.members.get(game_id, ())
            if identity_id in members or (blocked is not None and blocked(members)):
                continue
            seated = [i for i in members]
            distance = (
                sum(abs(mu.get(i, 25.0) - my_mu) for i in seated) / len(seated) if seated else 0.0
            )
            ranked.append(
                (
                    entry["status"] != "waiting",
                    entry["free"],
                    round(distance, 1),
                    entry["created_at"],
                    game_id,
                    entry,
                )
            )
        ranked.sort(key=lambda r: r[:5])
        return [r[5] for r in ranked]
