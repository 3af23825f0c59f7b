"""The live duplicate Swiss for pairs, its runtime (docs/tournaments.md, "Live Swiss").

``LiveSwiss`` is what the web layer calls for an event of kind ``swiss``; the pure core
(pairing, matchpoints, victory points, standings) is ``app.tournaments.swiss``.

* **Registration**: a player registers alone (the house player is his partner, flagged in
  the standings) or as a pair: he gets a **partner link** (``/t/{id}/join/{code}``) that one
  other player uses to join his pair. Every registration is one transaction whose outcome
  the database's unique keys decide: a browser is in at most one pair of an event (the
  entries' primary key), a pair number is taken once (the pairs' primary key, up to
  ``max_pairs``: the last place goes to exactly one of two players racing for it), and a
  partner link is spent by exactly one join (``UPDATE ... WHERE code = :code``).
* **Rounds** (``advance``, run by the server's loop and whenever a board's game ends): at
  the start time the event starts (an incomplete pair gets the house partner), round 1 is
  paired (``swiss.pair_round``) and its tables are dealt board 1. Every table of a round plays
  the same boards; board k+1 is dealt at every table only when every table of the round has
  finished board k (the **lockstep**). After the round's last board the round is scored
  (``swiss.score_board``, ``score_match``), a pair absent for the whole round withdrawn, and
  the next round paired. Every step is derived from the database (the round row, the tables
  that exist and their games' status) and written in one transaction guarded by primary
  keys, so a restart goes on where it was, and two processes running it make one outcome.
* **Tables** are ordinary games (``mode = friends``) created with the board's deck and dealer
  and every seat taken: North-South (seats 0 and 2) and East-West (1 and 3), a house player on
  the seat of a missing partner, house players for ``swiss.HOUSE``. Their settings: the
  event's clock, no chat, no spectators, ``board`` (event, round, board, table, direction
  ``NS``) and ``unattended`` (the table plays on under the clock with nobody connected: the
  stand-in plays an absent player's decisions when his clock runs out).
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import json
import logging
import secrets
import time
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.bots import LEVELS
from app.engine import InvalidAction, current_player, get_rules, new_match
from app.engine.cards import parse_card
from app.engine.record import FORMAT
from app.persistence import repository as repo
from app.persistence.models import (
    Game,
    Tournament,
    TournamentBoard,
    TournamentEntry,
    TournamentPair,
    TournamentRound,
    TournamentTable,
    utcnow,
)
from app.rooms.errors import OwnedElsewhere
from app.rooms.manager import new_game_id
from app.rooms.model import CLOCKS, then
from app.tournaments import swiss
from app.tournaments.boards import draw_boards, house_version, play_datum, table_result

if TYPE_CHECKING:
    from app.rooms.room import Room
    from app.tournaments.service import Tournaments

log = logging.getLogger("atout.tournaments")

SWISS = "swiss"
MAX_ROUNDS = 12
MAX_ROUND_BOARDS = 8
MAX_PAIRS = 128
NS_SEATS = (0, 2)
EW_SEATS = (1, 3)


@dataclass
class SwissSpec:
    variant: str
    options: dict[str, Any]
    rounds: int = 3
    boards: int = 4  # per round
    clock: int = 30  # seconds per decision (one of the tables' clocks)
    starts_at: datetime | None = None  # None: in 10 minutes
    max_pairs: int | None = None
    level: str = "medium"  # the house players and the stand-in
    title: str | None = None


class EventListener(Protocol):
    """A connected event page (app/web/tournaments.py)."""

    identity_id: int

    def send(self, text: str) -> None: ...


class _Raced(Exception):
    """Another process took this step first: the transaction is rolled back."""


def _error(code: str, message: str) -> Exception:
    from app.tournaments.service import TournamentError

    return TournamentError(code, message)


def round_of(board: int, boards: int) -> int:
    """The round of global board number ``board`` (round r has boards (r-1)B+1 .. rB)."""
    return (board - 1) // boards + 1


def round_boards(event: Tournament, r: int) -> list[int]:
    return list(range((r - 1) * event.boards + 1, r * event.boards + 1))


def is_absent(result: dict[str, Any], seats: Iterable[int], humans: set[int]) -> bool:
    """A side is absent on a board when one of its human seats made none of its own actions
    (the stand-in played every one of them)."""
    acted = result.get("acted") or []
    stood = result.get("stood_in") or []
    for s in seats:
        if s in humans and s < len(acted) and acted[s] == 0 and stood[s] > 0:
            return True
    return False


@dataclass
class _Live:
    """An event's rows, read in one session."""

    event: Tournament
    pairs: dict[int, TournamentPair]
    members: dict[int, list[TournamentEntry]]  # pair -> its players, registrant first
    rounds: dict[int, TournamentRound]
    tables: dict[tuple[int, int], TournamentTable]  # (board, table)
    finished: set[tuple[int, int]]


class LiveSwiss:
    def __init__(self, service: Tournaments) -> None:
        self.service = service
        self.settings = service.settings
        self.sessionmaker = service.sessionmaker
        self.writer = service.writer
        self.rooms = service.rooms
        self.listeners: dict[str, set[EventListener]] = {}
        self._sent: dict[tuple[str, int], str] = {}
        self._soon: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._digest: dict[str, Any] = {}
        # the time from the last table's end of a board to the next board dealt everywhere
        # (atout bench tournament reads it): seconds, one per board dealt after the first
        self.deal_gaps: list[float] = []
        self._ended_at: dict[tuple[str, int], float] = {}

    @property
    def clock(self) -> Callable[[], datetime]:
        return self.service.clock

    # ------------------------------------------------------------------ creating

    def check(self, spec: SwissSpec) -> tuple[str, dict[str, Any]]:
        try:
            rules = get_rules(spec.variant, 4, spec.options)
        except InvalidAction as exc:
            raise _error("invalid_options", str(exc)) from None
        if rules.players != 4 or rules.sides != 2:
            raise _error("invalid_options", "a Swiss for pairs needs a variant for 2x2 players")
        if not 1 <= spec.rounds <= MAX_ROUNDS:
            raise _error("invalid_rounds", f"an event has 1 to {MAX_ROUNDS} rounds")
        if not 1 <= spec.boards <= MAX_ROUND_BOARDS:
            raise _error("invalid_boards", f"a round has 1 to {MAX_ROUND_BOARDS} boards")
        if spec.clock not in CLOCKS or isinstance(spec.clock, str):  # "none": no clock
            raise _error("invalid_clock", "the clock is 15, 30, 60 or 120 seconds")
        if spec.max_pairs is not None and not 2 <= spec.max_pairs <= MAX_PAIRS:
            raise _error("invalid_pairs", f"an event takes 2 to {MAX_PAIRS} pairs")
        if spec.level not in LEVELS:
            raise _error("invalid_level", f"level must be one of {', '.join(LEVELS)}")
        if spec.title is not None and len(spec.title) > 80:
            raise _error("invalid_title", "a title has at most 80 characters")
        if spec.starts_at is not None and spec.starts_at < self.clock() - timedelta(minutes=1):
            raise _error("invalid_start", "the start time is in the past")
        return rules.variant, dict(rules.options)

    async def create(self, spec: SwissSpec, created_by: int | None = None) -> str:
        """Create a live Swiss event with its boards (drawn per round from one seed, never
        sent to anyone). Returns its id."""
        variant, options = self.check(spec)
        event_id = secrets.token_urlsafe(9)
        starts = spec.starts_at or self.clock() + timedelta(minutes=10)
        seed = secrets.token_hex(16)
        boards: list[dict[str, Any]] = []
        for r in range(1, spec.rounds + 1):
            for b in draw_boards(f"{seed}:round{r}", spec.boards, 4):
                boards.append({**b, "number": (r - 1) * spec.boards + b["number"]})
        values = {
            "id": event_id,
            "kind": SWISS,
            "title": spec.title,
            "variant": variant,
            "players": 4,
            "options": options,
            "boards": spec.boards,
            "rounds": spec.rounds,
            "clock": spec.clock,
            "status": "open",
            "round": 0,
            "max_pairs": spec.max_pairs,
            "registration": True,
            "starts_at": starts,
            "ends_at": starts + timedelta(days=1),  # set again when it ends
            "house_level": spec.level,
            "house_version": house_version(spec.level),
            "cancelled": False,
            "daily_key": None,
            "created_by": created_by,
        }

        from app.tournaments.service import insert_event

        await self.writer.submit(insert_event(values, boards))
        log.info(
            "live swiss created",
            extra={"event": "tournament_created", "tournament": event_id, "variant": variant},
        )
        self.soon(event_id)
        return event_id

    async def _swiss(self, event_id: str) -> Tournament:
        event = await self.service._event(event_id)
        if event.kind != SWISS:
            raise _error("not_swiss", "this event is not a live Swiss")
        return event

    async def set_registration(self, event_id: str, identity_id: int, is_open: bool) -> None:
        """The organiser (the event's creator, or the admin: ``identity_id`` None) opens or
        closes the registration."""
        event = await self._swiss(event_id)
        if identity_id is not None and identity_id != event.created_by:
            raise _error("not_allowed", "only the organiser opens or closes the registration")
        await self.writer.submit(
            _update(Tournament.id == event_id, Tournament, {"registration": is_open})
        )
        await self.changed(event_id)

    # ------------------------------------------------------------------ registration

    def _registering(self, event: Tournament) -> int:
        """The first round a pair registering now plays; refused when it is too late."""
        if event.cancelled or event.status == "finished":
            raise _error("event_closed", "this event is over")
        if not event.registration:
            raise _error("registration_closed", "the registration is closed")
        if event.status == "open":
            return 1
        joined = event.round + 1
        if joined > (event.rounds or 0):
            raise _error("registration_closed", "the last round has started")
        return joined

    async def register(
        self, event_id: str, identity_id: int, name: str | None, partner: str
    ) -> dict[str, Any]:
        """Register a pair: ``partner = "house"`` (alone: the house player is the partner) or
        ``"link"`` (a partner link for one other player). Returns ``{pair, code}``."""
        if not identity_id:
            raise _error("not_allowed", "open the page in a browser to register")
        if partner not in ("house", "link"):
            raise _error("bad_request", "partner is house or link")
        event = await self._swiss(event_id)
        joined = self._registering(event)
        code = secrets.token_urlsafe(12) if partner == "link" else None
        limit = event.max_pairs or MAX_PAIRS
        for _ in range(4):
            try:
                number: int = await self.writer.submit(
                    _register(event_id, identity_id, name, code, joined, limit)
                )
            except IntegrityError:  # a number, the browser's entry: someone was faster
                entry = await self.service._entry(event_id, identity_id)
                if entry is not None:
                    raise _error("already_registered", "you are already registered") from None
                continue
            await self.changed(event_id)
            return {"pair": number, "code": code}
        raise _error("busy", "too many registrations at once; try again")

    async def join(
        self, event_id: str, code: str, identity_id: int, name: str | None
    ) -> dict[str, Any]:
        """Join the pair whose partner link is ``code``; the link is spent."""
        if not identity_id:
            raise _error("not_allowed", "open the page in a browser to join")
        event = await self._swiss(event_id)
        if event.status not in ("open", "running") or event.cancelled:
            raise _error("link_used", "this partner link can no longer be used")
        try:
            number: int = await self.writer.submit(_join(event_id, code, identity_id, name))
        except IntegrityError:
            raise _error("already_registered", "you are already registered") from None
        await self.changed(event_id)
        return {"pair": number}

    async def leave(self, event_id: str, identity_id: int) -> None:
        """Leave an event before it starts (a pair left with one player gets a new link)."""
        event = await self._swiss(event_id)
        if event.status != "open":
            raise _error("event_started", "the event has started: the stand-in plays for you")
        ok = await self.writer.submit(_leave(event_id, identity_id))
        if not ok:
            raise _error("not_entered", "you are not registered")
        await self.changed(event_id)

    # ------------------------------------------------------------------ the runtime

    def soon(self, event_id: str) -> None:
        """Run ``advance`` for the event in the background (at most one waiting at a time)."""
        if event_id in self._soon:
            return
        self._soon.add(event_id)

        async def run() -> None:
            try:
                await asyncio.sleep(0)
                self._soon.discard(event_id)
                await self.advance(event_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("live swiss step failed", extra={"event": "tournament_live"})
            finally:
                self._soon.discard(event_id)

        task = asyncio.create_task(run(), name=f"swiss-{event_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def board_over(self, room: Room) -> None:
        """``RoomServices.board_over``: a table's board ended; a live event may deal on."""
        board = room.settings.get("board") or {}
        event_id = board.get("event")
        if isinstance(event_id, str) and board.get("table", 0) > 0:
            key = (event_id, int(board.get("board", 0)))
            self._ended_at[key] = time.perf_counter()
            self.soon(event_id)

    async def tick(self) -> None:
        """Every live event that is due or running: one step; then tell the pages."""
        now = self.clock()
        async with self.sessionmaker() as session:
            ids = (
                (
                    await session.execute(
                        select(Tournament.id).where(
                            Tournament.kind == SWISS,
                            Tournament.cancelled.is_(False),
                            Tournament.status.in_(("open", "running")),
                            Tournament.starts_at <= now + timedelta(seconds=1),
                        )
                    )
                )
                .scalars()
                .all()
            )
        for event_id in ids:
            try:
                await self.advance(event_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("live swiss step failed", extra={"event": "tournament_live"})
        for event_id in list(self.listeners):
            await self.watch(event_id)

    async def advance(self, event_id: str) -> None:
        """Take the event as far as it can go now: start it, pair a round, deal the next
        board at every table, score a round, finish. Idempotent; derived from the database."""
        async with self.service._lock(("live", event_id)):
            for _ in range(4 * MAX_ROUNDS):
                if not await self._step(event_id):
                    break
        await self.watch(event_id)

    async def _step(self, event_id: str) -> bool:
        """One step; True when something changed (another may follow at once)."""
        data = await self._read(event_id)
        event = data.event
        if event.kind != SWISS or event.cancelled or event.status == "finished":
            return False
        if event.status == "open":
            if self.clock() < _aware(event.starts_at):
                return False
            return bool(await self.writer.submit(_start(event_id)))
        r = event.round
        current = data.rounds.get(r)
        if r == 0 or (current is not None and current.finished_at is not None):
            if r >= (event.rounds or 0):
                return bool(await self.writer.submit(_finish(event_id, r)))
            return await self._pair(data, r + 1)
        if current is None:  # the round was counted but not paired: cannot happen
            return False
        boards = round_boards(event, r)
        tables = [p["table"] for p in current.pairings]
        dealt = [b for b in boards if any((b, t) in data.tables for t in tables)]
        if not dealt:
            return await self._deal(data, current, boards[0])
        k = dealt[-1]
        waiting = [t for t in tables if (k, t) not in data.finished]
        if waiting:
            await self._load(
                [data.tables[(k, t)].game_id for t in waiting if (k, t) in data.tables]
            )
            return False
        if k != boards[-1]:
            return await self._deal(data, current, k + 1)
        return await self._score(data, current)

    async def _read(self, event_id: str) -> _Live:
        async with self.sessionmaker() as session:
            event = await session.get(Tournament, event_id)
            if event is None:
                raise _error("not_found", "no such event")
            pairs = {
                p.number: p
                for p in (
                    await session.execute(
                        select(TournamentPair).where(TournamentPair.tournament_id == event_id)
                    )
                ).scalars()
            }
            members: dict[int, list[TournamentEntry]] = {}
            for e in await self.service._entries(session, event_id):
                if e.pair is not None:
                    members.setdefault(e.pair, []).append(e)
            rounds = {
                r.round: r
                for r in (
                    await session.execute(
                        select(TournamentRound).where(TournamentRound.tournament_id == event_id)
                    )
                ).scalars()
            }
            tables = await self.service._tables(session, event_id)
        return _Live(event, pairs, members, rounds, tables.rows, tables.finished)

    async def _pair(self, data: _Live, r: int) -> bool:
        """Pair round ``r`` and deal its first board (one transaction); its datum table
        (fewer than ``swiss.DATUM_BELOW_TABLES`` tables) plays the round's boards first."""
        event = data.event
        active = [
            n
            for n, p in sorted(data.pairs.items())
            if p.withdrawn_round is None and p.joined_round <= r and data.members.get(n)
        ]
        withdrawn = [n for n, p in data.pairs.items() if p.withdrawn_round is not None]
        if not active:
            return bool(await self.writer.submit(_finish(event.id, r - 1)))
        matches = self._matches(data)
        states = swiss.entrant_states(matches, active, withdrawn)
        pairings = swiss.pair_round(states, r, f"{event.id}:{r}", rounds=event.rounds)
        datum: list[tuple[int, str, dict[str, Any], dict[str, Any]]] = []
        if swiss.needs_datum(len(pairings)):
            datum = await self._datums(event, round_boards(event, r))
        rows = [{"table": p.table, "ns": p.ns, "ew": p.ew} for p in pairings]
        first = round_boards(event, r)[0]
        games = await self._games(data, rows, r, first)
        field = {n: len(m) for n, m in data.members.items() if m}
        work = then(
            _open_round(event.id, r, rows, field),
            _insert_games(event.id, first, games, datum),
        )
        try:
            opened = await self.writer.submit(work)
        except (IntegrityError, _Raced) as exc:  # taken meanwhile: read again, try again
            log.info(
                "live swiss round pairing raced",
                extra={"event": "tournament_round", "tournament": event.id, "error": str(exc)},
            )
            return True
        if opened:
            log.info(
                "live swiss round paired",
                extra={"event": "tournament_round", "tournament": event.id, "round": r},
            )
            await self._load([g["game"]["id"] for g in games])
        return bool(opened)

    async def _deal(self, data: _Live, current: TournamentRound, board: int) -> bool:
        """Deal ``board`` at every table of the round (one transaction)."""
        games = await self._games(data, current.pairings, current.round, board)
        try:
            await self.writer.submit(_insert_games(data.event.id, board, games, []))
        except IntegrityError:  # another process dealt it
            return True
        ended = self._ended_at.pop((data.event.id, board - 1), None)
        if ended is not None:
            self.deal_gaps.append(time.perf_counter() - ended)
        await self._load([g["game"]["id"] for g in games])
        return True

    async def _load(self, game_ids: list[str]) -> None:
        """Put the tables' rooms in memory (after a restart, on the process running the
        event): an unattended table plays on under the clock from there."""
        for game_id in game_ids:
            room = self.rooms.rooms.get(game_id)
            if room is not None and not room.closed:
                continue
            try:
                await self.rooms.get(game_id)
            except OwnedElsewhere:
                continue  # another process holds it and plays it

    async def _games(
        self, data: _Live, pairings: list[dict[str, Any]], r: int, board: int
    ) -> list[dict[str, Any]]:
        """The games of ``board`` at the round's tables: rows to insert."""
        event = data.event
        async with self.sessionmaker() as session:
            row = await session.get(TournamentBoard, (event.id, board))
        assert row is not None
        deck = [parse_card(c) for c in row.deck]
        state = new_match(event.variant, 4, dict(event.options), first_dealer=row.dealer, deck=deck)
        first = current_player(state)
        seconds = float(self.settings.clock_seconds or event.clock or 30)
        now_ms = int(time.time() * 1000)
        out = []
        for p in pairings:
            seats: list[repo.SeatRow] = []
            for side, pair in ((NS_SEATS, p["ns"]), (EW_SEATS, p["ew"])):
                players = [] if pair == swiss.HOUSE else data.members.get(pair, [])
                for i, seat in enumerate(side):
                    if i < len(players):
                        e = players[i]
                        seats.append(repo.SeatRow(seat, "human", e.identity_id, None, e.name))
                    else:
                        seats.append(repo.SeatRow(seat, "bot", None, event.house_level, None))
            seats.sort(key=lambda s: s.seat)
            game_id = new_game_id()
            human_first = first is not None and seats[first].kind == "human"
            clock = {
                "version": 1,
                "deadlines": {str(first): now_ms + int(seconds * 1000)} if human_first else {},
                "seconds": seconds,
                "at": now_ms,
            }
            out.append(
                {
                    "table": p["table"],
                    "game": {
                        "id": game_id,
                        "variant": event.variant,
                        "players": 4,
                        "options": dict(event.options),
                        "mode": "friends",
                        "status": "playing",
                        "spectators": False,
                        "host_id": None,
                        "scores": None,
                        "rematch_of": None,
                        "settings": {
                            "board": {
                                "event": event.id,
                                "round": r,
                                "board": board,
                                "table": p["table"],
                                "direction": "NS",
                            },
                            "clock": event.clock,
                            "stand_in": event.house_level,
                            "chat": False,
                            "spectator_chat": False,
                            "unattended": True,
                            "rated": False,
                        },
                        "clock": clock,
                    },
                    "seats": seats,
                    "deal": repo.DealRow(0, row.dealer, list(row.deck)),
                }
            )
        return out

    async def _datums(
        self, event: Tournament, boards: list[int]
    ) -> list[tuple[int, str, dict[str, Any], dict[str, Any]]]:
        """The datum table's play of ``boards``: (board, game id, record, result) each."""
        loop = asyncio.get_running_loop()
        executor = self.rooms.services.executor
        out = []
        async with self.sessionmaker() as session:
            rows = [await session.get(TournamentBoard, (event.id, b)) for b in boards]
        for row in rows:
            assert row is not None
            actions = await loop.run_in_executor(
                executor,
                play_datum,
                event.variant,
                4,
                dict(event.options),
                row.dealer,
                list(row.deck),
                event.house_level,
                f"{event.id}:{row.number}",
            )
            record = {
                "format": FORMAT,
                "variant": event.variant,
                "players": 4,
                "options": dict(event.options),
                "first_dealer": row.dealer,
                "deals": [{"dealer": row.dealer, "deck": list(row.deck), "actions": actions}],
            }
            result = await loop.run_in_executor(executor, table_result, record)
            assert result is not None, "a datum table plays its board to the end"
            out.append((row.number, new_game_id(), record, result))
        return out

    async def _score(self, data: _Live, current: TournamentRound) -> bool:
        """Score the round from its tables' results (swiss.py); withdraw the pairs absent
        from every board of it; finish the event after its last round."""
        event = data.event
        r = current.round
        await self.service.refresh(event.id)
        data = await self._read(event.id)
        boards = round_boards(event, r)
        humans_of: dict[int, set[int]] = {}
        for p in current.pairings:
            humans: set[int] = set()
            for side, pair in ((NS_SEATS, p["ns"]), (EW_SEATS, p["ew"])):
                n = 0 if pair == swiss.HOUSE else len(data.members.get(pair, []))
                humans.update(side[:n])
            humans_of[p["table"]] = humans
        board_scores: dict[int, dict[int, swiss.BoardScore]] = {}
        absent: dict[int, int] = {}  # pair -> boards it was absent on
        for b in boards:
            results = []
            for (bb, t), row in data.tables.items():
                if bb != b or row.result is None:
                    continue
                if t == swiss.DATUM_TABLE:
                    results.append(swiss.TableResult(t, float(row.result["net"])))
                    continue
                humans = humans_of.get(t, set())
                ns_absent = is_absent(row.result, NS_SEATS, humans)
                ew_absent = is_absent(row.result, EW_SEATS, humans)
                at_table = next(p for p in current.pairings if p["table"] == t)
                for pair, away in ((at_table["ns"], ns_absent), (at_table["ew"], ew_absent)):
                    if away and pair != swiss.HOUSE:
                        absent[pair] = absent.get(pair, 0) + 1
                results.append(swiss.TableResult(t, float(row.result["net"]), ns_absent, ew_absent))
            if any(
                bb == b and row.result is None and t > 0 for (bb, t), row in data.tables.items()
            ):
                return False  # a result not cached yet (refresh failed): try again later
            board_scores[b] = swiss.score_board(results)
        matches = []
        for p in current.pairings:
            pairing = swiss.Pairing(p["table"], p["ns"], p["ew"])
            ns, ew = swiss.score_match(
                pairing,
                r,
                [board_scores[b][p["table"]] for b in boards if p["table"] in board_scores[b]],
            )
            matches += [ns, ew]
        gone = sorted(pair for pair, n in absent.items() if n >= len(boards))
        scores = {
            "boards": {
                str(b): {str(t): asdict(s) for t, s in sorted(ss.items())}
                for b, ss in board_scores.items()
            },
            "matches": [asdict(m) for m in matches],
        }
        last = r >= (event.rounds or 0)
        done = await self.writer.submit(_close_round(event.id, r, scores, gone, last))
        if done:
            log.info(
                "live swiss round scored",
                extra={"event": "tournament_round_scored", "tournament": event.id, "round": r},
            )
        return bool(done)

    def _matches(self, data: _Live) -> list[swiss.MatchScore]:
        """Every finished round's match scores, with a late pair's byes."""
        out: list[swiss.MatchScore] = []
        for r, row in sorted(data.rounds.items()):
            if row.finished_at is None or not row.scores:
                continue
            out += [swiss.MatchScore(**m) for m in row.scores.get("matches", [])]
            tops = _round_tops(row)
            for n, p in data.pairs.items():
                if p.joined_round > r and data.members.get(n):
                    out.append(swiss.bye_score(n, r, tops))
        return out

    # ------------------------------------------------------------------ reading

    def _names(self, data: _Live, pair: int) -> list[str | None]:
        if pair == swiss.HOUSE:
            return [None, None]
        names: list[str | None] = [e.name or "" for e in data.members.get(pair, [])]
        p = data.pairs.get(pair)
        if p is not None and p.house_partner and len(names) < 2:
            names.append(None)  # the house player
        return names

    def revealed(self, event: Tournament, board: int, finished_rounds: set[int]) -> bool:
        """A board's results and records are shown to everyone once its round is over (so
        results stay hidden during the round), and never before."""
        return event.status == "finished" or round_of(board, event.boards) in finished_rounds

    async def may_read(self, event: Tournament, board: int) -> bool:
        async with self.sessionmaker() as session:
            row = await session.get(TournamentRound, (event.id, round_of(board, event.boards)))
        done = {row.round} if row is not None and row.finished_at is not None else set()
        return self.revealed(event, board, done)

    async def event(self, event_id: str, viewer: int) -> dict[str, Any]:
        """The event page's data as ``viewer`` may see it."""
        data = await self._read(event_id)
        return self._view_for(self._shared_view(data), data, viewer)

    @staticmethod
    def _member(data: _Live, viewer: int) -> TournamentEntry | None:
        if not viewer:
            return None
        return next(
            (e for es in data.members.values() for e in es if e.identity_id == viewer), None
        )

    def _view_for(self, shared: dict[str, Any], data: _Live, viewer: int) -> dict[str, Any]:
        """``shared`` (the event as anybody sees it) as ``viewer`` sees it: their pair marked,
        their table and board, the organiser's tools."""
        me = self._member(data, viewer)
        organiser = bool(viewer) and viewer == data.event.created_by
        if me is None and not organiser:
            return shared
        view = dict(shared, organiser=organiser)
        if me is not None:
            view["pairs"] = [dict(p, you=p["pair"] == me.pair) for p in shared["pairs"]]
            view["standings"] = [dict(r, you=r["pair"] == me.pair) for r in shared["standings"]]
            view["you"] = self._you(data, me)
        return view

    def _you(self, data: _Live, me: TournamentEntry) -> dict[str, Any]:
        """The member's pair, partner link, and the table and board they play now."""
        event = data.event
        pair = data.pairs.get(me.pair or 0)
        you: dict[str, Any] = {
            "pair": me.pair,
            "link": (
                f"/t/{event.id}/join/{pair.code}"
                if pair is not None and pair.code and data.members[me.pair or 0][0] is me
                else None
            ),
            "table": None,
            "direction": None,
            "board": None,
            "game_id": None,
            "url": None,
        }
        current = data.rounds.get(event.round)
        if current is None:
            return you
        boards = round_boards(event, current.round)
        for p in current.pairings:
            if you["pair"] not in (p["ns"], p["ew"]):
                continue
            you["table"] = p["table"]
            you["direction"] = "NS" if you["pair"] == p["ns"] else "EW"
            dealt = [b for b in boards if (b, p["table"]) in data.tables]
            if dealt and current.finished_at is None:
                row = data.tables[(dealt[-1], p["table"])]
                you["board"] = dealt[-1]
                you["game_id"] = row.game_id
                you["url"] = f"/g/{row.game_id}"
                you["board_over"] = (dealt[-1], p["table"]) in data.finished
            break
        return you

    def _shared_view(self, data: _Live) -> dict[str, Any]:
        """The event page's data as somebody who is neither in it nor its organiser sees it."""
        event = data.event
        finished_rounds = {r for r, row in data.rounds.items() if row.finished_at is not None}
        matches = self._matches(data)
        withdrawn = [n for n, p in data.pairs.items() if p.withdrawn_round is not None]
        entrants = [n for n in sorted(data.pairs) if data.members.get(n)]
        rows = swiss.standings(matches, entrants, withdrawn) if matches else []
        pairs_json = [
            {
                "pair": n,
                "names": self._names(data, n),
                "house_partner": bool(p.house_partner),
                "complete": p.code is None,
                "joined_round": p.joined_round,
                "withdrawn_round": p.withdrawn_round,
                "you": False,
            }
            for n, p in sorted(data.pairs.items())
            if data.members.get(n)
        ]
        current = data.rounds.get(event.round)
        round_json = None
        if current is not None:
            boards = round_boards(event, current.round)
            tables = []
            for p in current.pairings:
                done = [b for b in boards if (b, p["table"]) in data.finished]
                tables.append(
                    {
                        "table": p["table"],
                        "ns": p["ns"],
                        "ew": p["ew"],
                        "ns_names": self._names(data, p["ns"]),
                        "ew_names": self._names(data, p["ew"]),
                        "boards_done": len(done),
                    }
                )
            dealt_all = [b for b in boards if any((b, t["table"]) in data.tables for t in tables)]
            round_json = {
                "round": current.round,
                "finished": current.finished_at is not None,
                "board": dealt_all[-1] if dealt_all else None,
                "boards": boards,
                "tables": tables,
            }
        names = {n: self._names(data, n) for n in data.pairs}
        standings_json = [
            {
                "rank": row.rank,
                "pair": row.entrant,
                "names": names.get(row.entrant, []),
                "house_partner": bool(
                    data.pairs[row.entrant].house_partner if row.entrant in data.pairs else False
                ),
                "vp": row.vp,
                "mp": row.mp,
                "tiebreak": row.tiebreak,
                "rounds": row.rounds,
                "byes": row.byes,
                "withdrawn": row.withdrawn,
                "you": False,
            }
            for row in rows
        ]
        phase = "cancelled" if event.cancelled else (event.status or "open")
        return {
            "event": {
                **self.service._event_json(event, phase, len(pairs_json)),
                "rounds": event.rounds,
                "clock": event.clock,
                "round": event.round,
                "registration": bool(event.registration),
                "max_pairs": event.max_pairs,
                "pairs": len(pairs_json),
            },
            "now": _iso_now(self.clock()),
            "organiser": False,
            "pairs": pairs_json,
            "you": None,
            "round": round_json,
            "standings": standings_json,
            "boards": [
                {
                    "board": b,
                    "round": round_of(b, event.boards),
                    "revealed": self.revealed(event, b, finished_rounds),
                    "traveller_url": (
                        f"/t/{event.id}/boards/{b}"
                        if self.revealed(event, b, finished_rounds)
                        else None
                    ),
                }
                for b in range(1, event.boards * (event.rounds or 0) + 1)
            ],
            "exports": (
                {
                    "csv": f"/api/tournaments/{event.id}/results.csv",
                    "archive": f"/api/tournaments/{event.id}/archive.zip",
                }
                if event.status == "finished"
                else None
            ),
        }

    async def traveller(self, event_id: str, board: int) -> dict[str, Any]:
        """Every table's result on ``board`` once its round is over, with both directions'
        matchpoints; ``hidden`` before."""
        data = await self._read(event_id)
        event = data.event
        if not 1 <= board <= event.boards * (event.rounds or 0):
            raise _error("no_such_board", "no such board")
        r = round_of(board, event.boards)
        row = data.rounds.get(r)
        finished = {r} if row is not None and row.finished_at is not None else set()
        if not self.revealed(event, board, finished):
            raise _error("hidden", "this board is hidden until its round is over")
        await self.service.refresh(event_id)
        data = await self._read(event_id)
        scores = ((row.scores or {}).get("boards") or {}).get(str(board), {}) if row else {}
        pairing = {p["table"]: p for p in (row.pairings if row else [])}
        out = []
        for (b, t), table in sorted(data.tables.items()):
            if b != board or (b, t) not in data.finished or table.result is None:
                continue
            res = table.result
            p = pairing.get(t, {"ns": swiss.HOUSE, "ew": swiss.HOUSE})
            score = scores.get(str(t))
            ns_names = self._names(data, p["ns"])
            ew_names = self._names(data, p["ew"])
            out.append(
                {
                    "table": t,
                    "datum": t == swiss.DATUM_TABLE,
                    "ns": p["ns"],
                    "ew": p["ew"],
                    "ns_names": ns_names,
                    "ew_names": ew_names,
                    "name": None if t == swiss.DATUM_TABLE else _match_name(p, ns_names, ew_names),
                    "you": False,
                    "contract": res.get("contract"),
                    "outcome": res.get("outcome"),
                    "taker_side": res.get("taker_side"),
                    "scores": res.get("scores"),
                    "net": res.get("net"),
                    "par": res.get("par"),
                    "stand_in": sum(res.get("stood_in") or []),
                    "score": score,
                    "matchpoints": (
                        {
                            "points": score["ns_mp"],
                            "top": score["top"],
                            "percent": score["ns_percent"],
                        }
                        if score
                        else None
                    ),
                    "game_id": table.game_id,
                    "replay_url": f"/replay/{table.game_id}",
                    "analysis_url": f"/replay/{table.game_id}?deal=0#analysis",
                }
            )
        out.sort(key=lambda x: (-(x["net"] or 0), x["table"]))
        async with self.sessionmaker() as session:
            board_row = await session.get(TournamentBoard, (event_id, board))
        return {
            "event": event.id,
            "round": r,
            "board": board,
            "dealer": board_row.dealer if board_row else None,
            "variant": event.variant,
            "players": 4,
            "direction": "NS",
            "tables": out,
        }

    # ------------------------------------------------------------------ exports

    async def results_csv(self, event_id: str) -> str:
        """One line per table and board (the datum included), once the event is over."""
        data = await self._closed(event_id)
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(
            ["event", "round", "board", "table", "ns_pair", "ns_names", "ew_pair", "ew_names"]
            + ["contract", "taker_side", "outcome", "score_ns", "score_ew", "ns_net"]
            + ["par_taker", "par_defence", "top", "ns_mp", "ew_mp", "ns_percent", "ew_percent"]
            + ["adjusted", "game_id"]
        )
        event = data.event
        for (b, t), row in sorted(data.tables.items()):
            r = row.result
            if r is None:
                continue
            rnd = data.rounds.get(round_of(b, event.boards))
            p = next(
                (x for x in (rnd.pairings if rnd else []) if x["table"] == t),
                {"ns": swiss.HOUSE, "ew": swiss.HOUSE},
            )
            kept = (rnd.scores if rnd is not None else None) or {}
            s = ((kept.get("boards") or {}).get(str(b)) or {}).get(str(t), {})
            c = r.get("contract") or {}
            contract = (
                f"{c.get('value', '')}{c['denom']}{'x' * (c['multiplier'] // 2)}".strip()
                if c
                else ""
            )
            par = r.get("par") or {}
            scores = list(r.get("scores") or [0, 0])
            w.writerow(
                [event.id, round_of(b, event.boards), b, t]
                + [p["ns"], " & ".join(n or "house" for n in self._names(data, p["ns"]))]
                + [p["ew"], " & ".join(n or "house" for n in self._names(data, p["ew"]))]
                + [contract, r.get("taker_side"), r.get("outcome"), *scores[:2], r.get("net")]
                + [par.get("taker"), par.get("defence"), s.get("top"), s.get("ns_mp")]
                + [s.get("ew_mp"), s.get("ns_percent"), s.get("ew_percent"), s.get("adjusted")]
                + [row.game_id]
            )
        return out.getvalue()

    async def archive(self, event_id: str, viewer: int) -> bytes:
        """A zip: ``event.json`` (the event, its rounds and standings, every traveller),
        ``results.csv``, and every table's ``belote-record/1`` as
        ``rounds/<r>/boards/<b>/table-<t>.json`` (meta: event, round, board, table,
        direction, and the pairs ``ns`` and ``ew``)."""
        data = await self._closed(event_id)
        event = data.event
        view = await self.event(event_id, viewer)
        travellers = [
            await self.traveller(event_id, b)
            for b in range(1, event.boards * (event.rounds or 0) + 1)
        ]
        rounds = [
            {"round": r, "pairings": row.pairings, "scores": row.scores}
            for r, row in sorted(data.rounds.items())
        ]
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(
                "event.json",
                json.dumps(
                    {**view, "rounds": rounds, "travellers": travellers},
                    ensure_ascii=False,
                    indent=1,
                ),
            )
            z.writestr("results.csv", await self.results_csv(event_id))
            async with self.sessionmaker() as session:
                for (b, t), row in sorted(data.tables.items()):
                    game = await repo.load_game(session, row.game_id)
                    if game is None:
                        continue
                    r = round_of(b, event.boards)
                    rnd = data.rounds.get(r)
                    p = next(
                        (x for x in (rnd.pairings if rnd else []) if x["table"] == t),
                        {"ns": swiss.HOUSE, "ew": swiss.HOUSE},
                    )
                    meta = {
                        "event": event.id,
                        "round": r,
                        "board": b,
                        "table": t,
                        "direction": "NS",
                        "ns": p["ns"],
                        "ew": p["ew"],
                        "game_id": row.game_id,
                        "names": [s.display_name for s in game.seats],
                    }
                    record = game.record(meta)
                    if record is not None:
                        z.writestr(
                            f"rounds/{r}/boards/{b}/table-{t}.json",
                            json.dumps(record, ensure_ascii=False),
                        )
        return buffer.getvalue()

    async def _closed(self, event_id: str) -> _Live:
        event = await self._swiss(event_id)
        if event.status != "finished" and not event.cancelled:
            raise _error("event_running", "the exports open when the event is over")
        await self.service.refresh(event_id)
        return await self._read(event_id)

    # ------------------------------------------------------------------ the live page

    def attach(self, event_id: str, listener: EventListener) -> None:
        self.listeners.setdefault(event_id, set()).add(listener)

    def detach(self, event_id: str, listener: EventListener) -> None:
        group = self.listeners.get(event_id)
        if group is not None:
            group.discard(listener)
            if not group:
                del self.listeners[event_id]
        for key in [k for k in self._sent if k[0] == event_id and k[1] == id(listener)]:
            del self._sent[key]

    async def send_to(self, event_id: str, listener: EventListener) -> None:
        """Send ``listener`` the event as it may see it, if it changed since the last one."""
        await self._send_all(event_id, [listener])

    async def changed(self, event_id: str) -> None:
        """Something of the event changed here: tell its pages (the event is read once, and
        what everybody sees of it built once)."""
        await self._send_all(event_id, list(self.listeners.get(event_id, ())))

    async def _send_all(self, event_id: str, listeners: list[EventListener]) -> None:
        if not listeners:
            return
        try:
            data = await self._read(event_id)
            shared = self._shared_view(data)
        except Exception:
            log.exception("event view failed", extra={"event": "tournament_live"})
            return
        shared.pop("now", None)
        texts: dict[int, str] = {}  # the views that are the shared one: one text for them all
        for listener in listeners:
            view = self._view_for(shared, data, listener.identity_id)
            text = texts.get(id(view))
            if text is None:
                text = json.dumps({"type": "tournament", "data": view}, ensure_ascii=False)
                texts[id(view)] = text
            key = (event_id, id(listener))
            if self._sent.get(key) == text:
                continue
            self._sent[key] = text
            listener.send(text)

    async def watch(self, event_id: str) -> None:
        """Tell the pages if the event changed, here or in another process: a digest of its
        rows (status, round, pairs, tables dealt and finished) is compared with the last."""
        if not self.listeners.get(event_id):
            return
        async with self.sessionmaker() as session:
            digest = (
                await session.execute(
                    select(
                        select(Tournament.status)
                        .where(Tournament.id == event_id)
                        .scalar_subquery(),
                        select(Tournament.round).where(Tournament.id == event_id).scalar_subquery(),
                        select(Tournament.registration)
                        .where(Tournament.id == event_id)
                        .scalar_subquery(),
                        select(func.count())
                        .select_from(TournamentEntry)
                        .where(TournamentEntry.tournament_id == event_id)
                        .scalar_subquery(),
                        select(func.count())
                        .select_from(TournamentPair)
                        .where(TournamentPair.tournament_id == event_id)
                        .scalar_subquery(),
                        select(func.count())
                        .select_from(TournamentTable)
                        .where(TournamentTable.tournament_id == event_id)
                        .scalar_subquery(),
                        select(func.count())
                        .select_from(TournamentTable)
                        .join(Game, Game.id == TournamentTable.game_id)
                        .where(TournamentTable.tournament_id == event_id, Game.status == "finished")
                        .scalar_subquery(),
                        select(func.count())
                        .select_from(TournamentRound)
                        .where(
                            TournamentRound.tournament_id == event_id,
                            TournamentRound.finished_at.is_not(None),
                        )
                        .scalar_subquery(),
                    )
                )
            ).one()
        if self._digest.get(event_id) == tuple(digest):
            return
        self._digest[event_id] = tuple(digest)
        await self.changed(event_id)

    async def stop(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


# --------------------------------------------------------------------------- helpers


def _aware(value: datetime) -> datetime:
    from app.tournaments.service import _aware as aware

    return aware(value)


def _iso_now(now: datetime) -> str:
    from app.tournaments.service import iso

    return iso(now) or ""


def _match_name(p: dict[str, Any], ns: list[str | None], ew: list[str | None]) -> str:
    """ "1: Ann & Bob – 2: Cy & house" (the traveller's line of a table)."""

    def side(pair: int, names: list[str | None]) -> str:
        if pair == swiss.HOUSE:
            return "house"
        return f"{pair}: " + " & ".join(n or ("house" if n is None else "?") for n in names)

    return f"{side(p['ns'], ns)} – {side(p['ew'], ew)}"


def _round_tops(row: TournamentRound) -> list[int]:
    boards = (row.scores or {}).get("boards") or {}
    tops = []
    for _b, tables in sorted(boards.items(), key=lambda kv: int(kv[0])):
        first = next(iter(tables.values()), None)
        tops.append(int(first["top"]) if first else 0)
    return tops


def _update(where: Any, model: Any, values: dict[str, Any]) -> repo.Work:
    def work(session: Session) -> None:
        session.execute(update(model).where(where).values(**values))

    return work


def _locked_event(session: Session, event_id: str) -> Tournament | None:
    """The event's row, locked until the transaction ends (PostgreSQL; SQLite has one
    writer): two processes running the event take their steps one after the other."""
    return session.scalar(select(Tournament).where(Tournament.id == event_id).with_for_update())


def _register(
    event_id: str, identity_id: int, name: str | None, code: str | None, joined: int, limit: int
) -> repo.Work:
    def work(session: Session) -> int:
        taken = set(
            session.scalars(
                select(TournamentPair.number).where(TournamentPair.tournament_id == event_id)
            ).all()
        )
        number = next((n for n in range(1, limit + 1) if n not in taken), None)
        if number is None:
            raise _error("full", "the event is full")
        session.add(
            TournamentPair(
                tournament_id=event_id,
                number=number,
                code=code,
                house_partner=code is None,
                joined_round=joined,
                created_at=utcnow(),
            )
        )
        session.flush()
        _add_entry(session, event_id, identity_id, name, number)
        return number

    return work


def _add_entry(
    session: Session, event_id: str, identity_id: int, name: str | None, pair: int
) -> None:
    top = session.scalar(
        select(func.max(TournamentEntry.number)).where(TournamentEntry.tournament_id == event_id)
    )
    session.add(
        TournamentEntry(
            tournament_id=event_id,
            identity_id=identity_id,
            number=(top or 0) + 1,
            name=name,
            pair=pair,
            created_at=utcnow(),
        )
    )
    session.flush()


def _join(event_id: str, code: str, identity_id: int, name: str | None) -> repo.Work:
    def work(session: Session) -> int:
        number = session.scalar(
            select(TournamentPair.number).where(
                TournamentPair.tournament_id == event_id, TournamentPair.code == code
            )
        )
        if number is None:
            raise _error("link_used", "this partner link is not valid or was already used")
        event = session.get(Tournament, event_id)
        if event is None or event.status not in ("open", "running"):
            raise _error("link_used", "this partner link can no longer be used")
        mine = session.get(TournamentEntry, (event_id, identity_id))
        if mine is not None:
            raise _error("already_registered", "you are already registered")
        spent = session.execute(
            update(TournamentPair)
            .where(
                TournamentPair.tournament_id == event_id,
                TournamentPair.number == number,
                TournamentPair.code == code,
            )
            .values(code=None)
        )
        if spent.rowcount != 1:  # type: ignore[attr-defined]
            raise _error("link_used", "this partner link is not valid or was already used")
        _add_entry(session, event_id, identity_id, name, number)
        return int(number)

    return work


def _leave(event_id: str, identity_id: int) -> repo.Work:
    def work(session: Session) -> bool:
        entry = session.get(TournamentEntry, (event_id, identity_id))
        if entry is None or entry.pair is None:
            return False
        pair = entry.pair
        session.delete(entry)
        session.flush()
        left = session.scalar(
            select(func.count()).where(
                TournamentEntry.tournament_id == event_id, TournamentEntry.pair == pair
            )
        )
        if not left:
            session.execute(
                delete(TournamentPair).where(
                    TournamentPair.tournament_id == event_id, TournamentPair.number == pair
                )
            )
        else:  # the partner stays: a new link for another partner
            session.execute(
                update(TournamentPair)
                .where(TournamentPair.tournament_id == event_id, TournamentPair.number == pair)
                .values(code=secrets.token_urlsafe(12), house_partner=False)
            )
        return True

    return work


def _start(event_id: str) -> repo.Work:
    """The event starts: a pair whose partner never joined plays with the house partner."""

    def work(session: Session) -> bool:
        event = _locked_event(session, event_id)
        if event is None or event.status != "open":
            return False
        session.execute(
            update(TournamentPair)
            .where(TournamentPair.tournament_id == event_id, TournamentPair.code.is_not(None))
            .values(code=None, house_partner=True)
        )
        session.execute(
            update(Tournament).where(Tournament.id == event_id).values(status="running", round=0)
        )
        return True

    return work


def _finish(event_id: str, r: int) -> repo.Work:
    def work(session: Session) -> bool:
        event = _locked_event(session, event_id)
        if event is None or event.status == "finished" or event.round != r:
            return False
        session.execute(
            update(Tournament)
            .where(Tournament.id == event_id)
            .values(status="finished", ends_at=utcnow())
        )
        return True

    return work


def _open_round(
    event_id: str, r: int, pairings: list[dict[str, Any]], field: dict[int, int]
) -> repo.Work:
    """Round ``r``'s row, if the event is still where it was read and its pairs (``field``:
    pair -> players) have not changed since (a registration or a join in between: the step
    is taken again). A pair whose partner has not joined plays with the house partner, and
    its link is spent."""

    def work(session: Session) -> bool:
        event = _locked_event(session, event_id)
        if event is None or event.round != r - 1 or event.status != "running":
            raise _Raced(f"round {r} already paired")
        now = dict(
            session.execute(
                select(TournamentEntry.pair, func.count())
                .where(TournamentEntry.tournament_id == event_id, TournamentEntry.pair.is_not(None))
                .group_by(TournamentEntry.pair)
            ).all()
        )
        if now != field:
            raise _Raced("the pairs changed while the round was paired")
        session.execute(
            update(TournamentPair)
            .where(
                TournamentPair.tournament_id == event_id,
                TournamentPair.code.is_not(None),
                TournamentPair.joined_round <= r,
            )
            .values(code=None, house_partner=True)
        )
        session.add(
            TournamentRound(tournament_id=event_id, round=r, pairings=pairings, started_at=utcnow())
        )
        session.execute(update(Tournament).where(Tournament.id == event_id).values(round=r))
        session.flush()
        return True

    return work


def _insert_games(
    event_id: str,
    board: int,
    games: list[dict[str, Any]],
    datum: list[tuple[int, str, dict[str, Any], dict[str, Any]]],
) -> repo.Work:
    """The tables' games of ``board`` (and the datum's of the round's boards), with their
    tournament_tables rows: all or nothing."""

    def work(session: Session) -> bool:
        now = utcnow()
        for g in games:
            repo.insert_game(g["game"], g["seats"], g["deal"])(session)
            session.add(
                TournamentTable(
                    tournament_id=event_id,
                    board=board,
                    table=g["table"],
                    identity_id=None,
                    game_id=g["game"]["id"],
                    result=None,
                    created_at=now,
                )
            )
        for b, game_id, record, result in datum:
            _insert_datum(session, event_id, b, game_id, record, result)
        session.flush()
        return True

    return work


def _insert_datum(
    session: Session,
    event_id: str,
    board: int,
    game_id: str,
    record: dict[str, Any],
    result: dict[str, Any],
) -> None:
    deal = record["deals"][0]
    game = {
        "id": game_id,
        "variant": record["variant"],
        "players": 4,
        "options": dict(record["options"]),
        "mode": "computer",
        "status": "finished",
        "spectators": False,
        "host_id": None,
        "scores": list(result["scores"]),
        "rematch_of": None,
        "settings": {
            "board": {
                "event": event_id,
                "round": 0,  # set below
                "board": board,
                "table": swiss.DATUM_TABLE,
                "direction": "NS",
            }
        },
        "clock": None,
    }
    event = session.get(Tournament, event_id)
    assert event is not None
    game["settings"]["board"]["round"] = round_of(board, event.boards)
    seats = [repo.SeatRow(s, "bot", None, event.house_level, None) for s in range(4)]
    repo.insert_game(game, seats, repo.DealRow(0, deal["dealer"], list(deal["deck"])))(session)
    rows = [
        repo.ActionRow(i, 0, a["seat"], {k: v for k, v in a.items() if k != "seat"}, None)
        for i, a in enumerate(deal["actions"])
    ]
    repo.record_step(game_id, rows)(session)
    now = utcnow()
    session.add(
        TournamentTable(
            tournament_id=event_id,
            board=board,
            table=swiss.DATUM_TABLE,
            identity_id=None,
            game_id=game_id,
            result=result,
            created_at=now,
            finished_at=now,
        )
    )


def _close_round(
    event_id: str, r: int, scores: dict[str, Any], withdrawn: list[int], last: bool
) -> repo.Work:
    def work(session: Session) -> bool:
        event = _locked_event(session, event_id)
        row = session.get(TournamentRound, (event_id, r))
        if event is None or row is None or row.finished_at is not None:
            return False
        now = utcnow()
        session.execute(
            update(TournamentRound)
            .where(TournamentRound.tournament_id == event_id, TournamentRound.round == r)
            .values(scores=scores, finished_at=now)
        )
        if withdrawn:
            session.execute(
                update(TournamentPair)
                .where(
                    TournamentPair.tournament_id == event_id,
                    TournamentPair.number.in_(withdrawn),
                    TournamentPair.withdrawn_round.is_(None),
                )
                .values(withdrawn_round=r)
            )
        if last:
            session.execute(
                update(Tournament)
                .where(Tournament.id == event_id)
                .values(status="finished", ends_at=now)
            )
        return True

    return work
