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
connection of the seat's player is open (``stood_in``). A seat whose player left the table
(seating.py ``leaving``) is ``"left"``: the stand-in plays it to the end of the match, connected or
not. The player takes the seat back by acting (``Room.execute`` clears the flag in the same
transaction as the action) or with ``back``.

The stand-in is a bot of the table's ``stand_in`` level that sees only the seat's view: the
room's ``BotDriver`` runs it (bot_driver.py), for the away and left seats as for the clock.

``Live`` keeps the deadlines, the away times and the votes, and decides from what the room
passes; it holds no room. The room stores, applies, broadcasts and runs the clock's timer
(room.py "the clock and the stand-in").
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable
from typing import Any

from app.engine import Phase, State, current_player
from app.rooms.consents import waits_for_every_seat
from app.rooms.errors import CommandError
from app.rooms.model import Listener, Mode, Seat, Status

GRACE_SECONDS = 10.0  # added to every running clock after a restart
STAND_IN_RETRY_SECONDS = 1.0  # a stand-in that failed to think tries again after this


def clock_seconds(mode: Mode, settings: dict[str, Any], override: float | None) -> float | None:
    """The length of a decision at a table of ``mode`` and ``settings``, or None when it has no
    clock (``override``: the server's ``clock_seconds`` setting, for tests)."""
    if mode != Mode.FRIENDS:
        return None
    clock = settings.get("clock", "none")
    if clock == "none":
        return None
    return float(override) if override else float(clock)


def stand_in_level(settings: dict[str, Any]) -> str:
    level: str = settings.get("stand_in", "medium")
    return level


def stood_in(seat: Seat, status: Status, connected: Iterable[int]) -> bool:
    """Whether the stand-in plays this seat now: a seat it holds (``stand_in``), "left", or
    "away" with no connection of its player open."""
    if seat.kind != "human" or seat.stand_in is None or status != Status.PLAYING:
        return False
    return seat.stand_in == "left" or seat.seat not in connected


def voters(seat: int, seats: list[Seat], connected: Iterable[int]) -> set[int]:
    """The connected human seats, of another player than ``seat``'s, whose agreement the
    stand-in of ``seat`` waits for."""
    owner = seats[seat].identity_id
    return {
        s
        for s in connected
        if s != seat and seats[s].kind == "human" and seats[s].identity_id != owner
    }


def cleared_seats(seat: Seat, by: str | None) -> list[Any]:
    """The seat rows an action of ``seat`` rewrites: its player's own action (``by`` None)
    takes the seat back from the stand-in."""
    if by is not None or seat.kind != "human" or seat.stand_in is None:
        return []
    row = seat.copy()
    row.stand_in = None
    return [row.row()]


def decisions(
    state: State | None,
    agreed: set[int],
    status: Status,
    seats: list[Seat],
    mode: Mode,
    board: bool,
    stand_in: Iterable[int],
) -> list[int]:
    """The human seats whose own decision the table waits for in ``state`` (``stand_in``: the
    seats the stand-in plays, which decide nothing themselves)."""
    if state is None or status == Status.WAITING or state.phase is Phase.MATCH_OVER:
        return []
    if state.claimer >= 0:  # a claim's play-out: the server plays every card
        return []
    to_act = current_player(state)
    if to_act is not None:
        return [to_act] if seats[to_act].kind == "human" else []
    if waits_for_every_seat(state, mode, board):
        stood = set(stand_in)
        return [
            s.seat
            for s in seats
            if s.kind == "human" and s.seat not in stood and s.seat not in agreed
        ]
    return []


class Live:
    """A room's running deadlines, who is away since when, and the stand-in votes."""

    def __init__(self) -> None:
        self.now: Callable[[], float] = time.time  # seconds; the deadlines are epoch ms
        self.deadlines: dict[int, int] = {}  # seat -> when its running clock runs out (ms)
        self.loaded_at = self.now_ms()  # a seat never connected since is away since then
        self.away_since: dict[int, int] = {}  # seat -> since when no connection holds it (ms)
        self.votes: dict[int, set[int]] = {}  # away seat -> the seats that agreed

    def now_ms(self) -> int:
        return int(self.now() * 1000)

    # ------------------------------------------------------------------ presence

    def presence(self, before: set[int], after: set[int]) -> bool:
        """Connections opened or closed: away times start and end; a seat whose player came
        back loses the votes collected for it. True when a seat came back: a clock that ran
        out while nobody was there is to be handled now (the room rearms it)."""
        now = self.now_ms()
        for seat in after - before:
            self.away_since.pop(seat, None)
            self.votes.pop(seat, None)
        for seat in before - after:
            self.away_since[seat] = now
        return bool(after - before)

    def away_since_ms(self, seat: Seat, connected: Iterable[int]) -> int | None:
        if seat.kind != "human" or seat.identity_id is None or seat.seat in connected:
            return None
        return self.away_since.get(seat.seat, self.loaded_at)

    # ------------------------------------------------------------------ decisions

    def vote(
        self,
        listener: Listener,
        seat: int,
        mode: Mode,
        status: Status,
        seats: list[Seat],
        connected: set[int],
        away_seconds: int,
    ) -> tuple[Seat | None, set[int]]:
        """``stand_in``: the sender agrees to let the stand-in play ``seat``. Returns the seat
        the stand-in now takes (its ``stand_in`` "away"), once every voter agreed, else None,
        and the votes collected; refused when the seat may not be voted for."""
        if not listener.seats:
            raise CommandError("not_allowed", "spectators do not decide for the players")
        if mode != Mode.FRIENDS or status != Status.PLAYING:
            raise CommandError("not_allowed", "only a friends game in progress has a stand-in")
        if not 0 <= seat < len(seats):
            raise CommandError("bad_message", f"seats are numbered 0..{len(seats) - 1}")
        if seat in listener.seats:
            raise CommandError("not_allowed", "this is your own seat")
        target = seats[seat]
        if target.kind != "human" or target.identity_id is None:
            raise CommandError("not_away", f"seat {seat} is a computer player")
        if target.stand_in is not None:
            raise CommandError("not_away", f"the stand-in already plays seat {seat}")
        since = self.away_since_ms(target, connected)
        if since is None:
            raise CommandError("not_away", f"seat {seat} is connected")
        away_ms = away_seconds * 1000
        if self.now_ms() - since < away_ms:
            raise CommandError(
                "not_away", f"seat {seat} has not been away for {away_ms // 1000} s yet"
            )
        allowed = voters(seat, seats, connected)
        votes = self.votes.get(seat, set()) | (set(listener.seats) & allowed)
        if allowed <= votes:
            taken = target.copy()
            taken.stand_in = "away"
            return taken, votes
        return None, votes

    def plan(self, seconds: float | None, seats: list[int]) -> dict[int, int]:
        """The deadlines of the decisions of ``seats`` a new step starts (nobody agreed yet),
        with a clock of ``seconds`` (None: no clock)."""
        if seconds is None:
            return {}
        deadline = self.now_ms() + int(seconds * 1000)
        return {seat: deadline for seat in seats}

    def stored(
        self, seconds: float | None, deadlines: dict[int, int], version: int
    ) -> dict[str, Any] | None:
        """``games.clock`` for ``deadlines`` (None when the table has no clock)."""
        if seconds is None:
            return None
        return {
            "version": version,
            "deadlines": {str(seat): ms for seat, ms in sorted(deadlines.items())},
            "seconds": seconds,
            "at": self.now_ms(),  # when it was written: the server was reachable then
        }

    def restored(
        self, stored: dict[str, Any] | None, version: int, fresh: dict[int, int]
    ) -> dict[int, int]:
        """After a load (a restart, a failover, a handover): the deadlines of the decisions
        waited for (``fresh``: as a new step would plan them). No seat loses a decision to time
        while the server could not be reached: each running clock gets at least the time it
        had left when the server went away, plus ``GRACE_SECONDS``.

        When the server went away is not known exactly, but it was reachable when the clock
        was written (``at``): ``deadline - at`` is at least what was left when it went away, so
        the new deadline is ``now + (deadline - at) + grace``. A clock written before ``at``
        was stored goes on from ``max(deadline, now) + grace``."""
        now = self.now_ms()
        old: dict[int, int] = {}
        written: int | None = None
        if stored and stored.get("version") == version:
            for seat, ms in (stored.get("deadlines") or {}).items():
                with contextlib.suppress(TypeError, ValueError):
                    old[int(seat)] = int(ms)
            with contextlib.suppress(TypeError, ValueError):
                written = int(stored["at"]) if stored.get("at") is not None else None
        grace = int(GRACE_SECONDS * 1000)

        def resumed(seat: int, planned: int) -> int:
            if seat not in old:  # a decision with no stored clock: a whole one
                return planned + grace
            if written is None:
                return max(old[seat], now) + grace
            return now + max(0, old[seat] - written) + grace

        return {seat: resumed(seat, ms) for seat, ms in fresh.items()}

    def earliest(self) -> tuple[int, int] | None:
        """The running deadline that runs out first: (seat, deadline)."""
        if not self.deadlines:
            return None
        return min(self.deadlines.items(), key=lambda item: (item[1], item[0]))
