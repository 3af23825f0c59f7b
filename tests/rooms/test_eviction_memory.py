"""A room that leaves memory really leaves it: after an eviction nothing the server holds still
refers to the room, its state or its listeners (weak references die), and this without a
collection of the garbage collector: the room and its parts make no reference cycle, so that
reference counting frees them at once (the server's collector schedule runs full collections
rarely, since one pauses every table: app/loop.py, the invariant it imposes).

In process, over a real SQLite file and the real commit queue, so that what could keep a room
alive (a bot task, a countdown, the writer's queue, the manager's maps) is the real thing.
"""

from __future__ import annotations

import asyncio
import gc
import random
import weakref
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.engine import current_player, legal_actions
from app.persistence import repository as repo
from app.rooms.manager import GameSpec, RoomManager
from app.rooms.room import Room
from tests.conftest import migrate_database
from tests.database import Database
from tests.rooms.harness import FakeListener, settings


@pytest.fixture
async def manager(tmp_path: Path) -> AsyncIterator[RoomManager]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'atout.db'}"
    await asyncio.to_thread(migrate_database, url)
    async with Database.open(url, writer=True) as db:
        manager = RoomManager(
            settings(idle_room_seconds=3600, next_deal_seconds=0.05),
            db.sessionmaker,
            db.writer,
            None,
        )
        try:
            yield manager
        finally:
            await manager.stop()


async def _play_out(
    room: Room, listener: FakeListener, rng: random.Random, moves: int = 5000
) -> None:
    """Random legal moves for every seat (a local game: one browser holds them all) until the
    match is over (or ``moves`` were played), agreeing to each next deal."""
    for _ in range(moves if moves < 5000 else 100_000):
        state = room.state
        assert state is not None
        if state.phase.value == "match_over":
            return
        if room.consent_kind() == "next_deal":
            await room.consent(listener, "next_deal", None)
            continue
        seat = current_player(state)
        assert seat is not None
        if seat not in listener.seats:  # a bot's turn: its task plays it
            await asyncio.sleep(0.005)
            continue
        action = rng.choice(list(legal_actions(state)))
        await room.act(listener, f"m{room.version}", room.version, action, seat)
    assert moves < 5000, "the match did not end"


@pytest.mark.parametrize(
    ("mode", "finish"),
    [("local", True), ("local", False), ("computer", True), ("computer", False)],
    ids=["local-finished", "local-mid-match", "computer-finished", "computer-mid-match"],
)
async def test_an_evicted_room_leaves_memory(manager, mode, finish):
    identity = await manager.writer.submit(repo.insert_identity("t" * 64))
    spec = GameSpec(variant="bela", players=2, options={"target": 501}, mode=mode, level="easy")
    room = await manager.create_game(identity, "Ana", spec)
    listener = FakeListener(identity, room.seats_of(identity))
    room.attach(listener)
    rng = random.Random(7)
    if finish:
        await _play_out(room, listener, rng)
        assert room.state is not None and room.state.phase.value == "match_over"
    else:
        await _play_out(room, listener, rng, moves=12)
        assert room.state is not None and room.state.phase.value != "match_over"
    room.detach(listener)
    game_id = room.game_id
    refs = [weakref.ref(room), weakref.ref(room.state), weakref.ref(listener)]
    refs += [
        weakref.ref(part)
        for part in (room.publisher, room.consents, room.live, room.chat, room.bots)
    ]
    await asyncio.sleep(0.1)  # let the tasks of the last move run to their end
    gc.collect()
    gc.disable()
    try:
        await manager.evict(room)
        del room, listener
        await asyncio.sleep(0.1)  # let any task the room started run to its end
        alive = [r() for r in refs if r() is not None]
        referrers = [type(x).__name__ for obj in alive for x in gc.get_referrers(obj)]
    finally:
        gc.enable()
    assert alive == [], f"still referred to by {referrers} (a reference cycle?)"
    assert game_id not in manager.rooms
    # and it comes back from the database, as it was
    again = await manager.get(game_id)
    assert again is not None and again.state is not None
