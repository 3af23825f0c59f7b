"""A bot that does not answer is given up after BOT_THINK_SECONDS (and _bot_turn asks again)."""

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

from app.rooms import bot_driver as room_module
from app.rooms.model import Seat
from app.rooms.room import Room


def make_room(executor) -> Room:  # type: ignore[no-untyped-def]
    return Room(
        services=SimpleNamespace(executor=executor),  # type: ignore[arg-type]
        game_id="t",
        variant="classic",
        players=4,
        options={},
        mode="computer",
        status="playing",
        spectators_allowed=True,
        host_id=1,
        seats=[Seat(0, "human", 1), *(Seat(s, "bot", level="easy") for s in (1, 2, 3))],
    )


async def test_a_bot_that_does_not_answer_is_given_up(monkeypatch) -> None:
    monkeypatch.setattr(room_module, "BOT_THINK_SECONDS", 0.2)
    monkeypatch.setattr(room_module, "choose_action", lambda view, level, rng: time.sleep(1.0))
    with ThreadPoolExecutor(max_workers=1) as executor:
        room = make_room(executor)
        started = time.monotonic()
        with pytest.raises(asyncio.TimeoutError):
            await room.bots.think({}, "easy")
        assert time.monotonic() - started < 0.9


async def test_a_bot_that_answers_in_time_is_heard(monkeypatch) -> None:
    monkeypatch.setattr(room_module, "choose_action", lambda view, level, rng: {"type": "pass"})
    with ThreadPoolExecutor(max_workers=1) as executor:
        room = make_room(executor)  # held: a room's parts refer to it weakly
        assert await room.bots.think({}, "easy") == {"type": "pass"}
