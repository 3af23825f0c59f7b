"""One Room per table: the single in-memory authority of a game.

Everything that changes a game goes through the room, one command at a time (``self.lock``):
players' actions, bots' actions, consents, seat changes. A change is written to the database
first (``CommitQueue.submit`` returns after the commit) and only then applied in memory,
acknowledged and broadcast, each change with a version one higher than the last.

Listeners are the connected clients (the web layer's WebSocket connections). The room never
awaits a listener: ``listener.send(text)`` only queues, so a slow client cannot stall a table.
What a listener may see is computed at send time from the engine's views (RULES.md §13):
events addressed to a seat go only to that seat's holder.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import orjson

from app.bots import LEVELS, choose_action
from app.engine import (
    Event,
    IllegalAction,
    InvalidAction,
    Phase,
    State,
    action_from_json,
    action_to_json,
    apply,
    current_player,
    get_rules,
    new_match,
    seat_view,
    spectator_view,
    start_deal,
)
from app.engine.cards import format_card
from app.engine.record import FORMAT, RecordRuleError, RecordSchemaError, dump, replay
from app.engine.views import seat_fields
from app.persistence import repository as repo
from app.persistence.writer import CommitQueue
from app.rooms.messages import CommandError, RoomClosed, ack, error
from app.settings import Settings

log = logging.getLogger("atout.rooms")

CLIENT_IDS = 256  # action ids remembered per room, to apply a repeated id once
BOT_THINK_SECONDS = 12.0  # the hard level thinks for well under a second here
HISTORY_SIZE = 64  # versions kept per room for ``resume`` (a classic deal is ~37)
WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"
MODES = ("friends", "computer", "local")


class Listener(Protocol):
    """A connected client, as the room sees it (implemented by app/web/ws.py)."""

    identity_id: int
    seats: tuple[int, ...]  # the seats it holds; () for a spectator

    def send(self, text: str) -> None:
        """Queue a message (never blocks)."""

    def close(self, code: int, reason: str) -> None:
        """Ask for the connection to be closed (never blocks)."""


@dataclass
class Seat:
    seat: int
    kind: str  # human | bot
    identity_id: int | None = None
    level: str | None = None
    name: str | None = None

    def row(self) -> repo.SeatRow:
        return repo.SeatRow(self.seat, self.kind, self.identity_id, self.level, self.name)

    @classmethod
    def from_row(cls, row: repo.SeatRow) -> Seat:
        return cls(row.seat, row.kind, row.identity_id, row.bot_level, row.display_name)


@dataclass
class JoinResult:
    role: str  # seat | spectator | full
    seats: tuple[int, ...]
    room: dict[str, Any]


@dataclass
class RoomServices:
    """What a room needs from the outside; the RoomManager provides it."""

    settings: Settings
    writer: CommitQueue
    executor: Executor | None
    create_rematch: Callable[[Room], Awaitable[str]]
    # the player side (app/players): XP and ratings when a match ends, level badges
    awards: Any = None  # app.players.awards.Awards
    levels: Any = None  # app.players.awards.LevelCache

    def url(self, game_id: str) -> str:
        return f"{self.settings.public_base_url}/g/{game_id}"


class Step(NamedTuple):
    """One version of the room as it was sent: the ``update`` text per held-seats key
    (``seats_key``). Only text is kept, so the resume buffer costs the garbage collector
    nothing (a tuple of an int and a dict of strings is not tracked) and holds no game state."""

    version: int
    texts: dict[str, str]


def seats_key(seats: tuple[int, ...]) -> str:
    key = _SEATS_KEYS.get(seats)
    if key is None:
        key = _SEATS_KEYS[seats] = ",".join(map(str, seats))
    return key


_SEATS_KEYS: dict[tuple[int, ...], str] = {}  # seats tuples are few: subsets of 0..3


def changed_fields(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``new`` that differ from ``old``: what an update carries of a view.

    A view's fields are the same all game long (per variant and role; tested over whole
    matches in tests/engine/test_properties.py), so a field left out means "unchanged"."""
    return {k: v for k, v in new.items() if (o := old.get(k, _MISSING)) is not v and o != v}


_MISSING = object()


def _dumps(message: dict[str, Any]) -> str:
    """Compact JSON, UTF-8 as is (orjson: a fifteenth of the stdlib's time on an update)."""
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


def deck_strings(state: State) -> list[str]:
    return [format_card(c) for c in state.deck]


@dataclass
class Room:
    services: RoomServices
    game_id: str
    variant: str
    players: int
    options: dict[str, Any]
    mode: str
    status: str
    spectators_allowed: bool
    host_id: int | None
    seats: list[Seat]
    created_at: Any = None
    updated_at: Any = None
    rematch_of: str | None = None
    rematch_id: str | None = None
    state: State | None = None
    version: int = 0  # = deals dealt + actions applied: the same after a restart
    seq: int = 0  # actions stored
    deals: int = 0  # deals stored
    # "seat:id" -> version the action made; the newest CLIENT_IDS only (a client repeats an id
    # only for its latest action, after a reconnection)
    client_ids: dict[str, int] = field(default_factory=dict)
    listeners: set[Listener] = field(default_factory=set)
    history: deque[Step] = field(default_factory=lambda: deque(maxlen=HISTORY_SIZE))
    consent_agreed: set[int] = field(default_factory=set)
    closed: bool = False
    last_active: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.lock = asyncio.Lock()
        self.rng = random.SystemRandom()
        self._bot_task: asyncio.Task[None] | None = None
        self._bot_failures = 0
        # the seat fields last sent (seat -> seat_fields) and the state they were made of
        self._fields: dict[int, dict[str, Any]] = {}
        self._fields_of: State | None = None

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
            options=dict(g.options),
            mode=g.mode,
            status=g.status,
            spectators_allowed=g.spectators,
            host_id=g.host_id,
            seats=[Seat.from_row(s) for s in stored.seats],
            created_at=g.created_at,
            updated_at=g.updated_at,
            rematch_of=g.rematch_of,
            rematch_id=g.rematch_id,
        )
        record = stored.record()
        if record is not None:
            try:
                room.state = replay(record)
            except (RecordSchemaError, RecordRuleError) as exc:
                raise RuntimeError(f"game {g.id}: stored record does not replay: {exc}") from exc
        room.deals = len(stored.deals)
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
        stored_consents = g.consents
        if (
            stored_consents
            and stored_consents.get("version") == room.version
            and stored_consents.get("kind") == room.consent_kind()
        ):
            humans = set(room.human_seats())
            room.consent_agreed = {s for s in stored_consents.get("seats", []) if s in humans}
        return room

    async def after_load(self) -> None:
        """Finish what a crash may have interrupted between two transactions."""
        async with self.lock:
            state = self.state
            if state is None:
                return
            awards = self.services.awards
            if awards is not None and state.phase in (Phase.DEAL_OVER, Phase.MATCH_OVER):
                award = await awards.prepare(self, state, live=False)  # a no-op once awarded
                if award is not None:
                    awards.committed(await self.services.writer.submit(award))
            if state.phase is Phase.MATCH_OVER and self.status != FINISHED:
                await self.services.writer.submit(
                    repo.record_step(self.game_id, status=FINISHED, scores=list(state.scores))
                )
                self.status = FINISHED
            elif state.phase is Phase.DEAL_OVER and self._deals_automatically(state):
                await self._deal_next(state)

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
        out: set[int] = set()
        for listener in self.listeners:
            out.update(listener.seats)
        return out

    def is_paused(self) -> bool:
        """Friends games pause while a human seat has no connection (RULES.md §9.1)."""
        if self.mode != "friends" or self.status != PLAYING:
            return False
        connected = self.connected_seats()
        return any(seat not in connected for seat in self.human_seats())

    def consent_kind(self) -> str | None:
        state = self.state
        if state is None or self.status == WAITING:
            return None
        if state.phase is Phase.MATCH_OVER:
            return None if self.rematch_id else "rematch"
        if state.phase is Phase.DEAL_OVER and not self._deals_automatically(state):
            return "next_deal"
        return None

    def bot_level(self) -> str | None:
        levels = [s.level for s in self.seats if s.kind == "bot"]
        return levels[0] if levels else None

    def spectator_count(self) -> int:
        return sum(1 for listener in self.listeners if not listener.seats)

    def room_json(self, identity_id: int | None) -> dict[str, Any]:
        connected = self.connected_seats()
        kind = self.consent_kind()
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
                }
                for s in self.seats
            ],
            "paused": self.is_paused(),
            "consent": {
                "kind": kind,
                "agreed": sorted(self.consent_agreed) if kind else [],
                "needed": self.human_seats() if kind else [],
            },
            "level": self.bot_level(),
            "spectators": self.spectator_count(),
            "spectators_allowed": self.spectators_allowed,
            "rematch": (
                {"game_id": self.rematch_id, "url": self.services.url(self.rematch_id)}
                if self.rematch_id
                else None
            ),
            "version": self.version,
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
            "created_at": _iso(self.created_at),
            "updated_at": _iso(self.updated_at),
            "scores": list(self.state.scores) if self.state is not None else None,
        }

    def record(self, identity_id: int) -> dict[str, Any]:
        """The finished deals' record, for the players (and, when allowed, the spectators).

        Never the deal in progress (RULES.md §13): ``dump(include_current=False)``.
        """
        if not self.seats_of(identity_id) and not self.spectators_allowed:
            raise CommandError("not_allowed", "only the players of this game may read its record")
        meta = {"game_id": self.game_id, "names": [s.name for s in self.seats]}
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
        return dump(self.state, include_current=False, meta=meta)

    # ------------------------------------------------------------------ messages

    def _views(self, state: State | None, seats: tuple[int, ...]) -> tuple[Any, dict[str, Any]]:
        if state is None:
            return None, {}
        if not seats:
            return spectator_view(state), {}
        views = {str(s): seat_view(state, s) for s in seats}
        return views[str(seats[0])], (views if len(seats) > 1 else {})

    def state_message(self, listener: Listener) -> dict[str, Any]:
        view, views = self._views(self.state, listener.seats)
        return {
            "type": "state",
            "version": self.version,
            "role": "seat" if listener.seats else "spectator",
            "seats_you_hold": list(listener.seats),
            "view": view,
            "views": views,
            "room": self.room_json(listener.identity_id),
        }

    def _update_text(
        self,
        version: int,
        state: State,
        events: list[tuple[int | None, dict[str, Any]]],
        seats: tuple[int, ...],
        common: dict[str, Any] | None,
        own: dict[int, dict[str, Any]],
    ) -> str:
        """The ``update`` to a listener holding ``seats``: the events it may see (``events``:
        each event's audience and JSON, made once per version) and, of its view(s), only the
        fields that changed since the previous version: ``common``, the changes of the fields
        every seat shares, plus ``own[seat]``, the changes of the seat's own fields (both made
        once per version). Whole views when the previous version is not in this process
        (``common`` is None)."""
        message: dict[str, Any] = {
            "type": "update",
            "version": version,
            "events": [e for to, e in events if to is None or to in seats],
        }
        if common is None:
            view, views = self._views(state, seats)
            message["view"] = view
            if views:
                message["views"] = views
            return _dumps(message)
        if not seats:
            message["view"] = common
            return _dumps(message)
        changes = {str(seat): {**common, **own[seat]} for seat in seats}
        message["view"] = changes[str(seats[0])]
        if len(seats) > 1:
            message["views"] = changes
        return _dumps(message)

    def send(self, listener: Listener, message: dict[str, Any]) -> None:
        listener.send(_dumps(message))

    def send_state(self, listener: Listener) -> None:
        self.send(listener, self.state_message(listener))

    def broadcast_room(self, skip: Listener | None = None) -> None:
        for listener in list(self.listeners):
            if listener is not skip:
                self.send(listener, {"type": "room", "room": self.room_json(listener.identity_id)})

    def _publish(self, state: State, events: list[Event]) -> Step:
        """The change is committed: make it current and send it to everyone.

        The update is made for every seats tuple a listener holds and for every human's seats
        even while away, so that a reconnecting player can ``resume`` from the buffer."""
        self.version += 1
        before = self.state
        self.state = state
        wanted = {listener.seats for listener in self.listeners}
        wanted.update(self.seats_of(s.identity_id) for s in self.seats if s.identity_id is not None)
        events_json = [(e.to, e.to_json()) for e in events]
        # Once per version: the shared fields' changes, and each seat's own fields' changes.
        # The previous state's views are cached on it (engine: ``_view``; room: ``_fields``).
        common: dict[str, Any] | None = None
        own: dict[int, dict[str, Any]] = {}
        fields = {}
        if before is not None:
            common = changed_fields(spectator_view(before), spectator_view(state, before))
            old_fields = self._fields if self._fields_of is before else {}
            for seat in {seat for seats in wanted for seat in seats}:
                old = old_fields.get(seat)
                if old is None:
                    old = seat_fields(before, seat)
                new = fields[seat] = seat_fields(state, seat, (before, old))
                own[seat] = {} if new is old else changed_fields(old, new)
        self._fields, self._fields_of = fields, state
        texts = {
            seats_key(seats): self._update_text(
                self.version, state, events_json, seats, common, own
            )
            for seats in wanted
        }
        # The engine caches the common view on a state: the current state keeps it for the
        # next update's comparison, the previous one drops it.
        if before is not None:
            before.__dict__.pop("_view", None)
        step = Step(self.version, texts)
        self.history.append(step)
        for listener in list(self.listeners):
            listener.send(texts[seats_key(listener.seats)])
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
        self.send_state(listener)  # carries the room too
        if self.connected_seats() != before or not listener.seats:
            self.broadcast_room(skip=listener)
        self._schedule_bot()

    def detach(self, listener: Listener) -> None:
        if listener not in self.listeners:
            return
        before = self.connected_seats()
        self.listeners.discard(listener)
        self.last_active = time.monotonic()
        if self.connected_seats() != before or not listener.seats:
            self.broadcast_room()

    def resume(self, listener: Listener, version: int) -> None:
        """Send what the client missed after ``version``, or a fresh state."""
        if version == self.version:
            return
        first = self.history[0].version if self.history else self.version + 1
        key = seats_key(listener.seats)
        missed = [step for step in self.history if step.version > version]
        if (
            version > self.version
            or version + 1 < first
            or any(key not in step.texts for step in missed)
        ):
            self.send_state(listener)
            return
        for step in missed:
            listener.send(step.texts[key])

    # ------------------------------------------------------------------ joining, seats

    async def join(self, identity_id: int, name: str | None) -> JoinResult:
        """Reclaim this browser's seats, or take the next free human seat, or watch."""
        async with self.lock:
            self._check_open()
            held = self.seats_of(identity_id)
            if held:
                return JoinResult("seat", held, self.room_json(identity_id))
            free = [
                s
                for s in self.seats
                if s.kind == "human" and s.identity_id is None and self.status == WAITING
            ]
            if free:
                seat = free[0]
                seat.identity_id, seat.name = identity_id, name
                await self._save_seats([seat])
                return JoinResult("seat", (seat.seat,), self.room_json(identity_id))
            if self.spectators_allowed:
                return JoinResult("spectator", (), self.room_json(identity_id))
            return JoinResult("full", (), self.room_json(identity_id))

    async def swap_seats(self, identity_id: int, pairs: list[tuple[int, int]]) -> dict[str, Any]:
        """The host moves occupants between seats (teams), only before the first deal."""
        async with self.lock:
            self._check_open()
            if identity_id != self.host_id:
                raise CommandError("not_host", "only the host may move players")
            if self.status != WAITING:
                raise CommandError("not_allowed", "seats can only be changed before the first deal")
            changed: dict[int, Seat] = {}
            seats = [Seat(s.seat, s.kind, s.identity_id, s.level, s.name) for s in self.seats]
            for a, b in pairs:
                if not (0 <= a < self.players and 0 <= b < self.players):
                    raise CommandError("bad_message", f"seats are numbered 0..{self.players - 1}")
                sa, sb = seats[a], seats[b]
                sa.kind, sb.kind = sb.kind, sa.kind
                sa.identity_id, sb.identity_id = sb.identity_id, sa.identity_id
                sa.level, sb.level = sb.level, sa.level
                sa.name, sb.name = sb.name, sa.name
                changed[a], changed[b] = sa, sb
            await self.services.writer.submit(
                repo.save_seats(self.game_id, [s.row() for s in changed.values()])
            )
            self.seats = seats
            # a connected listener's seats follow its identity
            self._refresh_listener_seats()
            self.broadcast_room()
            return self.room_json(identity_id)

    def _refresh_listener_seats(self) -> None:
        for listener in list(self.listeners):
            new = self.seats_of(listener.identity_id)
            if new != listener.seats:
                listener.seats = new
                self.send_state(listener)

    async def _save_seats(self, changed: list[Seat]) -> None:
        """Persist seat changes; start the match when the last human seat is taken."""
        start = self.status == WAITING and all(
            s.identity_id is not None for s in self.seats if s.kind == "human"
        )
        if not start:
            await self.services.writer.submit(
                repo.save_seats(self.game_id, [s.row() for s in changed])
            )
            self.broadcast_room()
            return
        state = new_match(self.variant, self.players, self.options, rng=self.rng)
        deal = repo.DealRow(0, state.dealer, deck_strings(state))

        save = repo.save_seats(self.game_id, [s.row() for s in changed], status=PLAYING)
        step = repo.record_step(self.game_id, deals=[deal])

        def work(session: Any) -> None:
            save(session)
            step(session)

        await self.services.writer.submit(work)
        self.status = PLAYING
        self.deals = 1
        self._refresh_listener_seats()
        self.broadcast_room()
        self._publish(state, [Event("deal_started", {"number": 0, "dealer": state.dealer})])
        self._schedule_bot()

    async def rename(self, identity_id: int, name: str) -> None:
        async with self.lock:
            changed = False
            for s in self.seats:
                if s.identity_id == identity_id and s.name != name:
                    s.name = name
                    changed = True
            if changed:
                self.broadcast_room()

    async def leave(self, identity_id: int) -> dict[str, Any]:
        """A player leaves a friends game in progress for good: a bot of the table's level
        takes each seat he held, so the others can finish. He earns no XP for the match
        (docs/players.md); his seats are remembered in ``game_leavers``."""
        from app.persistence import players as player_store

        async with self.lock:
            self._check_open()
            held = self.seats_of(identity_id)
            if not held:
                raise CommandError("not_allowed", "you have no seat at this table")
            if self.mode != "friends" or self.status != PLAYING:
                raise CommandError("not_allowed", "only a friends game in progress can be left")
            level = self.bot_level() or "medium"
            seats = [Seat(s.seat, s.kind, s.identity_id, s.level, s.name) for s in self.seats]
            for seat in held:
                seats[seat] = Seat(seat, "bot", None, level, None)
            leavers = [player_store.LeaverRow(seat, identity_id, self.deals - 1) for seat in held]
            await self.services.writer.submit(
                _then(
                    repo.save_seats(self.game_id, [seats[seat].row() for seat in held]),
                    player_store.insert_leavers(self.game_id, leavers),
                )
            )
            self.seats = seats
            self.consent_agreed.difference_update(held)
            self._refresh_listener_seats()  # the leaver's sockets now watch
            self.broadcast_room()
            self._schedule_bot()
            log.info(
                "player left",
                extra={"event": "seat_left", "game": self.game_id, "seats": list(held)},
            )
            return self.room_json(identity_id)

    # ------------------------------------------------------------------ commands

    def _check_open(self) -> None:
        if self.closed:
            raise RoomClosed(self.game_id)

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
        action: dict[str, Any],
        seat: int | None = None,
    ) -> None:
        """A player's action (docs/protocol.md ``action``); answers go to ``listener``."""
        async with self.lock:
            self._check_open()
            try:
                actor = self._seat_for(listener, seat)
                known = self.client_ids.get(f"{actor}:{msg_id}")
                if known is not None:  # the same id again: applied once, acknowledged again
                    self.send(listener, ack(msg_id, known))
                    return
                await self._execute(actor, action, version, msg_id, listener)
            except CommandError as exc:
                self.send(listener, error(exc.code, exc.message, msg_id))
                if exc.code == "stale_version":
                    self.send_state(listener)

    async def _execute(
        self,
        seat: int,
        action_json: dict[str, Any],
        version: int,
        client_id: str | None,
        sender: Listener | None,
    ) -> None:
        """The one command path of humans and bots; the caller holds ``self.lock``."""
        state = self.state
        if self.status == WAITING or state is None:
            raise CommandError("not_allowed", "the game has not started: waiting for players")
        if state.phase is Phase.MATCH_OVER:
            raise CommandError("game_over", "the match is over")
        if version != self.version:
            raise CommandError(
                "stale_version", f"you are at version {version}, the game is at {self.version}"
            )
        if self.is_paused():
            raise CommandError("paused", "waiting for every player to be connected")
        to_act = current_player(state)
        if to_act is None:
            raise CommandError("not_allowed", "the deal is over")
        if to_act != seat:
            raise CommandError("not_your_turn", f"seat {to_act} is to act")
        try:
            action = action_from_json(action_json)
            new_state, events = apply(state, action, seat)
        except InvalidAction as exc:
            raise CommandError("invalid_action", str(exc)) from None
        except IllegalAction as exc:
            raise CommandError("illegal_action", str(exc)) from None

        row = repo.ActionRow(self.seq, self.deals - 1, seat, action_to_json(action), client_id)
        next_deal: tuple[State, list[Event]] | None = None
        deals: list[repo.DealRow] = []
        values: dict[str, Any] = {}
        if new_state.phase is Phase.DEAL_OVER:
            values["scores"] = list(new_state.scores)
            if self._deals_automatically(new_state):
                next_deal = start_deal(new_state, self.rng)
                deals.append(
                    repo.DealRow(self.deals, next_deal[0].dealer, deck_strings(next_deal[0]))
                )
        elif new_state.phase is Phase.MATCH_OVER:
            values["scores"] = list(new_state.scores)
            values["status"] = FINISHED
        work: Any = repo.record_step(self.game_id, [row], deals, **values)
        # a match (or a duel game) ends: XP and ratings are written in the same transaction
        awards = self.services.awards
        award = await awards.prepare(self, new_state) if awards is not None else None
        if award is not None:
            work = _then(work, award)
        try:
            done = await self.services.writer.submit(work)
        except Exception:
            log.exception(
                "could not store an action", extra={"event": "store_failed", "game": self.game_id}
            )
            raise CommandError("server_error", "the move could not be saved; try again") from None

        # Committed: now it is true. Acknowledge, then broadcast.
        if award is not None:
            awards.committed(done)
        consent_before, status_before = self.consent_kind(), self.status
        self.seq += 1
        if client_id is not None:
            self.remember_client_id(seat, client_id, self.version + 1)
        if sender is not None and client_id is not None:
            self.send(sender, ack(client_id, self.version + 1))
        self._publish(new_state, events)
        if values.get("status") == FINISHED:
            self.status = FINISHED
        if next_deal is not None:
            self.deals += 1
            self._publish(*next_deal)
        if self.consent_kind() != consent_before or self.status != status_before:
            self.consent_agreed.clear()
            self.broadcast_room()
        self._schedule_bot()

    def _deals_automatically(self, state: State) -> bool:
        """Other variants deal on at once; a duel deal that was played needs both consents."""
        if state.phase is not Phase.DEAL_OVER:
            return False
        return self.variant != "duel" or state.results[-1].thrown_in

    async def _deal_next(self, state: State) -> None:
        new_state, events = start_deal(state, self.rng)
        deal = repo.DealRow(self.deals, new_state.dealer, deck_strings(new_state))
        await self.services.writer.submit(repo.record_step(self.game_id, deals=[deal]))
        self.deals += 1
        self.consent_agreed.clear()
        self._publish(new_state, events)
        self.broadcast_room()
        self._schedule_bot()

    async def consent(self, listener: Listener, kind: str, msg_id: str | None) -> None:
        async with self.lock:
            self._check_open()
            try:
                if not listener.seats:
                    raise CommandError("spectator", "spectators cannot consent")
                expected = self.consent_kind()
                if expected != kind:
                    raise CommandError("not_allowed", f"no {kind} to agree to now")
                agreed = self.consent_agreed | {
                    s for s in listener.seats if s in self.human_seats()
                }
                if agreed != self.consent_agreed:
                    # stored before the ack: a restart keeps the agreement (see from_stored)
                    await self._store_consents(kind, agreed)
                    self.consent_agreed = agreed
                if msg_id is not None:
                    self.send(listener, ack(msg_id, self.version))
                if not set(self.human_seats()) <= self.consent_agreed:
                    self.broadcast_room()
                    return
                if kind == "next_deal":
                    assert self.state is not None
                    await self._deal_next(self.state)
                else:
                    self.rematch_id = await self.services.create_rematch(self)
                    self.consent_agreed.clear()
                    message = {
                        "type": "rematch",
                        "game_id": self.rematch_id,
                        "url": self.services.url(self.rematch_id),
                    }
                    for other in list(self.listeners):
                        self.send(other, message)
                    self.broadcast_room()
            except CommandError as exc:
                self.send(listener, error(exc.code, exc.message, msg_id))

    async def _store_consents(self, kind: str, agreed: set[int]) -> None:
        """Write the consent being collected, tagged with its kind and the room's version: a
        later action or deal changes the version, which voids the stored agreement."""
        consents = {"kind": kind, "version": self.version, "seats": sorted(agreed)}
        try:
            await self.services.writer.submit(repo.save_seats(self.game_id, [], consents=consents))
        except Exception:
            log.exception(
                "could not store a consent",
                extra={"event": "store_failed", "game": self.game_id},
            )
            raise CommandError(
                "server_error", "the agreement could not be saved; try again"
            ) from None

    async def set_level(self, listener: Listener, level: str, msg_id: str | None) -> None:
        async with self.lock:
            self._check_open()
            try:
                if not listener.seats:
                    raise CommandError("spectator", "spectators cannot change the level")
                if self.mode != "computer":
                    raise CommandError(
                        "not_allowed", "the level is set in games against the computer"
                    )
                if level not in LEVELS:
                    raise CommandError("bad_message", f"level must be one of {', '.join(LEVELS)}")
                bots = [s for s in self.seats if s.kind == "bot"]
                for s in bots:
                    s.level = level
                await self.services.writer.submit(
                    repo.save_seats(self.game_id, [s.row() for s in bots])
                )
                if msg_id is not None:
                    self.send(listener, ack(msg_id, self.version))
                self.broadcast_room()
            except CommandError as exc:
                self.send(listener, error(exc.code, exc.message, msg_id))

    async def hint(self, listener: Listener, msg_id: str) -> None:
        """Computer games: the hard bot's suggestion for the listener's seat to act."""
        try:
            if self.mode != "computer":
                raise CommandError("not_allowed", "hints are for games against the computer")
            state = self.state
            to_act = current_player(state) if state is not None else None
            if state is None or to_act is None or to_act not in listener.seats:
                raise CommandError("not_your_turn", "a hint is given on your turn")
            view = seat_view(state, to_act)
            action = await self._think(view, "hard")
            self.send(listener, {"type": "hint", "id": msg_id, "action": action})
        except CommandError as exc:
            self.send(listener, error(exc.code, exc.message, msg_id))

    # ------------------------------------------------------------------ bots

    def _bot_to_act(self) -> int | None:
        state = self.state
        if self.closed or self.status != PLAYING or state is None:
            return None
        seat = current_player(state)
        if seat is None or self.seats[seat].kind != "bot":
            return None
        if self.is_paused() or not any(listener.seats for listener in self.listeners):
            return None  # bots wait for the humans
        return seat

    def _schedule_bot(self) -> None:
        if self._bot_task is not None and not self._bot_task.done():
            return
        seat = self._bot_to_act()
        if seat is None:
            return
        self._bot_task = asyncio.create_task(
            self._bot_turn(seat, self.version), name=f"bot-{self.game_id}-{seat}"
        )

    async def _think(self, view: dict[str, Any], level: str) -> dict[str, Any]:
        """Run a bot off the event loop (a worker process by default)."""
        rng = random.Random(secrets.randbits(64))
        loop = asyncio.get_running_loop()
        # A bot that has not answered in BOT_THINK_SECONDS is given up and asked again (a worker
        # stuck or lost must not stall the table for good): _bot_turn logs it and retries.
        result: dict[str, Any] = await asyncio.wait_for(
            loop.run_in_executor(self.services.executor, choose_action, view, level, rng),
            BOT_THINK_SECONDS,
        )
        return result

    async def _bot_turn(self, seat: int, version: int) -> None:
        retry_after = 0.0
        try:
            delay = self.services.settings.bot_delay_ms / 1000
            if delay:
                await asyncio.sleep(delay)
            state = self.state
            if state is None or self.version != version or self._bot_to_act() != seat:
                return
            level = self.seats[seat].level or "medium"
            action = await self._think(seat_view(state, seat), level)
            async with self.lock:
                if self.closed or self.version != version or self._bot_to_act() != seat:
                    return
                await self._execute(seat, action, version, None, None)
            self._bot_failures = 0
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._bot_failures += 1
            retry_after = min(30.0, 0.5 * 2 ** min(self._bot_failures, 6))
            log.error(
                "bot failed to act",
                extra={
                    "event": "bot_failed",
                    "game": self.game_id,
                    "seat": seat,
                    "error": f"{type(exc).__name__}: {exc}",
                },
            )
        finally:
            self._bot_task = None
        if retry_after:
            await asyncio.sleep(retry_after)
        self._schedule_bot()

    # ------------------------------------------------------------------ life cycle

    def is_idle(self, idle_seconds: float) -> bool:
        return (
            not self.listeners
            and not self.lock.locked()
            and time.monotonic() - self.last_active >= idle_seconds
        )

    async def close(self, *, code: int = 1012, reason: str = "room closed") -> None:
        """Leave memory: refuse new commands (``RoomClosed``: the caller loads the room again
        from the database), wait for the command in progress, stop the bot, close connections."""
        self.closed = True
        async with self.lock:
            task = self._bot_task
        if task is not None and not task.done():
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        for listener in list(self.listeners):
            listener.close(code, reason)
        self.listeners.clear()


def _iso(value: Any) -> str | None:
    if value is None:
        return None
    text = value.isoformat()
    if value.tzinfo is None:
        text += "Z"
    return str(text).replace("+00:00", "Z")


def seat_specs_valid(mode: str, kinds: Iterable[str]) -> bool:
    kinds = list(kinds)
    if not kinds or kinds[0] != "human":
        return False
    if mode == "computer":
        return kinds.count("human") == 1
    return True


def _then(first: Any, second: Any) -> Any:
    """One work (persistence/writer.py) that runs two in the same transaction; the result is
    the second's."""

    def work(session: Any) -> Any:
        first(session)
        return second(session)

    return work
