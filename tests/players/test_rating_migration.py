"""Migration 0013: stored ratings moved to the newcomer's new start, results' numbers to the new
scale, and back (migrations/versions/0013_rating_scale.py, docs/players.md)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from openskill.models import PlackettLuce
from sqlalchemy import text

from app.persistence.db import create_engine_from_url
from app.persistence.migrate import alembic_config, upgrade_head
from app.players.ratings import ANCHORS, Member, Rating, bot, display, newcomer, rate

pytestmark = pytest.mark.db

REVISION = "0013"
SIGMA0 = 25 / 3


def before_revision() -> str:
    script = ScriptDirectory.from_config(alembic_config())
    down = script.get_revision(REVISION).down_revision
    assert isinstance(down, str)
    return down


def sql(url: str, statements: list[tuple[str, dict[str, Any]]]) -> list[list[Any]]:
    async def run() -> list[list[Any]]:
        engine = create_engine_from_url(url)
        out = []
        try:
            async with engine.begin() as connection:
                for statement, params in statements:
                    result = await connection.execute(text(statement), params)
                    out.append(list(result) if result.returns_rows else [])
        finally:
            await engine.dispose()
        return out

    return asyncio.run(run())


def old_display(rating: Any) -> int:
    """The number a player saw before 0013: the conservative 1000 + 25 (mu - 3 sigma)."""
    return round(1000 + 25 * (rating.mu - 3 * rating.sigma))


def old_history(levels: list[tuple[str, bool]], family: str) -> list[Any]:
    """The openskill ratings after each computer game, from the old start (mu 25): a partner of
    ``level`` against two of it, won or lost."""
    model = PlackettLuce()
    me = model.rating(mu=25.0, sigma=SIGMA0)
    out = []
    for level, won in levels:
        anchor = ANCHORS[family][level]
        partner = model.rating(mu=anchor.mu, sigma=anchor.sigma)
        others = [model.rating(mu=anchor.mu, sigma=anchor.sigma) for _ in range(2)]
        me = model.rate([[me, partner], others], ranks=[0, 1] if won else [1, 0])[0][0]
        out.append(me)
    return out


def new_history(levels: list[tuple[str, bool]], family: str) -> Rating:
    """The same games rated from today's start."""
    me = Member("me", newcomer(family))
    for level, won in levels:
        after = rate(
            [[me, bot(level, family)], [bot(level, family)] * 2], [0, 1] if won else [1, 0]
        )
        me = Member("me", after["me"])
    return me.rating


GAMES = [("medium", True), ("easy", False), ("hard", True)]


def test_the_rating_scale_migration_converts_and_restores(database_url: str) -> None:
    config = alembic_config(database_url)
    command.upgrade(config, before_revision())
    history = old_history(GAMES, "classic")
    start = datetime(2026, 12, 1, tzinfo=UTC)
    statements: list[tuple[str, dict[str, Any]]] = [
        ("INSERT INTO identities (id, token_hash) VALUES (1, :t)", {"t": "a" * 64}),
        ("INSERT INTO identities (id, token_hash) VALUES (2, :t)", {"t": "b" * 64}),
    ]
    for k in range(len(GAMES) + 1):
        statements.append(
            (
                "INSERT INTO games (id, variant, players, options, mode, status, spectators)"
                " VALUES (:id, 'classic', 4, '{}', 'computer', 'finished', true)",
                {"id": f"game-{k}"},
            )
        )
    rows = []
    before = 1000  # the old newcomer
    for k, after in enumerate(history):
        rows.append((f"game-{k}", 1, before, old_display(after), start + timedelta(hours=k)))
        before = old_display(after)
    rows.append(("game-3", 2, None, None, start))  # a game that was not rated
    for game_id, identity_id, rating_before, rating_after, created in rows:
        statements.append(
            (
                "INSERT INTO player_results (game_id, part, seat, identity_id, family, mode, won,"
                " left_early, deals_won, tricks_won, xp, xp_detail, rating_before, rating_after,"
                " created_at) VALUES (:g, 0, 0, :i, 'classic', 'computer', true, false, 1, 1,"
                " 20, :d, :b, :a, :c)",
                {
                    "g": game_id,
                    "i": identity_id,
                    "d": json.dumps({"total": 20}),
                    "b": rating_before,
                    "a": rating_after,
                    "c": created,
                },
            )
        )
    last = history[-1]
    statements.append(
        (
            "INSERT INTO player_ratings (identity_id, family, mu, sigma, games, wins)"
            " VALUES (1, 'classic', :mu, :sigma, 3, 2)",
            {"mu": last.mu, "sigma": last.sigma},
        )
    )
    read = [
        ("SELECT mu, sigma, games, wins FROM player_ratings ORDER BY identity_id", {}),
        (
            "SELECT game_id, rating_before, rating_after FROM player_results"
            " ORDER BY identity_id, created_at",
            {},
        ),
    ]
    old = sql(database_url, [*statements, *read])[-2:]

    upgrade_head(database_url)
    [[(mu, sigma, games, wins)], results] = sql(database_url, read)
    # mu moved by the share of the start still in it; the rest is kept
    shift = (last.sigma / SIGMA0) ** 2 * (ANCHORS["classic"]["easy"].mu - 25)
    assert mu == pytest.approx(last.mu + shift) and shift < 0
    assert (sigma, games, wins) == (pytest.approx(last.sigma), 3, 2)
    # ... close to rating the same games again from today's start
    again = new_history(GAMES, "classic")
    assert abs(display(Rating(mu, sigma)) - display(again)) <= 5
    # the results: the first "before" is a newcomer's number, the last "after" today's rating
    # and each match starts where the previous one ended
    rated = [r for r in results if r.rating_after is not None]
    assert rated[0].rating_before == display(newcomer("classic")) == 1430
    assert abs(rated[-1].rating_after - display(Rating(mu, sigma))) <= 1  # stored rounded
    for earlier, later in zip(rated, rated[1:], strict=False):
        assert earlier.rating_after == later.rating_before
    # the first win against medium now reads above easy (it read 1122 before)
    assert old[1][0].rating_after < 1200 < 1430 < rated[0].rating_after
    unrated = [r for r in results if r.rating_after is None]
    assert [(r.game_id, r.rating_before) for r in unrated] == [("game-3", None)]

    # downgrading gives the old values back (mu to rounding, the numbers exactly)
    command.downgrade(config, before_revision())
    [[(mu, sigma, games, wins)], results] = sql(database_url, read)
    [[(mu0, sigma0, games0, wins0)], results0] = old
    assert (mu, sigma, games, wins) == (pytest.approx(mu0), pytest.approx(sigma0), games0, wins0)
    assert [tuple(r) for r in results] == [tuple(r) for r in results0]
