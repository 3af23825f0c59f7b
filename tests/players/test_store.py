"""Awards, ratings and the ranking in the database (SQLite here, PostgreSQL in CI's test-db)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.main import create_app
from app.persistence import players as store
from app.persistence.models import Game, GameSeat, Identity
from app.players.awards import SeatInfo, award_work
from app.players.ratings import ANCHORS, Rating, display, newcomer
from app.players.xp import Outcome, SeatResult
from app.settings import Settings
from tests.database import Database

pytestmark = pytest.mark.db


class Db:
    def __init__(self, database: Database) -> None:
        self.sessionmaker = database.sessionmaker

    async def write(self, work: Any) -> Any:
        """Run a work (a function of a Session, persistence/writer.py) in its own transaction."""
        async with self.sessionmaker() as session:
            result = await session.run_sync(work)
            await session.commit()
            return result

    async def read(self, fn: Callable[[Session], Any]) -> Any:
        return await store.read(self.sessionmaker, fn)

    async def identity(self, name: str | None) -> int:
        async with self.sessionmaker() as session:
            row = Identity(token_hash=f"{name}-{id(self)}".ljust(64, "x")[:64], display_name=name)
            session.add(row)
            await session.commit()
            return int(row.id)

    async def game(self, game_id: str, mode: str, seats: list[SeatInfo]) -> None:
        async with self.sessionmaker() as session:
            session.add(
                Game(
                    id=game_id,
                    variant="classic",
                    players=4,
                    options={},
                    mode=mode,
                    status="finished",
                    spectators=True,
                    scores=[1000, 500],
                )
            )
            await session.flush()
            for s in seats:
                session.add(
                    GameSeat(
                        game_id=game_id,
                        seat=s.seat,
                        kind=s.kind,
                        identity_id=s.identity_id,
                        bot_level=s.bot_level,
                    )
                )
            await session.commit()


@pytest.fixture
async def db(migrated_database_url: str) -> AsyncIterator[Db]:
    async with Database.open(migrated_database_url) as database:
        yield Db(database)


def outcome(winner: int, tricks: tuple[int, int, int, int] = (2, 2, 2, 2)) -> Outcome:
    return Outcome(
        part=0,
        variant="classic",
        players=4,
        sides=(0, 1, 0, 1),
        scores=(1000, 500) if winner == 0 else (500, 1000),
        winner=winner,
        ranks=(0, 1) if winner == 0 else (1, 0),
        seats=tuple(
            SeatResult(
                won=seat % 2 == winner, deals_won=1 if seat % 2 == winner else 0, tricks_won=t
            )
            for seat, t in enumerate(tricks)
        ),
    )


def humans(ids: list[int]) -> list[SeatInfo]:
    return [SeatInfo(seat, "human", i, None) for seat, i in enumerate(ids)]


async def play(
    db: Db, game_id: str, seats: list[SeatInfo], winner: int, mode: str = "friends"
) -> Any:
    await db.game(game_id, mode, seats)
    return await db.write(award_work(game_id, "classic", mode, outcome(winner), seats, None))


FRESH = newcomer("classic")


async def test_a_won_and_a_lost_team_match_move_the_ratings(db: Db) -> None:
    ana, bob, cy, dee = [await db.identity(n) for n in ("Ana", "Bob", "Cy", "Dee")]
    seats = humans([ana, bob, cy, dee])  # Ana and Cy (side 0) against Bob and Dee
    result = await play(db, "game-one-0001", seats, winner=0)
    assert result.xp == {ana: 15 + 25 + 2 + 2, bob: 15 + 2, cy: 15 + 25 + 2 + 2, dee: 15 + 2}
    rows = {
        r.identity_id: r for r in await db.read(lambda s: store.ratings(s, [ana, bob, cy, dee]))
    }
    assert rows[ana].mu > FRESH.mu and rows[cy].mu > FRESH.mu
    assert rows[bob].mu < FRESH.mu and rows[dee].mu < FRESH.mu
    assert (rows[ana].games, rows[ana].wins, rows[bob].wins) == (1, 1, 0)

    # the same four again, and the other side wins: Ana drops back
    before = rows[ana].mu
    await play(db, "game-two-0002", seats, winner=1)
    rows = {r.identity_id: r for r in await db.read(lambda s: store.ratings(s, [ana, bob]))}
    assert rows[ana].mu < before and rows[ana].games == 2
    results = await db.read(lambda s: store.results_of_game(s, "game-two-0002"))
    by_id = {r.identity_id: r for r in results}
    assert (
        by_id[ana].rating_after is not None and by_id[ana].rating_after < by_id[ana].rating_before
    )


async def test_bots_are_fixed_anchors_and_awards_are_idempotent(db: Db) -> None:
    anchors = {family: dict(levels) for family, levels in ANCHORS.items()}
    me = await db.identity("Solo")
    seats = [
        SeatInfo(0, "human", me, None),
        SeatInfo(1, "bot", None, "hard"),
        SeatInfo(2, "bot", None, "medium"),
        SeatInfo(3, "bot", None, "hard"),
    ]
    first = await play(db, "game-bots-0001", seats, winner=0, mode="computer")
    assert set(first.xp) == {me}
    [row] = await db.read(lambda s: store.ratings(s, [me]))
    assert display(Rating(row.mu, row.sigma)) > display(FRESH)
    assert ANCHORS == anchors  # the bots' ratings never move
    # the same award again (a retried commit, a restart): nothing changes
    again = await db.write(
        award_work("game-bots-0001", "classic", "computer", outcome(0), seats, None)
    )
    assert again is None
    assert [r.games for r in await db.read(lambda s: store.ratings(s, [me]))] == [1]
    profile = await db.read(lambda s: store.profile(s, me))
    assert (profile.xp, profile.games, profile.wins) == (44, 1, 1)


async def test_a_leaver_and_a_disconnected_seat_get_no_xp(db: Db) -> None:
    ids = [await db.identity(n) for n in ("P0", "P1", "P2", "P3")]
    seats = humans(ids)
    seats[2] = SeatInfo(2, "bot", None, "easy")  # P2 left: a bot took the seat
    # P1 was not connected when the match ended (present: seats 0, 2 and 3)
    await db.game("game-left-0001", "friends", seats)
    await db.write(store.insert_leavers("game-left-0001", [store.LeaverRow(2, ids[2], 0)]))
    result = await db.write(
        award_work("game-left-0001", "classic", "friends", outcome(0), seats, present={0, 2, 3})
    )
    assert result.xp == {ids[0]: 44, ids[1]: 0, ids[2]: 0, ids[3]: 17}
    rows = {r.seat: r for r in await db.read(lambda s: store.results_of_game(s, "game-left-0001"))}
    assert rows[2].left_early and rows[1].left_early and not rows[0].left_early
    assert not rows[2].won  # his side won, but he was not there
    assert rows[2].rating_after is not None  # leaving does not dodge the rating


async def test_the_ranking_page_lists_players_with_enough_games(
    db: Db, migrated_database_url: str
) -> None:
    names = ["Ana", "Bob", "Cy", "Dee", "Eve"]
    ana, bob, cy, dee, eve = [await db.identity(n) for n in names]
    for i in range(3):  # Ana and Cy win three times against Bob and Dee
        await play(db, f"game-rank-{i:04d}", humans([ana, bob, cy, dee]), winner=0)
    # Eve has played only twice: not ranked yet
    for i in range(2):
        await play(db, f"game-eve-{i:05d}", humans([eve, bob, cy, dee]), winner=0)
    ranking = await db.read(lambda s: store.ranking(s, "classic", 3))
    assert {r.name for r in ranking} == {"Ana", "Bob", "Cy", "Dee"}

    settings = Settings(_env_file=None, database_url=migrated_database_url)
    with TestClient(create_app(settings)) as client:
        page = client.get("/ranking/classic")
        assert page.status_code == 200
        rows = re.findall(
            r'<tr class="player[^"]*" data-rank="(\d+)"><td>\d+</td><td>([^<]+)<', page.text
        )
        ranked = [name.strip() for _, name in rows]
        assert set(ranked) == {"Ana", "Bob", "Cy", "Dee"} and ">Eve<" not in page.text
        assert ranked.index("Cy") < ranked.index("Bob") and ranked.index("Ana") < ranked.index(
            "Dee"
        )
        assert [int(r) for r, _ in rows] == [1, 2, 3, 4]
        assert page.text.count('class="anchor"') == 3
        assert client.get("/ranking/poker").status_code == 404
        data = client.get("/api/ranking/classic").json()
        assert [p["rank"] for p in data["players"]] == [1, 2, 3, 4]
        assert all(p["games"] >= 3 and p["level"] >= 2 for p in data["players"])
        assert (data["newcomer"], data["full_targets"]) == (1430, [1000])
        assert [a["rating"] for a in data["anchors"]] == [1430, 1500, 1546]
        bela = client.get("/api/ranking/bela").json()
        assert bela["players"] == [] and bela["full_targets"] == [501, 701, 1001]
        assert client.get("/api/ranking/duel").json()["full_targets"] == []


def weighed(winner: int, scores: tuple[int, int], share: float) -> Outcome:
    """``outcome(winner)`` with other final totals and the share of a match they make."""
    base = outcome(winner)
    return Outcome(
        part=0,
        variant="classic",
        players=4,
        sides=base.sides,
        scores=scores,
        winner=winner,
        ranks=base.ranks,
        seats=base.seats,
        share=share,
    )


def computer_seats(me: int, level: str) -> list[SeatInfo]:
    return [SeatInfo(0, "human", me, None)] + [SeatInfo(s, "bot", None, level) for s in (1, 2, 3)]


async def rating_of(db: Db, identity_id: int) -> Rating:
    [row] = await db.read(lambda s: store.ratings(s, [identity_id], "classic"))
    return Rating(row.mu, row.sigma)


async def test_a_new_player_who_beats_medium_ranks_above_one_who_lost_to_easy(db: Db) -> None:
    ana, bob = await db.identity("Ana"), await db.identity("Bob")
    await db.game("game-beat-medium", "computer", computer_seats(ana, "medium"))
    await db.write(
        award_work(
            "game-beat-medium",
            "classic",
            "computer",
            outcome(0),
            computer_seats(ana, "medium"),
            None,
        )
    )
    await db.game("game-lost-easy01", "computer", computer_seats(bob, "easy"))
    await db.write(
        award_work(
            "game-lost-easy01", "classic", "computer", outcome(1), computer_seats(bob, "easy"), None
        )
    )
    easy = display(ANCHORS["classic"]["easy"])
    assert display(await rating_of(db, ana)) > easy > display(await rating_of(db, bob))
    [row] = await db.read(lambda s: store.results_of_game(s, "game-beat-medium"))
    assert row.rating_before == easy  # a newcomer starts level with easy


async def test_a_one_deal_match_moves_less_and_a_leaver_loses_its_share_only(db: Db) -> None:
    ids = {n: await db.identity(n) for n in ("Short", "Full", "Gone1", "Gone2")}
    changes = {}
    for name, gone, scores, share in (
        ("Short", "Gone1", (162, 0), 0.162),
        ("Full", "Gone2", (1000, 500), 1.0),
    ):
        game_id = f"game-share-{name}".ljust(16, "x")
        seats = computer_seats(ids[name], "medium")
        seats[2] = SeatInfo(2, "human", ids[gone], None)  # his partner, who left
        await db.game(game_id, "friends", seats)
        await db.write(store.insert_leavers(game_id, [store.LeaverRow(2, ids[gone], 0)]))
        work = award_work(game_id, "classic", "friends", weighed(0, scores, share), seats, None)
        await db.write(work)
        rows = {r.seat: r for r in await db.read(lambda s, g=game_id: store.results_of_game(s, g))}
        assert rows[0].won and rows[0].rating_after > rows[0].rating_before
        assert rows[2].left_early and rows[2].rating_after < rows[2].rating_before
        changes[name] = (
            rows[0].rating_after - rows[0].rating_before,
            rows[2].rating_after - rows[2].rating_before,
        )
    # the one-deal match moves the winner and the leaver a fraction of the full match
    assert 0 < changes["Short"][0] < changes["Full"][0] / 3
    assert 0 > changes["Short"][1] > changes["Full"][1] / 3


async def test_a_match_nobody_scored_in_is_not_rated(db: Db) -> None:
    me = await db.identity("Eight")
    seats = computer_seats(me, "medium")
    await db.game("game-eight-card1", "computer", seats)
    result = await db.write(
        award_work("game-eight-card1", "classic", "computer", weighed(0, (0, 0), 0.0), seats, None)
    )
    assert result.xp[me] > 0  # XP as usual
    assert await db.read(lambda s: store.ratings(s, [me])) == []
    [row] = await db.read(lambda s: store.results_of_game(s, "game-eight-card1"))
    assert row.rating_before is None and row.rating_after is None
