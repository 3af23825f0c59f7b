"""A bot that does not answer is given up after BOT_THINK_SECONDS (and _bot_turn asks again);
a bot move dropped because its room closed is an expected event, logged at INFO."""

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.rooms import bot_driver as room_module
from app.rooms.errors import RoomMoved
from app.rooms.model import Seat
from app.rooms.room import Room
from tests.rooms.harness import make_room as harness_room
from tests.rooms.harness import services


def make_room(executor) -> Room:  # type: ignore[no-untyped-def]
    return Room(
        services=services(executor=executor),
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
    monkeypatch.setattr(room_module, "choose_action", lambda view, level, rng: time.sleep(2.0))
    with ThreadPoolExecutor(max_workers=1) as executor:
        room = make_room(executor)
        started = time.monotonic()
        with pytest.raises(asyncio.TimeoutError):
            await room.think({}, "easy")
        # given up long before the bot would have answered (a loaded machine may be slow to
        # wake the loop, never by a second and more)
        assert time.monotonic() - started < 1.8


async def test_a_bot_that_answers_in_time_is_heard(monkeypatch) -> None:
    monkeypatch.setattr(room_module, "choose_action", lambda view, level, rng: {"type": "pass"})
    with ThreadPoolExecutor(max_workers=1) as executor:
        room = make_room(executor)
        assert await room.think({}, "easy") == {"type": "pass"}


async def test_a_bot_move_refused_because_the_room_moved_is_not_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A process that wakes up after its rooms moved finds its bot's move refused by the
    fence (RoomMoved): handled and expected, so logged at INFO (bot_dropped), never at ERROR,
    which would fire an operator's alert."""
    room = harness_room("classic", mode="computer", kinds=["human", "bot", "bot", "bot"])

    async def moved(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise RoomMoved(room.game_id)

    room._bot_play = moved  # type: ignore[method-assign]
    with caplog.at_level("INFO", logger="atout.rooms"):
        await room._bot_turn(1, None, room.version)
    levels = {(r.levelname, getattr(r, "event", None)) for r in caplog.records}
    assert ("INFO", "bot_dropped") in levels
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
