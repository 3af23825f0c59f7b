"""Public tables' rows: seat holders, the lobby's reads, quick play's candidates, limits.

Reads are functions of a synchronous ``Session`` (run with ``players.read``) or plain async
queries; writes are works for the writer (writer.py). No game logic: app/rooms/public.py and
app/rooms/lobby.py decide.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, insert, select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Session

from app.persistence.models import Game, PlayerProfile, PlayerRating, SeatHolder, utcnow
from app.persistence.repository import GameRow, SeatRow, Work, with_seats


@dataclass(frozen=True)
class HolderRow:
    """From deal ``deal`` on, the seat is held by ``identity_id`` (a human) or by a computer
    player of ``bot_level``."""

    seat: int
    deal: int
    identity_id: int | None
    bot_level: str | None
    name: str | None


def insert_holders(game_id: str, rows: Sequence[HolderRow]) -> Work:
    def work(session: Session) -> None:
        if rows:
            session.execute(
                insert(SeatHolder),
                [
                    {
                        "game_id": game_id,
                        "seat": r.seat,
                        "deal": r.deal,
                        "identity_id": r.identity_id,
                        "bot_level": r.bot_level,
                        "name": r.name,
                        "created_at": utcnow(),
                    }
                    for r in rows
                ],
            )

    return work


def holders_of(session: Session, game_id: str) -> list[HolderRow]:
    """The seat holders of a game, by seat then deal."""
    rows = session.execute(
        select(SeatHolder)
        .where(SeatHolder.game_id == game_id)
        .order_by(SeatHolder.seat, SeatHolder.deal)
    ).scalars()
    return [HolderRow(r.seat, r.deal, r.identity_id, r.bot_level, r.name) for r in rows]


async def load_holders(session: AsyncSession, game_id: str) -> list[HolderRow]:
    return await session.run_sync(lambda s: holders_of(s, game_id))


# --------------------------------------------------------------------------- the lobby


async def public_games(
    session: AsyncSession, game_ids: Iterable[str] | None = None
) -> list[tuple[GameRow, list[SeatRow]]]:
    """The unfinished public friends games with their seats; with ``game_ids``, those games
    whatever they are now (the lobby decides whether each is still listed)."""
    query = select(Game)
    if game_ids is None:
        query = query.where(
            Game.public.is_(True), Game.mode == "friends", Game.status != "finished"
        )
    else:
        ids = sorted(set(game_ids))
        if not ids:
            return []
        query = query.where(Game.id.in_(ids))
    games = (await session.execute(query)).scalars().all()
    return await with_seats(session, games)


async def xp_of(session: AsyncSession, identity_ids: Iterable[int]) -> dict[int, int]:
    ids = sorted(set(identity_ids))
    if not ids:
        return {}
    rows = await session.execute(
        select(PlayerProfile.identity_id, PlayerProfile.xp).where(
            PlayerProfile.identity_id.in_(ids)
        )
    )
    return {int(i): int(xp) for i, xp in rows}


async def tables_playing(session: AsyncSession, active_seconds: float) -> int:
    """Tables in play that moved within ``active_seconds`` (of every mode but local)."""
    since = utcnow() - timedelta(seconds=active_seconds)
    count = await session.scalar(
        select(func.count())
        .select_from(Game)
        .where(Game.status == "playing", Game.mode != "local", Game.updated_at >= since)
    )
    return int(count or 0)


async def mu_of(
    session: AsyncSession, identity_ids: Iterable[int], family: str
) -> dict[int, float]:
    """The rating μ of each identity in ``family`` (absent: not rated yet)."""
    ids = sorted(set(identity_ids))
    if not ids:
        return {}
    rows = await session.execute(
        select(PlayerRating.identity_id, PlayerRating.mu).where(
            PlayerRating.identity_id.in_(ids), PlayerRating.family == family
        )
    )
    return {int(i): float(mu) for i, mu in rows}


async def public_created_since(session: AsyncSession, identity_id: int, since: datetime) -> int:
    """How many public tables ``identity_id`` created since ``since`` (the rate limit)."""
    count = await session.scalar(
        select(func.count())
        .select_from(Game)
        .where(Game.host_id == identity_id, Game.public.is_(True), Game.created_at >= since)
    )
    return int(count or 0)


async def recent_waiting(session: AsyncSession, variant: str, seconds: float) -> list[str]:
    """The public tables of ``variant`` created in the last ``seconds`` that still wait for
    players (quick play reads them so as to see a table another process has just made)."""
    since = utcnow() - timedelta(seconds=seconds)
    rows = await session.scalars(
        select(Game.id).where(
            Game.public.is_(True),
            Game.mode == "friends",
            Game.status == "waiting",
            Game.variant == variant,
            Game.created_at >= since,
        )
    )
    return [str(i) for i in rows.all()]


@asynccontextmanager
async def quick_play_lock(
    sessionmaker: async_sessionmaker[AsyncSession], variant: str
) -> AsyncIterator[None]:
    """Quick plays of one variant one at a time on every process (PostgreSQL: an advisory
    lock held by a transaction; SQLite has one process, whose caller holds its own lock)."""
    async with sessionmaker() as session:
        if session.bind is None or session.bind.dialect.name != "postgresql":
            yield
            return
        key = zlib.crc32(f"atout-quick-play:{variant}".encode()) & 0x7FFFFFFF
        async with session.begin():
            await session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
            yield
