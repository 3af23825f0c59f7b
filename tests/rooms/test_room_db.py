"""Rooms in process over a real database: the RoomManager, a CommitQueue, no server process.

A room is played, evicted and loaded again from its rows: same version, same state, the same
acknowledgement for a repeated id, and a consent that survives the reload.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.engine import Phase, action_to_json, current_player, legal_actions
from app.persistence import repository as repo
from app.persistence.db import create_engine_from_url, create_sessionmaker
from app.persistence.writer import CommitQueue
from app.rooms import GameSpec, RoomManager, Status
from tests.rooms.harness import FakeListener, act, settings

pytestmark = pytest.mark.db


@pytest.fixture
async def manager(migrated_database_url: str) -> AsyncIterator[RoomManager]:
    engine = create_engine_from_url(migrated_database_url)
    writer = CommitQueue(engine)
    await writer.start()
    rooms = RoomManager(settings(), create_sessionmaker(engine), writer, None)
    try:
        yield rooms
    finally:
        await rooms.stop()
        await writer.close()
        await engine.dispose()


async def identities(rooms: RoomManager, count: int) -> list[int]:
    return [
        await rooms.writer.submit(repo.insert_identity(repo.hash_token(f"token-{i}")))
        for i in range(count)
    ]


def connect(room: Any, identity_id: int) -> FakeListener:
    listener = FakeListener(identity_id, room.seats_of(identity_id))
    room.attach(listener)
    return listener


async def test_a_room_comes_back_from_its_rows_as_it_was(manager: RoomManager) -> None:
    host_id, guest_id = await identities(manager, 2)
    room = await manager.create_game(host_id, "Host", GameSpec("duel", None, {}, "friends"))
    assert room.status is Status.WAITING
    joined = await manager.join(room.game_id, guest_id, "Guest")
    assert joined is not None and joined.seats == (1,) and room.status is Status.PLAYING
    sockets = {host_id: connect(room, host_id), guest_id: connect(room, guest_id)}
    rng = random.Random(6)
    last: tuple[int, str, dict[str, Any]] | None = None
    while not (room.state.phase is Phase.DEAL_OVER and room.consent_kind() == "next_deal"):
        seat = current_player(room.state)
        identity = host_id if seat == 0 else guest_id
        action = action_to_json(rng.choice(legal_actions(room.state)))
        last = (identity, f"m{room.version}", action)
        sockets[identity].new()
        await act(room, sockets[identity], last[1], room.version, action)
        assert sockets[identity].new()[0]["type"] == "ack"
    await room.consent(sockets[host_id], "next_deal", "agree")
    version, state, deals = room.version, room.state, room.deals

    await manager.evict(room)
    assert sockets[host_id].closed == (1012, "idle")
    again = await manager.get(room.game_id)
    assert again is not None and again is not room
    assert (again.version, again.deals, again.status) == (version, deals, Status.PLAYING)
    assert again.state.scores == state.scores and again.state.phase is state.phase
    assert again.consents.agreed == {0}  # the host's agreement was stored before its ack
    # the last action's id, sent again after the reload: the same ack, nothing applied
    assert last is not None
    socket = connect(again, last[0])
    socket.new()
    await act(again, socket, last[1], version - 1, last[2])
    assert socket.new() == [{"type": "ack", "id": last[1], "version": version}]
    # the guest agrees too: the next deal is dealt and stored
    await again.consent(connect(again, guest_id), "next_deal", None)
    assert again.deals == deals + 1 and again.version == version + 1
    await manager.evict(again)
    third = await manager.get(room.game_id)
    assert third is not None and third.version == version + 1 and third.deals == deals + 1
