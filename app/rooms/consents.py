"""What every human seat must agree to: the next deal (after a played duel deal), a rematch.

Each agreement is committed before it is acknowledged, as ``games.consents`` =
``{"kind", "version", "seats"}``: a restored room keeps it only while the kind is still the one
asked and the room's version has not moved since, so a restart never makes a player agree
twice and an old agreement never starts a later deal. Bots always agree.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from app.engine import Phase, State
from app.persistence import repository as repo
from app.rooms import messages as out
from app.rooms.errors import CommandError
from app.rooms.model import Listener, Status

if TYPE_CHECKING:
    from app.rooms.room import Room

log = logging.getLogger("atout.rooms")


class Consents:
    def __init__(self, room: Room) -> None:
        self.room = room
        self.agreed: set[int] = set()  # the human seats that agreed to ``kind()``

    def deals_automatically(self, state: State) -> bool:
        """Other variants deal on at once; a duel deal that was played needs both consents."""
        if state.phase is not Phase.DEAL_OVER:
            return False
        return self.room.variant != "duel" or state.results[-1].thrown_in

    def kind(self) -> str | None:
        """The agreement the room waits for now, if any."""
        room = self.room
        state = room.state
        if state is None or room.status == Status.WAITING:
            return None
        if state.phase is Phase.MATCH_OVER:
            return None if room.rematch_id else "rematch"
        if state.phase is Phase.DEAL_OVER and not self.deals_automatically(state):
            return "next_deal"
        return None

    def info(self) -> out.ConsentInfo:
        kind = self.kind()
        return {
            "kind": kind,
            "agreed": sorted(self.agreed) if kind else [],
            "needed": self.room.human_seats() if kind else [],
        }

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
        if msg_id is not None:
            room.publisher.send(listener, out.ack(msg_id, room.version))
        if not set(room.human_seats()) <= self.agreed:
            room.publisher.broadcast_room()
            return
        if kind == "next_deal":
            assert room.state is not None
            await room.deal_next(room.state)
        else:
            room.rematch_id = await room.services.create_rematch(room)
            self.clear()
            room.publisher.broadcast(
                out.rematch(room.rematch_id, room.services.url(room.rematch_id))
            )
            room.publisher.broadcast_room()

    async def _store(self, kind: str, agreed: set[int]) -> None:
        """Write the consent being collected, tagged with its kind and the room's version: a
        later action or deal changes the version, which voids the stored agreement."""
        room = self.room
        consents = {"kind": kind, "version": room.version, "seats": sorted(agreed)}
        try:
            await room.services.writer.submit(repo.save_seats(room.game_id, [], consents=consents))
        except Exception:
            log.exception(
                "could not store a consent",
                extra={"event": "store_failed", "game": room.game_id},
            )
            raise CommandError(
                "server_error", "the agreement could not be saved; try again"
            ) from None
