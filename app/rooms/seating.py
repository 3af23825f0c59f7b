"""Who sits where: joining, the host's seat swaps, leaving for good, names, and presence.

The room calls these under its lock (one command at a time). Presence is the union of the
connected listeners' seats; a friends game with a human seat not connected is paused.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.engine import Event, new_match
from app.logging import game_fields
from app.persistence import repository as repo
from app.rooms.errors import CommandError, RoomClosed
from app.rooms.messages import RoomInfo
from app.rooms.model import (
    JoinResult,
    Listener,
    Mode,
    Seat,
    SeatKind,
    Status,
    deck_strings,
    owner,
    then,
)

if TYPE_CHECKING:
    from app.rooms.room import Room

log = logging.getLogger("atout.rooms")


class Seating:
    def __init__(self, room: Room) -> None:
        self.room = owner(room)

    # ------------------------------------------------------------------ presence

    def connected_seats(self) -> set[int]:
        out: set[int] = set()
        for listener in self.room.listeners:
            out.update(listener.seats)
        return out

    def is_paused(self) -> bool:
        """Friends games pause while a human seat has no connection (RULES.md §9.1), unless
        the table has a clock (D-21: the away seat's clock runs) or the stand-in plays that
        seat (D-22)."""
        room = self.room
        if room.mode != Mode.FRIENDS or room.status != Status.PLAYING:
            return False
        if room.clock_seconds() is not None:
            return False
        connected = self.connected_seats()
        return any(
            seat not in connected and not room.stand_in_active(seat) for seat in room.human_seats()
        )

    def attach(self, listener: Listener) -> None:
        """A client connected: send it the full state; tell the others if presence changed."""
        room = self.room
        if room.closed:
            raise RoomClosed(room.game_id)
        before = self.connected_seats()
        room.listeners.add(listener)
        room.last_active = time.monotonic()
        after = self.connected_seats()
        room.presence(before, after)
        room.send_state(listener)  # carries the room too
        if after != before or not listener.seats:
            room.broadcast_room(skip=listener)
        room.bots.schedule()
        if listener.seats and room.public:
            room.arm_fill()  # a public table fills once a player is there

    def detach(self, listener: Listener) -> None:
        room = self.room
        if listener not in room.listeners:
            return
        before = self.connected_seats()
        room.listeners.discard(listener)
        room.last_active = time.monotonic()
        after = self.connected_seats()
        room.presence(before, after)
        if after != before or not listener.seats:
            room.broadcast_room()
            room.consent_presence_changed()

    def refresh_listener_seats(self) -> None:
        """A connected listener's seats follow its identity (after a swap or a leave)."""
        room = self.room
        for listener in list(room.listeners):
            new = room.seats_of(listener.identity_id)
            if new != listener.seats:
                listener.seats = new
                room.send_state(listener)

    # ------------------------------------------------------------------ seat changes

    async def join(self, identity_id: int, name: str | None) -> JoinResult:
        """Reclaim this browser's seats, or take the next free human seat, or watch."""
        room = self.room
        held = room.seats_of(identity_id)
        if held:
            return JoinResult("seat", held, room.room_json(identity_id))
        free = [
            s
            for s in room.seats
            if s.kind == "human" and s.identity_id is None and room.status == Status.WAITING
        ]
        if free:
            seats = [s.copy() for s in room.seats]
            seat = seats[free[0].seat]
            seat.identity_id, seat.name = identity_id, name
            await self.save(seats, [seat])
            return JoinResult("seat", (seat.seat,), room.room_json(identity_id))
        if room.spectators_allowed:
            return JoinResult("spectator", (), room.room_json(identity_id))
        return JoinResult("full", (), room.room_json(identity_id))

    async def swap(self, identity_id: int, pairs: list[tuple[int, int]]) -> RoomInfo:
        """The host moves occupants between seats (teams), only before the first deal."""
        room = self.room
        if identity_id != room.host_id:
            raise CommandError("not_host", "only the host may move players")
        if room.status != Status.WAITING:
            raise CommandError("not_allowed", "seats can only be changed before the first deal")
        changed: dict[int, Seat] = {}
        seats = [s.copy() for s in room.seats]
        for a, b in pairs:
            if not (0 <= a < room.players and 0 <= b < room.players):
                raise CommandError("bad_message", f"seats are numbered 0..{room.players - 1}")
            sa, sb = seats[a], seats[b]
            sa.kind, sb.kind = sb.kind, sa.kind
            sa.identity_id, sb.identity_id = sb.identity_id, sa.identity_id
            sa.level, sb.level = sb.level, sa.level
            sa.name, sb.name = sb.name, sa.name
            changed[a], changed[b] = sa, sb
        await room.store(repo.save_seats(room.game_id, [s.row() for s in changed.values()]))
        room.seats = seats
        self.refresh_listener_seats()
        room.broadcast_room()
        return room.room_json(identity_id)

    async def save(
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
        room = self.room
        start = room.status == Status.WAITING and all(
            s.identity_id is not None for s in seats if s.kind == "human"
        )
        if not start:
            save_work = repo.save_seats(room.game_id, [s.row() for s in changed])
            await room.store(then(save_work, extra) if extra is not None else save_work)
            if committed is not None:
                committed()
            room.seats = seats
            self.refresh_listener_seats()
            room.broadcast_room()
            return
        state = new_match(room.variant, room.players, room.options, rng=room.rng)
        deal = repo.DealRow(0, state.dealer, deck_strings(state))
        deadlines = room.plan_clock(state, seats, Status.PLAYING)  # the first decision's clock
        clock = room.clock_row(deadlines, room.version + 1)
        values: dict[str, Any] = {"clock": clock} if clock is not None else {}
        save = repo.save_seats(
            room.game_id, [s.row() for s in changed], status=Status.PLAYING.value, **values
        )
        start_work = then(save, repo.record_step(room.game_id, deals=[deal]))
        await room.store(then(extra, start_work) if extra is not None else start_work)
        if committed is not None:
            committed()
        room.seats = seats
        room.status = Status.PLAYING
        room.deals = 1
        self.refresh_listener_seats()
        room.set_clock(deadlines)
        room.stop_fill()
        room.broadcast_room()
        room.publish(state, [Event("deal_started", {"number": 0, "dealer": state.dealer})])
        room.bots.schedule()

    def _waiting_room(self, seat: int) -> None:
        room = self.room
        if room.mode != Mode.FRIENDS or room.status != Status.WAITING:
            raise CommandError(
                "not_allowed", "seats are chosen in the waiting room of a friends game"
            )
        if not 0 <= seat < room.players:
            raise CommandError("bad_message", f"seats are numbered 0..{room.players - 1}")

    async def set_seat(
        self,
        identity_id: int,
        seat: int,
        kind: str,
        level: str | None,
        committed: Callable[[], None] | None = None,
    ) -> None:
        """The host puts a computer player (of ``level``) on a free seat, or frees a computer
        player's seat again, before the first deal. The last free seat filled starts the match."""
        room = self.room
        if identity_id != room.host_id:
            raise CommandError("not_host", "only the host may change the seats")
        self._waiting_room(seat)
        current = room.seats[seat]
        if kind == "bot":
            if current.kind == "human" and current.identity_id is not None:
                raise CommandError("not_allowed", f"seat {seat} is taken")
            new = Seat(seat, SeatKind.BOT, None, level or "medium", None)
        else:
            if current.kind != "bot":
                raise CommandError("not_allowed", f"seat {seat} has no computer player")
            new = Seat(seat, SeatKind.HUMAN)
        seats = [s.copy() for s in room.seats]
        seats[seat] = new
        await self.save(seats, [new], committed)

    async def take_seat(
        self,
        identity_id: int,
        seat: int,
        name: str | None,
        committed: Callable[[], None] | None = None,
    ) -> None:
        """A guest (or the host, or a spectator) moves to a free seat before the first deal."""
        room = self.room
        self._waiting_room(seat)
        target = room.seats[seat]
        held = room.seats_of(identity_id)
        if seat in held:
            if committed is not None:
                committed()
            return
        if target.kind != "human" or target.identity_id is not None:
            raise CommandError("not_allowed", f"seat {seat} is not free")
        seats = [s.copy() for s in room.seats]
        if held:
            name = room.seats[held[0]].name
        changed = []
        for h in held:
            seats[h] = Seat(h, SeatKind.HUMAN)
            changed.append(seats[h])
        seats[seat] = Seat(seat, SeatKind.HUMAN, identity_id, None, name)
        changed.append(seats[seat])
        await self.save(seats, changed, committed)

    async def rename(self, identity_id: int, name: str) -> None:
        changed = False
        for s in self.room.seats:
            if s.identity_id == identity_id and s.name != name:
                s.name = name
                changed = True
        if changed:
            self.room.broadcast_room()

    async def leave(self, identity_id: int) -> RoomInfo:
        """A player leaves a friends game in progress: his seats stay his, and the stand-in
        plays them to the end of the match (``stand_in`` = "left"), so the others can finish.
        He earns no XP for the match and is rated as having lost (docs/players.md); his seats
        are remembered in ``game_leavers``. Coming back through the link and acting (or
        ``back``) takes the seats back; the leave still counts."""
        from app.persistence import players as player_store

        room = self.room
        held = room.seats_of(identity_id)
        if not held:
            raise CommandError("not_allowed", "you have no seat at this table")
        if room.mode != Mode.FRIENDS or room.status != Status.PLAYING:
            raise CommandError("not_allowed", "only a friends game in progress can be left")
        if all(room.seats[seat].stand_in == "left" for seat in held):
            raise CommandError("not_allowed", "you have already left this table")
        seats = [s.copy() for s in room.seats]
        for seat in held:
            seats[seat].stand_in = "left"
        leavers = [player_store.LeaverRow(seat, identity_id, room.deals - 1) for seat in held]
        save = repo.save_seats(room.game_id, [seats[seat].row() for seat in held])

        def remember(session: Any) -> None:  # a seat left once before keeps its first row
            known = {row.seat for row in player_store.leavers(session, room.game_id)}
            new = [row for row in leavers if row.seat not in known]
            if new:
                player_store.insert_leavers(room.game_id, new)(session)

        await room.store(then(save, remember))
        room.seats = seats
        for seat in held:
            room.live.votes.pop(seat, None)
        room.broadcast_room()
        await room.check_consents()
        room.bots.schedule()
        log.info(
            "player left",
            extra=game_fields(room.game_id, held[0], event="seat_left", seats=list(held)),
        )
        return room.room_json(identity_id)
