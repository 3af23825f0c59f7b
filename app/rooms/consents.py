"""What the human seats must agree to: the next deal, and a rematch.

**The next deal.** A deal that was played ends on its summary, and the next deal is not dealt
behind it (so bots do not bid while a player reads it). The room waits for a ``next_deal``
consent ("Continue"):

* a played ``duel`` deal (each one is a game): every human seat, however long it takes;
* ``computer`` and ``local`` games: the human seat(s), i.e. the one device;
* ``friends`` games: every *connected* human seat, or the countdown: the next deal is dealt at
  ``deadline`` (``settings.next_deal_seconds`` after the deal ended) whoever agreed.

A deal thrown in (nobody bid) has no summary to read: the next one is dealt at once.

**The rematch.** After the match every human seat must agree; a new game is then created.

Each agreement is committed before it is acknowledged, as ``games.consents`` =
``{"kind", "version", "seats"}``: a restored room keeps it only while the kind is still the one
asked and the room's version has not moved since, so a restart never makes a player agree
twice and an old agreement never starts a later deal. Bots always agree.

``Consents`` decides and holds no reference to its room: it reads the ``Facts`` the room passes
(model.py), and the room stores, acknowledges, deals and runs the countdown's timer (room.py
"consents").
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from app.engine import Phase, State
from app.rooms import messages as out
from app.rooms.errors import CommandError
from app.rooms.model import Facts, Listener, Mode, Status


def deals_automatically(state: State, board: bool) -> bool:
    """Whether the rules deal the next deal without the players' consent (every variant but a
    duel deal that was played: ``Rules.next_deal_needs_consent``). ``board``: a tournament
    board is one deal, and nothing follows it."""
    if state.phase is not Phase.DEAL_OVER or board:
        return False
    return not state.rules.next_deal_needs_consent(state)


def deals_at_once(state: State, board: bool) -> bool:
    """The next deal is dealt in the step that ends this one: the rules deal on and there is no
    summary to read (the deal was thrown in)."""
    return deals_automatically(state, board) and state.results[-1].thrown_in


def waits_for_every_seat(state: State, mode: Mode, board: bool) -> bool:
    """``state`` ends a deal whose next one waits for every human seat, with no countdown (a
    played ``duel`` deal): the consent is each seat's own decision (its clock runs)."""
    return (
        state.phase is Phase.DEAL_OVER
        and not deals_at_once(state, board)
        and not (mode == Mode.FRIENDS and deals_automatically(state, board))
    )


def seats_not_stood_in(f: Facts) -> list[int]:
    """The human seats whose own player decides (the stand-in agrees for the seats it plays)."""
    return [s for s in f.humans if s not in f.stand_in]


class Consents:
    def __init__(self) -> None:
        self.agreed: set[int] = set()  # the human seats that agreed to ``kind()``
        self.deadline: int | None = None  # friends: the next deal's time, epoch milliseconds
        self.clock: Callable[[], float] = time.time  # the deadline's clock (seconds)

    # ------------------------------------------------------------------ what is asked

    def kind(self, f: Facts) -> str | None:
        """The agreement the room waits for now, if any."""
        state = f.state
        if state is None or f.status == Status.WAITING:
            return None
        if f.board:
            return None  # a tournament board: no next deal, no rematch
        if state.phase is Phase.MATCH_OVER:
            return None if f.rematch_id else "rematch"
        if state.phase is Phase.DEAL_OVER and not deals_at_once(state, f.board):
            return "next_deal"
        return None

    def counts_down(self, f: Facts) -> bool:
        """Friends games deal the next deal at a deadline (a played duel deal waits for all)."""
        state = f.state
        return (
            f.mode == Mode.FRIENDS
            and state is not None
            and self.kind(f) == "next_deal"
            and deals_automatically(state, f.board)
        )

    def needed(self, f: Facts) -> list[int]:
        """The human seats whose agreement is waited for."""
        if self.counts_down(f):
            return [s for s in f.humans if s in f.connected and s not in f.stand_in]
        if self.kind(f) == "next_deal":  # the stand-in agrees for the seats it plays
            return seats_not_stood_in(f)
        return list(f.humans)

    def complete(self, f: Facts) -> bool:
        """Every seat whose agreement is waited for has given it."""
        return set(self.needed(f)) <= self.agreed

    def info(self, f: Facts) -> out.ConsentInfo:
        kind = self.kind(f)
        return {
            "kind": kind,
            "agreed": sorted(self.agreed) if kind else [],
            "needed": self.needed(f) if kind else [],
        }

    def next_deal_info(self, f: Facts) -> out.NextDealInfo | None:
        """``room.next_deal``: who the next deal waits for, and until when (friends)."""
        if self.kind(f) != "next_deal":
            return None
        return {
            "waiting_for": [s for s in self.needed(f) if s not in self.agreed],
            "deadline": self.deadline,
        }

    # ------------------------------------------------------------------ decisions

    def restore(self, stored: dict[str, Any] | None, f: Facts) -> None:
        """The agreement stored with the game, if it is still the one being asked."""
        if stored and stored.get("version") == f.version and stored.get("kind") == self.kind(f):
            humans = set(f.humans)
            self.agreed = {s for s in stored.get("seats", []) if s in humans}

    def clear(self) -> None:
        self.agreed.clear()

    def forget(self, seats: tuple[int, ...]) -> None:
        """Seats that are no longer human (their player left) agree no more."""
        self.agreed.difference_update(seats)

    def agreeing(self, listener: Listener, kind: str, f: Facts) -> set[int]:
        """The agreement once ``listener`` agrees to ``kind`` for every seat it holds (refused
        when that is not what is asked); the room stores it before it acknowledges it."""
        if not listener.seats:
            raise CommandError("spectator", "spectators cannot consent")
        if self.kind(f) != kind:
            raise CommandError("not_allowed", f"no {kind} to agree to now")
        return self.agreed | {s for s in listener.seats if s in f.humans}

    def start_countdown(self, seconds: float) -> None:
        """The next deal's deadline, ``seconds`` from now (the room arms its timer)."""
        self.deadline = int((self.clock() + seconds) * 1000)

    def done_early(self, f: Facts) -> bool:
        """During a countdown, everyone still there has pressed Continue (a player left): the
        next deal need not wait for the deadline."""
        needed = self.needed(f)
        return self.counts_down(f) and bool(needed) and set(needed) <= self.agreed

    def restored_complete(self, f: Facts) -> bool:
        """After a load: whether the stored agreement already holds every seat it needs, so
        the room owes the next deal (or the rematch) now. Nobody is connected yet, so a friends
        countdown counts every human seat the stand-in does not play, connected or not."""
        kind = self.kind(f)
        if kind is None:
            return False
        needed = seats_not_stood_in(f) if kind == "next_deal" else list(f.humans)
        return bool(self.agreed) and set(needed) <= self.agreed
