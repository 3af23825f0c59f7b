"""A table that never stalls: the decision clock, presence, and the stand-in (RULES.md D-21, D-22).

**The clock.** A friends table created with a clock (15, 30, 60 or 120 s; ``"none"`` by
default) gives each human seat a deadline for each of its own decisions: when it is to act (any
phase), and the ``next_deal`` consent of a played ``duel`` deal, which waits for every seat with
no countdown of its own. The deadlines are durable state: ``games.clock`` =
``{"version", "deadlines": {seat: epoch ms}, "seconds", "at"}`` (``at``: when it was written),
in the same transaction as the step that starts the decision (``plan``). When a deadline
passes, the seat's stand-in plays that one decision (``"by": "stand_in"``) or agrees to the
consent. A decision is never lost to time while the server could not be reached: after a
restart, a failover or a handover each running deadline becomes
``now + (deadline - at) + GRACE_SECONDS``, at least what was left when the server went away
plus the grace, and is written back (``restore``).

**Away.** A human seat with no open connection is away since the moment its last connection
closed (or since the room was loaded). After ``away_seconds`` every other connected human may
agree (``stand_in``); once all of them have, the seat's ``stand_in`` is ``"away"`` (stored,
``seats.stand_in``) and the stand-in plays its decisions at the bots' pace, but never while a
connection of the seat's player is open (``active``). A seat whose player left the table
(``seating.leave``) is ``"left"``: the stand-in plays it to the end of the match, connected or
not. The player takes the seat back by acting (``Room.execute`` clears the flag in the same
transaction as the action) or with ``back``.

The stand-in is a bot of the table's ``stand_in`` level that sees only the seat's view: the
room's ``BotDriver`` runs it (bot_driver.py), for the away and left seats as for the clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.engine import Phase, State, current_player
from app.persistence import repository as repo
from app.rooms import messages as out
from app.rooms.consents import seats_not_stood_in, waits_for_every_seat
from app.rooms.errors import CommandError, RoomClosed
from app.rooms.model import Listener, Mode, Status, owner

if TYPE_CHECKING:
    from app.rooms.room import Room

log = logging.getLogger("atout.rooms")

GRACE_SECONDS = 10.0  # added to every running clock after a restart
STAND_IN_RETRY_SECONDS = 1.0  # a stand-in that failed to think tries again after this


class Live:
    def __init__(self, room: Room) -> None:
        self.room = owner(room)
        self.now: Callable[[], float] = time.time  # seconds; the deadlines are epoch ms
        self.deadlines: dict[int, int] = {}  # seat -> when its running clock runs out (ms)
        self.loaded_at = self.now_ms()  # a seat never connected since is away since then
        self.away_since: dict[int, int] = {}  # seat -> since when no connection holds it (ms)
        self.votes: dict[int, set[int]] = {}  # away seat -> the seats that agreed
        self._timer: asyncio.Task[None] | None = None

    def now_ms(self) -> int:
        return int(self.now() * 1000)

    # ------------------------------------------------------------------ settings

    def clock_seconds(self) -> float | None:
        """The length of a decision, or None when the table has no clock."""
        room = self.room
        if room.mode != Mode.FRIENDS:
            return None
        clock = room.settings.get("clock", "none")
        if clock == "none":
            return None
        override = room.services.settings.clock_seconds
        return float(override) if override else float(clock)

    def stand_in_level(self) -> str:
        level: str = self.room.settings.get("stand_in", "medium")
        return level

    # ------------------------------------------------------------------ the stand-in

    def active(self, seat: int) -> bool:
        """Whether the stand-in plays this seat now: a seat it holds (``stand_in``), "left",
        or "away" with no connection of its player open."""
        room = self.room
        s = room.seats[seat]
        if s.kind != "human" or s.stand_in is None or room.status != Status.PLAYING:
            return False
        return s.stand_in == "left" or seat not in room.connected_seats()

    # ------------------------------------------------------------------ presence

    def presence(self, before: set[int], after: set[int]) -> None:
        """Connections opened or closed: away times start and end; a seat whose player came
        back loses the votes collected for it."""
        now = self.now_ms()
        for seat in after - before:
            self.away_since.pop(seat, None)
            self.votes.pop(seat, None)
        for seat in before - after:
            self.away_since[seat] = now
        if after - before:
            self.rearm()  # a clock that ran out while nobody was there is handled now

    def away_since_ms(self, seat: int) -> int | None:
        room = self.room
        s = room.seats[seat]
        if s.kind != "human" or s.identity_id is None or seat in room.connected_seats():
            return None
        return self.away_since.get(seat, self.loaded_at)

    def voters(self, seat: int) -> set[int]:
        """The connected human seats, of another player than ``seat``'s, whose agreement the
        stand-in of ``seat`` waits for."""
        room = self.room
        owner = room.seats[seat].identity_id
        return {
            s
            for s in room.connected_seats()
            if s != seat and room.seats[s].kind == "human" and room.seats[s].identity_id != owner
        }

    # ------------------------------------------------------------------ commands

    async def vote(self, listener: Listener, seat: int, msg_id: str | None) -> None:
        """``stand_in``: the sender agrees to let the stand-in play ``seat``."""
        room = self.room
        if not listener.seats:
            raise CommandError("not_allowed", "spectators do not decide for the players")
        if room.mode != Mode.FRIENDS or room.status != Status.PLAYING:
            raise CommandError("not_allowed", "only a friends game in progress has a stand-in")
        if not 0 <= seat < room.players:
            raise CommandError("bad_message", f"seats are numbered 0..{room.players - 1}")
        if seat in listener.seats:
            raise CommandError("not_allowed", "this is your own seat")
        target = room.seats[seat]
        if target.kind != "human" or target.identity_id is None:
            raise CommandError("not_away", f"seat {seat} is a computer player")
        if target.stand_in is not None:
            raise CommandError("not_away", f"the stand-in already plays seat {seat}")
        since = self.away_since_ms(seat)
        if since is None:
            raise CommandError("not_away", f"seat {seat} is connected")
        away_ms = int(room.settings.get("away_seconds", 120)) * 1000
        if self.now_ms() - since < away_ms:
            raise CommandError(
                "not_away", f"seat {seat} has not been away for {away_ms // 1000} s yet"
            )
        voters = self.voters(seat)
        votes = self.votes.get(seat, set()) | (set(listener.seats) & voters)
        if voters <= votes:
            target = target.copy()
            target.stand_in = "away"
            await self._save_seats([target])
            self.votes.pop(seat, None)
            self._acked(listener, msg_id)
            log.info(
                "stand-in plays an away seat",
                extra={"event": "stand_in", "game": room.game_id, "seat": seat},
            )
            room.broadcast_room()
            await room.check_consents()
            room.bots.schedule()
            return
        self.votes[seat] = votes
        self._acked(listener, msg_id)
        room.broadcast_room()

    async def back(self, listener: Listener, msg_id: str | None) -> None:
        """``back``: the stand-in stops for every seat the sender holds."""
        room = self.room
        if not listener.seats:
            raise CommandError("spectator", "spectators hold no seat")
        held = [room.seats[s] for s in listener.seats if room.seats[s].stand_in is not None]
        if not held:
            raise CommandError("not_allowed", "the stand-in plays none of your seats")
        await self.take_back([s.seat for s in held])
        self._acked(listener, msg_id)
        room.broadcast_room()
        room.bots.schedule()

    async def take_back(self, seats: list[int]) -> None:
        """Clear ``stand_in`` on ``seats`` (stored first)."""
        changed = []
        for seat in seats:
            s = self.room.seats[seat].copy()
            s.stand_in = None
            changed.append(s)
        await self._save_seats(changed)

    def cleared_seats(self, seat: int, by: str | None) -> list[repo.SeatRow]:
        """The seat rows an action of ``seat`` rewrites: its player's own action (``by`` None)
        takes the seat back from the stand-in."""
        s = self.room.seats[seat]
        if by is not None or s.kind != "human" or s.stand_in is None:
            return []
        row = s.copy()
        row.stand_in = None
        return [row.row()]

    async def _save_seats(self, seats: list[Any]) -> None:
        room = self.room
        try:
            await room.store(repo.save_seats(room.game_id, [s.row() for s in seats]))
        except Exception:
            log.exception(
                "could not store a seat", extra={"event": "store_failed", "game": room.game_id}
            )
            raise CommandError("server_error", "the change could not be saved; try again") from None
        for s in seats:
            room.seats[s.seat] = s

    def _acked(self, listener: Listener, msg_id: str | None) -> None:
        if msg_id is not None:
            self.room.send(listener, out.ack(msg_id, self.room.version))

    # ------------------------------------------------------------------ the clock

    def decisions(self, state: State | None, agreed: set[int]) -> list[int]:
        """The human seats whose own decision the table waits for in ``state``."""
        room = self.room
        if state is None or room.status == Status.WAITING or state.phase is Phase.MATCH_OVER:
            return []
        if state.claimer >= 0:  # a claim's play-out: the server plays every card
            return []
        to_act = current_player(state)
        if to_act is not None:
            return [to_act] if room.seats[to_act].kind == "human" else []
        if waits_for_every_seat(state, room.mode, room.board):
            return [s for s in seats_not_stood_in(room.facts()) if s not in agreed]
        return []

    def plan(self, state: State | None) -> dict[int, int]:
        """The deadlines of the decisions ``state`` starts (a new step: nobody agreed yet)."""
        seconds = self.clock_seconds()
        if seconds is None or state is None:
            return {}
        deadline = self.now_ms() + int(seconds * 1000)
        return {seat: deadline for seat in self.decisions(state, set())}

    def stored(self, deadlines: dict[int, int], version: int) -> dict[str, Any] | None:
        """``games.clock`` for ``deadlines`` (None when the table has no clock)."""
        seconds = self.clock_seconds()
        if seconds is None:
            return None
        return {
            "version": version,
            "deadlines": {str(seat): ms for seat, ms in sorted(deadlines.items())},
            "seconds": seconds,
            "at": self.now_ms(),  # when it was written: the server was reachable then
        }

    def set(self, deadlines: dict[int, int]) -> None:
        self.deadlines = dict(deadlines)
        self.rearm()

    async def restore(self, stored: dict[str, Any] | None) -> None:
        """After a load (a restart, a failover, a handover): no seat loses a decision to time
        while the server could not be reached. Each running clock gets at least the time it
        had left when the server went away, plus ``GRACE_SECONDS``, and is written back (the
        caller holds the lock).

        When the server went away is not known exactly, but it was reachable when the clock
        was written (``at``): ``deadline - at`` is at least what was left when it went away, so
        the new deadline is ``now + (deadline - at) + grace``. A clock written before ``at``
        was stored goes on from ``max(deadline, now) + grace``."""
        room = self.room
        if self.clock_seconds() is None or room.status != Status.PLAYING:
            return
        now = self.now_ms()
        old: dict[int, int] = {}
        written: int | None = None
        if stored and stored.get("version") == room.version:
            for seat, ms in (stored.get("deadlines") or {}).items():
                with contextlib.suppress(TypeError, ValueError):
                    old[int(seat)] = int(ms)
            with contextlib.suppress(TypeError, ValueError):
                written = int(stored["at"]) if stored.get("at") is not None else None
        fresh = {
            seat: ms
            for seat, ms in self.plan(room.state).items()
            if seat not in room.consents.agreed
        }
        grace = int(GRACE_SECONDS * 1000)

        def resumed(seat: int, planned: int) -> int:
            if seat not in old:  # a decision with no stored clock: a whole one
                return planned + grace
            if written is None:
                return max(old[seat], now) + grace
            return now + max(0, old[seat] - written) + grace

        deadlines = {seat: resumed(seat, ms) for seat, ms in fresh.items()}
        await room.store(
            repo.save_seats(room.game_id, [], clock=self.stored(deadlines, room.version))
        )
        self.set(deadlines)

    def rearm(self) -> None:
        """Wait for the earliest running deadline."""
        self.stop()
        if not self.deadlines or self.room.closed:
            return
        seat, deadline = min(self.deadlines.items(), key=lambda item: (item[1], item[0]))
        room = self.room
        self._timer = asyncio.create_task(
            self._expire(seat, deadline, room.version), name=f"clock-{room.game_id}-{seat}"
        )

    def stop(self) -> None:
        task, self._timer = self._timer, None
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    async def _expire(self, seat: int, deadline: int, version: int) -> None:
        room = self.room
        await asyncio.sleep(max(0.0, deadline / 1000 - self.now()))
        if not room.unattended and not any(listener.seats for listener in room.listeners):
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
                    "game": room.game_id,
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
                    "game": room.game_id,
                    "seat": seat,
                    "error": f"{type(exc).__name__}: {exc}",
                },
            )
            await asyncio.sleep(STAND_IN_RETRY_SECONDS)
            if self._timer is asyncio.current_task():
                self._timer = None
                self.rearm()

    def _still(self, seat: int, deadline: int, version: int) -> bool:
        room = self.room
        return not room.closed and room.version == version and self.deadlines.get(seat) == deadline

    async def _play_for(self, seat: int, deadline: int, version: int) -> None:
        """The clock of ``seat`` ran out: its stand-in plays this one decision."""
        room = self.room
        state = room.state
        if state is None or not self._still(seat, deadline, version):
            return

        def still() -> bool:
            return self._still(seat, deadline, version)

        if current_player(state) == seat:
            action = await room.bots.choose(state, seat, self.stand_in_level())
            await room.post(
                lambda: room.execute(seat, action, version, None, None, by="stand_in"), still
            )
            return

        async def agree() -> None:
            await room.agree_for({seat})
            self.deadlines.pop(seat, None)
            self.rearm()

        await room.post(agree, still)
