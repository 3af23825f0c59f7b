"""Reading and writing the player tables: profiles, ratings, results, leavers, transfer codes.

No rules here (they are in app/players/): these functions take and return plain values. Every
query is a plain function of a synchronous ``Session``, like the works of the writer
(persistence/writer.py): the writes run inside the writer's transaction
(``CommitQueue.submit``), and the pages read through ``read(sessionmaker, fn)``, which runs the
same functions with ``AsyncSession.run_sync``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import and_, case, delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Session

from app.persistence.models import (
    Game,
    GameLeaver,
    GameSeat,
    Identity,
    PlayerProfile,
    PlayerRating,
    PlayerResult,
    TransferCode,
    utcnow,
)
from app.persistence.repository import Work

T = TypeVar("T")


async def read(sessionmaker: async_sessionmaker[AsyncSession], fn: Callable[[Session], T]) -> T:
    """Run a read of this module (a function of a synchronous ``Session``) for a page."""
    async with sessionmaker() as session:
        return await session.run_sync(fn)


# --------------------------------------------------------------------------- plain data


@dataclass(frozen=True)
class ProfileRow:
    identity_id: int
    name: str | None
    xp: int
    games: int
    wins: int


@dataclass(frozen=True)
class RatingRow:
    identity_id: int
    family: str
    mu: float
    sigma: float
    games: int
    wins: int


@dataclass(frozen=True)
class ResultRow:
    game_id: str
    part: int
    seat: int
    identity_id: int
    family: str
    mode: str
    won: bool
    left_early: bool
    deals_won: int
    tricks_won: int
    xp: int
    xp_detail: dict[str, Any]
    rating_before: int | None = None
    rating_after: int | None = None
    created_at: datetime | None = None


@dataclass(frozen=True)
class LeaverRow:
    seat: int
    identity_id: int
    deal_number: int


@dataclass(frozen=True)
class RankedRow:
    identity_id: int
    name: str | None
    xp: int
    mu: float
    sigma: float
    games: int
    wins: int


@dataclass(frozen=True)
class HistoryGame:
    game_id: str
    variant: str
    players: int
    mode: str
    status: str
    scores: list[int] | None
    names: list[str | None]
    seats: list[int]  # the seats this browser held in the results
    parts: int  # matches (1) or duel games in this table
    won: int
    left_early: bool
    xp: int
    finished_at: datetime


RESULT_COLUMNS = tuple(f.name for f in fields(ResultRow))  # the same names on PlayerResult


def _result_row(r: PlayerResult) -> ResultRow:
    row = ResultRow(**{name: getattr(r, name) for name in RESULT_COLUMNS})
    return replace(row, xp_detail=dict(r.xp_detail or {}))


# --------------------------------------------------------------------------- reads


def profile(session: Session, identity_id: int) -> ProfileRow | None:
    """The profile of a browser identity (zeros before its first finished match); None if
    the identity does not exist."""
    identity = session.get(Identity, identity_id)
    if identity is None:
        return None
    row = session.get(PlayerProfile, identity_id)
    if row is None:
        return ProfileRow(identity_id, identity.display_name, 0, 0, 0)
    return ProfileRow(identity_id, identity.display_name, row.xp, row.games, row.wins)


def xp_of(session: Session, identity_ids: Iterable[int]) -> dict[int, int]:
    """Total XP of each identity (0 for those without a profile yet)."""
    ids = sorted(set(identity_ids))
    if not ids:
        return {}
    rows = session.execute(
        select(PlayerProfile.identity_id, PlayerProfile.xp).where(
            PlayerProfile.identity_id.in_(ids)
        )
    )
    found = {int(i): int(xp) for i, xp in rows}
    return {i: found.get(i, 0) for i in ids}


def ratings(
    session: Session, identity_ids: Iterable[int], family: str | None = None
) -> list[RatingRow]:
    ids = sorted(set(identity_ids))
    if not ids:
        return []
    query = select(PlayerRating).where(PlayerRating.identity_id.in_(ids))
    if family is not None:
        query = query.where(PlayerRating.family == family)
    rows = (session.execute(query)).scalars().all()
    return [RatingRow(r.identity_id, r.family, r.mu, r.sigma, r.games, r.wins) for r in rows]


def ranking(session: Session, family: str, min_games: int, limit: int = 100) -> list[RankedRow]:
    """Players of a family with at least ``min_games`` rated matches, best rating (mu, the
    displayed number) first; then the more games."""
    query = (
        select(
            PlayerRating.identity_id,
            Identity.display_name,
            func.coalesce(PlayerProfile.xp, 0),
            PlayerRating.mu,
            PlayerRating.sigma,
            PlayerRating.games,
            PlayerRating.wins,
        )
        .join(Identity, Identity.id == PlayerRating.identity_id)
        .outerjoin(PlayerProfile, PlayerProfile.identity_id == PlayerRating.identity_id)
        .where(PlayerRating.family == family, PlayerRating.games >= min_games)
        .order_by(PlayerRating.mu.desc(), PlayerRating.games.desc(), PlayerRating.identity_id)
        .limit(limit)
    )
    rows = session.execute(query)
    return [
        RankedRow(int(i), name, int(xp), float(mu), float(sigma), int(g), int(w))
        for i, name, xp, mu, sigma, g, w in rows
    ]


def results_of_game(
    session: Session, game_id: str, identity_id: int | None = None
) -> list[ResultRow]:
    query = select(PlayerResult).where(PlayerResult.game_id == game_id)
    if identity_id is not None:
        query = query.where(PlayerResult.identity_id == identity_id)
    rows = (session.execute(query.order_by(PlayerResult.part, PlayerResult.seat))).scalars().all()
    return [_result_row(r) for r in rows]


def xp_earned_after(session: Session, identity_id: int, result: ResultRow) -> int:
    """The XP ``identity_id`` earned in the results stored after ``result`` (later matches, and
    the later games of the same duel)."""
    later = or_(
        PlayerResult.created_at > result.created_at,
        and_(
            PlayerResult.created_at == result.created_at,
            PlayerResult.game_id == result.game_id,
            PlayerResult.part > result.part,
        ),
    )
    total = session.execute(
        select(func.sum(PlayerResult.xp)).where(PlayerResult.identity_id == identity_id, later)
    ).scalar()
    return int(total or 0)


def mode_totals(session: Session, identity_id: int) -> dict[str, dict[str, int]]:
    """Per mode (friends, computer, local): XP, finished matches and wins."""
    rows = session.execute(
        select(
            PlayerResult.mode,
            func.sum(PlayerResult.xp),
            func.count(),
            func.sum(case((PlayerResult.won, 1), else_=0)),
            func.sum(case((PlayerResult.left_early, 1), else_=0)),
        )
        .where(PlayerResult.identity_id == identity_id)
        .group_by(PlayerResult.mode)
    )
    out: dict[str, dict[str, int]] = {}
    for mode, xp, count, wins, left in rows:
        left = int(left or 0)
        out[str(mode)] = {
            "xp": int(xp or 0),
            "games": int(count) - left,
            "wins": int(wins or 0),
            "left": left,
        }
    return out


def history(session: Session, identity_id: int, limit: int = 50) -> list[HistoryGame]:
    """This browser's finished matches (duel tables: their played games), newest first."""
    results = (
        (
            session.execute(
                select(PlayerResult)
                .where(PlayerResult.identity_id == identity_id)
                .order_by(PlayerResult.created_at.desc())
            )
        )
        .scalars()
        .all()
    )
    by_game: dict[str, list[PlayerResult]] = {}
    for r in results:
        by_game.setdefault(r.game_id, []).append(r)
    ids = list(by_game)[:limit]
    if not ids:
        return []
    games = {g.id: g for g in (session.execute(select(Game).where(Game.id.in_(ids)))).scalars()}
    seat_rows = (
        session.execute(
            select(GameSeat.game_id, GameSeat.seat, GameSeat.display_name, GameSeat.bot_level)
            .where(GameSeat.game_id.in_(ids))
            .order_by(GameSeat.game_id, GameSeat.seat)
        )
    ).all()
    names: dict[str, list[str | None]] = {}
    for game_id, _seat, name, _level in seat_rows:
        names.setdefault(game_id, []).append(name)
    out: list[HistoryGame] = []
    for game_id in ids:
        game = games.get(game_id)
        if game is None:
            continue
        rows = by_game[game_id]
        out.append(
            HistoryGame(
                game_id=game_id,
                variant=game.variant,
                players=game.players,
                mode=game.mode,
                status=game.status,
                scores=list(game.scores) if game.scores is not None else None,
                names=names.get(game_id, []),
                seats=sorted({r.seat for r in rows}),
                parts=len({r.part for r in rows}),
                won=sum(1 for r in rows if r.won),
                left_early=any(r.left_early for r in rows),
                xp=sum(r.xp for r in rows),
                finished_at=max(r.created_at for r in rows),
            )
        )
    return out


def seat_kinds(session: Session, game_id: str) -> list[tuple[str, str | None]]:
    """``(kind, bot_level)`` of each seat of a stored game, by seat (empty: no such game)."""
    rows = session.execute(
        select(GameSeat.kind, GameSeat.bot_level)
        .where(GameSeat.game_id == game_id)
        .order_by(GameSeat.seat)
    ).all()
    return [(kind, level) for kind, level in rows]


def leavers(session: Session, game_id: str) -> list[LeaverRow]:
    rows = (
        (session.execute(select(GameLeaver).where(GameLeaver.game_id == game_id))).scalars().all()
    )
    return [LeaverRow(r.seat, r.identity_id, r.deal_number) for r in rows]


def is_awarded(session: Session, game_id: str, part: int) -> bool:
    found = session.execute(
        select(PlayerResult.seat)
        .where(PlayerResult.game_id == game_id, PlayerResult.part == part)
        .limit(1)
    )
    return found.first() is not None


# --------------------------------------------------------------------------- writes


def add_results(session: Session, rows: Sequence[ResultRow]) -> None:
    now = utcnow()
    for r in rows:
        values = {name: getattr(r, name) for name in RESULT_COLUMNS}
        session.add(PlayerResult(**{**values, "created_at": now}))
    session.flush()


def add_to_profile(session: Session, identity_id: int, *, xp: int, games: int, wins: int) -> int:
    """Add to a profile (created on first use); returns the new total XP."""
    row = session.get(PlayerProfile, identity_id)
    now = utcnow()
    if row is None:
        row = PlayerProfile(identity_id=identity_id, xp=xp, games=games, wins=wins, updated_at=now)
        session.add(row)
    else:
        row.xp += xp
        row.games += games
        row.wins += wins
        row.updated_at = now
    session.flush()
    return int(row.xp)


def save_rating(
    session: Session, identity_id: int, family: str, mu: float, sigma: float, won: bool
) -> None:
    row = session.get(PlayerRating, (identity_id, family))
    now = utcnow()
    if row is None:
        session.add(
            PlayerRating(
                identity_id=identity_id,
                family=family,
                mu=mu,
                sigma=sigma,
                games=1,
                wins=int(won),
                updated_at=now,
            )
        )
    else:
        row.mu, row.sigma = mu, sigma
        row.games += 1
        row.wins += int(won)
        row.updated_at = now
    session.flush()


def insert_leavers(game_id: str, rows: Sequence[LeaverRow]) -> Work:
    def work(session: Session) -> None:
        for r in rows:
            session.add(
                GameLeaver(
                    game_id=game_id,
                    seat=r.seat,
                    identity_id=r.identity_id,
                    deal_number=r.deal_number,
                )
            )
        session.flush()

    return work


def create_transfer_code(identity_id: int, code_hash: str, expires_at: datetime) -> Work:
    """A new one-time code for an identity; its earlier unused codes stop working."""

    def work(session: Session) -> None:
        session.execute(
            delete(TransferCode).where(
                TransferCode.identity_id == identity_id, TransferCode.used_at.is_(None)
            )
        )
        session.add(
            TransferCode(
                code_hash=code_hash,
                identity_id=identity_id,
                created_at=utcnow(),
                expires_at=expires_at,
            )
        )

    return work


def claim_transfer_code(code_hash: str, new_token_hash: str) -> Work:
    """Use a code: mark it used and give its identity a new token (the old browser's token
    stops working). Returns the identity id, or None when the code is unknown, used or expired.
    The writer runs one work at a time, so two browsers cannot both claim one code."""

    def work(session: Session) -> int | None:
        code = session.get(TransferCode, code_hash)
        now = utcnow()
        if code is None or code.used_at is not None:
            return None
        expires = code.expires_at
        if expires.tzinfo is None:  # SQLite gives naive datetimes back
            expires = expires.replace(tzinfo=now.tzinfo)
        if expires <= now:
            return None
        code.used_at = now
        identity_id = int(code.identity_id)
        session.execute(
            update(Identity)
            .where(Identity.id == identity_id)
            .values(token_hash=new_token_hash, last_seen_at=now)
        )
        session.flush()
        return identity_id

    return work


# --------------------------------------------------------------------------- giving a game up


def abandon_game(game_id: str, identity_id: int) -> Work:
    """Give up an unfinished game against the computer (or on one device): this browser no
    longer holds its seats, so it leaves "Your games" and nobody can take it up again through
    this browser. ``"ok"``, ``"not_found"``, or ``"not_allowed"`` (a friends game, which is
    left with the stand-in instead, a finished game, or a game this browser holds no seat of).
    """

    def work(session: Session) -> str:
        game = session.get(Game, game_id)
        if game is None:
            return "not_found"
        if game.mode not in ("computer", "local") or game.status == "finished":
            return "not_allowed"
        done = session.execute(
            update(GameSeat)
            .where(GameSeat.game_id == game_id, GameSeat.identity_id == identity_id)
            .values(identity_id=None)
        )
        return "ok" if getattr(done, "rowcount", 0) else "not_allowed"

    return work
