"""Who sits where: joining, the host's seat swaps, the waiting room's seats, leaving for good.

Functions of the seats and the facts the room passes: each decides what a seat change would be
(the new seats and those changed) or refuses it; it holds no room. The room stores the change,
applies it, starts the match when the last human seat is taken, and broadcasts (room.py
"seats"). Presence is the union of the connected listeners' seats; a friends game with a human
seat not connected is paused.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from app.rooms.errors import CommandError
from app.rooms.model import Listener, Mode, Seat, SeatKind, Status


def connected_seats(listeners: Iterable[Listener]) -> set[int]:
    out: set[int] = set()
    for listener in listeners:
        out.update(listener.seats)
    return out


def is_paused(
    mode: Mode,
    status: Status,
    clock: bool,
    humans: Iterable[int],
    connected: AbstractSet[int],
    stand_in: AbstractSet[int],
) -> bool:
    """Friends games pause while a human seat has no connection (RULES.md §9.1), unless the
    table has a clock (``clock``; D-21: the away seat's clock runs) or the stand-in plays that
    seat (``stand_in``; D-22)."""
    if mode != Mode.FRIENDS or status != Status.PLAYING or clock:
        return False
    return any(seat not in connected and seat not in stand_in for seat in humans)


def joining(
    identity_id: int, name: str | None, seats: list[Seat], status: Status
) -> tuple[list[Seat], Seat] | None:
    """The next free human seat for a new guest while the table waits (the new seats and the
    one taken), or None when there is none."""
    if status != Status.WAITING:
        return None
    free = [s for s in seats if s.kind == "human" and s.identity_id is None]
    if not free:
        return None
    new = [s.copy() for s in seats]
    seat = new[free[0].seat]
    seat.identity_id, seat.name = identity_id, name
    return new, seat


def swapped(
    identity_id: int,
    host_id: int | None,
    status: Status,
    seats: list[Seat],
    pairs: list[tuple[int, int]],
) -> tuple[list[Seat], list[Seat]]:
    """The host moves occupants between seats (teams), only before the first deal: the new
    seats and those changed."""
    if identity_id != host_id:
        raise CommandError("not_host", "only the host may move players")
    if status != Status.WAITING:
        raise CommandError("not_allowed", "seats can only be changed before the first deal")
    players = len(seats)
    changed: dict[int, Seat] = {}
    new = [s.copy() for s in seats]
    for a, b in pairs:
        if not (0 <= a < players and 0 <= b < players):
            raise CommandError("bad_message", f"seats are numbered 0..{players - 1}")
        sa, sb = new[a], new[b]
        sa.kind, sb.kind = sb.kind, sa.kind
        sa.identity_id, sb.identity_id = sb.identity_id, sa.identity_id
        sa.level, sb.level = sb.level, sa.level
        sa.name, sb.name = sb.name, sa.name
        changed[a], changed[b] = sa, sb
    return new, list(changed.values())


def starts(status: Status, seats: list[Seat]) -> bool:
    """Whether these seats start the match: the table waits and every human seat is taken."""
    return status == Status.WAITING and all(
        s.identity_id is not None for s in seats if s.kind == "human"
    )


def _waiting_room(mode: Mode, status: Status, players: int, seat: int) -> None:
    if mode != Mode.FRIENDS or status != Status.WAITING:
        raise CommandError("not_allowed", "seats are chosen in the waiting room of a friends game")
    if not 0 <= seat < players:
        raise CommandError("bad_message", f"seats are numbered 0..{players - 1}")


def seat_set(
    identity_id: int,
    host_id: int | None,
    mode: Mode,
    status: Status,
    seats: list[Seat],
    seat: int,
    kind: str,
    level: str | None,
) -> tuple[list[Seat], list[Seat]]:
    """The host puts a computer player (of ``level``) on a free seat, or frees a computer
    player's seat again, before the first deal: the new seats and the one changed."""
    if identity_id != host_id:
        raise CommandError("not_host", "only the host may change the seats")
    _waiting_room(mode, status, len(seats), seat)
    current = seats[seat]
    if kind == "bot":
        if current.kind == "human" and current.identity_id is not None:
            raise CommandError("not_allowed", f"seat {seat} is taken")
        new_seat = Seat(seat, SeatKind.BOT, None, level or "medium", None)
    else:
        if current.kind != "bot":
            raise CommandError("not_allowed", f"seat {seat} has no computer player")
        new_seat = Seat(seat, SeatKind.HUMAN)
    new = [s.copy() for s in seats]
    new[seat] = new_seat
    return new, [new_seat]


def seat_taken(
    identity_id: int, seat: int, name: str | None, mode: Mode, status: Status, seats: list[Seat]
) -> tuple[list[Seat], list[Seat]] | None:
    """A guest (or the host, or a spectator) moves to a free seat before the first deal: the
    new seats and those changed (the seats it leaves, the one it takes); None when it is
    already there."""
    _waiting_room(mode, status, len(seats), seat)
    target = seats[seat]
    held = [s.seat for s in seats if s.identity_id == identity_id]
    if seat in held:
        return None
    if target.kind != "human" or target.identity_id is not None:
        raise CommandError("not_allowed", f"seat {seat} is not free")
    new = [s.copy() for s in seats]
    if held:
        name = seats[held[0]].name
    changed = []
    for h in held:
        new[h] = Seat(h, SeatKind.HUMAN)
        changed.append(new[h])
    new[seat] = Seat(seat, SeatKind.HUMAN, identity_id, None, name)
    changed.append(new[seat])
    return new, changed


def leaving(
    identity_id: int, mode: Mode, status: Status, seats: list[Seat]
) -> tuple[list[Seat], tuple[int, ...]]:
    """A player leaves a friends game in progress: the new seats (his marked ``stand_in``
    "left": the stand-in plays them to the end of the match) and the seats he held."""
    held = tuple(s.seat for s in seats if s.identity_id == identity_id)
    if not held:
        raise CommandError("not_allowed", "you have no seat at this table")
    if mode != Mode.FRIENDS or status != Status.PLAYING:
        raise CommandError("not_allowed", "only a friends game in progress can be left")
    if all(seats[seat].stand_in == "left" for seat in held):
        raise CommandError("not_allowed", "you have already left this table")
    new = [s.copy() for s in seats]
    for seat in held:
        new[seat].stand_in = "left"
    return new, held
