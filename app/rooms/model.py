"""What a room is made of, shared by its parts: mode and status, seats, listeners, services."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from app.engine import State
from app.engine.cards import format_card
from app.persistence import repository as repo
from app.persistence.writer import CommitQueue
from app.settings import Settings

if TYPE_CHECKING:
    from app.rooms.messages import RoomInfo
    from app.rooms.room import Room


class Mode(StrEnum):
    """Who plays at the table (str-valued: stored and sent as is)."""

    FRIENDS = "friends"  # one browser per human seat, joined through the invitation link
    COMPUTER = "computer"  # one human, bots at the other seats
    LOCAL = "local"  # every human seat on one device


class Status(StrEnum):
    WAITING = "waiting"  # human seats still free: nothing dealt
    PLAYING = "playing"
    FINISHED = "finished"  # the match is over


class SeatKind(StrEnum):
    """Who holds a seat (str-valued: stored and sent as is)."""

    HUMAN = "human"
    BOT = "bot"


MODES = tuple(m.value for m in Mode)

# A friends table's settings (docs/protocol.md "Table settings"), stored in games.settings;
# a key absent there takes its default here (games created before the settings have none).
CLOCKS = ("none", 15, 30, 60, 120)  # seconds per decision (RULES.md D-21)
TABLE_DEFAULTS: dict[str, Any] = {
    "clock": "none",
    "stand_in": "medium",  # the stand-in's level (D-22)
    "away_seconds": 120,  # away this long, the others may let the stand-in play
    # table chat (app/rooms/chat.py): on; spectators read but do not write
    "chat": True,
    "spectator_chat": False,
    # a tournament board (app/tournaments): {"event", "round", "board", "table", "direction"};
    # the game is that one deal, and ends with it
    "board": None,
    # a table that plays on with nobody connected (a live tournament table, app/tournaments):
    # its bots and stand-ins move under the clock while its humans are away, and it never
    # leaves memory as idle while it is being played (Room.unattended)
    "unattended": False,
    # public tables (public.py): rated unless the host says otherwise; when it became public
    "rated": True,
    "public_since": None,
}


def table_settings(mode: str, stored: dict[str, Any] | None) -> dict[str, Any]:
    """The five table settings, defaults applied to what is stored. Only friends games have a
    chat: in the others it is off whatever is stored."""
    values = dict(TABLE_DEFAULTS)
    values.update({k: v for k, v in (stored or {}).items() if k in TABLE_DEFAULTS})
    if mode != Mode.FRIENDS:
        values["chat"] = values["spectator_chat"] = False
    return values


class Listener(Protocol):
    """A connected client, as the room sees it (implemented by app/web/ws.py)."""

    identity_id: int
    seats: tuple[int, ...]  # the seats it holds; () for a spectator

    def send(self, text: str) -> None:
        """Queue a message (never blocks)."""

    def close(self, code: int, reason: str) -> None:
        """Ask for the connection to be closed (never blocks)."""


@dataclass
class Seat:
    seat: int
    kind: SeatKind  # a str given here ("human", "bot") is made the enum
    identity_id: int | None = None
    level: str | None = None
    name: str | None = None
    stand_in: str | None = None  # away | left: the stand-in plays this human seat (D-22)
    # public tables (public.py): a computer player that gives the seat to a human at the end
    # of a deal, and the human waiting for it
    open: bool = False
    heir_id: int | None = None
    heir_name: str | None = None

    def __post_init__(self) -> None:
        self.kind = SeatKind(self.kind)

    def row(self) -> repo.SeatRow:
        return repo.SeatRow(
            self.seat,
            self.kind.value,
            self.identity_id,
            self.level,
            self.name,
            self.stand_in,
            self.open,
            self.heir_id,
            self.heir_name,
        )

    @classmethod
    def from_row(cls, row: repo.SeatRow) -> Seat:
        return cls(
            row.seat,
            SeatKind(row.kind),
            row.identity_id,
            row.bot_level,
            row.display_name,
            row.stand_in,
            row.open,
            row.heir_id,
            row.heir_name,
        )

    def copy(self) -> Seat:
        return Seat(
            self.seat,
            self.kind,
            self.identity_id,
            self.level,
            self.name,
            self.stand_in,
            self.open,
            self.heir_id,
            self.heir_name,
        )


@dataclass(frozen=True, slots=True)
class Facts:
    """What a part reads of its room at one moment (``Room.facts``): passed to the part, so
    that the part never holds the room."""

    state: State | None
    status: Status
    mode: Mode
    version: int
    board: bool  # a tournament board: one deal, no next deal and no rematch
    rematch_id: str | None
    humans: tuple[int, ...]  # the human seats
    connected: frozenset[int]  # the seats an open connection holds
    stand_in: frozenset[int]  # the human seats the stand-in plays now (live.py ``stood_in``)


@dataclass
class JoinResult:
    role: str  # seat | spectator | full
    seats: tuple[int, ...]
    room: RoomInfo


class AwardHook(Protocol):
    """What a room asks of the player side when a match (or a duel's game) ends:
    ``app.players.awards.Awards``."""

    async def prepare(
        self,
        room: Any,
        state: State,
        *,
        live: bool = True,
        by: Mapping[tuple[int, int], str] | None = None,
    ) -> repo.Work | None:
        """The award's work, committed with the action that ended the match, or None."""
        ...

    def committed(self, result: Any) -> None:
        """The award's work was committed (``result`` is what it returned)."""
        ...


class LevelHook(Protocol):
    """The level badges of the browsers at the tables: ``app.players.awards.LevelCache``."""

    def get(self, identity_id: int | None) -> int | None: ...

    async def ensure(self, identity_ids: Iterable[int | None]) -> None: ...


@dataclass
class RoomServices:
    """What a room needs from the outside; the RoomManager provides it."""

    settings: Settings
    writer: CommitQueue
    executor: Executor | None
    create_rematch: Callable[[Room], Awaitable[str]]
    # the player side (app/players): XP and ratings when a match ends, level badges
    awards: AwardHook | None = None
    levels: LevelHook | None = None
    # the manager's hook for a room that lost its lease (Room.moved)
    lost: Callable[[Room], None] | None = None
    # tournaments (app/tournaments): whether a browser may read a board's record that it did
    # not play at (a board revealed to it); (game_id, identity_id) -> bool
    board_reader: Callable[[str, int], Awaitable[bool]] | None = None
    # tournaments: told when a board's game is over (its last action committed), so that a
    # live event deals the next board at once (app/tournaments/live.py)
    board_over: Callable[[Room], None] | None = None
    # the lobby (lobby.py): told when a room's seats may have changed
    lobby: Any = None
    # Web Push (app/web/push.py): told of every version and every room change
    push: Any = None

    def url(self, game_id: str) -> str:
        return f"{self.settings.public_base_url}/g/{game_id}"


def deck_strings(state: State) -> list[str]:
    """A deal's deck as stored with it (the record's notation)."""
    return [format_card(c) for c in state.deck]


def then(first: Any, second: Any) -> Any:
    """One work (persistence/writer.py) that runs two in the same transaction; the result is
    the second's."""

    def work(session: Any) -> Any:
        first(session)
        return second(session)

    return work
