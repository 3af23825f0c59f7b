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

A player who leaves a public table is replaced at once by the stand-in (seating.py ``leaving``);
the clock's stand-in plays for an absent player, so a public table never pauses.

This module decides (who may list a table, which seat a "Sit here" gets, which seats the end
of a deal hands over); it holds no room. The room stores, applies, broadcasts and runs the
fill timer (room.py "public tables").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.engine import Phase, State
from app.persistence import public as store
from app.persistence import repository as repo
from app.rooms.errors import CommandError
from app.rooms.model import Mode, Seat, SeatKind, Status, then

PUBLIC_CLOCK = 30  # seconds per decision when the host chose no clock


def public_settings(settings: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """A table's settings once public: a clock (``PUBLIC_CLOCK`` if none) and since when."""
    out = dict(settings)
    if out.get("clock", "none") == "none":
        out["clock"] = PUBLIC_CLOCK
    out["public_since"] = now_ms
    return out


def fill_at_ms(
    public: bool,
    status: Status,
    mode: Mode,
    settings: dict[str, Any],
    loaded_at: int,
    fill_seconds: float,
) -> int | None:
    """When the free seats of a waiting public table go to computer players (None: not a
    waiting public table). A table public since before it was loaded counts from the load."""
    if not public or status != Status.WAITING or mode != Mode.FRIENDS:
        return None
    since = settings.get("public_since")
    if not isinstance(since, int):
        since = loaded_at
    return since + int(float(fill_seconds) * 1000)


def filled(seats: list[Seat], level: str) -> tuple[list[Seat], list[Seat]]:
    """The seats once computer players of ``level`` sit in the free ones, and those changed:
    each takes its seat as an ``open`` one, which gives way to a human."""
    new = [s.copy() for s in seats]
    changed = []
    for s in new:
        if s.kind == "human" and s.identity_id is None:
            new[s.seat] = Seat(s.seat, SeatKind.BOT, None, level, None, open=True)
            changed.append(new[s.seat])
    return new, changed


def check_listing(identity_id: int, host_id: int | None, mode: Mode, status: Status) -> None:
    """Refuse a listing change that ``identity_id`` may not make now."""
    if identity_id != host_id:
        raise CommandError("not_host", "only the host may list the table")
    if mode != Mode.FRIENDS or status != Status.WAITING:
        raise CommandError("not_allowed", "a table is listed while it waits for players")


def sit_choice(
    identity_id: int,
    seat: int | None,
    public: bool,
    status: Status,
    seats: list[Seat],
) -> tuple[str, int]:
    """What "Sit here" (``seat``; None: any free seat) does for ``identity_id``:

    * ``("seat", n)``: it already holds seat n;
    * ``("heir", n)``: it already waits for seat n;
    * ``("take", n)``: it takes the free seat n of the waiting table now;
    * ``("inherit", n)``: it becomes the heir of the open computer seat n of a table in play.

    Refused with ``seat_taken`` when somebody was first."""
    if not public:
        raise CommandError("not_allowed", "this table is not public")
    held = [s.seat for s in seats if s.identity_id == identity_id]
    if held:
        return "seat", held[0]
    waiting = [s.seat for s in seats if s.heir_id == identity_id]
    if waiting:
        return "heir", waiting[0]
    if seat is not None and not 0 <= seat < len(seats):
        raise CommandError("bad_message", f"seats are numbered 0..{len(seats) - 1}")
    if status == Status.WAITING:
        free = [s.seat for s in seats if s.kind == "human" and s.identity_id is None]
        target = seat if seat is not None else (free[0] if free else None)
        if target is None or target not in free:
            raise CommandError("seat_taken", "somebody took this seat first")
        return "take", target
    if status != Status.PLAYING:
        raise CommandError("game_over", "the match is over")
    open_seats = [s.seat for s in seats if s.kind == "bot" and s.open and s.heir_id is None]
    target = seat if seat is not None else (open_seats[0] if open_seats else None)
    if target is None or target not in open_seats:
        raise CommandError("seat_taken", "somebody took this seat first")
    return "inherit", target


def hand_over(
    game_id: str, state: State, seats: list[Seat], deal: int
) -> tuple[list[Seat], Any] | None:
    """The seats an action ending a deal gives to their heirs (``state``: after it; ``deal``:
    the first deal the new holders play, the next one), and the work that stores them; None
    when none changes hands."""
    if state.phase is not Phase.DEAL_OVER:
        return None
    heirs = [s for s in seats if s.kind == "bot" and s.open and s.heir_id is not None]
    if not heirs:
        return None
    new = [Seat(s.seat, SeatKind.HUMAN, s.heir_id, None, s.heir_name) for s in heirs]
    work = then(
        repo.save_seats(game_id, [s.row() for s in new]),
        store.insert_holders(game_id, holder_rows(new, deal)),
    )
    return new, work


def holder_rows(seats: Iterable[Seat], deal: int) -> list[store.HolderRow]:
    """The ``seat_holders`` rows of ``seats`` taken from ``deal`` on."""
    return [store.HolderRow(s.seat, deal, s.identity_id, s.level, s.name) for s in seats]


def holders_json(holders: Iterable[store.HolderRow]) -> list[dict[str, Any]]:
    """The record's ``meta.holders`` (docs/record-format.md): from which deal each seat that
    changed hands was held by whom."""
    return [
        {
            "seat": h.seat,
            "from_deal": h.deal,
            "by": "computer" if h.identity_id is None else "human",
            "level": h.bot_level,
            "name": h.name,
        }
        for h in sorted(holders, key=lambda h: (h.seat, h.deal))
    ]
