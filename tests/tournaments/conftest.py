"""Tournaments in process over a real database: a RoomManager, a CommitQueue, the service."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest

from app.engine import Phase, action_to_json, current_player, legal_actions
from app.persistence import repository as repo
from app.persistence.db import create_engine_from_url, create_sessionmaker
from app.persistence.writer import CommitQueue
from app.rooms import RoomManager
from app.tournaments.service import Tournaments
from tests.rooms.harness import FakeListener, act, settings


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
async def service(migrated_database_url: str) -> AsyncIterator[Tournaments]:
    engine = create_engine_from_url(migrated_database_url)
    writer = CommitQueue(engine)
    await writer.start()
    rooms = RoomManager(settings(), create_sessionmaker(engine), writer, None)
    tournaments = Tournaments(rooms.settings, rooms.sessionmaker, writer, rooms)
    rooms.services.board_reader = tournaments.may_read
    tournaments.clock = Clock()
    try:
        yield tournaments
    finally:
        await tournaments.stop()
        await rooms.stop()
        await writer.close()
        await engine.dispose()


_tokens = iter(range(10**6))


async def identities(service: Tournaments, count: int) -> list[int]:
    return [
        await service.writer.submit(repo.insert_identity(repo.hash_token(f"t-{next(_tokens)}")))
        for _ in range(count)
    ]


async def play_game(
    rooms: RoomManager, game_id: str, identity_id: int, seed: int, log: list[Any] | None = None
) -> Any:
    """Play the human seat of a board game to its end (seeded random legal actions; the house
    players move through the room's bot driver). Returns the room; ``log`` gets every message
    the player's socket received."""
    room = await rooms.get(game_id)
    assert room is not None
    listener = FakeListener(identity_id, room.seats_of(identity_id))
    room.attach(listener)
    rng = random.Random(seed)
    n = 0
    for _ in range(2000):
        state = room.state
        if state.phase in (Phase.DEAL_OVER, Phase.MATCH_OVER):
            break
        seat = current_player(state)
        if seat in listener.seats:
            action = rng.choice(legal_actions(state))
            n += 1
            await act(room, listener, f"m{n}", room.version, action_to_json(action))
        else:
            await asyncio.sleep(0.01)
    room.detach(listener)
    if log is not None:
        log.extend(listener.messages)
    return room


def check_answer(definition: str, data: Any) -> Any:
    """``data`` must fit ``definition`` of docs/schema/tournaments-api.json."""
    import json

    import jsonschema_rs

    from app.web.tournament_schema import FILE

    doc = json.loads(FILE.read_text(encoding="utf-8"))
    validator = jsonschema_rs.Draft202012Validator(
        {"$ref": f"#/$defs/{definition}", "$defs": doc["$defs"]}
    )
    validator.validate(data)
    return data
