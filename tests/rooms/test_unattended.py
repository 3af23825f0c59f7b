"""An unattended table (``settings.unattended``: a live tournament table) plays on with nobody
connected: its bots move, the stand-in plays an absent human's decision when its clock runs
out, and it never leaves memory as idle while being played. An ordinary table waits."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from app.engine import Phase
from tests.rooms.harness import attach, make_room, services


async def _table(unattended: bool) -> object:
    """A friends classic table with a clock: seat 0 human (identity 1), seats 1-3 bots;
    everybody leaves once it is dealt."""
    executor = ThreadPoolExecutor(2)
    room = make_room(
        "classic",
        kinds=["human", "bot", "bot", "bot"],
        service=services(executor=executor, clock_seconds=0.05),
    )
    room.settings["clock"] = 15
    room.settings["unattended"] = unattended
    room.seats[0].identity_id = None  # the player takes it: the deal starts
    await room.join(1, "Host")
    assert room.status == "playing"
    host = attach(room, 1)
    room.detach(host)  # nobody connected from here on
    return room


async def test_an_unattended_table_plays_on_with_nobody_connected() -> None:
    room = await _table(True)
    assert room.unattended and not room.listeners
    assert not room.is_idle(0.0)  # never evicted while it is played
    room.schedule_bots()
    room.rearm_clock()
    for _ in range(3000):
        if room.state.phase is Phase.DEAL_OVER:
            break
        await asyncio.sleep(0.01)
    assert room.state.phase is Phase.DEAL_OVER
    # the absent human's decisions were played by the stand-in under the clock
    assert any(by == "stand_in" for by in room.by.values())
    await room.close()


async def test_an_ordinary_table_waits_for_its_humans() -> None:
    room = await _table(False)
    assert not room.unattended
    version = room.version
    room.schedule_bots()
    room.rearm_clock()
    assert room.bot_turn() is None  # bots wait for the humans
    await asyncio.sleep(0.3)
    assert room.version == version
    assert room.is_idle(0.0)
    await room.close()
