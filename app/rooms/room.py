"""One Room per table: the single in-memory authority of a game, and its command mailbox.

Everything that changes a game goes through the room, one command at a time (``self.lock``):
players' actions, bots' actions, consents, seat changes. A change is written to the database
first (``CommitQueue.submit`` returns after the commit) and only then applied in memory,
acknowledged and broadcast, each change with a version one higher than the last.

The room holds the game (state, version, seats, listeners) and dispatches each command to the
part named for it, as lila's round actor does. The parts decide and hold no reference to the
room: the room passes them what they read, and stores, acknowledges and sends what they
return:

* ``publisher`` (publisher.py): each version's update texts, the resume buffer;
* ``chat`` (chat.py): who may write, the rate limit, the lines kept (beside the game, never in
  its record);
* ``consents`` (consents.py): what the next deal and the rematch wait for, and who agreed;
  the room stores the agreements and runs the next deal's countdown;
* seats (seating.py): joining, the host's swaps, the waiting room's seats, leaving, and
  whether the table is paused;
* ``bots`` (bot_driver.py): whose turn the computer players, the stand-in, forced play and a
  claim's play-out take, and how long they wait; the room runs the turn's task;
* ``live`` (live.py): the decision clocks' deadlines, who is away since when, the stand-in
  votes and the seats it plays; the room runs the clock's timer;
* public tables (public.py): who may list a table, the seat "Sit here" gets, the computer
  players that fill it and the seats the end of a deal hands over; the room runs the fill
  timer.

Actions themselves (a player's or a bot's) are the room's own job: ``execute`` plans the step
(step.py: the action checked and what it writes decided, changing nothing), then commits it
(store, apply, acknowledge, publish). Every command takes the lock the same way (``_open``;
``_command`` also answers a refusal to the connection that sent it). The timers are the room's
own tasks (a bot's turn, the clock's stand-in, the next deal's countdown, a public table's
filling), and each ``post``s its command. No other file takes the lock.

No part refers back to the room, so the room and its parts make no reference cycle. A pending
timer's task holds its room until it ends; ``close`` cancels every one, so an evicted room is
freed by reference counting at once, not left for a full collection of the garbage collector
(app/loop.py: the invariant of no reference cycles among long-lived objects;
tests/rooms/test_eviction_memory.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, assert_never

from app.bots import LEVELS
from app.engine import (
    Action,
    Bid,
    Double,
    Event,
    IllegalAction,
    Pass,
    Phase,
    Play,
    Redouble,
    State,
    action_to_json,
    current_player,
    get_rules,
    legal_actions,
    new_match,
    out_of_turn_actions,
    seat_view,
    start_deal,
    stored_options,
)
from app.engine.claims import can_claim, claim_action
from app.engine.claims import claim as check_claim
from app.engine.record import (
    FORMAT,
    RecordRuleError,
    RecordSchemaError,
    dump,
    replay_by,
)
from app.logging import game_fields
from app.persistence import public as public_store
from app.persistence import repository as repo
from app.persistence.leases import Fenced, Lease, LeaseLost
from app.rooms import bot_driver
from app.rooms import messages as out
from app.rooms.actions import parse_action
from app.rooms.bot_driver import BotDriver, Turn
from app.rooms.chat import Chat
from app.rooms.chat import check_configure as check_chat_configure
from app.rooms.consents import Consents, deals_at_once
from app.rooms.errors import CommandError, RoomClosed, RoomMoved
from app.rooms.live import (
    STAND_IN_RETRY_SECONDS,
    Live,
    cleared_seats,
    clock_seconds,
    decisions,
    stand_in_level,
    stood_in,
)
from app.rooms.model import (
    MODES,
    Facts,
    JoinResult,
    Listener,
    Mode,
    RoomServices,
    Seat,
    Status,
    deck_strings,
    table_settings,
    then,
)
from app.rooms.public import (
    check_listing,
    fill_at_ms,
    filled,
    hand_over,
    holder_rows,
    holders_json,
    public_settings,
    sit_choice,
)
from app.rooms.publisher import Publisher, Step, seats_key, views_of
from app.rooms.seating import (
    connected_seats,
    is_paused,
    joining,
    leaving,
    seat_set,
    seat_taken,
    starts,
    swapped,
)
from app.rooms.step import StepPlan, StepTable, WireAction, plan_step
from app.rooms.step import mark_events as _mark_events  # noqa: F401 (tests/rooms/test_live.py)

log = logging.getLogger("atout.rooms")

CLOSE_MOVED = 4001  # docs/protocol.md: the room moved to another process; reconnect
CLIENT_IDS = 256  # action ids remembered per room, to apply a repeated id once
WAITING, PLAYING, FINISHED = Status.WAITING, Status.PLAYING, Status.FINISHED

__all__ = ["MODES", "JoinResult", "Listener", "Room", "RoomServices", "Seat", "deck_strings"]


@dataclass(frozen=True, slots=True)
class Act:
    """Play ``action`` for ``seat`` at ``version``, marked ``by`` (RULES.md §12; None: the
    seat's own player): a bot's move, the stand-in's, forced play, a claim's play-out."""

    seat: int
    action: Action
    version: int
    by: str | None = None


@dataclass(frozen=True, slots=True)
class Claim:
    """A bot, or the stand-in, claims the remaining tricks for ``seat`` (RULES.md §15)."""

    seat: int
    version: int


@dataclass(frozen=True, slots=True)
class AgreeFor:
    """The clock of ``seat`` ran out on a consent: its stand-in agrees."""

    seat: int


@dataclass(frozen=True, slots=True)
class DealNext:
    """The next deal's countdown ran out: deal it."""


@dataclass(frozen=True, slots=True)
class Fill:
    """A public table's fill time came: computer players take its free seats."""


# What the room's timers post (``Room.post``): a closed set, each handled in ``Room._run``.
Command = Act | Claim | AgreeFor | DealNext | Fill


@dataclass
class Room:
    services: RoomServices
    game_id: str
    variant: str
    players: int
    options: dict[str, Any]
    mode: Mode
    status: Status
    spectators_allowed: bool
    host_id: int | None
    seats: list[Seat]
    created_at: Any = None
    updated_at: Any = None
    rematch_of: str | None = None
    rematch_id: str | None = None
    public: bool = False  # listed in the lobby (public.py)
    # who held a seat from which deal, when it changed hands (public.py; seat_holders rows)
    holders: list[Any] = field(default_factory=list)
    # the table's settings, defaults applied (model.table_settings; stored in games.settings)
    settings: dict[str, Any] = field(default_factory=dict)
    state: State | None = None
    version: int = 0  # = deals dealt + actions applied: the same after a restart
    seq: int = 0  # actions stored
    deals: int = 0  # deals stored
    # "seat:id" -> version the action made; the newest CLIENT_IDS only (a client repeats an id
    # only for its latest action, after a reconnection)
    client_ids: dict[str, int] = field(default_factory=dict)
    # who played an action for its seat (RULES.md §12): (deal index, action index) -> by
    by: dict[tuple[int, int], str] = field(default_factory=dict)
    listeners: set[Listener] = field(default_factory=set)
    closed: bool = False
    # the close code of the room's sockets once it closed: 1012 (restart, idle) or 4001 (moved)
    close_code: int = 1012
    last_active: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.mode = Mode(self.mode)
        self.status = Status(self.status)
        self.settings = table_settings(self.mode, self.settings)
        self.lock = asyncio.Lock()
        self.rng: random.Random = seeded(self.services, self.variant)
        self.publisher = Publisher()
        self.consents = Consents()
        self._countdown: asyncio.Task[None] | None = None  # the next deal's (consents)
        self.bots = BotDriver()
        self.live = Live()
        self._clock: asyncio.Task[None] | None = None  # the earliest deadline's (live.py)
        self.stored_clock: dict[str, Any] | None = None  # games.clock as loaded
        # PostgreSQL: this process's lease of the room; every write is fenced by it (leases.py)
        self.lease: Lease | None = None
        self.chat = Chat()
        self._fill: asyncio.Task[None] | None = None  # a public table's filling (public.py)

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_stored(cls, services: RoomServices, stored: repo.StoredGame) -> Room:
        """Rebuild a room from its rows by replaying its record (RULES.md §12)."""
        g = stored.game
        room = cls(
            services=services,
            game_id=g.id,
            variant=g.variant,
            players=g.players,
            options=stored_options(g.variant, g.options),
            mode=Mode(g.mode),
            status=Status(g.status),
            spectators_allowed=g.spectators,
            host_id=g.host_id,
            seats=[Seat.from_row(s) for s in stored.seats],
            created_at=g.created_at,
            updated_at=g.updated_at,
            rematch_of=g.rematch_of,
            rematch_id=g.rematch_id,
            public=g.public,
            settings=dict(g.settings or {}),
        )
        record = stored.record()
        if record is not None:
            try:
                room.state, room.by = replay_by(record)
            except (RecordSchemaError, RecordRuleError) as exc:
                raise RuntimeError(f"game {g.id}: stored record does not replay: {exc}") from exc
        room.stored_clock = g.clock
        room.deals = len(stored.deals)
        room.rng = seeded(services, room.variant, room.deals)
        room.seq = len(stored.actions)
        room.version = room.deals + room.seq
        # the version each client id was acknowledged with: deals and actions in record order
        version = 0
        by_deal: dict[int, list[repo.ActionRow]] = {}
        for a in stored.actions:
            by_deal.setdefault(a.deal_number, []).append(a)
        for d in stored.deals:
            version += 1
            for a in by_deal.get(d.number, []):
                version += 1
                if a.client_id is not None:
                    room.remember_client_id(a.seat, a.client_id, version)
        room.consents.restore(g.consents, room.facts())
        return room

    async def after_load(self) -> None:
        """Finish what a crash, a freeze or a failover may have interrupted between two
        transactions. Every action the server owes in a stored state is re-driven here, one
        by one:

        * the awards of a finished deal or match (a no-op once written);
        * a finished match's status;
        * a deal thrown in: the next deal is dealt;
        * a consent (Continue, rematch) that every seat it needs had already given: the
          next deal is dealt, or the rematch created, now; an incomplete one waits again
          (a friends countdown starts again);
        * the decision clocks: each running one gets at least the time it had left when the
          server went away, plus ``GRACE_SECONDS`` (live.py ``restored``);
        * a bot's turn, a stand-in's turn, forced play, a claim's play-out (the replayed
          state's claimer) and the bela-2p exchange window: the driver takes them up as soon
          as a player is connected (bots wait for the humans; ``schedule_bots`` on attach),
          and ``schedule_bots`` is called here as well."""
        async with self.lock:
            state = self.state
            if state is None:
                return
            awards = self.services.awards
            if awards is not None and state.phase in (Phase.DEAL_OVER, Phase.MATCH_OVER):
                award = await awards.prepare(self, state, live=False)  # a no-op once awarded
                if award is not None:
                    awards.committed(await self.store(award))
            if state.phase is Phase.MATCH_OVER and self.status != FINISHED:
                await self.store(
                    repo.record_step(self.game_id, status=FINISHED.value, scores=list(state.scores))
                )
                self.status = FINISHED
            if state.phase is Phase.DEAL_OVER and deals_at_once(state, self.board):
                await self.deal_next(state)
            else:
                await self._resume_consents()
            await self.restore_clock(self.stored_clock)
            self.schedule_bots()

    # ------------------------------------------------------------------ queries

    @property
    def url(self) -> str:
        return self.services.url(self.game_id)

    def human_seats(self) -> list[int]:
        return [s.seat for s in self.seats if s.kind == "human"]

    def remember_client_id(self, seat: int, client_id: str, version: int) -> None:
        ids = self.client_ids
        ids[f"{seat}:{client_id}"] = version
        if len(ids) > CLIENT_IDS:
            del ids[next(iter(ids))]

    def seats_of(self, identity_id: int) -> tuple[int, ...]:
        return tuple(s.seat for s in self.seats if s.identity_id == identity_id)

    def connected_seats(self) -> set[int]:
        return connected_seats(self.listeners)

    def human_listeners(self) -> bool:
        """Whether a player (not only spectators) is connected."""
        return any(listener.seats for listener in self.listeners)

    def is_paused(self) -> bool:
        """A friends game waiting for a human seat's connection (seating.py ``is_paused``)."""
        if self.mode != Mode.FRIENDS or self.status != PLAYING:
            return False
        connected = self.connected_seats()
        clock = self.clock_seconds() is not None
        stand_in = self.stand_in_seats(connected)
        return is_paused(self.mode, self.status, clock, self.human_seats(), connected, stand_in)

    def stand_in_seats(self, connected: set[int] | frozenset[int]) -> frozenset[int]:
        """The seats the stand-in plays now, ``connected`` being the seats held by an open
        connection (live.py ``stood_in``)."""
        return frozenset(s.seat for s in self.seats if stood_in(s, self.status, connected))

    def consent_kind(self) -> str | None:
        return self.consents.kind(self.facts())

    @property
    def board(self) -> bool:
        """A tournament board (``settings.board``): the game is that one deal."""
        return bool(self.settings.get("board"))

    def facts(self) -> Facts:
        """What the parts that decide read of the room now (model.py ``Facts``)."""
        humans = tuple(self.human_seats())
        connected = frozenset(self.connected_seats())
        return Facts(
            state=self.state,
            status=self.status,
            mode=self.mode,
            version=self.version,
            board=self.board,
            rematch_id=self.rematch_id,
            humans=humans,
            connected=connected,
            stand_in=self.stand_in_seats(connected),
        )

    def bot_level(self) -> str | None:
        levels = [s.level for s in self.seats if s.kind == "bot"]
        return levels[0] if levels else None

    def spectator_count(self) -> int:
        return sum(1 for listener in self.listeners if not listener.seats)

    def moves_by(self) -> list[dict[str, Any]]:
        """The moves of the current deal that their player did not make, as the events that
        said so (``card_played`` with its card, ``bid`` for a seat's last call), for a page
        that opens the table mid-deal: the cards were played face up, the calls aloud."""
        state = self.state
        if state is None:
            return []
        deal = len(state.logs)
        plays: list[dict[str, Any]] = []
        last_call: dict[int, str | None] = {}
        for index, (seat, action) in enumerate(state.actions):
            by = self.by.get((deal, index))
            if isinstance(action, Play):
                if by is not None:
                    card = action_to_json(action)["card"]
                    plays.append({"type": "card_played", "seat": seat, "card": card, "by": by})
            elif isinstance(action, (Pass, Bid, Double, Redouble)):
                last_call[seat] = by
        calls = [{"type": "bid", "seat": s, "by": by} for s, by in last_call.items() if by]
        return calls + plays

    def room_json(self, identity_id: int | None) -> out.RoomInfo:
        """``Room`` of docs/protocol.md, as ``identity_id`` sees it."""
        connected = self.connected_seats()
        facts = self.facts()
        return {
            "game_id": self.game_id,
            "mode": self.mode,
            "variant": self.variant,
            "players": self.players,
            "options": dict(self.options),
            "status": self.status,
            "url": self.url,
            "host": identity_id is not None and identity_id == self.host_id,
            "seats": [
                {
                    "seat": s.seat,
                    "kind": s.kind,
                    "name": s.name,
                    "level": s.level,
                    "taken": s.kind == "bot" or s.identity_id is not None,
                    "connected": s.kind == "bot" or s.seat in connected,
                    "you": identity_id is not None and s.identity_id == identity_id,
                    "xp_level": self._xp_level(s),
                    "deadline": self.live.deadlines.get(s.seat),
                    "stand_in": s.stand_in if s.kind == "human" else None,
                    "away_since": self.live.away_since_ms(s, connected),
                    "stand_in_votes": sorted(self.live.votes.get(s.seat, ())),
                    "open": s.open,
                    "heir": (s.heir_name or "") if s.heir_id is not None else None,
                }
                for s in self.seats
            ],
            "paused": self.is_paused(),
            "consent": self.consents.info(facts),
            "next_deal": self.consents.next_deal_info(facts),
            "level": self.bot_level(),
            "spectators": self.spectator_count(),
            "spectators_allowed": self.spectators_allowed,
            "rematch": (
                {"game_id": self.rematch_id, "url": self.services.url(self.rematch_id)}
                if self.rematch_id
                else None
            ),
            "version": self.version,
            "settings": {
                "clock": self.settings["clock"],
                "stand_in": self.settings["stand_in"],
                "away_seconds": self.settings["away_seconds"],
                "chat": self.settings["chat"],
                "spectator_chat": self.settings["spectator_chat"],
                "board": self.settings["board"],
            },
            "clock_seconds": self.clock_seconds(),
            "public": self.public,
            "rated": bool(self.settings.get("rated", True)),
            "now": self.live.now_ms(),
        }

    def _xp_level(self, seat: Seat) -> int | None:
        """The level (docs/players.md) of the browser holding a human seat, when known."""
        levels = self.services.levels
        if levels is None or seat.kind != "human" or seat.identity_id is None:
            return None
        level: int | None = levels.get(seat.identity_id)
        return level

    def summary(self, identity_id: int | None) -> dict[str, Any]:
        """``GameSummary`` of docs/protocol.md."""
        room = self.room_json(identity_id)
        return {
            "game_id": self.game_id,
            "url": self.url,
            "variant": self.variant,
            "players": self.players,
            "mode": self.mode,
            "status": self.status,
            "seats": room["seats"],
            "created_at": out.iso_time(self.created_at),
            "updated_at": out.iso_time(self.updated_at),
            "scores": list(self.state.scores) if self.state is not None else None,
        }

    async def record_for(self, identity_id: int) -> dict[str, Any]:
        """``record``, also for a browser that a tournament lets read this board's tables
        (``services.board_reader``: a board it has played, or after the event)."""
        try:
            return self.record(identity_id)
        except CommandError:
            reader = self.services.board_reader
            if not self.settings.get("board") or reader is None:
                raise
            if not await reader(self.game_id, identity_id):
                raise
            return self.record(identity_id, granted=True)

    def record(self, identity_id: int, granted: bool = False) -> dict[str, Any]:
        """The finished deals' record, for the players (and, when allowed, the spectators).

        Never the deal in progress (RULES.md §13): ``dump(include_current=False)``.
        """
        if not granted and not self.seats_of(identity_id) and not self.spectators_allowed:
            raise CommandError("not_allowed", "only the players of this game may read its record")
        meta: dict[str, Any] = {"game_id": self.game_id, "names": [s.name for s in self.seats]}
        if self.holders:  # docs/record-format.md "Seat holders"
            meta["holders"] = holders_json(self.holders)
        if self.settings.get("board"):  # a tournament board: its event, round, board, table
            meta.update(self.settings["board"])
        if self.state is None:  # waiting: nothing dealt yet
            rules = get_rules(self.variant, self.players, self.options)
            return {
                "format": FORMAT,
                "variant": self.variant,
                "players": self.players,
                "options": rules.non_default_options(),
                "first_dealer": None,
                "deals": [],
                "meta": meta,
            }
        return dump(self.state, include_current=False, meta=meta, by=self.by)

    # ------------------------------------------------------------------ storing

    async def store(self, work: Any) -> Any:
        """Commit one write of this room (the group-commit writer); with a lease, fenced: if the
        lease is no longer ours nothing is committed, the room closes (``moved``) and
        ``RoomMoved`` is raised, so no acknowledgement is ever sent for it.

        A write once submitted commits even if its caller is cancelled meanwhile (a clock
        rearmed by a player's return, a bot's turn that ended): the caller must then still apply
        what was stored, or the room's ``seq`` and ``deals`` would lag behind its record and its
        next write would collide with the stored one. So a cancellation that arrives during the
        write waits for it, returns its result, and is delivered again at the caller's next
        ``await``; every caller applies a stored write without awaiting in between."""
        write = asyncio.ensure_future(self._store(work))
        try:
            return await asyncio.shield(write)
        except asyncio.CancelledError:
            if write.cancelled():
                raise
        while not write.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait({write})
        task = asyncio.current_task()
        if write.cancelled() or write.exception() is not None:
            raise asyncio.CancelledError  # nothing was stored: the cancellation goes on now
        if task is not None:
            task.uncancel()
            task.cancel()  # raised at the caller's next await, once the write is applied
        return write.result()

    async def _store(self, work: Any) -> Any:
        lease = self.lease
        if lease is None:
            return await self.services.writer.submit(work)
        try:
            return await self.services.writer.submit(Fenced(lease, work))
        except LeaseLost:
            log.warning(
                "a write was refused: the room's lease is another process's now",
                extra=game_fields(self.game_id, event="write_fenced", epoch=lease.epoch),
            )
            self.moved()
            raise RoomMoved(self.game_id) from None

    def moved(self) -> None:
        """The lease is lost: refuse every command, close the sockets with ``CLOSE_MOVED`` (the
        clients reconnect, through the proxy, to the new owner), stop bots and clocks."""
        if self.lease is None:
            return
        log.warning(
            "room lease lost: the room moved to another process",
            extra=game_fields(self.game_id, event="lease_lost", epoch=self.lease.epoch),
        )
        self.lease = None
        self.closed = True
        self.close_code = CLOSE_MOVED
        for listener in list(self.listeners):
            listener.close(CLOSE_MOVED, "moved: reconnect")
        self.listeners.clear()
        lost = self.services.lost
        if lost is not None:
            lost(self)

    # ------------------------------------------------------------------ publishing

    def send(self, listener: Listener, message: Any) -> None:
        listener.send(out.dumps(message))

    def broadcast(self, message: Any) -> None:
        text = out.dumps(message)
        for listener in list(self.listeners):
            listener.send(text)

    def state_message(self, listener: Listener) -> out.StateMsg:
        view, views = views_of(self.state, listener.seats)
        return out.state(
            self.version,
            listener.seats,
            view,
            views,
            self.room_json(listener.identity_id),
            self.chat.history(self.settings["chat"]),
            self.moves_by(),
        )

    def send_state(self, listener: Listener) -> None:
        self.send(listener, self.state_message(listener))
        self.publisher.state_sent[listener] = self.version

    def broadcast_room(self, skip: Listener | None = None) -> None:
        for listener in list(self.listeners):
            if listener is not skip:
                self.send(listener, out.room(self.room_json(listener.identity_id)))
        lobby = self.services.lobby
        if lobby is not None:  # the seats may have changed: the lobby reads them (lobby.py)
            lobby.room_changed(self)
        push = getattr(self.services, "push", None)
        if push is not None:  # a table starting, a guest seated (app/web/push.py)
            push.room_changed(self)

    def publish(self, state: State, events: list[Event]) -> Step:
        """The change is committed: make it the current version and send it to everyone (the
        texts are made by the publisher, once per seats tuple)."""
        self.version += 1
        before = self.state
        self.state = state
        wanted = {listener.seats for listener in self.listeners}
        wanted.update(self.seats_of(s.identity_id) for s in self.seats if s.identity_id is not None)
        step = self.publisher.publish(self.version, wanted, before, state, events)
        texts = step.texts
        for listener in list(self.listeners):
            listener.send(texts[seats_key(listener.seats)])
        push = getattr(self.services, "push", None)  # None: a room built without services
        if push is not None:  # the turn of a player whose page is hidden (app/web/push.py)
            push.published(self)
        self.last_active = time.monotonic()
        return step

    # ------------------------------------------------------------------ connections

    def attach(self, listener: Listener) -> None:
        """A client connected: send it the full state; tell the others if presence changed."""
        if self.closed:
            raise RoomClosed(self.game_id)
        before = self.connected_seats()
        self.listeners.add(listener)
        self.last_active = time.monotonic()
        after = self.connected_seats()
        self.presence(before, after)
        self.send_state(listener)  # carries the room too
        if after != before or not listener.seats:
            self.broadcast_room(skip=listener)
        self.schedule_bots()
        if listener.seats and self.public:
            self.arm_fill()  # a public table fills once a player is there

    def detach(self, listener: Listener) -> None:
        if listener not in self.listeners:
            return
        before = self.connected_seats()
        self.listeners.discard(listener)
        self.last_active = time.monotonic()
        after = self.connected_seats()
        self.presence(before, after)
        if after != before or not listener.seats:
            self.broadcast_room()
            self.consent_presence_changed()

    def refresh_listener_seats(self) -> None:
        """A connected listener's seats follow its identity (after a swap or a leave)."""
        for listener in list(self.listeners):
            new = self.seats_of(listener.identity_id)
            if new != listener.seats:
                listener.seats = new
                self.send_state(listener)

    def resume(self, listener: Listener, version: int) -> None:
        """Send what the client missed after ``version`` (the publisher's buffer), or a fresh
        state."""
        missed = self.publisher.missed(listener, version, self.version)
        if missed is None:
            self.send_state(listener)
            return
        for text in missed:
            listener.send(text)

    # ------------------------------------------------------------------ seats

    async def join(self, identity_id: int, name: str | None) -> JoinResult:
        """Reclaim this browser's seats, or take the next free human seat, or watch."""
        async with self._open():
            held = self.seats_of(identity_id)
            if held:
                return JoinResult("seat", held, self.room_json(identity_id))
            joined = joining(identity_id, name, self.seats, self.status)
            if joined is not None:
                seats, seat = joined
                await self._seat_players(seats, [seat])
                return JoinResult("seat", (seat.seat,), self.room_json(identity_id))
            if self.spectators_allowed:
                return JoinResult("spectator", (), self.room_json(identity_id))
            return JoinResult("full", (), self.room_json(identity_id))

    async def _seat_players(
        self,
        seats: list[Seat],
        changed: list[Seat],
        committed: Callable[[], None] | None = None,
        extra: Any = None,
    ) -> None:
        """Make ``seats`` the room's (``changed`` are the ones that differ), stored first; start
        the match when every human seat is taken. ``committed`` (the sender's ack) is called
        once the change is stored, before anything is broadcast. ``extra``: a work stored in
        the same transaction."""
        rows = [s.row() for s in changed]
        if not starts(self.status, seats):
            save_work = repo.save_seats(self.game_id, rows)
            await self.store(then(save_work, extra) if extra is not None else save_work)
            if committed is not None:
                committed()
            self.seats = seats
            self.refresh_listener_seats()
            self.broadcast_room()
            return
        state = new_match(self.variant, self.players, self.options, rng=self.rng)
        deal = repo.DealRow(0, state.dealer, deck_strings(state))
        deadlines = self.plan_clock(state, seats, PLAYING)  # the first decision's clock
        clock = self.clock_row(deadlines, self.version + 1)
        values: dict[str, Any] = {"clock": clock} if clock is not None else {}
        save = repo.save_seats(self.game_id, rows, status=PLAYING.value, **values)
        start_work = then(save, repo.record_step(self.game_id, deals=[deal]))
        await self.store(then(extra, start_work) if extra is not None else start_work)
        if committed is not None:
            committed()
        self.seats = seats
        self.status = PLAYING
        self.deals = 1
        self.refresh_listener_seats()
        self.set_clock(deadlines)
        self.stop_fill()
        self.broadcast_room()
        self.publish(state, [Event("deal_started", {"number": 0, "dealer": state.dealer})])
        self.schedule_bots()

    # ------------------------------------------------------------------ public tables

    async def sit(self, identity_id: int, seat: int | None, name: str | None) -> dict[str, Any]:
        """ "Sit here" at a public table (``seat``; None: any free seat): a free seat of a
        waiting table is taken at once; an open computer seat of a table in play is taken at
        the end of the deal (public.py ``sit_choice``). ``{"role": "seat" | "heir", "seat": n}``."""
        async with self._open():
            role, target = sit_choice(identity_id, seat, self.public, self.status, self.seats)
            if role == "take":
                await self._take_seat(identity_id, target, name)
                return {"role": "seat", "seat": target}
            if role == "inherit":
                new = self.seats[target].copy()
                new.heir_id, new.heir_name = identity_id, name
                await self.store(repo.save_seats(self.game_id, [new.row()]))
                self.seats[target] = new
                self.broadcast_room()
                return {"role": "heir", "seat": target}
            return {"role": role, "seat": target}

    async def set_public(self, identity_id: int, public: bool, rated: bool | None) -> None:
        """The host lists the waiting table in the lobby, or takes it off (public.py)."""
        async with self._open():
            check_listing(identity_id, self.host_id, self.mode, self.status)
            settings = dict(self.settings)
            if public and not self.public:
                settings = public_settings(settings, self.live.now_ms())
            if rated is not None:
                settings["rated"] = rated
            await self.store(repo.save_seats(self.game_id, [], public=public, settings=settings))
            self.public = public
            self.settings = settings
            self.arm_fill()
            self.broadcast_room()

    def fill_at_ms(self) -> int | None:
        """When the free seats of this waiting public table go to computer players."""
        return fill_at_ms(
            self.public,
            self.status,
            self.mode,
            self.settings,
            self.live.loaded_at,
            self.services.settings.public_fill_seconds,
        )

    def arm_fill(self) -> None:
        """Wait for the fill time (a no-op unless the table is public and waiting)."""
        self.stop_fill()
        at = self.fill_at_ms()
        if at is None or self.closed:
            return
        delay = max(0.0, at / 1000 - self.live.now())
        self._fill = asyncio.create_task(self._fill_later(delay), name=f"fill-{self.game_id}")

    def stop_fill(self) -> None:
        task, self._fill = self._fill, None
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    async def _fill_later(self, delay: float) -> None:
        await asyncio.sleep(delay)
        # nobody to play with: armed again when a player connects
        await self.post(
            Fill(),
            lambda: (
                self.fill_at_ms() is not None and any(listener.seats for listener in self.listeners)
            ),
        )

    async def fill(self) -> None:
        """Computer players of the stand-in's level in the free seats, and the match starts
        (the caller holds the lock). Each takes the seat as an ``open`` one."""
        seats, changed = filled(self.seats, self.stand_in_level())
        if not changed:
            return
        holders = holder_rows(changed, 0)
        log.info(
            "public table filled with computer players",
            extra=game_fields(self.game_id, event="public_filled", seats=[s.seat for s in changed]),
        )
        await self._seat_players(
            seats, changed, extra=public_store.insert_holders(self.game_id, holders)
        )
        self.holders.extend(holders)

    def _handed_over(self, seats: list[Seat]) -> None:
        """The hand-over of the end of a deal is committed (public.py ``hand_over``): the new
        holders sit (their connections get seats)."""
        self.holders.extend(holder_rows(seats, self.deals))  # the next deal is not counted yet
        for s in seats:
            self.seats[s.seat] = s
        self.consents.forget(tuple(s.seat for s in seats))
        self.refresh_listener_seats()
        log.info(
            "computer seats handed to humans",
            extra=game_fields(
                self.game_id, event="seat_handed_over", seats=[s.seat for s in seats]
            ),
        )

    async def swap_seats(self, identity_id: int, pairs: list[tuple[int, int]]) -> out.RoomInfo:
        """The host moves occupants between seats (teams), only before the first deal."""
        async with self._open():
            seats, changed = swapped(identity_id, self.host_id, self.status, self.seats, pairs)
            await self.store(repo.save_seats(self.game_id, [s.row() for s in changed]))
            self.seats = seats
            self.refresh_listener_seats()
            self.broadcast_room()
            return self.room_json(identity_id)

    async def set_seat(
        self, listener: Listener, seat: int, kind: str, level: str | None, msg_id: str | None
    ) -> None:
        """The host puts a computer player on a free seat, or frees a computer player's seat,
        before the first deal (seating.py ``seat_set``). The last free seat filled starts the
        match."""
        async with self._command(listener, msg_id):
            seats, changed = seat_set(
                listener.identity_id,
                self.host_id,
                self.mode,
                self.status,
                self.seats,
                seat,
                kind,
                level,
            )
            await self._seat_players(seats, changed, self._acker(listener, msg_id))

    async def take_seat(
        self, listener: Listener, seat: int, name: str | None, msg_id: str | None
    ) -> None:
        """A player moves to a free seat in the waiting room (seating.py ``seat_taken``)."""
        async with self._command(listener, msg_id):
            await self._take_seat(listener.identity_id, seat, name, self._acker(listener, msg_id))

    async def _take_seat(
        self,
        identity_id: int,
        seat: int,
        name: str | None,
        committed: Callable[[], None] | None = None,
    ) -> None:
        taken = seat_taken(identity_id, seat, name, self.mode, self.status, self.seats)
        if taken is None:  # already there
            if committed is not None:
                committed()
            return
        await self._seat_players(*taken, committed)

    def _ack(self, listener: Listener, msg_id: str | None) -> None:
        """Acknowledge a command at the room's version (nothing without an id)."""
        if msg_id is not None:
            self.send(listener, out.ack(msg_id, self.version))

    def _acker(self, listener: Listener, msg_id: str | None) -> Callable[[], None] | None:
        """The ack of a command, to send once it is stored (None without an id)."""
        if msg_id is None:
            return None
        return lambda: self.send(listener, out.ack(msg_id, self.version))

    async def rename(self, identity_id: int, name: str) -> None:
        async with self.lock:
            changed = False
            for s in self.seats:
                if s.identity_id == identity_id and s.name != name:
                    s.name = name
                    changed = True
            if changed:
                self.broadcast_room()

    async def leave(self, identity_id: int) -> out.RoomInfo:
        """A player leaves a friends game in progress: the stand-in plays his seats to the end
        of the match (``_leave``)."""
        async with self._open():
            return await self._leave(identity_id)

    async def leave_table(self, listener: Listener, msg_id: str | None) -> None:
        """``leave`` over the socket (``leave`` above)."""
        async with self._command(listener, msg_id):
            if not listener.seats:
                raise CommandError("not_allowed", "spectators hold no seat")
            await self._leave(listener.identity_id)
            self._ack(listener, msg_id)

    async def _leave(self, identity_id: int) -> out.RoomInfo:
        """His seats stay his, and the stand-in plays them to the end of the match
        (``stand_in`` = "left", seating.py ``leaving``), so the others can finish. He earns no
        XP for the match and is rated as having lost (docs/players.md); his seats are
        remembered in ``game_leavers``. Coming back through the link and acting (or ``back``)
        takes the seats back; the leave still counts."""
        from app.persistence import players as player_store

        seats, held = leaving(identity_id, self.mode, self.status, self.seats)
        leavers = [player_store.LeaverRow(seat, identity_id, self.deals - 1) for seat in held]
        save = repo.save_seats(self.game_id, [seats[seat].row() for seat in held])
        game_id = self.game_id

        def remember(session: Any) -> None:  # a seat left once before keeps its first row
            known = {row.seat for row in player_store.leavers(session, game_id)}
            new = [row for row in leavers if row.seat not in known]
            if new:
                player_store.insert_leavers(game_id, new)(session)

        await self.store(then(save, remember))
        self.seats = seats
        for seat in held:
            self.live.votes.pop(seat, None)
        self.broadcast_room()
        await self.check_consents()
        self.schedule_bots()
        log.info(
            "player left",
            extra=game_fields(self.game_id, held[0], event="seat_left", seats=list(held)),
        )
        return self.room_json(identity_id)

    # ------------------------------------------------------------------ the clock and the stand-in

    async def stand_in(self, listener: Listener, seat: int, msg_id: str | None) -> None:
        """``stand_in``: agree to let the stand-in play an away seat (live.py ``vote``
        decides); once every other player agreed, the seat's ``stand_in`` is stored."""
        async with self._command(listener, msg_id):
            away = int(self.settings.get("away_seconds", 120))
            connected = self.connected_seats()
            taken, votes = self.live.vote(
                listener, seat, self.mode, self.status, self.seats, connected, away
            )
            if taken is None:
                self.live.votes[seat] = votes
                self._ack(listener, msg_id)
                self.broadcast_room()
                return
            await self._save_seats([taken])
            self.live.votes.pop(seat, None)
            self._ack(listener, msg_id)
            log.info(
                "stand-in plays an away seat",
                extra={"event": "stand_in", "game": self.game_id, "seat": seat},
            )
            self.broadcast_room()
            await self.check_consents()
            self.schedule_bots()

    async def back(self, listener: Listener, msg_id: str | None) -> None:
        """``back``: the stand-in stops for every seat the sender holds."""
        async with self._command(listener, msg_id):
            if not listener.seats:
                raise CommandError("spectator", "spectators hold no seat")
            held = [self.seats[s] for s in listener.seats if self.seats[s].stand_in is not None]
            if not held:
                raise CommandError("not_allowed", "the stand-in plays none of your seats")
            changed = []
            for seat in held:
                row = seat.copy()
                row.stand_in = None
                changed.append(row)
            await self._save_seats(changed)
            self._ack(listener, msg_id)
            self.broadcast_room()
            self.schedule_bots()

    async def _save_seats(self, seats: list[Seat]) -> None:
        """Store changed seats, then make them the room's."""
        try:
            await self.store(repo.save_seats(self.game_id, [s.row() for s in seats]))
        except Exception:
            log.exception(
                "could not store a seat", extra={"event": "store_failed", "game": self.game_id}
            )
            raise CommandError("server_error", "the change could not be saved; try again") from None
        for s in seats:
            self.seats[s.seat] = s

    def clock_seconds(self) -> float | None:
        """The length of a decision, or None when the table has no clock (live.py)."""
        return clock_seconds(self.mode, self.settings, self.services.settings.clock_seconds)

    def stand_in_level(self) -> str:
        return stand_in_level(self.settings)

    def stand_in_active(self, seat: int) -> bool:
        """Whether the stand-in plays ``seat`` now (live.py ``stood_in``)."""
        return stood_in(self.seats[seat], self.status, self.connected_seats())

    def presence(self, before: set[int], after: set[int]) -> None:
        """Connections opened or closed (seating.py): away times start and end; a clock that
        ran out while nobody was there is handled once a player is back."""
        if self.live.presence(before, after):
            self.rearm_clock()

    def plan_clock(
        self,
        state: State | None,
        seats: list[Seat] | None = None,
        status: Status | None = None,
    ) -> dict[int, int]:
        """The deadlines of the decisions ``state`` starts (a new step: nobody agreed yet);
        ``seats`` and ``status``: the room's once the step is applied, when they change with
        it (the first deal)."""
        seconds = self.clock_seconds()
        if seconds is None or state is None:
            return {}
        seats = self.seats if seats is None else seats
        status = self.status if status is None else status
        connected = self.connected_seats()
        stand_in = {s.seat for s in seats if stood_in(s, status, connected)}
        waited = decisions(state, set(), status, seats, self.mode, self.board, stand_in)
        return self.live.plan(seconds, waited)

    def clock_row(self, deadlines: dict[int, int], version: int) -> dict[str, Any] | None:
        """``games.clock`` for ``deadlines`` at ``version`` (None without a clock)."""
        return self.live.stored(self.clock_seconds(), deadlines, version)

    def set_clock(self, deadlines: dict[int, int]) -> None:
        self.live.deadlines = dict(deadlines)
        self.rearm_clock()

    async def restore_clock(self, stored: dict[str, Any] | None) -> None:
        """After a load: each running clock gets at least the time it had left when the server
        went away, plus the grace (live.py ``restored``), and is written back (the caller
        holds the lock)."""
        if self.clock_seconds() is None or self.status != PLAYING:
            return
        fresh = {
            seat: ms
            for seat, ms in self.plan_clock(self.state).items()
            if seat not in self.consents.agreed
        }
        deadlines = self.live.restored(stored, self.version, fresh)
        await self.store(
            repo.save_seats(self.game_id, [], clock=self.clock_row(deadlines, self.version))
        )
        self.set_clock(deadlines)

    def rearm_clock(self) -> None:
        """Wait for the earliest running deadline."""
        self.stop_clock()
        earliest = self.live.earliest()
        if earliest is None or self.closed:
            return
        seat, deadline = earliest
        self._clock = asyncio.create_task(
            self._expire(seat, deadline, self.version), name=f"clock-{self.game_id}-{seat}"
        )

    def stop_clock(self) -> None:
        task, self._clock = self._clock, None
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    async def _expire(self, seat: int, deadline: int, version: int) -> None:
        await asyncio.sleep(max(0.0, deadline / 1000 - self.live.now()))
        if not self.unattended and not self.human_listeners():
            return  # nobody at the table: handled when someone connects (presence)
        try:
            await self._play_for(seat, deadline, version)
        except asyncio.CancelledError:
            raise
        except RoomClosed as exc:  # expected: the room moved or left memory meanwhile
            log.info(
                "stand-in move dropped: the room closed here",
                extra={
                    "event": "stand_in_dropped",
                    "game": self.game_id,
                    "seat": seat,
                    "error": type(exc).__name__,
                },
            )
            return
        except Exception as exc:
            log.error(
                "stand-in failed to act",
                extra={
                    "event": "stand_in_failed",
                    "game": self.game_id,
                    "seat": seat,
                    "error": f"{type(exc).__name__}: {exc}",
                },
            )
            await asyncio.sleep(STAND_IN_RETRY_SECONDS)
            if self._clock is asyncio.current_task():
                self._clock = None
                self.rearm_clock()

    def _clock_still(self, seat: int, deadline: int, version: int) -> bool:
        return (
            not self.closed
            and self.version == version
            and self.live.deadlines.get(seat) == deadline
        )

    async def _play_for(self, seat: int, deadline: int, version: int) -> None:
        """The clock of ``seat`` ran out: its stand-in plays this one decision."""
        state = self.state
        if state is None or not self._clock_still(seat, deadline, version):
            return

        def still() -> bool:
            return self._clock_still(seat, deadline, version)

        if current_player(state) == seat:
            action = await self.choose(state, seat, self.stand_in_level())
            await self.post(Act(seat, action, version, "stand_in"), still)
            return
        await self.post(AgreeFor(seat), still)

    def connection_settings(self, listener: Listener, msg_id: str | None) -> None:
        """``settings``: the connection's own settings changed (``auto_play``)."""
        self._ack(listener, msg_id)
        self.schedule_bots()

    # ------------------------------------------------------------------ computer players

    def bot_turn(self) -> Turn | None:
        """The seat the bot driver should play now, and its ``by`` (bot_driver.py
        ``to_act``); None when nobody should."""
        state = self.state
        if self.closed or self.status != PLAYING or state is None:
            return None
        return bot_driver.to_act(
            state,
            self.status,
            self.seats,
            players_here=self.unattended or self.human_listeners(),
            paused=self.is_paused(),
            stand_in=self.stand_in_seats(self.connected_seats()),
            auto_play={
                seat
                for listener in self.listeners
                if getattr(listener, "auto_play", False)
                for seat in listener.seats
            },
        )

    def schedule_bots(self) -> None:
        """Start the turn the driver should play, unless its task already plays it."""
        bots = self.bots
        turn = self.bot_turn()
        if bots.task is not None and not bots.task.done():
            if bots.keeps(self.version, turn):
                return
            bots.task.cancel()  # still waiting, for a turn that is over
            bots.task = bots.waiting = None
        if turn is None:
            return
        seat, by = turn
        bots.task = asyncio.create_task(
            self._bot_turn(seat, by, self.version), name=f"bot-{self.game_id}-{seat}"
        )

    async def think(self, view: dict[str, Any], level: str) -> dict[str, Any]:
        """A bot's answer for ``view``, thought off the event loop (bot_driver.py)."""
        return await bot_driver.think(
            self.services.executor, view, level, self.services.settings.test_seed, self.version
        )

    async def choose(self, state: State, seat: int, level: str) -> Action:
        """What a bot of ``level`` plays for ``seat`` in ``state`` (its view only)."""
        return parse_action(await self.think(seat_view(state, seat), level))

    async def _bot_turn(self, seat: int, by: str | None, version: int) -> None:
        """Play one turn, then hand over: whatever happened (played, stale, failed), the next
        turn is scheduled here, since ``schedule_bots`` called meanwhile (a player's own
        action, for one) found this task alive and left the turn to it."""
        bots = self.bots
        retry_after = 0.0
        try:
            await self._bot_play(seat, by, version)
            bots.failures = 0
        except asyncio.CancelledError:
            raise
        except RoomClosed as exc:
            # expected, handled: the room moved to another process (a woken, fenced-out
            # process) or left memory while the bot thought; whoever holds it now plays on
            log.info(
                "bot move dropped: the room closed here",
                extra=game_fields(
                    self.game_id, seat, event="bot_dropped", error=type(exc).__name__
                ),
            )
            return
        except Exception as exc:
            retry_after = bots.retry_after()
            log.error(
                "bot failed to act",
                extra=game_fields(
                    self.game_id, seat, event="bot_failed", error=f"{type(exc).__name__}: {exc}"
                ),
            )
        finally:
            if bots.task is asyncio.current_task():
                bots.task = bots.waiting = None
        if retry_after:
            await asyncio.sleep(retry_after)
        self.schedule_bots()

    async def _bot_play(self, seat: int, by: str | None, version: int) -> None:
        """Wait, think, and act for ``seat`` if it is still its turn at ``version``."""
        turn = (seat, by)
        state = self.state
        early = state is not None and bool(out_of_turn_actions(state, seat))
        wait = bot_driver.delay(state, seat, by, self.services.settings)
        if wait:
            self.bots.waiting = (seat, by, version)
            await asyncio.sleep(wait)
            self.bots.waiting = None
        state = self.state
        if state is None or self.version != version or self.bot_turn() != turn:
            return
        claims = by != "auto" and by != "claim" and not early and can_claim(state, seat)

        def still() -> bool:
            return self.version == version and self.bot_turn() == turn

        if claims:  # a bot, or a stand-in, claims the rest when it may (RULES.md §15)
            await self.post(Claim(seat, version), still)
            return
        if by == "claim":
            action: Action = claim_action(state)
        elif early:
            action = out_of_turn_actions(state, seat)[0]
        elif by == "auto":
            action = legal_actions(state)[0]
        else:
            level = self.stand_in_level() if by else self.seats[seat].level
            action = await self.choose(state, seat, level or "medium")
        await self.post(Act(seat, action, version, by), still)

    async def stop_bots(self) -> None:
        """Cancel the bot that is thinking (the room is closing)."""
        task = self.bots.task
        if task is not None and not task.done():
            task.cancel()
            # its outcome no longer matters: the room is closing
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # ------------------------------------------------------------------ commands

    def _check_open(self) -> None:
        if self.closed:
            raise RoomClosed(self.game_id)

    async def post(self, command: Command, still: Callable[[], bool] = lambda: True) -> None:
        """A command the room's own timers send it (a bot's turn, the clock's stand-in, the
        next deal's countdown, a public table's filling): run one at a time with every other
        command, and only if the room is still open and ``still()`` still holds when its turn
        comes (the turn it was armed for may be over). Only the room takes its lock."""
        async with self.lock:
            if self.closed or not still():
                return
            await self._run(command)

    async def _run(self, command: Command) -> None:
        """One posted command (the caller holds the lock): the closed set ``Command``."""
        match command:
            case Act(seat, action, version, by):
                await self.execute(seat, action, version, None, None, by=by)
            case Claim(seat, version):
                await self.execute_claim(seat, version, None, None)
            case AgreeFor(seat):
                await self.agree_for({seat})
                self.live.deadlines.pop(seat, None)
                self.rearm_clock()
            case DealNext():
                self._countdown = None
                state = self.state
                assert state is not None
                try:
                    await self.deal_next(state)
                except Exception:
                    log.exception(
                        "could not deal the next deal",
                        extra=game_fields(self.game_id, event="store_failed"),
                    )
            case Fill():
                self._fill = None
                try:
                    await self.fill()
                except Exception:
                    log.exception(
                        "could not fill a public table",
                        extra=game_fields(self.game_id, event="fill_failed"),
                    )
            case _:
                assert_never(command)

    @contextlib.asynccontextmanager
    async def _open(self) -> AsyncIterator[None]:
        """One command at a time, on an open room: the lock, then ``RoomClosed`` if the room
        left memory while the command waited. A refusal (``CommandError``) goes to the caller."""
        async with self.lock:
            self._check_open()
            yield

    @contextlib.asynccontextmanager
    async def _command(
        self, listener: Listener, msg_id: str | None, *, action: bool = False
    ) -> AsyncIterator[None]:
        """``_open`` for a command sent over a socket: a refusal is answered to ``listener``
        with an ``error`` for ``msg_id`` and goes no further. ``action``: a game action's
        refusal also carries the rule as data (``reason``), and a stale one is followed by a
        fresh state."""
        async with self._open():
            try:
                yield
            except CommandError as exc:
                reason = exc.reason if action else None
                self.send(listener, out.error(exc.code, exc.message, msg_id, reason))
                if action and exc.code == "stale_version":
                    self.send_state(listener)

    def _seat_for(self, listener: Listener, seat: int | None) -> int:
        if not listener.seats:
            raise CommandError("spectator", "spectators cannot act")
        if seat is None:
            if len(listener.seats) == 1:
                return listener.seats[0]
            to_act = current_player(self.state) if self.state is not None else None
            if to_act in listener.seats:
                assert to_act is not None
                return to_act
            return listener.seats[0]
        if seat not in listener.seats:
            raise CommandError("not_your_seat", f"seat {seat} is not yours")
        return seat

    async def act(
        self,
        listener: Listener,
        msg_id: str,
        version: int,
        action: WireAction | Action,
        seat: int | None = None,
    ) -> None:
        """A player's action (docs/protocol.md ``action``); answers go to ``listener``."""
        async with self._command(listener, msg_id, action=True):
            actor = self._seat_for(listener, seat)
            known = self.client_ids.get(f"{actor}:{msg_id}")
            if known is not None:  # the same id again: applied once, acknowledged again
                self.send(listener, out.ack(msg_id, known))
                return
            await self.execute(actor, action, version, msg_id, listener)

    async def claim(
        self, listener: Listener, msg_id: str, version: int, seat: int | None = None
    ) -> None:
        """``claim`` (docs/protocol.md): the player about to lead claims every remaining trick
        (RULES.md §15). A claim its seat's view cannot prove is refused (``claim_not_certain``):
        nothing changes and nothing is shown. A valid one shows the claimer's cards to the table
        (the ``claimed`` event) with its first card, and the bot driver plays the rest out."""
        async with self._command(listener, msg_id, action=True):
            actor = self._seat_for(listener, seat)
            known = self.client_ids.get(f"{actor}:{msg_id}")
            if known is not None:  # the same id again: applied once, acknowledged again
                self.send(listener, out.ack(msg_id, known))
                return
            await self.execute_claim(actor, version, msg_id, listener)

    async def execute_claim(
        self, seat: int, version: int, client_id: str | None, sender: Listener | None
    ) -> None:
        """Claim for ``seat`` (its player, its stand-in or a bot; the caller holds the lock):
        checked on the seat's view, then its first card played, marked ``"by": "claim"``."""
        state = self.state
        if self.status == WAITING or state is None:
            raise CommandError("not_allowed", "the game has not started: waiting for players")
        if version != self.version:
            raise CommandError(
                "stale_version", f"you are at version {version}, the game is at {self.version}"
            )
        if self.is_paused():
            raise CommandError("paused", "waiting for every player to be connected")
        try:
            claimed, _ = check_claim(state, seat)
        except IllegalAction as exc:
            code = (exc.reason or {}).get("code", "claim_not_certain")
            raise CommandError(code, str(exc), exc.reason) from None
        await self.execute(seat, claim_action(claimed), version, client_id, sender, by="claim")

    async def execute(
        self,
        seat: int,
        action: WireAction | Action,
        version: int,
        client_id: str | None,
        sender: Listener | None,
        by: str | None = None,
    ) -> None:
        """The one command path of humans, bots and the stand-in; the caller holds
        ``self.lock``. ``by`` (RULES.md §12): who plays the action for a human seat, the
        seat's ``stand_in`` or the server (``auto``, forced play); None for the seat's own
        player, whose action takes the seat back from the stand-in. The step is planned
        (step.py: checked, and what it writes decided, changing nothing), then committed."""
        plan = await plan_step(self.step_table(), seat, action, version, client_id, by)
        await self.commit_step(plan, client_id, sender)

    def step_table(self) -> StepTable:
        """What the plan of a step reads of the room (step.py)."""
        awards = self.services.awards

        async def award(state: State, by: Mapping[tuple[int, int], str]) -> Any:
            assert awards is not None
            return await awards.prepare(self, state, by=by)

        return StepTable(
            game_id=self.game_id,
            state=self.state,
            status=self.status,
            version=self.version,
            seq=self.seq,
            deals=self.deals,
            paused=self.is_paused(),
            board=self.board,
            by=self.by,
            deals_at_once=lambda state: deals_at_once(state, self.board),
            deal=lambda state: start_deal(state, self.rng),
            clock=self.plan_clock,
            stored_clock=self.clock_row,
            cleared_seats=lambda seat, by: cleared_seats(self.seats[seat], by),
            hand_over=lambda state: hand_over(self.game_id, state, self.seats, self.deals),
            award=award if awards is not None else None,
        )

    async def commit_step(
        self, plan: StepPlan, client_id: str | None, sender: Listener | None
    ) -> None:
        """Store a planned step in one transaction; once committed, apply it, acknowledge it
        to ``sender`` and publish it."""
        seat, by = plan.seat, plan.by
        try:
            done = await self.store(plan.work)
        except RoomMoved:
            raise
        except Exception:
            log.exception(
                "could not store an action",
                extra=game_fields(self.game_id, seat, event="store_failed"),
            )
            raise CommandError("server_error", "the move could not be saved; try again") from None

        # Committed: now it is true. Acknowledge, then broadcast.
        awards = self.services.awards
        if plan.award is not None and awards is not None:
            awards.committed(done)
        consent_before, status_before = self.consent_kind(), self.status
        self.seq += 1
        if by is not None:
            self.by[plan.by_key] = by
        for row_seat in plan.cleared:
            self.seats[row_seat.seat] = Seat.from_row(row_seat)
        if client_id is not None:
            self.remember_client_id(seat, client_id, self.version + 1)
        if sender is not None and client_id is not None:
            self.send(sender, out.ack(client_id, self.version + 1))
        self.publish(plan.state, plan.events)
        if plan.handed is not None:  # after the deal's last card: the new holder sees no old hand
            self._handed_over(plan.handed[0])
        if plan.finished:
            self.status = FINISHED
            if self.settings.get("board") and self.services.board_over is not None:
                self.services.board_over(self)
        if plan.next_deal is not None:
            self.deals += 1
            self.publish(*plan.next_deal)
        self.set_clock(plan.deadlines)
        if self.consent_kind() != consent_before or self.status != status_before:
            self.consents.clear()
            self._open_consent()
            self.broadcast_room()
        elif plan.cleared or plan.clock is not None or plan.handed is not None:
            self.broadcast_room()  # the seats' stand-in, deadlines, holders
        self.schedule_bots()

    async def deal_next(self, state: State) -> None:
        """Deal the next deal of a finished one (the caller holds ``self.lock``)."""
        new_state, events = start_deal(state, self.rng)
        deal = repo.DealRow(self.deals, new_state.dealer, deck_strings(new_state))
        deadlines = self.plan_clock(new_state)
        clock = self.clock_row(deadlines, self.version + 1)
        values: dict[str, Any] = {"clock": clock} if clock is not None else {}
        await self.store(repo.record_step(self.game_id, deals=[deal], **values))
        self.deals += 1
        self.consents.clear()
        self._stop_countdown()
        self.publish(new_state, events)
        self.set_clock(deadlines)
        self.broadcast_room()
        self.schedule_bots()

    # ------------------------------------------------------------------ consents

    async def consent(self, listener: Listener, kind: str, msg_id: str | None) -> None:
        """``consent`` of every seat ``listener`` holds (consents.py decides): stored before it
        is acknowledged, so that a restart keeps it; the seats' clocks stop."""
        async with self._command(listener, msg_id):
            consents = self.consents
            agreed = consents.agreeing(listener, kind, self.facts())
            if agreed != consents.agreed:
                await self._store_consent(kind, agreed)
                consents.agreed = agreed
                for seat in listener.seats:  # their clocks stop
                    self.live.deadlines.pop(seat, None)
                self.rearm_clock()
            self._ack(listener, msg_id)
            await self._consent_complete(kind)

    async def agree_for(self, seats: set[int]) -> None:
        """The stand-in agrees to the next deal for ``seats`` (their clocks ran out; the caller
        holds the lock)."""
        kind = self.consent_kind()
        if kind != "next_deal":
            return
        consents = self.consents
        agreed = consents.agreed | (seats & set(self.human_seats()))
        if agreed != consents.agreed:
            await self._store_consent(kind, agreed)
            consents.agreed = agreed
        await self._consent_complete(kind)

    async def check_consents(self) -> None:
        """The seats a consent needs changed (the stand-in took one): go on if everyone left
        agreed, or end a countdown early."""
        facts = self.facts()
        kind = self.consents.kind(facts)
        if kind == "next_deal" and not self.consents.counts_down(facts):
            await self._consent_complete(kind)
        elif kind == "next_deal":
            self.consent_presence_changed()

    def consent_presence_changed(self) -> None:
        """A player left the table during a countdown: if everyone still there has pressed
        Continue, the next deal is dealt now rather than at the deadline."""
        if self.consents.done_early(self.facts()):
            self._stop_countdown()
            self._countdown = asyncio.create_task(
                self._deal_at_deadline(self.version, 0.0), name=f"next-deal-{self.game_id}"
            )

    def _open_consent(self) -> None:
        """The consent asked changed: start the next deal's countdown if it has one."""
        self._stop_countdown()
        if not self.consents.counts_down(self.facts()):
            return
        seconds = float(self.services.settings.next_deal_seconds)
        self.consents.start_countdown(seconds)
        self._countdown = asyncio.create_task(
            self._deal_at_deadline(self.version, seconds), name=f"next-deal-{self.game_id}"
        )

    def _stop_countdown(self) -> None:
        self.consents.deadline = None
        task, self._countdown = self._countdown, None
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    async def _deal_at_deadline(self, version: int, seconds: float) -> None:
        await asyncio.sleep(seconds)
        await self.post(
            DealNext(), lambda: self.version == version and self.consent_kind() == "next_deal"
        )

    async def _resume_consents(self) -> None:
        """After a load: act on a complete agreement at once (the process stopped between
        storing the last Continue and dealing), else wait again (a friends countdown starts
        again from now)."""
        facts = self.facts()
        kind = self.consents.kind(facts)
        if kind is None:
            return
        if self.consents.restored_complete(facts):
            await self._consent_complete(kind)
        elif kind == "next_deal":
            self._open_consent()

    async def _consent_complete(self, kind: str) -> None:
        if not self.consents.complete(self.facts()):
            self.broadcast_room()
            return
        if kind == "next_deal":
            assert self.state is not None
            await self.deal_next(self.state)
        else:
            self.rematch_id = await self.services.create_rematch(self)
            self.consents.clear()
            self.broadcast(out.rematch(self.rematch_id, self.services.url(self.rematch_id)))
            self.broadcast_room()

    async def _store_consent(self, kind: str, agreed: set[int]) -> None:
        """Write the consent being collected, tagged with its kind and the room's version: a
        later action or deal changes the version, which voids the stored agreement."""
        consents = {"kind": kind, "version": self.version, "seats": sorted(agreed)}
        try:
            await self.store(repo.save_seats(self.game_id, [], consents=consents))
        except Exception:
            log.exception(
                "could not store a consent",
                extra=game_fields(self.game_id, event="store_failed", seats=sorted(agreed)),
            )
            raise CommandError(
                "server_error", "the agreement could not be saved; try again"
            ) from None

    async def say(self, listener: Listener, kind: str, text: str, msg_id: str | None) -> None:
        """A table-chat line (chat.py decides who may write); never part of the game or its
        version: stored, acknowledged, then broadcast to every listener of the room."""
        async with self._command(listener, msg_id):
            chat, settings = self.chat, self.services.settings
            chat.check_writer(listener, self.mode, self.settings)
            chat.take_rate(listener, settings.chat_window_seconds, settings.chat_rate)
            seat = listener.seats[0] if listener.seats else None
            name = self.seats[seat].name if seat is not None else getattr(listener, "name", None)
            now = datetime.now(UTC)
            try:
                stored = await self.store(
                    repo.insert_chat(
                        self.game_id, seat, listener.identity_id, name, kind, text, now
                    )
                )
            except Exception:
                log.exception("could not store a chat line", extra={"game": self.game_id})
                raise CommandError(
                    "server_error", "the message could not be saved; try again"
                ) from None
            line = chat.add(stored, seat, name, kind, text, now)
            self._ack(listener, msg_id)
            self.broadcast(out.chat(line))

    async def set_chat(
        self, listener: Listener, chat: bool, spectator_chat: bool, msg_id: str | None
    ) -> None:
        """The host turns chat on or off, and lets spectators write or not (chat.py)."""
        async with self._command(listener, msg_id):
            check_chat_configure(listener, self.mode, self.host_id)
            was_on = bool(self.settings["chat"])
            stored = {**self.settings, "chat": chat, "spectator_chat": spectator_chat}
            await self.store(repo.save_seats(self.game_id, [], settings=stored))
            self.settings = stored
            self._ack(listener, msg_id)
            if chat and not was_on:
                # chat is back: every listener gets the state, which carries the history again
                for other in list(self.listeners):
                    self.send_state(other)
            else:
                self.broadcast_room()

    async def set_level(self, listener: Listener, level: str, msg_id: str | None) -> None:
        async with self._command(listener, msg_id):
            if not listener.seats:
                raise CommandError("spectator", "spectators cannot change the level")
            if self.mode != Mode.COMPUTER or self.settings.get("board"):
                raise CommandError("not_allowed", "the level is set in games against the computer")
            if level not in LEVELS:
                raise CommandError("bad_message", f"level must be one of {', '.join(LEVELS)}")
            bots = [s for s in self.seats if s.kind == "bot"]
            for s in bots:
                s.level = level
            await self.store(repo.save_seats(self.game_id, [s.row() for s in bots]))
            self._ack(listener, msg_id)
            self.broadcast_room()

    async def hint(self, listener: Listener, msg_id: str) -> None:
        """Computer games: the hard bot's suggestion for the listener's seat to act."""
        try:
            if self.mode != Mode.COMPUTER:
                raise CommandError("not_allowed", "hints are for games against the computer")
            if self.settings.get("board"):
                raise CommandError("not_allowed", "no hints in a tournament")
            state = self.state
            to_act = current_player(state) if state is not None else None
            if state is None or to_act is None or to_act not in listener.seats:
                raise CommandError("not_your_turn", "a hint is given on your turn")
            action = await self.think(seat_view(state, to_act), "hard")
            self.send(listener, out.hint(msg_id, action))
        except CommandError as exc:
            self.send(listener, out.error(exc.code, exc.message, msg_id))

    # ------------------------------------------------------------------ life cycle

    @property
    def unattended(self) -> bool:
        """A table that plays on with nobody connected (``settings.unattended``: a live
        tournament table). Its bots and the stand-ins of its absent humans move under the
        clock whether or not anyone is connected, and it is never idle while being played."""
        return bool(self.settings.get("unattended"))

    def is_idle(self, idle_seconds: float) -> bool:
        if self.unattended and self.status == PLAYING:
            return False  # it plays on: evicting it would stop its bots and clocks
        return (
            not self.listeners
            and not self.lock.locked()
            and time.monotonic() - self.last_active >= idle_seconds
        )

    async def close(self, *, code: int = 1012, reason: str = "room closed") -> None:
        """Leave memory: refuse new commands (``RoomClosed``: the caller loads the room again
        from the database), wait for the command in progress, stop the bot, close connections."""
        self.closed = True
        self.close_code = code
        async with self.lock:
            self._stop_countdown()
            self.stop_clock()
            self.stop_fill()
        await self.stop_bots()
        for listener in list(self.listeners):
            listener.close(code, reason)
        self.listeners.clear()


def seeded(services: RoomServices, variant: str, deals: int = 0) -> random.Random:
    """The room's deck generator: real randomness, or (tests: ``ATOUT_TEST_SEED``) one seeded
    with the seed, the variant and the deals already dealt, the same at every run."""
    settings = getattr(services, "settings", None)  # a bare room (tests) has no services
    seed = getattr(settings, "test_seed", None)
    if seed is None:
        return random.SystemRandom()
    return random.Random(f"{seed}:{variant}:{deals}")
