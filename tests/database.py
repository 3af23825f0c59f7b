"""A database opened by a test: its engine, a sessionmaker and, when asked, the commit queue.

The fixture ``database`` (tests/conftest.py) is the migrated database opened with a started
commit queue. For a database a test opens itself (a second process, a server's file)::

    async with Database.open(url, writer=True) as db:
        await db.writer.submit(work)
        async with db.sessionmaker() as session:
            ...

    game = await stored_game(url, game_id)     # the rows of one game, as the server stored them
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.persistence import repository as repo
from app.persistence.db import create_engine_from_url, create_sessionmaker
from app.persistence.writer import CommitQueue


@dataclass
class Database:
    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]
    _writer: CommitQueue | None = None

    @property
    def writer(self) -> CommitQueue:
        """The started commit queue (only when opened with ``writer=True``)."""
        assert self._writer is not None, "open the database with writer=True"
        return self._writer

    @classmethod
    @asynccontextmanager
    async def open(
        cls, url: str, *, writer: bool = False, group: bool = True
    ) -> AsyncIterator[Database]:
        """The engine and sessionmaker of ``url``; ``writer``: a started CommitQueue too
        (``group``: its group commits). Everything is closed and disposed of on exit."""
        engine = create_engine_from_url(url)
        queue = CommitQueue(engine, group=group) if writer else None
        try:
            if queue is not None:
                await queue.start()
            yield cls(engine, create_sessionmaker(engine), queue)
        finally:
            if queue is not None:
                await queue.close()
            await engine.dispose()


async def stored_game(url: str, game_id: str) -> repo.StoredGame:
    """The stored rows of one game (the server's truth); fails the test if there are none."""
    async with Database.open(url) as db, db.sessionmaker() as session:
        game = await repo.load_game(session, game_id)
    assert game is not None, f"game {game_id} is not stored"
    return game
