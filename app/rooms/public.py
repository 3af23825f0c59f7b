"""Public tables: the lobby's flag, "Sit here", computer players who give their seat to humans.

A friends table is private (only its link finds it) or **public**: listed in the lobby
(app/rooms/lobby.py), always with a decision clock (``PUBLIC_CLOCK`` seconds when the host chose
none), rated unless the host said otherwise (``settings["rated"]``). The host switches a table
between the two while it waits for players (``set_public``).

**Nobody waits for strangers.** A public table still waiting ``settings.public_fill_seconds``
after it became public, with at least one of its players connected, starts with computer
players of the table's ``stand_in`` level in its free seats (``fill``). Those seats are
``open``: a human who asks for one ("Sit here", ``sit``) becomes its ``heir`` (stored with the
seat) and takes it at the end of the deal in progress, in the same transaction as the action
that ends the deal (``hand_over``). A ``seat_holders`` row remembers from which deal each seat
changed hands, so the record says who played each decision (docs/record-format.md, "Seat
holders") and the award counts a seat partly played by a computer as docs/players.md says.

A player who leaves a public table is replaced at once by the stand-in (seating.py ``leave``);
the clock's stand-in plays for an absent player, so a public table never pauses.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from app.engine import Phase, State
from app.logging import game_fields
from app.persistence import public as store
from app.persistence import repository as repo
from app.rooms.errors import CommandError
from app.rooms.model import Mode, Seat, SeatKind, Status, owner, then

if TYPE_CHECKING:
    from app.rooms.room import Room

log = logging.getLogger("atout.rooms")

PUBLIC_CLOCK = 30  # seconds per decision when the host chose no clock


def public_settings(settings: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """A table's settings once public: a clock (``PUBLIC_CLOCK`` if none) and since when."""
    out = dict(settings)
    if out.get("clock", "none") == "none":
        out["clock"] = PUBLIC_CLOCK
    out["public_since"] = now_ms
    return out


class Public:
    def __init__(self, room: Room) -> None:
        self.room = owner(room)
        self._timer: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ the fill timer

    def fill_at_ms(self) -> int | None:
        """When the free seats of this waiting public table go to computer players."""
        room = self.room
        if not room.public or room.status != Status.WAITING or room.mode != Mode.FRIENDS:
            return None
        since = room.settings.get("public_since")
        if not isinstance(since, int):
            since = room.live.loaded_at
        return since + int(float(room.services.settings.public_fill_seconds) * 1000)

    def arm(self) -> None:
        """Wait for the fill time (a no-op unless the table is public and waiting)."""
        self.stop()
        room = self.room
        at = self.fill_at_ms()
        if at is None or room.closed:
            return
        delay = max(0.0, at / 1000 - room.live.now())
        self._timer = asyncio.create_task(self._fill_later(delay), name=f"fill-{room.game_id}")

    def stop(self) -> None:
        task, self._timer = self._timer, None
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    async def _fill_later(self, delay: float) -> None:
        await asyncio.sleep(delay)
        room = self.room

        async def fill() -> None:
            self._timer = None
            try:
                await self.fill()
            except Exception:
                log.exception(
                    "could not fill a public table",
                    extra=game_fields(room.game_id, event="fill_failed"),
                )

        # nobody to play with: armed again when a player connects
        await room.post(
            fill,
            lambda: (
                self.fill_at_ms() is not None and any(listener.seats for listener in room.listeners)
            ),
        )

    async def fill(self) -> None:
        """Computer players in the free seats, and the match starts (the caller holds the
        lock). Each takes the seat as an ``open`` one: it gives way to a human."""
        room = self.room
        level = room.live.stand_in_level()
        seats = [s.copy() for s in room.seats]
        changed = []
        for s in seats:
            if s.kind == "human" and s.identity_id is None:
                seats[s.seat] = Seat(s.seat, SeatKind.BOT, None, level, None, open=True)
                changed.append(seats[s.seat])
        if not changed:
            return
        holders = [store.HolderRow(s.seat, 0, None, level, None) for s in changed]
        room.holders.extend(holders)
        log.info(
            "public table filled with computer players",
            extra=game_fields(room.game_id, event="public_filled", seats=[s.seat for s in changed]),
        )
        await room.seating.save(seats, changed, extra=store.insert_holders(room.game_id, holders))

    # ------------------------------------------------------------------ commands

    async def set_public(self, identity_id: int, public: bool, rated: bool | None) -> None:
        """The host lists the table in the lobby or takes it off, while it waits."""
        room = self.room
        if identity_id != room.host_id:
            raise CommandError("not_host", "only the host may list the table")
        if room.mode != Mode.FRIENDS or room.status != Status.WAITING:
            raise CommandError("not_allowed", "a table is listed while it waits for players")
        settings = dict(room.settings)
        if public and not room.public:
            settings = public_settings(settings, room.live.now_ms())
        if rated is not None:
            settings["rated"] = rated
        await room.store(repo.save_seats(room.game_id, [], public=public, settings=settings))
        room.public = public
        room.settings = settings
        self.arm()
        room.broadcast_room()

    async def sit(self, identity_id: int, seat: int | None, name: str | None) -> dict[str, Any]:
        """ "Sit here" (``seat``; None: any free seat): a free seat of a waiting table is taken
        at once; an open computer seat of a table in play is taken at the end of the deal.
        ``{"role": "seat" | "heir", "seat": n}``; ``seat_taken`` when somebody was first."""
        room = self.room
        if not room.public:
            raise CommandError("not_allowed", "this table is not public")
        held = room.seats_of(identity_id)
        if held:
            return {"role": "seat", "seat": held[0]}
        waiting = [s.seat for s in room.seats if s.heir_id == identity_id]
        if waiting:
            return {"role": "heir", "seat": waiting[0]}
        if seat is not None and not 0 <= seat < room.players:
            raise CommandError("bad_message", f"seats are numbered 0..{room.players - 1}")
        if room.status == Status.WAITING:
            free = [s.seat for s in room.seats if s.kind == "human" and s.identity_id is None]
            target = seat if seat is not None else (free[0] if free else None)
            if target is None or target not in free:
                raise CommandError("seat_taken", "somebody took this seat first")
            await room.seating.take_seat(identity_id, target, name)
            return {"role": "seat", "seat": target}
        if room.status != Status.PLAYING:
            raise CommandError("game_over", "the match is over")
        open_seats = [
            s.seat for s in room.seats if s.kind == "bot" and s.open and s.heir_id is None
        ]
        target = seat if seat is not None else (open_seats[0] if open_seats else None)
        if target is None or target not in open_seats:
            raise CommandError("seat_taken", "somebody took this seat first")
        new = room.seats[target].copy()
        new.heir_id, new.heir_name = identity_id, name
        await room.store(repo.save_seats(room.game_id, [new.row()]))
        room.seats[target] = new
        room.broadcast_room()
        return {"role": "heir", "seat": target}

    # ------------------------------------------------------------------ the end of a deal

    def hand_over(self, state: State) -> tuple[list[Seat], Any] | None:
        """The seats an action ending a deal gives to their heirs (``state``: after it), and
        the work that stores them; None when none changes hands."""
        room = self.room
        if state.phase is not Phase.DEAL_OVER:
            return None
        heirs = [s for s in room.seats if s.kind == "bot" and s.open and s.heir_id is not None]
        if not heirs:
            return None
        deal = room.deals  # the first deal the new holder plays (the next one)
        new = [Seat(s.seat, SeatKind.HUMAN, s.heir_id, None, s.heir_name) for s in heirs]
        holders = [store.HolderRow(s.seat, deal, s.identity_id, None, s.name) for s in new]
        work = then(
            repo.save_seats(room.game_id, [s.row() for s in new]),
            store.insert_holders(room.game_id, holders),
        )
        return new, work

    def holders_json(self) -> list[dict[str, Any]]:
        """The record's ``meta.holders`` (docs/record-format.md): from which deal each seat
        that changed hands was held by whom."""
        return [
            {
                "seat": h.seat,
                "from_deal": h.deal,
                "by": "computer" if h.identity_id is None else "human",
                "level": h.bot_level,
                "name": h.name,
            }
            for h in sorted(self.room.holders, key=lambda h: (h.seat, h.deal))
        ]

    def handed_over(self, seats: list[Seat]) -> None:
        """The hand-over is committed: the new holders sit (their connections get seats)."""
        room = self.room
        deal = room.deals  # as in hand_over: the next deal is not counted yet
        room.holders.extend(
            store.HolderRow(s.seat, deal, s.identity_id, None, s.name) for s in seats
        )
        for s in seats:
            room.seats[s.seat] = s
        room.consents.forget(tuple(s.seat for s in seats))
        room.seating.refresh_listener_seats()
        log.info(
            "computer seats handed to humans",
            extra=game_fields(
                room.game_id, event="seat_handed_over", seats=[s.seat for s in seats]
            ),
        )
