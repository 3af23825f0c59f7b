"""Only the room takes its lock: a part's timer posts its command (``Room.post``)."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest

from app.engine import current_player, legal_actions
from app.rooms.errors import CommandError
from app.rooms.room import Act, AgreeFor, Command, DealNext, Fill, Room
from tests.rooms.harness import attach, make_room

ROOT = Path(__file__).resolve().parents[2]


def sources() -> list[tuple[str, str]]:
    """The product's and the tools' modules but room.py, as (path, text)."""
    files = [*(ROOT / "app").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]
    return [
        (str(path.relative_to(ROOT)), path.read_text())
        for path in files
        if path != ROOT / "app" / "rooms" / "room.py"
    ]


def lock_takers(files: list[tuple[str, str]]) -> list[str]:
    """Every place that takes a ``.lock`` of a room: ``async with <x>.lock`` or
    ``<x>.lock.acquire()``, where ``<x>`` names a room (``room``, ``self.room``, ...)."""
    found = []
    for name, text in files:
        for node in ast.walk(ast.parse(text, filename=name)):
            exprs: list[ast.expr] = []
            if isinstance(node, ast.AsyncWith | ast.With):
                exprs = [item.context_expr for item in node.items]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "acquire":
                    exprs = [node.func.value]
            for expr in exprs:
                if isinstance(expr, ast.Attribute) and expr.attr == "lock":
                    owner = ast.unparse(expr.value)
                    if owner == "room" or owner.endswith(".room"):
                        found.append(f"{name}:{node.lineno}: {owner}.lock")
    return found


def test_no_file_but_room_py_takes_the_rooms_lock() -> None:
    assert lock_takers(sources()) == []


def test_the_check_sees_a_part_that_takes_the_lock() -> None:
    part = (
        "class Part:\n"
        "    async def go(self, room):\n"
        "        async with room.lock:\n"
        "            pass\n"
        "        await self.room.lock.acquire()\n"
    )
    backup = "async def f(self):\n    async with self.lock:\n        pass\n"
    assert lock_takers([("part.py", part), ("backup.py", backup)]) == [
        "part.py:3: room.lock",
        "part.py:5: self.room.lock",
    ]


def recording(room: Room) -> list[Command]:
    """The commands ``room`` runs, recorded instead of run."""
    ran: list[Command] = []

    async def run(command: Command) -> None:
        ran.append(command)
        await asyncio.sleep(0)

    room._run = run  # type: ignore[method-assign]
    return ran


async def test_a_posted_command_runs_only_while_it_still_applies() -> None:
    room = make_room("duel")
    ran = recording(room)
    await room.post(Fill())
    await room.post(DealNext(), lambda: False)
    room.closed = True
    await room.post(AgreeFor(0))
    assert ran == [Fill()]


async def test_posted_commands_run_one_at_a_time() -> None:
    room = make_room("duel")
    inside = 0
    most = 0

    async def run(command: Command) -> None:
        nonlocal inside, most
        inside += 1
        most = max(most, inside)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        inside -= 1

    room._run = run  # type: ignore[method-assign]
    await asyncio.gather(*(room.post(Fill()) for _ in range(5)))
    assert most == 1


async def test_a_posted_move_is_the_same_path_as_a_players() -> None:
    """A bot's or the stand-in's move (``Act``) is stored, marked with its ``by``, and
    published like a player's action."""
    room = make_room("duel")
    attach(room, 1)
    await room.join(2, "Bea")  # the last free seat: the match starts
    attach(room, 2)  # everyone connected: the table is not paused
    state = room.state
    assert state is not None and room.version == 1
    seat = current_player(state)
    assert seat is not None
    action = legal_actions(state)[0]
    await room.post(Act(seat, action, room.version, "stand_in"))
    assert room.version == 2 and room.by == {(0, 0): "stand_in"}
    stale = legal_actions(room.state)[0]
    with pytest.raises(CommandError):  # an old version is refused, as a player's would be
        await room.post(Act(current_player(room.state), stale, 1))
