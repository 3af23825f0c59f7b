"""How a public table's seat partly played by a computer counts (docs/players.md, "Public
tables"): the human who took it answers for it from half of the seat's actions on."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from app.persistence import players as store
from app.persistence import public as public_store
from app.players.awards import Holder, award_work, partly_held
from app.players.ratings import newcomer
from tests.players.test_store import Db, db, humans, outcome  # noqa: F401

pytestmark = pytest.mark.db

# seat -> deal -> actions: seat 3 made 10 actions in deal 0, 10 in deal 1, 10 in deal 2
ACTIONS = {s: {0: 10, 1: 10, 2: 10} for s in range(4)}


def test_a_late_human_who_played_less_than_half_rates_as_the_computer() -> None:
    holders = [
        public_store.HolderRow(3, 0, None, "hard", None),
        public_store.HolderRow(3, 2, 77, None, "Eve"),  # took it for the last deal
    ]
    found = [Holder(s, 10 + s, None) for s in range(3)] + [Holder(3, 77, None)]
    out = partly_held(found, holders, ACTIONS)
    assert out[:3] == found[:3]
    assert out[3] == Holder(3, 77, "hard", rated=False)


def test_a_human_who_played_half_of_the_seat_answers_for_it() -> None:
    holders = [
        public_store.HolderRow(3, 0, None, "easy", None),
        public_store.HolderRow(3, 1, 77, None, "Eve"),  # deals 1 and 2: 20 of 30 actions
    ]
    found = [Holder(3, 77, None)]
    assert partly_held(found, holders, ACTIONS) == found
    # exactly half counts as his too
    assert partly_held(found, holders, {3: {0: 5, 1: 5}}) == found


async def test_the_late_human_earns_xp_but_no_rating_and_the_others_rate_against_the_bot(
    db: Db,  # noqa: F811
) -> None:
    ids = [await db.identity(n) for n in ("P0", "P1", "P2", "Late")]
    seats = humans(ids)
    game_id = "game-public-0001"
    await db.game(game_id, "friends", seats)
    await db.write(
        public_store.insert_holders(
            game_id,
            [
                public_store.HolderRow(3, 0, None, "medium", None),
                public_store.HolderRow(3, 2, ids[3], None, "Late"),
            ],
        )
    )
    work = award_work(game_id, "classic", "friends", outcome(1), seats, None, actions=ACTIONS)
    result = await db.write(work)
    assert set(result.xp) == set(ids) and result.xp[ids[3]] > 0  # he played: XP
    rows = {r.seat: r for r in await db.read(lambda s: store.results_of_game(s, game_id))}
    assert rows[3].won and rows[3].rating_after is None  # ... but no rating
    assert rows[1].rating_after is not None and rows[0].rating_after is not None
    ratings = {r.identity_id: r for r in await db.read(lambda s: store.ratings(s, ids))}
    assert ids[3] not in ratings
    assert ratings[ids[1]].mu > newcomer("classic").mu  # Bob's side won, with the computer's share


async def test_a_table_the_host_did_not_rate_rates_nobody(db: Db) -> None:  # noqa: F811
    ids = [await db.identity(n) for n in ("A", "B", "C", "D")]
    seats = humans(ids)
    await db.game("game-unrated-01", "friends", seats)
    work = award_work(
        "game-unrated-01", "classic", "friends", outcome(0), seats, None, rated_table=False
    )
    result: Any = await db.write(work)
    assert all(xp > 0 for xp in result.xp.values())
    assert await db.read(lambda s: store.ratings(s, ids)) == []
    rows = await db.read(lambda s: store.results_of_game(s, "game-unrated-01"))
    assert all(r.rating_after is None for r in rows)


async def test_a_late_holder_of_most_of_the_seat_is_rated_with_the_match_share(
    db: Db,  # noqa: F811
) -> None:
    """He answers for the seat as if he had held it from the start, and the match weighs its
    share of a full match for him as for everyone (a short match to 501 here)."""
    changes = {}
    for share in (0.55, 1.0):
        ids = [await db.identity(f"{n}{share}") for n in ("P0", "P1", "P2", "Late")]
        seats = humans(ids)
        game_id = f"game-late-{share}"
        await db.game(game_id, "friends", seats)
        await db.write(
            public_store.insert_holders(
                game_id,
                [
                    public_store.HolderRow(3, 0, None, "medium", None),
                    public_store.HolderRow(3, 1, ids[3], None, "Late"),  # 20 of 30 actions
                ],
            )
        )
        won = replace(outcome(1), scores=(400, 550), share=share)
        work = award_work(game_id, "classic", "friends", won, seats, None, actions=ACTIONS)
        await db.write(work)
        rows = {r.seat: r for r in await db.read(lambda s, g=game_id: store.results_of_game(s, g))}
        assert rows[3].won and rows[3].rating_before == 1430
        changes[share] = rows[3].rating_after - rows[3].rating_before
    assert 0 < changes[0.55] < changes[1.0]
    assert changes[0.55] == pytest.approx(0.55 * changes[1.0], abs=1.5)
