"""A tournament cannot be used to see a board's hands before playing it (RULES.md §13), checked
as tests/rooms/leakcheck.py checks rooms: every message of a board's table is checked against
the truth rebuilt from its stored record, and nothing the event shows a viewer who has not
played a board names one of its cards."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from app.persistence import repository as repo
from app.rooms.errors import CommandError
from app.tournaments.service import EventSpec, TournamentError, Tournaments
from tests.rooms.leakcheck import Truth, check_messages
from tests.tournaments.conftest import identities, play_game

pytestmark = pytest.mark.db

CARD = re.compile(r"(?<![A-Za-z0-9])[789TJQKA][CDHS](?![A-Za-z0-9])")


def cards_named(data: Any) -> set[str]:
    """Every card token in any string of ``data`` (ids and urls left out)."""
    found: set[str] = set()

    def walk(value: Any, key: str | None = None) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k not in ("id", "game_id", "url", "replay_url", "analysis_url", "event"):
                    walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str):
            found.update(CARD.findall(value))

    walk(data)
    return found


@pytest.mark.parametrize(("variant", "players"), [("classic", 4), ("bela", 3), ("duel", 2)])
async def test_a_board_shows_nothing_before_it_is_played(
    service: Tournaments, variant: str, players: int
) -> None:
    spec = EventSpec(variant=variant, players=players, boards=2, level="easy", hours=2)
    event_id = await service.create(spec)
    await service.ensure_datum(event_id)
    a, b = await identities(service, 2)
    await service.enter(event_id, a, "A")
    await service.enter(event_id, b, "B")

    # a plays board 1; every message a's socket received passes the room leak check
    log: list[dict[str, Any]] = []
    game_a = await service.play_board(event_id, a, None, 1)
    await play_game(service.rooms, game_a, a, 7, log)
    async with service.sessionmaker() as session:
        stored = await repo.load_game(session, game_a)
    assert stored is not None
    record = stored.record()
    assert record is not None
    # the record as stored: its "by": "claim" tells the check when a claimer's hand was shown
    assert check_messages(Truth.from_record(record), log, (0,), who="entrant") > 0

    # b has played nothing: no card of either board anywhere in what b may read
    view = await service.event(event_id, b)
    assert cards_named(view) == set()
    assert json.dumps(await service.listing()).count('"deck"') == 0
    for board in (1, 2):
        with pytest.raises(TournamentError):
            await service.traveller(event_id, board, b)
    async with service.sessionmaker() as session:
        from sqlalchemy import select

        from app.persistence.models import TournamentTable

        games = (
            (
                await session.execute(
                    select(TournamentTable.game_id).where(TournamentTable.tournament_id == event_id)
                )
            )
            .scalars()
            .all()
        )
    for game_id in games:  # the datum tables of both boards, and a's table
        room = await service.rooms.get(game_id)
        assert room is not None
        with pytest.raises(CommandError):
            await room.record_for(b)
        assert (await service.rooms.join(game_id, b, "B")).role == "full"  # no spectators

    # a sees board 1's traveller, but nothing of board 2 yet
    assert cards_named(await service.traveller(event_id, 1, a)) == set()
    with pytest.raises(TournamentError):
        await service.traveller(event_id, 2, a)
