"""Tournaments: the robot duplicate events (docs/tournaments.md).

``Tournaments`` is what the web layer (app/web/tournaments.py) and an admin page call. Its
plain functions: ``create``, ``edit``, ``cancel``, ``listing``, ``event``, ``enter``,
``play_board``, ``traveller``, ``may_read``, ``results_csv``, ``archive``. A loop started with
the server creates the daily events (``settings.tournament_daily``) and plays the datum
table of every event that lacks one.

**Secrecy** (RULES.md §13, docs/tournaments.md). A board is *revealed* to a viewer who has
finished playing it, or, once the event's window has closed, to anyone with no unfinished
table on it. Nothing about a board (its traveller, its tables' records and replays, its
results in the standings' details) is given to anyone else; the standings themselves are
shown to an entrant who has played every board, and to everyone after the window.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import json
import logging
import secrets
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Session

from app.bots import LEVELS
from app.engine import InvalidAction, get_rules
from app.engine.cards import parse_card
from app.engine.record import FORMAT
from app.persistence import repository as repo
from app.persistence.models import (
    Game,
    Tournament,
    TournamentBoard,
    TournamentEntry,
    TournamentTable,
    utcnow,
)
from app.persistence.writer import CommitQueue
from app.rooms.errors import CommandError
from app.rooms.manager import GameSpec, RoomManager, SeatSpec, new_game_id
from app.rooms.model import then
from app.settings import Settings
from app.tournaments.boards import (
    ENTRANT_SEAT,
    direction,
    draw_boards,
    house_version,
    play_datum,
    table_result,
)
from app.tournaments.live import SWISS, LiveSwiss
from app.tournaments.scoring import Matchpoints, matchpoints, standings

log = logging.getLogger("atout.tournaments")

DATUM = 0  # the datum table's number
MAX_BOARDS = 32
MAX_WINDOW = timedelta(days=31)
MIN_WINDOW = timedelta(minutes=5)


class TournamentError(CommandError):
    """A refused request: ``code`` and a message (the web layer maps codes to statuses)."""


@dataclass
class EventSpec:
    variant: str
    players: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    boards: int = 8
    starts_at: datetime | None = None  # None: now
    hours: float = 24.0  # the window's length
    level: str = "hard"
    title: str | None = None
    daily_key: str | None = None


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime) -> datetime:
    """SQLite gives naive datetimes back: they are UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    return _aware(value).astimezone(UTC).isoformat().replace("+00:00", "Z")


def phase_of(event: Tournament, now: datetime) -> str:
    """``cancelled``, ``open`` (before its window), ``running`` or ``finished``; a live Swiss
    event's is its ``status`` (app/tournaments/live.py)."""
    if event.cancelled:
        return "cancelled"
    if event.kind == SWISS:
        return event.status or "open"
    if now < _aware(event.starts_at):
        return "open"
    if now < _aware(event.ends_at):
        return "running"
    return "finished"


@dataclass
class _Tables:
    """An event's tables: (board, table) -> row, with each game's status."""

    rows: dict[tuple[int, int], TournamentTable]
    finished: set[tuple[int, int]]

    def of(self, table: int) -> dict[int, TournamentTable]:
        return {b: row for (b, t), row in self.rows.items() if t == table}


class Tournaments:
    def __init__(
        self,
        settings: Settings,
        sessionmaker: async_sessionmaker[AsyncSession],
        writer: CommitQueue,
        rooms: RoomManager,
    ) -> None:
        self.settings = settings
        self.sessionmaker = sessionmaker
        self.writer = writer
        self.rooms = rooms
        self._loop_task: asyncio.Task[None] | None = None
        self._locks: dict[Any, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self.clock: Callable[[], datetime] = _now  # tests replace it
        self.live = LiveSwiss(self)  # the live Swiss events (app/tournaments/live.py)
        self._live_task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        self._loop_task = asyncio.create_task(self._run(), name="atout-tournaments")
        self._live_task = asyncio.create_task(self._run_live(), name="atout-tournaments-live")

    async def _run_live(self) -> None:
        """Every ``tournament_live_seconds``: a step of every live Swiss event that is due or
        running (the lockstep also moves at once when a board's game ends: ``board_over``)."""
        while True:
            try:
                await self.live.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("live tournament tick failed", extra={"event": "tournament_live"})
            await asyncio.sleep(self.settings.tournament_live_seconds)

    async def stop(self) -> None:
        await self.live.stop()
        tasks = [t for t in (self._loop_task, self._live_task, *self._tasks) if t is not None]
        self._loop_task = self._live_task = None
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _datum_soon(self, event_id: str) -> None:
        try:
            await self.ensure_datum(event_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("datum table failed", extra={"event": "tournament_datum"})

    async def _run(self) -> None:
        """Every ``tournament_tick_seconds``: the daily events, then the missing datum tables."""
        while True:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("tournament tick failed", extra={"event": "tournament_tick"})
            await asyncio.sleep(self.settings.tournament_tick_seconds)

    async def tick(self) -> None:
        await self.ensure_daily()
        await self.ensure_datums()

    def _lock(self, key: Any) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            if len(self._locks) > 10_000:
                self._locks = {k: v for k, v in self._locks.items() if v.locked()}
            lock = self._locks[key] = asyncio.Lock()
        return lock

    # ------------------------------------------------------------------ creating, editing

    def check(self, spec: EventSpec) -> tuple[str, int, dict[str, Any]]:
        """The event's variant, players and resolved options; ``TournamentError`` if bad."""
        try:
            rules = get_rules(spec.variant, spec.players, spec.options)
        except InvalidAction as exc:
            raise TournamentError("invalid_options", str(exc)) from None
        if not 1 <= spec.boards <= MAX_BOARDS:
            raise TournamentError("invalid_boards", f"an event has 1 to {MAX_BOARDS} boards")
        if spec.level not in LEVELS:
            raise TournamentError("invalid_level", f"level must be one of {', '.join(LEVELS)}")
        window = timedelta(hours=spec.hours)
        if not MIN_WINDOW <= window <= MAX_WINDOW:
            raise TournamentError("invalid_window", "a window lasts 5 minutes to 31 days")
        if spec.title is not None and len(spec.title) > 80:
            raise TournamentError("invalid_title", "a title has at most 80 characters")
        return rules.variant, rules.players, dict(rules.options)

    async def create(self, spec: EventSpec, created_by: int | None = None) -> str:
        """Create a robot duplicate event and its boards; its datum table is played by the
        background loop (or ``ensure_datums``). Returns the event's id."""
        variant, players, options = self.check(spec)
        event_id = secrets.token_urlsafe(9)  # 72 random bits, 12 characters
        starts = spec.starts_at or self.clock()
        boards = draw_boards(secrets.token_hex(16), spec.boards, players)
        values = {
            "id": event_id,
            "kind": "robot",
            "title": spec.title,
            "variant": variant,
            "players": players,
            "options": options,
            "boards": spec.boards,
            "starts_at": starts,
            "ends_at": starts + timedelta(hours=spec.hours),
            "house_level": spec.level,
            "house_version": house_version(spec.level),
            "cancelled": False,
            "daily_key": spec.daily_key,
            "created_by": created_by,
        }

        await self.writer.submit(insert_event(values, boards))
        # its datum table at once, in the background (the loop would, at its next tick)
        task = asyncio.create_task(self._datum_soon(event_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        log.info(
            "tournament created",
            extra={"event": "tournament_created", "tournament": event_id, "variant": variant},
        )
        return event_id

    async def edit(
        self, event_id: str, *, title: str | None = None, ends_at: datetime | None = None
    ) -> None:
        """Change an event's title or the end of its window (its boards never change)."""
        event = await self._event(event_id)
        values: dict[str, Any] = {}
        if title is not None:
            if len(title) > 80:
                raise TournamentError("invalid_title", "a title has at most 80 characters")
            values["title"] = title
        if ends_at is not None:
            if (
                not _aware(event.starts_at) + MIN_WINDOW
                <= ends_at
                <= _aware(event.starts_at) + MAX_WINDOW
            ):
                raise TournamentError("invalid_window", "a window lasts 5 minutes to 31 days")
            values["ends_at"] = ends_at
        if values:
            await self.writer.submit(_update_event(event_id, values))

    async def cancel(self, event_id: str) -> None:
        """Cancel an event: nobody may enter or start a board any more."""
        await self._event(event_id)
        await self.writer.submit(_update_event(event_id, {"cancelled": True}))

    async def ensure_daily(self) -> list[str]:
        """Today's automatic events (``settings.tournament_daily``: ``variant`` or
        ``variant:players``, one a day each, from 00:00 UTC for 24 hours)."""
        now = self.clock()
        day = now.replace(hour=0, minute=0, second=0, microsecond=0)
        made = []
        for entry in self.settings.tournament_daily:
            variant, _, players = entry.partition(":")
            key = f"{entry}:{day.date().isoformat()}"
            async with self.sessionmaker() as session:
                found = await session.scalar(
                    select(Tournament.id).where(Tournament.daily_key == key)
                )
            if found is not None:
                continue
            spec = EventSpec(
                variant=variant,
                players=int(players) if players else None,
                boards=self.settings.tournament_boards,
                starts_at=day,
                hours=24.0,
                level=self.settings.tournament_level,
                daily_key=key,
            )
            try:
                made.append(await self.create(spec))
            except IntegrityError:  # another process made it first
                continue
            except TournamentError as exc:
                log.error(
                    "daily tournament refused",
                    extra={"event": "tournament_daily", "entry": entry, "error": exc.message},
                )
        return made

    # ------------------------------------------------------------------ the datum table

    async def ensure_datums(self) -> int:
        """Play the datum table of every board that lacks one, in the open and running
        events; returns how many boards were played."""
        now = self.clock()
        async with self.sessionmaker() as session:
            events = (
                (
                    await session.execute(
                        select(Tournament).where(
                            Tournament.kind == "robot",
                            Tournament.cancelled.is_(False),
                            Tournament.ends_at > now,
                        )
                    )
                )
                .scalars()
                .all()
            )
        played = 0
        for event in events:
            played += await self.ensure_datum(event.id)
        return played

    async def ensure_datum(self, event_id: str) -> int:
        async with self._lock(("datum", event_id)):
            event = await self._event(event_id)
            async with self.sessionmaker() as session:
                boards = await self._boards(session, event_id)
                done = set(
                    (
                        await session.execute(
                            select(TournamentTable.board).where(
                                TournamentTable.tournament_id == event_id,
                                TournamentTable.table == DATUM,
                            )
                        )
                    )
                    .scalars()
                    .all()
                )
            played = 0
            for board in boards:
                if board.number not in done:
                    await self._play_datum(event, board)
                    played += 1
            return played

    async def _play_datum(self, event: Tournament, board: TournamentBoard) -> None:
        loop = asyncio.get_running_loop()
        executor = self.rooms.services.executor
        actions = await loop.run_in_executor(
            executor,
            play_datum,
            event.variant,
            event.players,
            dict(event.options),
            board.dealer,
            list(board.deck),
            event.house_level,
            f"{event.id}:{board.number}",
        )
        game_id = new_game_id()
        meta = self._board_meta(event, board.number, DATUM)
        record = {
            "format": FORMAT,
            "variant": event.variant,
            "players": event.players,
            "options": dict(event.options),
            "first_dealer": board.dealer,
            "deals": [{"dealer": board.dealer, "deck": list(board.deck), "actions": actions}],
        }
        result = await loop.run_in_executor(executor, table_result, record)
        assert result is not None, "a datum table plays its board to the end"
        game = {
            "id": game_id,
            "variant": event.variant,
            "players": event.players,
            "options": dict(event.options),
            "mode": "computer",
            "status": "finished",
            "spectators": False,
            "host_id": None,
            "scores": list(result["scores"]),
            "rematch_of": None,
            "settings": {"board": meta},
            "clock": None,
        }
        seats = [
            repo.SeatRow(s, "bot", None, event.house_level, None) for s in range(event.players)
        ]
        rows = [
            repo.ActionRow(i, 0, a["seat"], {k: v for k, v in a.items() if k != "seat"}, None)
            for i, a in enumerate(actions)
        ]
        deal = repo.DealRow(0, board.dealer, list(board.deck))
        table = _insert_table(event.id, board.number, DATUM, None, game_id, result)
        work = then(
            repo.insert_game(game, seats, deal), then(repo.record_step(game_id, rows), table)
        )
        try:
            await self.writer.submit(work)
        except IntegrityError:  # another process played it meanwhile
            return
        log.info(
            "datum table played",
            extra={"event": "tournament_datum", "tournament": event.id, "board": board.number},
        )

    # ------------------------------------------------------------------ entrants

    async def enter(self, event_id: str, identity_id: int, name: str | None) -> int:
        """Enter an event (again: nothing changes). Returns the entrant's table number."""
        if not identity_id:
            raise TournamentError("not_allowed", "open the page in a browser to enter")
        event = await self._event(event_id)
        if event.kind == SWISS:
            raise TournamentError("not_robot", "register for a live event as a pair")
        phase = phase_of(event, self.clock())
        async with self._lock(("enter", event_id)):
            entry = await self._entry(event_id, identity_id)
            if entry is not None:
                return entry.number
            if phase not in ("open", "running"):
                raise TournamentError("event_closed", "this event is over")
            for _ in range(3):
                try:
                    number: int = await self.writer.submit(
                        _insert_entry(event_id, identity_id, name)
                    )
                    return number
                except IntegrityError:  # a number or the entry taken meanwhile
                    entry = await self._entry(event_id, identity_id)
                    if entry is not None:
                        return entry.number
            raise TournamentError("busy", "too many entries at once; try again")

    async def play_board(
        self, event_id: str, identity_id: int, name: str | None, board: int
    ) -> str:
        """The game of ``board`` for this entrant: created with the board's deck and dealer
        and the house players seated, or the one already started. Boards are played in
        order."""
        event = await self._event(event_id)
        if event.kind == SWISS:
            raise TournamentError("not_robot", "a live event deals its boards itself")
        if not 1 <= board <= event.boards:
            raise TournamentError("no_such_board", f"this event has boards 1 to {event.boards}")
        entry = await self._entry(event_id, identity_id)
        if entry is None:
            raise TournamentError("not_entered", "enter the event first")
        async with self._lock(("play", event_id, identity_id)):
            async with self.sessionmaker() as session:
                tables = await self._tables(session, event_id)
                board_row = await session.get(TournamentBoard, (event_id, board))
            mine = tables.of(entry.number)
            if board in mine:
                return mine[board].game_id
            if phase_of(event, self.clock()) != "running":
                raise TournamentError("event_closed", "boards are played during the window")
            for earlier in range(1, board):
                if (earlier, entry.number) not in tables.finished:
                    raise TournamentError("play_in_order", f"play board {earlier} first")
            assert board_row is not None
            n = event.players
            spec = GameSpec(
                variant=event.variant,
                players=n,
                options=dict(event.options),
                mode="computer",
                seats=[SeatSpec("human")] + [SeatSpec("bot", event.house_level)] * (n - 1),
                level=event.house_level,
                spectators=False,
                settings={"board": self._board_meta(event, board, entry.number)},
            )
            room = await self.rooms.create_game(
                identity_id,
                name,
                spec,
                deck=[parse_card(c) for c in board_row.deck],
                first_dealer=board_row.dealer,
            )
            try:
                await self.writer.submit(
                    _insert_table(event_id, board, entry.number, identity_id, room.game_id, None)
                )
            except IntegrityError:  # another process made this table first: that one counts
                async with self.sessionmaker() as session:
                    found = await session.get(TournamentTable, (event_id, board, entry.number))
                if found is None:
                    raise
                return found.game_id
            return room.game_id

    # ------------------------------------------------------------------ reading

    async def listing(self) -> dict[str, list[dict[str, Any]]]:
        """The events by phase: ``open``, ``running``, ``finished`` (the last 50)."""
        now = self.clock()
        async with self.sessionmaker() as session:
            events = (
                (
                    await session.execute(
                        select(Tournament)
                        .where(Tournament.cancelled.is_(False))
                        .order_by(Tournament.starts_at.desc())
                        .limit(200)
                    )
                )
                .scalars()
                .all()
            )
            counts = dict(
                (
                    await session.execute(
                        select(TournamentEntry.tournament_id, func.count())
                        .where(TournamentEntry.tournament_id.in_([e.id for e in events]))
                        .group_by(TournamentEntry.tournament_id)
                    )
                ).all()
            )
        out: dict[str, list[dict[str, Any]]] = {"open": [], "running": [], "finished": []}
        for event in events:
            phase = phase_of(event, now)
            if phase in out and len(out[phase]) < 50:
                out[phase].append(self._event_json(event, phase, counts.get(event.id, 0)))
        out["open"].reverse()  # the soonest first
        return out

    def _event_json(self, event: Tournament, phase: str, entrants: int) -> dict[str, Any]:
        return {
            "id": event.id,
            "kind": event.kind,
            "title": event.title,
            "variant": event.variant,
            "players": event.players,
            "options": dict(event.options),
            "boards": event.boards,
            "starts_at": iso(event.starts_at),
            "ends_at": iso(event.ends_at),
            "phase": phase,
            "house": {"level": event.house_level, "version": event.house_version},
            "daily": event.daily_key is not None,
            "entrants": entrants,
            "url": f"/t/{event.id}",
            **({"rounds": event.rounds, "clock": event.clock} if event.kind == SWISS else {}),
        }

    async def event(self, event_id: str, viewer: int) -> dict[str, Any]:
        """The event page's data, as ``viewer`` may see it (the module's secrecy rules)."""
        event = await self._event(event_id)
        if event.kind == SWISS:
            return await self.live.event(event_id, viewer)
        now = self.clock()
        phase = phase_of(event, now)
        await self.refresh(event_id)
        async with self.sessionmaker() as session:
            entries = await self._entries(session, event_id)
            tables = await self._tables(session, event_id)
        me = next((e for e in entries if e.identity_id == viewer), None) if viewer else None
        per_board = _matchpoints(tables, event.boards)
        revealed = {
            b: self._revealed(event, phase, tables, me, b) for b in range(1, event.boards + 1)
        }
        you: dict[str, Any] | None = None
        if me is not None:
            mine = tables.of(me.number)
            boards = []
            for b in range(1, event.boards + 1):
                row = mine.get(b)
                status = (
                    "played"
                    if (b, me.number) in tables.finished
                    else "playing"
                    if row is not None
                    else "not_started"
                )
                item: dict[str, Any] = {"board": b, "status": status}
                if row is not None:
                    item["game_id"] = row.game_id
                    item["url"] = f"/g/{row.game_id}"
                mp = per_board.get(b, {}).get(me.number)
                if status == "played" and mp is not None:
                    item["matchpoints"] = _mp_json(mp)
                boards.append(item)
            played = [per_board[b][me.number] for b in per_board if me.number in per_board[b]]
            you = {
                "table": me.number,
                "boards": boards,
                "played": len(played),
                "percent": (
                    round(sum(m.percent for m in played) / len(played), 2) if played else None
                ),
                "next_board": next((b["board"] for b in boards if b["status"] != "played"), None),
            }
        show_standings = phase == "finished" or (you is not None and you["played"] == event.boards)
        names = {e.number: e.name for e in entries}
        standings_json = None
        if show_standings:
            standings_json = [
                {
                    "rank": s.rank,
                    "table": s.key,
                    "name": names.get(int(s.key)),  # type: ignore[call-overload]
                    "boards": s.boards,
                    "points": s.points,
                    "top": s.top,
                    "percent": s.percent,
                    "you": me is not None and s.key == me.number,
                }
                for s in standings(per_board, [e.number for e in entries])
            ]
            if you is not None:
                you["rank"] = next((s["rank"] for s in standings_json if s["you"]), None)
        return {
            "event": self._event_json(event, phase, len(entries)),
            "house_current": event.house_version == house_version(event.house_level),
            "you": you,
            "boards": [
                {
                    "board": b,
                    "revealed": revealed[b],
                    "tables": len(per_board.get(b, {})) if revealed[b] else None,
                    "traveller_url": f"/t/{event.id}/boards/{b}" if revealed[b] else None,
                }
                for b in range(1, event.boards + 1)
            ],
            "standings": standings_json,
            "exports": (
                {
                    "csv": f"/api/tournaments/{event.id}/results.csv",
                    "archive": f"/api/tournaments/{event.id}/archive.zip",
                }
                if phase in ("finished", "cancelled")
                else None
            ),
        }

    def _revealed(
        self,
        event: Tournament,
        phase: str,
        tables: _Tables,
        me: TournamentEntry | None,
        board: int,
    ) -> bool:
        """Whether the viewer (entry ``me``, or None) may see everything about ``board``."""
        if me is not None and (board, me.number) in tables.finished:
            return True
        started = me is not None and (board, me.number) in tables.rows
        return phase in ("finished", "cancelled") and not started

    async def traveller(self, event_id: str, board: int, viewer: int) -> dict[str, Any]:
        """Every finished table's result on ``board``, with matchpoints and the links to its
        replay and analysis; ``TournamentError("hidden")`` unless the board is revealed."""
        event = await self._event(event_id)
        if event.kind == SWISS:
            return await self.live.traveller(event_id, board)
        if not 1 <= board <= event.boards:
            raise TournamentError("no_such_board", f"this event has boards 1 to {event.boards}")
        await self.refresh(event_id)
        async with self.sessionmaker() as session:
            entries = await self._entries(session, event_id)
            tables = await self._tables(session, event_id)
            board_row = await session.get(TournamentBoard, (event_id, board))
        assert board_row is not None
        me = next((e for e in entries if e.identity_id == viewer), None) if viewer else None
        if not self._revealed(event, phase_of(event, self.clock()), tables, me, board):
            raise TournamentError("hidden", "this board is hidden until you have played it")
        mps = _matchpoints(tables, event.boards).get(board, {})
        names = {e.number: e.name for e in entries}
        rows = []
        for (b, t), row in sorted(tables.rows.items()):
            if b != board or (b, t) not in tables.finished or row.result is None:
                continue
            r = row.result
            rows.append(
                {
                    "table": t,
                    "datum": t == DATUM,
                    "name": names.get(t),
                    "you": me is not None and t == me.number,
                    "contract": r.get("contract"),
                    "outcome": r.get("outcome"),
                    "taker_side": r.get("taker_side"),
                    "scores": r.get("scores"),
                    "net": r.get("net"),
                    "par": r.get("par"),
                    "stand_in": r.get("by", 0),
                    "matchpoints": _mp_json(mps[t]) if t in mps else None,
                    "game_id": row.game_id,
                    "replay_url": f"/replay/{row.game_id}",
                    "analysis_url": f"/replay/{row.game_id}?deal=0#analysis",
                }
            )
        rows.sort(key=lambda r: (-(r["net"] or 0), r["table"]))
        return {
            "event": event.id,
            "board": board,
            "dealer": board_row.dealer,
            "variant": event.variant,
            "players": event.players,
            "direction": direction(event.players),
            "tables": rows,
        }

    async def may_read(self, game_id: str, viewer: int) -> bool:
        """Whether ``viewer`` may read the record of tournament game ``game_id`` (a table of a
        board revealed to them); False for any other game."""
        async with self.sessionmaker() as session:
            row = await session.scalar(
                select(TournamentTable).where(TournamentTable.game_id == game_id)
            )
            if row is None:
                return False
            event = await session.get(Tournament, row.tournament_id)
            entries = await self._entries(session, row.tournament_id)
            tables = await self._tables(session, row.tournament_id)
        assert event is not None
        if event.kind == SWISS:
            return await self.live.may_read(event, row.board)
        me = next((e for e in entries if e.identity_id == viewer), None) if viewer else None
        return self._revealed(event, phase_of(event, self.clock()), tables, me, row.board)

    async def refresh(self, event_id: str) -> None:
        """Cache the result of every table whose game is over and has none yet (its record
        replayed, its par solved, in the bots' executor)."""
        async with self._lock(("refresh", event_id)):
            async with self.sessionmaker() as session:
                rows = (
                    await session.execute(
                        select(
                            TournamentTable.board, TournamentTable.table, TournamentTable.game_id
                        )
                        .join(Game, Game.id == TournamentTable.game_id)
                        .where(
                            TournamentTable.tournament_id == event_id,
                            TournamentTable.finished_at.is_(None),
                            Game.status == "finished",
                        )
                    )
                ).all()
                stored = [(b, t, await repo.load_game(session, g)) for b, t, g in rows]
            loop = asyncio.get_running_loop()
            for board, table, game in stored:
                if game is None:
                    continue
                record = game.record()
                if record is None:
                    continue
                result = await loop.run_in_executor(
                    self.rooms.services.executor, table_result, record, ENTRANT_SEAT
                )
                if result is not None:
                    await self.writer.submit(_set_result(event_id, board, table, result))

    # ------------------------------------------------------------------ exports

    async def results_csv(self, event_id: str, viewer: int) -> str:
        """Every finished table of every board, one line each, once the window has closed."""
        if (await self._event(event_id)).kind == SWISS:
            return await self.live.results_csv(event_id)
        event, entries, tables = await self._closed_event(event_id, viewer)
        per_board = _matchpoints(tables, event.boards)
        names = {e.number: e.name for e in entries}
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        sides = get_rules(event.variant, event.players, event.options).sides
        w.writerow(
            ["event", "board", "table", "name", "direction", "contract", "taker_side", "outcome"]
            + [f"score_{s}" for s in range(sides)]
            + ["net", "par_taker", "par_defence", "matchpoints", "top", "percent", "game_id"]
        )
        for (b, t), row in sorted(tables.rows.items()):
            r = row.result
            if (b, t) not in tables.finished or r is None:
                continue
            c = r.get("contract") or {}
            contract = (
                f"{c.get('value', '')}{c['denom']}{'x' * (c['multiplier'] // 2)}".strip()
                if c
                else ""
            )
            mp = per_board.get(b, {}).get(t)
            par = r.get("par") or {}
            w.writerow(
                [event.id, b, t, "house" if t == DATUM else names.get(t) or ""]
                + [direction(event.players), contract, r.get("taker_side"), r.get("outcome")]
                + list(r.get("scores") or [])
                + [r.get("net"), par.get("taker"), par.get("defence")]
                + ([mp.points, mp.top, mp.percent] if mp else ["", "", ""])
                + [row.game_id]
            )
        return out.getvalue()

    async def archive(self, event_id: str, viewer: int) -> bytes:
        """A zip: ``event.json`` (the event, standings and travellers), ``results.csv`` and
        every table's ``belote-record/1`` (``boards/<b>/table-<t>.json``, meta naming the
        event, round, board, table and direction)."""
        if (await self._event(event_id)).kind == SWISS:
            return await self.live.archive(event_id, viewer)
        event, entries, tables = await self._closed_event(event_id, viewer)
        data = await self.event(event_id, viewer)
        travellers = [await self.traveller(event_id, b, viewer) for b in range(1, event.boards + 1)]
        names = {e.number: e.name for e in entries}
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(
                "event.json",
                json.dumps({**data, "travellers": travellers}, ensure_ascii=False, indent=1),
            )
            z.writestr("results.csv", await self.results_csv(event_id, viewer))
            async with self.sessionmaker() as session:
                for (b, t), row in sorted(tables.rows.items()):
                    game = await repo.load_game(session, row.game_id)
                    if game is None:
                        continue
                    meta = {
                        **self._board_meta(event, b, t),
                        "game_id": row.game_id,
                        "names": [s.display_name for s in game.seats],
                        "entrant": "house" if t == DATUM else names.get(t),
                    }
                    record = game.record(meta)
                    if record is not None:
                        z.writestr(
                            f"boards/{b}/table-{t}.json",
                            json.dumps(record, ensure_ascii=False),
                        )
        return buffer.getvalue()

    async def _closed_event(
        self, event_id: str, viewer: int
    ) -> tuple[Tournament, list[TournamentEntry], _Tables]:
        event = await self._event(event_id)
        if phase_of(event, self.clock()) not in ("finished", "cancelled"):
            raise TournamentError("event_running", "the exports open when the window closes")
        await self.refresh(event_id)
        async with self.sessionmaker() as session:
            entries = await self._entries(session, event_id)
            tables = await self._tables(session, event_id)
        me = next((e for e in entries if e.identity_id == viewer), None) if viewer else None
        if me is not None and any(
            (b, me.number) not in tables.finished for b in tables.of(me.number)
        ):
            raise TournamentError("finish_your_boards", "finish the boards you started first")
        return event, entries, tables

    # ------------------------------------------------------------------ rows

    def _board_meta(self, event: Tournament, board: int, table: int) -> dict[str, Any]:
        return {
            "event": event.id,
            "round": 1,
            "board": board,
            "table": table,
            "direction": direction(event.players),
        }

    async def _event(self, event_id: str) -> Tournament:
        if not (1 <= len(event_id) <= 16 and all(c.isalnum() or c in "-_" for c in event_id)):
            raise TournamentError("not_found", "no such event")
        async with self.sessionmaker() as session:
            event = await session.get(Tournament, event_id)
        if event is None:
            raise TournamentError("not_found", "no such event")
        return event

    async def _entry(self, event_id: str, identity_id: int) -> TournamentEntry | None:
        async with self.sessionmaker() as session:
            return await session.get(TournamentEntry, (event_id, identity_id))

    async def _entries(self, session: AsyncSession, event_id: str) -> list[TournamentEntry]:
        rows = await session.execute(
            select(TournamentEntry)
            .where(TournamentEntry.tournament_id == event_id)
            .order_by(TournamentEntry.number)
        )
        return list(rows.scalars().all())

    async def _boards(self, session: AsyncSession, event_id: str) -> list[TournamentBoard]:
        rows = await session.execute(
            select(TournamentBoard)
            .where(TournamentBoard.tournament_id == event_id)
            .order_by(TournamentBoard.number)
        )
        return list(rows.scalars().all())

    async def _tables(self, session: AsyncSession, event_id: str) -> _Tables:
        rows = (
            await session.execute(
                select(TournamentTable, Game.status)
                .join(Game, Game.id == TournamentTable.game_id)
                .where(TournamentTable.tournament_id == event_id)
            )
        ).all()
        return _Tables(
            rows={(r.board, r.table): r for r, _ in rows},
            finished={(r.board, r.table) for r, status in rows if status == "finished"},
        )


# --------------------------------------------------------------------------- helpers


def _matchpoints(tables: _Tables, boards: int) -> dict[int, dict[int, Matchpoints]]:
    """Each board's matchpoints over its finished tables with a result (the datum included)."""
    nets: dict[int, dict[int, float]] = {}
    for (b, t), row in tables.rows.items():
        if (b, t) in tables.finished and row.result is not None:
            nets.setdefault(b, {})[t] = float(row.result["net"])
    return {b: matchpoints(n) for b, n in nets.items()}


def _mp_json(mp: Matchpoints) -> dict[str, Any]:
    return {"points": mp.points, "top": mp.top, "percent": mp.percent}


def insert_event(values: dict[str, Any], boards: list[dict[str, Any]]) -> repo.Work:
    """A new event's row and its boards' rows."""

    def work(session: Session) -> None:
        session.add(Tournament(**values, created_at=utcnow()))
        session.flush()
        for b in boards:
            session.add(TournamentBoard(tournament_id=values["id"], **b))

    return work


def _update_event(event_id: str, values: dict[str, Any]) -> repo.Work:
    def work(session: Session) -> None:
        session.execute(update(Tournament).where(Tournament.id == event_id).values(**values))

    return work


def _insert_entry(event_id: str, identity_id: int, name: str | None) -> repo.Work:
    def work(session: Session) -> int:
        top = session.scalar(
            select(func.max(TournamentEntry.number)).where(
                TournamentEntry.tournament_id == event_id
            )
        )
        number = (top or 0) + 1
        session.add(
            TournamentEntry(
                tournament_id=event_id,
                identity_id=identity_id,
                number=number,
                name=name,
                created_at=utcnow(),
            )
        )
        session.flush()
        return number

    return work


def _insert_table(
    event_id: str,
    board: int,
    table: int,
    identity_id: int | None,
    game_id: str,
    result: dict[str, Any] | None,
) -> repo.Work:
    def work(session: Session) -> None:
        now = utcnow()
        session.add(
            TournamentTable(
                tournament_id=event_id,
                board=board,
                table=table,
                identity_id=identity_id,
                game_id=game_id,
                result=result,
                created_at=now,
                finished_at=now if result is not None else None,
            )
        )
        session.flush()

    return work


def _set_result(event_id: str, board: int, table: int, result: dict[str, Any]) -> repo.Work:
    def work(session: Session) -> None:
        session.execute(
            update(TournamentTable)
            .where(
                TournamentTable.tournament_id == event_id,
                TournamentTable.board == board,
                TournamentTable.table == table,
            )
            .values(result=result, finished_at=utcnow())
        )

    return work
