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
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.engine import Phase, State
from app.logging import game_fields
from app.persistence import repository as repo
from app.rooms import messages as out
from app.rooms.errors import CommandError
from app.rooms.model import Listener, Mode, Status, owner

if TYPE_CHECKING:
    from app.rooms.room import Room

log = logging.getLogger("atout.rooms")


class Consents:
    def __init__(self, room: Room) -> None:
        self.room = owner(room)
        self.agreed: set[int] = set()  # the human seats that agreed to ``kind()``
        self.deadline: int | None = None  # friends: the next deal's time, epoch milliseconds
        self._countdown: asyncio.Task[None] | None = None
        self.clock: Callable[[], float] = time.time  # the deadline's clock (seconds)

    # ------------------------------------------------------------------ what is asked

    def deals_automatically(self, state: State) -> bool:
        """Whether the rules deal the next deal without the players' consent (every variant
        but a duel deal that was played: ``Rules.next_deal_needs_consent``)."""
        if state.phase is not Phase.DEAL_OVER or self.room.settings.get("board"):
            return False  # a tournament board is one deal: nothing follows it
        return not state.rules.next_deal_needs_consent(state)

    def deals_at_once(self, state: State) -> bool:
        """The next deal is dealt in the step that ends this one: the rules deal on and there
        is no summary to read (the deal was thrown in)."""
        return self.deals_automatically(state) and state.results[-1].thrown_in

    def kind(self) -> str | None:
        """The agreement the room waits for now, if any."""
        room = self.room
        state = room.state
        if state is None or room.status == Status.WAITING:
            return None
        if room.settings.get("board"):
            return None  # a tournament board: no next deal, no rematch
        if state.phase is Phase.MATCH_OVER:
            return None if room.rematch_id else "rematch"
        if state.phase is Phase.DEAL_OVER and not self.deals_at_once(state):
            return "next_deal"
        return None

    def _counts_down(self) -> bool:
        """Friends games deal the next deal at a deadline (a played duel deal waits for all)."""
        room = self.room
        state = room.state
        return (
            room.mode == Mode.FRIENDS
            and state is not None
            and self.kind() == "next_deal"
            and self.deals_automatically(state)
        )

    def needed(self) -> list[int]:
        """The human seats whose agreement is waited for."""
        room = self.room
        humans = room.human_seats()
        if self._counts_down():
            connected = room.connected_seats()
            return [s for s in humans if s in connected and not room.live.active(s)]
        if self.kind() == "next_deal":  # the stand-in agrees for the seats it plays
            return [s for s in humans if not room.live.active(s)]
        return humans

    def waits_for_every_seat(self, state: State) -> bool:
        """``state`` ends a deal whose next one waits for every human seat, with no countdown
        (a played ``duel`` deal): the consent is each seat's own decision (its clock runs)."""
        return (
            state.phase is Phase.DEAL_OVER
            and not self.deals_at_once(state)
            and not (self.room.mode == Mode.FRIENDS and self.deals_automatically(state))
        )

    def needed_in(self, state: State) -> list[int]:
        """``needed`` of the consent ``state`` asks for (``waits_for_every_seat``)."""
        room = self.room
        return [s for s in room.human_seats() if not room.live.active(s)]

    def info(self) -> out.ConsentInfo:
        kind = self.kind()
        return {
            "kind": kind,
            "agreed": sorted(self.agreed) if kind else [],
            "needed": self.needed() if kind else [],
        }

    def next_deal_info(self) -> out.NextDealInfo | None:
        """``room.next_deal``: who the next deal waits for, and until when (friends)."""
        if self.kind() != "next_deal":
            return None
        return {
            "waiting_for": [s for s in self.needed() if s not in self.agreed],
            "deadline": self.deadline,
        }

    # ------------------------------------------------------------------ state changes

    def restore(self, stored: dict[str, Any] | None) -> None:
        """The agreement stored with the game, if it is still the one being asked."""
        room = self.room
        if stored and stored.get("version") == room.version and stored.get("kind") == self.kind():
            humans = set(room.human_seats())
            self.agreed = {s for s in stored.get("seats", []) if s in humans}

    def clear(self) -> None:
        self.agreed.clear()

    def forget(self, seats: tuple[int, ...]) -> None:
        """Seats that are no longer human (their player left) agree no more."""
        self.agreed.difference_update(seats)

    def opened(self) -> None:
        """The room's consent kind changed: start the next deal's countdown if it has one."""
        self.stop_countdown()
        if not self._counts_down():
            return
        room = self.room
        seconds = float(room.services.settings.next_deal_seconds)
        self.deadline = int((self.clock() + seconds) * 1000)
        self._countdown = asyncio.create_task(
            self._deal_at_deadline(room.version, seconds), name=f"next-deal-{room.game_id}"
        )

    def presence_changed(self) -> None:
        """A player left the table during a countdown: if everyone still there has pressed
        Continue, the next deal is dealt now rather than at the deadline."""
        needed = self.needed()
        if self._counts_down() and needed and set(needed) <= self.agreed:
            room = self.room
            self.stop_countdown()
            self._countdown = asyncio.create_task(
                self._deal_at_deadline(room.version, 0.0), name=f"next-deal-{room.game_id}"
            )

    def stop_countdown(self) -> None:
        self.deadline = None
        task, self._countdown = self._countdown, None
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    async def _deal_at_deadline(self, version: int, seconds: float) -> None:
        room = self.room
        await asyncio.sleep(seconds)

        async def deal() -> None:
            self._countdown = None
            state = room.state
            assert state is not None
            try:
                await room.deal_next(state)
            except Exception:
                log.exception(
                    "could not deal the next deal",
                    extra=game_fields(room.game_id, event="store_failed"),
                )

        await room.post(deal, lambda: room.version == version and self.kind() == "next_deal")

    async def agree(self, listener: Listener, kind: str, msg_id: str | None) -> None:
        """``consent`` of every seat ``listener`` holds; the caller holds the room's lock."""
        room = self.room
        if not listener.seats:
            raise CommandError("spectator", "spectators cannot consent")
        expected = self.kind()
        if expected != kind:
            raise CommandError("not_allowed", f"no {kind} to agree to now")
        agreed = self.agreed | {s for s in listener.seats if s in room.human_seats()}
        if agreed != self.agreed:
            # stored before the ack: a restart keeps the agreement (see restore)
            await self._store(kind, agreed)
            self.agreed = agreed
            for seat in listener.seats:  # their clocks stop
                room.live.deadlines.pop(seat, None)
            room.live.rearm()
        if msg_id is not None:
            room.send(listener, out.ack(msg_id, room.version))
        await self._complete(kind)

    async def agree_for(self, seats: set[int]) -> None:
        """The stand-in agrees to the next deal for ``seats`` (their clocks ran out)."""
        kind = self.kind()
        if kind != "next_deal":
            return
        agreed = self.agreed | (seats & set(self.room.human_seats()))
        if agreed != self.agreed:
            await self._store(kind, agreed)
            self.agreed = agreed
        await self._complete(kind)

    def restored_complete(self) -> bool:
        """After a load: whether the stored agreement already holds every seat it needs, so
        the room owes the next deal (or the rematch) now. Nobody is connected yet, so a friends
        countdown counts every human seat the stand-in does not play, connected or not."""
        kind = self.kind()
        if kind is None:
            return False
        room = self.room
        if kind == "next_deal":
            needed = [s for s in room.human_seats() if not room.live.active(s)]
        else:
            needed = room.human_seats()
        return bool(self.agreed) and set(needed) <= self.agreed

    async def resume(self) -> None:
        """After a load: act on a complete agreement at once (the process stopped between
        storing the last Continue and dealing), else wait again (a friends countdown starts
        again from now)."""
        kind = self.kind()
        if kind is None:
            return
        if self.restored_complete():
            await self._complete(kind)
        elif kind == "next_deal":
            self.opened()

    async def check(self) -> None:
        """The seats needed changed (the stand-in took one): go on if everyone left agreed."""
        kind = self.kind()
        if kind == "next_deal" and not self._counts_down():
            await self._complete(kind)
        elif kind == "next_deal":
            self.presence_changed()

    async def _complete(self, kind: str) -> None:
        room = self.room
        if not set(self.needed()) <= self.agreed:
            room.broadcast_room()
            return
        if kind == "next_deal":
            assert room.state is not None
            await room.deal_next(room.state)
        else:
            room.rematch_id = await room.services.create_rematch(room)
            self.clear()
            room.broadcast(out.rematch(room.rematch_id, room.services.url(room.rematch_id)))
            room.broadcast_room()

    async def _store(self, kind: str, agreed: set[int]) -> None:
        """Write the consent being collected, tagged with its kind and the room's version: a
        later action or deal changes the version, which voids the stored agreement."""
        room = self.room
        consents = {"kind": kind, "version": room.version, "seats": sorted(agreed)}
        try:
            await room.store(repo.save_seats(room.game_id, [], consents=consents))
        except Exception:
            log.exception(
                "could not store a consent",
                extra=game_fields(room.game_id, event="store_failed", seats=sorted(agreed)),
            )
            raise CommandError(
                "server_error", "the agreement could not be saved; try again"
            ) from None
