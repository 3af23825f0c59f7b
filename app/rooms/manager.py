"""The RoomManager: creates games, loads rooms from the database, evicts idle ones.

Rooms are loaded lazily: the first request or connection that names a game replays its record
from the database (``Room.from_stored``). Every acknowledged change is already committed, so a
room can leave memory at any time (idle for ``settings.idle_room_seconds`` with nobody
connected) and come back identical. After a crash the same happens on first access.

The functions the HTML pages need are here too: ``join`` (join or reclaim a seat for a browser,
returning its role, its seats and the room) and ``games_of`` (a browser's unfinished games,
grouped by mode).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app import metrics
from app.bots import LEVELS
from app.engine import InvalidAction, get_rules, new_match
from app.logging import game_fields
from app.persistence import leases
from app.persistence import public as public_store
from app.persistence import repository as repo
from app.persistence.db import is_sqlite
from app.persistence.models import utcnow
from app.persistence.writer import CommitQueue
from app.rooms.chat import HISTORY as CHAT_HISTORY
from app.rooms.errors import CommandError, OwnedElsewhere, RoomClosed
from app.rooms.messages import iso_time
from app.rooms.model import (
    MODES,
    JoinResult,
    Mode,
    RoomServices,
    Seat,
    SeatKind,
    Status,
    deck_strings,
)
from app.rooms.public import public_settings
from app.rooms.room import CLOSE_MOVED, Room
from app.settings import Settings

log = logging.getLogger("atout.rooms")

GROUPS = ("computer", "local", "friends")


def new_game_id() -> str:
    """At least 96 random bits, URL-safe: 22 characters."""
    return secrets.token_urlsafe(16)


def is_game_id(value: str) -> bool:
    return 8 <= len(value) <= 32 and all(c.isascii() and (c.isalnum() or c in "-_") for c in value)


@dataclass
class SeatSpec:
    kind: str  # human | bot
    level: str | None = None


@dataclass
class GameSpec:
    variant: str
    players: int | None
    options: dict[str, Any]
    mode: str
    seats: list[SeatSpec] | None = None
    level: str = "medium"
    spectators: bool | None = None
    settings: dict[str, Any] | None = None  # the table's (model.table_settings)
    public: bool = False  # listed in the lobby (friends games; public.py)
    names: list[str | None] | None = None  # local games: each seat's player, typed on the form


class RoomManager:
    def __init__(
        self,
        settings: Settings,
        sessionmaker: async_sessionmaker[AsyncSession],
        writer: CommitQueue,
        executor: Executor | None,
    ) -> None:
        self.settings = settings
        self.sessionmaker = sessionmaker
        self.writer = writer
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Task[Room | None]] = {}
        self._evictor: asyncio.Task[None] | None = None
        self.services = RoomServices(
            settings=settings,
            writer=writer,
            executor=executor,
            create_rematch=self._create_rematch,
            lost=self._lost,
        )
        self.loads = 0
        self.evictions = 0
        # PostgreSQL: several processes may serve the same database; each room is loaded only
        # under its lease (app/persistence/leases.py, docs/scaling.md). SQLite: one process.
        self.use_leases = not is_sqlite(settings.database_url)
        self.node_id = settings.node_id or leases.default_node_id()
        self.lease_seconds = float(settings.lease_seconds)
        self._renewer: asyncio.Task[None] | None = None
        self.liveness: leases.Liveness | None = None
        self._handed: dict[str, float] = {}  # game id -> when this process last let it go
        self._tasks: set[asyncio.Task[Any]] = set()
        self.moves_out = 0  # rooms whose lease was lost

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        self._evictor = asyncio.create_task(self._evict_loop(), name="atout-evictor")
        metrics.LIVE.add(self.live_metrics)
        if self.use_leases:
            from app.persistence.notify import asyncpg_dsn

            # held for the process's life: its leases may be taken at once when it dies
            self.liveness = leases.Liveness(asyncpg_dsn(self.settings.database_url), self.node_id)
            await self.liveness.start()
            self._renewer = asyncio.create_task(self._renew_loop(), name="atout-leases")
            log.info(
                "room leases on",
                extra={"event": "leases", "node": self.node_id, "seconds": self.lease_seconds},
            )

    async def stop(self) -> None:
        """Shutdown: let each room finish its command in progress, then drop it."""
        metrics.LIVE.remove(self.live_metrics)
        for task in (self._evictor, self._renewer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        rooms, self.rooms = list(self.rooms.values()), {}
        for room in rooms:
            try:
                await asyncio.wait_for(room.close(reason="server shutting down"), 10)
            except Exception:
                log.exception("room did not close", extra=game_fields(room.game_id))
        await self._release([room for room in rooms])
        if self.liveness is not None:
            await self.liveness.stop()

    def live_metrics(self) -> Iterator[Metric]:
        """The rooms' gauges, read at each scrape of ``app.metrics.REGISTRY``: rooms in
        memory, sockets with and without a seat, rooms loaded and evicted since start."""
        rooms = list(self.rooms.values())
        sockets = players = 0
        for room in rooms:
            for listener in room.listeners:
                sockets += 1
                players += 1 if listener.seats else 0
        yield GaugeMetricFamily("atout_rooms", "Rooms in memory.", value=len(rooms))
        yield GaugeMetricFamily("atout_sockets", "Game WebSockets attached to rooms.", sockets)
        yield GaugeMetricFamily(
            "atout_players_connected", "Sockets that hold at least one seat.", players
        )
        yield GaugeMetricFamily(
            "atout_spectators", "Sockets that hold no seat (spectators).", sockets - players
        )
        yield CounterMetricFamily(
            "atout_rooms_loaded", "Rooms restored from the database.", self.loads
        )
        yield CounterMetricFamily(
            "atout_rooms_evicted", "Idle rooms that left memory.", self.evictions
        )

    def idle_seconds(self) -> float:
        """How long a room with nobody connected stays in memory. With leases, at most two
        leases: a room whose players now reach another process (the proxy's choice changed,
        a process came back) is handed over soon after they leave this one."""
        idle = float(self.settings.idle_room_seconds)
        if self.use_leases:
            idle = min(idle, max(2.0, 2 * self.lease_seconds))
        return idle

    async def _evict_loop(self) -> None:
        idle = self.idle_seconds()
        period = max(0.2, min(30.0, idle / 4))
        while True:
            await asyncio.sleep(period)
            for room in list(self.rooms.values()):
                if room.is_idle(idle):
                    await self.evict(room)

    async def evict(self, room: Room) -> None:
        # No await before ``closed`` is set: an idle room has no command in progress, and any
        # later command on this object gets RoomClosed and reloads the room from the database.
        room.closed = True
        if self.rooms.get(room.game_id) is room:
            del self.rooms[room.game_id]
        await room.close(reason="idle")
        await self._release([room])
        self.evictions += 1
        log.info("room left memory", extra=game_fields(room.game_id, event="room_evicted"))

    # ------------------------------------------------------------------ leases

    async def _renew_loop(self) -> None:
        """Renew the leases of the rooms in memory, three times per lease; a lease found taken
        (this process was frozen or cut off past its expiry) closes its room (``Room.moved``)."""
        period = self.lease_seconds / 3
        while True:
            await asyncio.sleep(period)
            held = [room for room in self.rooms.values() if room.lease is not None]
            if not held:
                continue
            try:
                kept = await self.writer.submit(
                    leases.renewal(self.node_id, [r.lease for r in held if r.lease is not None])
                )
            except Exception:
                log.warning("could not renew the room leases", exc_info=True)
                continue
            for room in held:
                if room.game_id not in kept and room.lease is not None:
                    room.moved()

    async def hand_over(self, game_id: str, owner: str, epoch: int) -> None:
        """Another process was sent a player of this room while ``owner`` held it (notify.py
        ``handover``): if that is this process, close the room's sockets with 4001 (moved:
        reconnect) and release its lease, so that every player reconnects through the proxy
        to the process it now picks. A request naming another owner or another epoch is an
        old one (the room moved since, maybe back here) and is ignored. At most once per lease
        period per room, so that a flapping proxy cannot make the room bounce."""
        if owner != self.node_id:
            return
        room = self.rooms.get(game_id)
        if room is None or room.closed or room.lease is None or room.lease.epoch != epoch:
            return
        now = asyncio.get_running_loop().time()
        if now - self._handed.get(game_id, -1e9) < self.lease_seconds:
            return
        if len(self._handed) > 10_000:  # forget the old ones
            self._handed = {g: t for g, t in self._handed.items() if now - t < self.lease_seconds}
        self._handed[game_id] = now
        room.closed = True  # no await before this: later commands reload the room
        room.close_code = CLOSE_MOVED  # a command racing the close is told the room moved
        del self.rooms[game_id]
        await room.close(code=CLOSE_MOVED, reason="moved: reconnect")
        await self._release([room])
        self.moves_out += 1
        log.info("room handed over", extra=game_fields(game_id, event="room_handed_over"))

    def _lost(self, room: Room) -> None:
        """A room lost its lease (Room.moved): drop it and finish closing it."""
        if self.rooms.get(room.game_id) is room:
            del self.rooms[room.game_id]
        self.moves_out += 1
        task = asyncio.create_task(room.close(code=CLOSE_MOVED, reason="moved: reconnect"))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _release(self, rooms: list[Room]) -> None:
        held = [room.lease for room in rooms if room.lease is not None]
        for room in rooms:
            room.lease = None
        if not held:
            return
        try:
            async with self.sessionmaker() as session:
                await leases.release(session, self.node_id, held)
        except Exception:
            log.warning("could not release room leases (they expire)", exc_info=True)

    # ------------------------------------------------------------------ rooms

    async def get(self, game_id: str) -> Room | None:
        """The live room of a game, loaded from the database if needed; None if unknown."""
        if not is_game_id(game_id):
            return None
        room = self.rooms.get(game_id)
        if room is not None and not room.closed:
            return room
        task = self._loading.get(game_id)
        if task is None:
            task = asyncio.create_task(self._load(game_id))
            self._loading[game_id] = task
            task.add_done_callback(lambda _t: self._loading.pop(game_id, None))
        return await asyncio.shield(task)

    async def _load(self, game_id: str) -> Room | None:
        lease: leases.Lease | None = None
        if self.use_leases:
            async with self.sessionmaker() as session:
                got = await leases.acquire(session, game_id, self.node_id, self.lease_seconds)
            if got is None:
                return None
            if isinstance(got, leases.Held):
                log.info(
                    "room owned by another process",
                    extra=game_fields(game_id, event="owned_elsewhere", owner=got.owner),
                )
                raise OwnedElsewhere(game_id, got.retry_after, got.owner, got.epoch)
            lease = got
        try:
            room = await self._restore(game_id, lease)
        except BaseException:
            if lease is not None:
                async with self.sessionmaker() as session:
                    await leases.release(session, self.node_id, [lease])
            raise
        return room

    async def _restore(self, game_id: str, lease: leases.Lease | None) -> Room | None:
        async with self.sessionmaker() as session:
            stored = await repo.load_game(session, game_id)
            chat = await repo.load_chat(session, game_id, CHAT_HISTORY) if stored else []
        if stored is None:
            return None
        room = Room.from_stored(self.services, stored)
        room.lease = lease  # before after_load: its writes are fenced too
        room.chat.restore(chat)
        if room.public:
            async with self.sessionmaker() as session:
                room.holders = await public_store.load_holders(session, game_id)
        if self.services.levels is not None:  # level badges of the seats (app/players)
            await self.services.levels.ensure(s.identity_id for s in room.seats)
        await room.after_load()
        self.rooms[game_id] = room
        self.loads += 1
        if self.services.push is not None:  # what its seats were (app/web/push.py)
            self.services.push.seen(room)
        log.info(
            "room restored",
            extra=game_fields(
                game_id,
                event="room_loaded",
                version=room.version,
                epoch=lease.epoch if lease is not None else None,
            ),
        )
        return room

    async def with_room(self, game_id: str, func: Any) -> Any:
        """Run ``await func(room)``, loading the room again if it left memory meanwhile."""
        for _ in range(3):
            room = await self.get(game_id)
            if room is None:
                raise CommandError("not_found", "no such game")
            try:
                return await func(room)
            except RoomClosed:
                continue
        raise CommandError("busy", "the game is being reloaded; try again")

    # ------------------------------------------------------------------ creating

    def validate(self, spec: GameSpec) -> tuple[str, dict[str, Any], int, list[Seat]]:
        """Check a game request against the engine's rules.

        Returns (variant, options, players, seats); ``options`` are all the resolved options, so
        that a later change of a default cannot change a stored game.
        """
        if spec.mode not in MODES:
            raise CommandError("invalid_mode", f"mode must be one of {', '.join(MODES)}")
        try:
            rules = get_rules(spec.variant, spec.players, spec.options)
        except InvalidAction as exc:
            raise CommandError("invalid_options", str(exc)) from None
        n = rules.players
        if spec.level not in LEVELS:
            raise CommandError("invalid_seats", f"level must be one of {', '.join(LEVELS)}")
        if spec.seats is None:
            kinds = [SeatSpec("human")] + [
                SeatSpec("bot", spec.level) if spec.mode == "computer" else SeatSpec("human")
                for _ in range(n - 1)
            ]
        else:
            kinds = list(spec.seats)
        if len(kinds) != n:
            raise CommandError(
                "invalid_seats", f"{rules.variant} needs {n} seats, not {len(kinds)}"
            )
        if kinds[0].kind != "human":
            raise CommandError("invalid_seats", "seat 0 is the creator's: it must be human")
        for s in kinds:
            if s.kind not in ("human", "bot"):
                raise CommandError("invalid_seats", "a seat is human or bot")
            if s.kind == "bot" and (s.level or spec.level) not in LEVELS:
                raise CommandError("invalid_seats", f"level must be one of {', '.join(LEVELS)}")
        if spec.mode == "computer" and sum(s.kind == "human" for s in kinds) != 1:
            raise CommandError("invalid_seats", "a game against the computer has one human seat")
        seats = [
            Seat(i, SeatKind(s.kind), level=(s.level or spec.level) if s.kind == "bot" else None)
            for i, s in enumerate(kinds)
        ]
        return rules.variant, dict(rules.options), rules.players, seats

    async def create_game(
        self,
        identity_id: int,
        name: str | None,
        spec: GameSpec,
        *,
        rematch_of: str | None = None,
        seats: Sequence[Seat] | None = None,
        deck: Sequence[int] | None = None,
        first_dealer: int | None = None,
    ) -> Room:
        """Create a game; the creator takes seat 0 (in ``local`` mode every human seat).
        ``deck`` and ``first_dealer`` fix the first deal (a tournament board)."""
        variant, options, players, new_seats = self.validate(spec)
        if seats is not None:
            new_seats = [Seat(s.seat, s.kind, s.identity_id, s.level, s.name) for s in seats]
            # a rematch: every seat its own player's again, whoever played it before
        else:
            typed = spec.names if spec.mode == "local" and spec.names else []
            for s in new_seats:
                if s.kind == "human" and (s.seat == 0 or spec.mode == "local"):
                    s.identity_id, s.name = identity_id, name
                    if s.seat < len(typed) and typed[s.seat]:
                        s.name = typed[s.seat]
        spectators = (
            self.settings.spectators_default if spec.spectators is None else spec.spectators
        )
        public = spec.public and spec.mode == Mode.FRIENDS and seats is None
        table = dict(spec.settings or {})
        if public:
            table = public_settings(table, int(time.time() * 1000))
        game_id = new_game_id()
        room = Room(
            services=self.services,
            game_id=game_id,
            variant=variant,
            players=players,
            options=options,
            mode=Mode(spec.mode),
            status=Status.WAITING,
            spectators_allowed=spectators,
            host_id=identity_id,
            seats=new_seats,
            rematch_of=rematch_of,
            public=public,
            settings=table,
        )
        deal = None
        clock = None
        if all(s.identity_id is not None for s in new_seats if s.kind == "human"):
            room.state = new_match(
                room.variant,
                players,
                options,
                rng=room.rng,
                first_dealer=first_dealer,
                deck=list(deck) if deck is not None else None,
            )
            room.status = Status.PLAYING
            room.deals = 1
            room.version = 1
            deal = repo.DealRow(0, room.state.dealer, deck_strings(room.state))
            deadlines = room.plan_clock(room.state)
            clock = room.clock_row(deadlines, room.version)
            room.live.deadlines = deadlines
        game_values = {
            "id": game_id,
            "variant": room.variant,
            "players": players,
            "options": options,
            "mode": spec.mode,
            "status": room.status.value,
            "spectators": spectators,
            "host_id": identity_id,
            "scores": None,
            "rematch_of": rematch_of,
            "settings": dict(room.settings),
            "clock": clock,
            "public": public,
        }
        await self.writer.submit(repo.insert_game(game_values, [s.row() for s in new_seats], deal))
        room.created_at = room.updated_at = utcnow()
        if self.use_leases:
            # the process the proxy sends this game's requests to loads it, under its lease:
            # this one (any process: a new game has no id yet) keeps nothing in memory
            room.closed = True
        else:
            self.rooms[game_id] = room
            room.rearm_clock()
            room.arm_fill()
            if self.services.push is not None:  # what its seats were (app/web/push.py)
                self.services.push.seen(room)
        if public and self.services.lobby is not None:
            self.services.lobby.changed([game_id])
        log.info(
            "game created",
            extra=game_fields(game_id, event="game_created", variant=room.variant, mode=spec.mode),
        )
        return room

    async def _create_rematch(self, old: Room) -> str:
        spec = GameSpec(
            variant=old.variant,
            players=old.players,
            options=old.options,
            mode=old.mode,
            level=old.bot_level() or "medium",
            spectators=old.spectators_allowed,
            settings=dict(old.settings),
        )
        host = old.host_id if old.host_id is not None else 0
        room = await self.create_game(host, None, spec, rematch_of=old.game_id, seats=old.seats)
        return room.game_id

    # ------------------------------------------------------------------ for pages and API

    async def join(self, game_id: str, identity_id: int, name: str | None) -> JoinResult | None:
        """Join or reclaim a seat of game ``game_id`` for a browser; None if there is no game.

        ``role`` is ``seat`` (``seats`` lists the seats held, possibly several in local mode),
        ``spectator``, or ``full`` (no free seat and spectators are off).
        """
        if self.services.levels is not None:  # this browser's level badge (app/players)
            await self.services.levels.ensure([identity_id])
        try:
            result: JoinResult = await self.with_room(
                game_id, lambda room: room.join(identity_id, name)
            )
        except CommandError as exc:
            if exc.code == "not_found":
                return None
            raise
        return result

    async def games_of(self, identity_id: int) -> dict[str, list[dict[str, Any]]]:
        """This browser's unfinished games, grouped by mode (computer, local, friends)."""
        async with self.sessionmaker() as session:
            rows = await repo.games_of_identity(session, identity_id)
        groups: dict[str, list[dict[str, Any]]] = {g: [] for g in GROUPS}
        for game, seats in rows:
            room = self.rooms.get(game.id)
            if room is not None and not room.closed:
                summary = room.summary(identity_id)
                if room.status == Status.FINISHED:
                    continue
            else:
                summary = self.summary_from_rows(game, seats, identity_id)
            groups.setdefault(game.mode, []).append(summary)
        return groups

    def summary_from_rows(
        self, game: repo.GameRow, seats: list[repo.SeatRow], identity_id: int | None
    ) -> dict[str, Any]:
        return {
            "game_id": game.id,
            "url": self.services.url(game.id),
            "variant": game.variant,
            "players": game.players,
            "mode": game.mode,
            "status": game.status,
            "seats": [
                {
                    "seat": s.seat,
                    "kind": s.kind,
                    "name": s.display_name,
                    "level": s.bot_level,
                    "taken": s.kind == "bot" or s.identity_id is not None,
                    "connected": s.kind == "bot",
                    "you": identity_id is not None and s.identity_id == identity_id,
                    "deadline": None,
                    "stand_in": s.stand_in if s.kind == "human" else None,
                    "away_since": None,
                    "stand_in_votes": [],
                }
                for s in seats
            ],
            "created_at": iso_time(game.created_at),
            "updated_at": iso_time(game.updated_at),
            "scores": game.scores,
        }

    async def rename(self, identity_id: int, name: str) -> None:
        """A browser changed its name: its seats in loaded rooms follow (the DB already did)."""
        for room in list(self.rooms.values()):
            if room.seats_of(identity_id) and room.status != Status.FINISHED:
                await room.rename(identity_id, name)
