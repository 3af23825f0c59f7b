"""Games, seats, deals and actions: the migration, the record round trip, group commit."""

from __future__ import annotations

import asyncio
import random

import pytest
from alembic import command
from sqlalchemy import inspect, select

from app.engine import Phase, action_to_json, apply, legal_actions, new_match, start_deal
from app.engine.cards import format_card
from app.engine.record import dump, replay
from app.persistence import repository as repo
from app.persistence.db import create_engine_from_url
from app.persistence.migrate import alembic_config, current_revision, upgrade_head
from app.persistence.models import GameAction

pytestmark = pytest.mark.db

GAME_TABLES = {"games", "seats", "deals", "actions"}


async def tables(url: str) -> set[str]:
    engine = create_engine_from_url(url)
    try:
        async with engine.connect() as connection:
            return set(await connection.run_sync(lambda sync: inspect(sync).get_table_names()))
    finally:
        await engine.dispose()


def test_games_migration_up_down_up(database_url: str) -> None:
    upgrade_head(database_url)
    assert GAME_TABLES <= asyncio.run(tables(database_url))
    command.downgrade(alembic_config(database_url), "0001")
    assert current_revision(database_url) == "0001"
    left = asyncio.run(tables(database_url))
    assert not (GAME_TABLES & left) and "identities" in left
    upgrade_head(database_url)
    assert GAME_TABLES <= asyncio.run(tables(database_url))


def _random_game(variant: str, players: int | None, options: dict, seed: int):
    """Play a random game with the engine; return (final state, deals, actions) as rows."""
    rng = random.Random(seed)
    state = new_match(variant, players, options, rng=rng)
    deals = [repo.DealRow(0, state.dealer, [format_card(c) for c in state.deck])]
    actions: list[repo.ActionRow] = []
    while state.phase is not Phase.MATCH_OVER and len(deals) < 6:
        if state.phase is Phase.DEAL_OVER:
            state, _ = start_deal(state, rng)
            deals.append(
                repo.DealRow(len(deals), state.dealer, [format_card(c) for c in state.deck])
            )
            continue
        seat = state.to_act
        action = rng.choice(legal_actions(state))
        state, _ = apply(state, action, seat)
        actions.append(
            repo.ActionRow(
                len(actions), len(deals) - 1, seat, action_to_json(action), f"c{len(actions)}"
            )
        )
    return state, deals, actions


@pytest.mark.parametrize(
    "variant, players, options",
    [("classic", None, {"target": 501}), ("bela", 3, {}), ("duel", None, {})],
)
async def test_stored_rows_are_the_record(database, variant, players, options):
    state, deals, actions = _random_game(variant, players, options, seed=7)
    sessionmaker, writer = database.sessionmaker, database.writer
    identity = await writer.submit(repo.insert_identity("ab" * 32))
    game = {
        "id": f"game-{variant}-{players}",
        "variant": variant,
        "players": state.rules.players,
        "options": dict(state.rules.options),
        "mode": "friends",
        "status": "playing",
        "spectators": True,
        "host_id": identity,
        "scores": None,
        "rematch_of": None,
    }
    seats = [repo.SeatRow(s, "human", identity, None, "Ana") for s in range(state.rules.players)]
    await writer.submit(repo.insert_game(game, seats, deals[0]))
    # the rest of the record, in several steps as the rooms write it
    await writer.submit(repo.record_step(game["id"], actions[:10], deals[1:2]))
    await writer.submit(repo.record_step(game["id"], actions[10:], deals[2:], scores=[1, 2]))
    async with sessionmaker() as session:
        stored = await repo.load_game(session, game["id"])
    assert stored is not None
    assert stored.game.scores == [1, 2]
    assert [s.display_name for s in stored.seats] == ["Ana"] * state.rules.players
    record = stored.record()
    replayed = replay(record)
    assert replayed.scores == state.scores
    assert dump(replayed) == dump(state)
    async with sessionmaker() as session:
        games = await repo.games_of_identity(session, identity)
    assert [g.id for g, _ in games] == [game["id"]]


async def test_a_turn_up_game_stored_with_sa_ta_allowed_still_loads(database):
    """Classic turn-up games were stored with ``allow_sa_ta: true`` (then the default); the
    option is now refused there, and such a stored game reads as ``false``: its record
    replays and its room restores."""
    from app.rooms.room import Room
    from tests.rooms.harness import services

    state, deals, actions = _random_game("classic", None, {}, seed=11)
    assert state.rules.options["allow_sa_ta"] is False
    sessionmaker, writer = database.sessionmaker, database.writer
    identity = await writer.submit(repo.insert_identity("cd" * 32))
    game = {
        "id": "game-old-options",
        "variant": "classic",
        "players": 4,
        "options": {**state.rules.options, "allow_sa_ta": True},
        "mode": "friends",
        "status": "playing",
        "spectators": True,
        "host_id": identity,
        "scores": None,
        "rematch_of": None,
    }
    seats = [repo.SeatRow(s, "human", identity, None, "Ana") for s in range(4)]
    await writer.submit(repo.insert_game(game, seats, deals[0]))
    await writer.submit(repo.record_step(game["id"], actions, deals[1:]))
    async with sessionmaker() as session:
        stored = await repo.load_game(session, game["id"])
    assert stored is not None
    record = stored.record()
    assert record is not None and record["options"]["allow_sa_ta"] is False
    assert dump(replay(record)) == dump(state)
    room = Room.from_stored(services(), stored)
    assert room.options["allow_sa_ta"] is False and room.version > 0


async def test_group_commit_shares_transactions_and_isolates_failures(database):
    sessionmaker, writer = database.sessionmaker, database.writer
    identity = await writer.submit(repo.insert_identity("cd" * 32))
    for i in range(20):
        game = {
            "id": f"g{i}",
            "variant": "duel",
            "players": 2,
            "options": {},
            "mode": "friends",
            "status": "playing",
            "spectators": True,
            "host_id": identity,
            "scores": None,
            "rematch_of": None,
        }
        await writer.submit(repo.insert_game(game, [], repo.DealRow(0, 0, ["7C"] * 32)))
    before = writer.stats.transactions
    row = repo.ActionRow(0, 0, 0, {"type": "pass"}, "same")
    # 20 tables acting at once: far fewer transactions than actions
    await asyncio.gather(*(writer.submit(repo.record_step(f"g{i}", [row])) for i in range(20)))
    assert writer.stats.transactions - before < 20
    # a bad work (duplicate key) fails alone; the good ones sharing its batch are written
    dup = writer.submit(repo.record_step("g0", [row]))
    good = [
        writer.submit(repo.record_step(f"g{i}", [repo.ActionRow(1, 0, 1, {"type": "pass"}, None)]))
        for i in range(1, 5)
    ]
    results = await asyncio.gather(dup, *good, return_exceptions=True)
    assert isinstance(results[0], Exception)
    assert results[1:] == [None] * 4
    async with sessionmaker() as session:
        count = len((await session.execute(select(GameAction))).scalars().all())
    assert count == 20 + 4
