"""In-process rooms: a Room with recording listeners and a fake (or real SQLite) commit queue.

No server process: a test builds a room, attaches listeners, sends commands and reads what each
listener received, as app/web/ws.py's ``Connection`` would have sent it.
"""

from __future__ import annotations

import asyncio
import random
import weakref
from typing import Any

import orjson

from app.rooms.room import Room, RoomServices, Seat
from app.settings import Settings


class FakeListener:
    """A connected client that records every text it is sent."""

    def __init__(self, identity_id: int, seats: tuple[int, ...] = ()) -> None:
        self.identity_id = identity_id
        self.seats = seats
        self.texts: list[str] = []
        self.closed: tuple[int, str] | None = None
        self._read = 0

    def send(self, text: str) -> None:
        self.texts.append(text)

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return [orjson.loads(t) for t in self.texts]

    def new(self) -> list[dict[str, Any]]:
        """The messages received since the last call."""
        out = [orjson.loads(t) for t in self.texts[self._read :]]
        self._read = len(self.texts)
        return out

    def last(self, type_: str) -> dict[str, Any]:
        return next(m for m in reversed(self.messages) if m["type"] == type_)


class FakeWriter:
    """A CommitQueue that keeps the works instead of running them; ``fail`` makes it refuse."""

    def __init__(self) -> None:
        self.works: list[Any] = []
        self.fail = False

    async def submit(self, work: Any) -> Any:
        await asyncio.sleep(0)
        if self.fail:
            raise RuntimeError("disk full")
        self.works.append(work)
        return None


def settings(**values: Any) -> Settings:
    base: dict[str, Any] = {"bot_delay_ms": 0, "public_base_url": "http://atout.test"}
    base.update(values)
    return Settings(**base)


def services(writer: Any = None, executor: Any = None, **values: Any) -> RoomServices:
    async def create_rematch(room: Room) -> str:
        return f"{room.game_id}-rematch"

    return RoomServices(
        settings=settings(**values),
        writer=writer if writer is not None else FakeWriter(),
        executor=executor,
        create_rematch=create_rematch,
    )


def make_room(
    variant: str = "classic",
    players: int | None = None,
    *,
    mode: str = "friends",
    kinds: list[str] | None = None,
    level: str = "easy",
    status: str = "waiting",
    options: dict[str, Any] | None = None,
    seed: int = 1,
    service: RoomServices | None = None,
    spectators: bool = True,
) -> Room:
    """A room in ``waiting`` whose seat 0 belongs to identity 1 (its host); decks from ``seed``."""
    from app.engine import get_rules

    rules = get_rules(variant, players, options or {})
    n = rules.players
    kinds = kinds or ["human"] * n
    seats = [Seat(i, kind, level=level if kind == "bot" else None) for i, kind in enumerate(kinds)]
    seats[0].identity_id, seats[0].name = 1, "Host"
    if mode == "local":
        for s in seats:
            if s.kind == "human":
                s.identity_id = 1
    room = Room(
        services=service or services(),
        game_id=f"room-{variant}",
        variant=rules.variant,
        players=n,
        options=dict(rules.options),
        mode=mode,
        status=status,
        spectators_allowed=spectators,
        host_id=1,
        seats=seats,
    )
    room.rng = random.Random(seed)  # type: ignore[assignment]
    MADE.append(weakref.ref(room))
    return room


# Every room make_room built and not yet closed: tests/rooms/conftest.py closes them when the
# test ends, as the manager closes a room it lets go, so that no bot turn or timer of theirs is
# left pending once the test's event loop is gone.
MADE: list[weakref.ref[Room]] = []


async def close_made() -> None:
    rooms = [room for ref in MADE if (room := ref()) is not None and not room.closed]
    MADE.clear()
    for room in rooms:
        await room.close()


def attach(room: Room, identity_id: int) -> FakeListener:
    """Connect a client of ``identity_id`` as ws.py does (its seats follow its identity)."""
    listener = FakeListener(identity_id, room.seats_of(identity_id))
    room.attach(listener)
    return listener


async def act(
    room: Room,
    listener: FakeListener,
    msg_id: str,
    version: int,
    action: dict[str, Any],
    seat: int | None = None,
) -> None:
    """An ``action`` frame, parsed and handed to the room as app/web/ws.py does (a frame
    refused by the parser gets its error, as a socket would)."""
    from app.rooms.messages import dumps, error
    from app.web.messages import BadFrame, parse_incoming

    frame: dict[str, Any] = {"type": "action", "id": msg_id, "version": version, "action": action}
    if seat is not None:
        frame["seat"] = seat
    try:
        msg = parse_incoming(orjson.dumps(frame).decode())
    except BadFrame as exc:
        listener.send(dumps(error(exc.code, exc.message, exc.msg_id)))
        return
    await room.act(listener, msg.id, msg.version, msg.action, msg.seat)
