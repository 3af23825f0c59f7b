"""What a route needs from the running app, as typed FastAPI dependencies.

``create_app`` and ``app.web.runtime`` put the server's parts on ``app.state`` at start-up;
this module is where requests read them back. A route declares what it uses::

    @router.get("/thing")
    async def thing(settings: SettingsDep, session: SessionDep, rooms: RoomsDep) -> ...

and a helper that only has the request (or a WebSocket) calls ``settings_of(request)``,
``rooms_of(request)``, etc. ``SessionDep`` is one database session per request, closed
after it; writes go through the writer (``WriterDep``), never through that session.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, cast

from fastapi import Depends, Request
from fastapi.templating import Jinja2Templates
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from starlette.requests import HTTPConnection

from app.persistence.writer import CommitQueue
from app.players.analyses import Analyses
from app.players.identities import Identities
from app.rooms import RoomManager
from app.settings import Settings


def settings_of(connection: HTTPConnection) -> Settings:
    """The settings the running app was created with."""
    return cast(Settings, connection.app.state.settings)


def engine_of(connection: HTTPConnection) -> AsyncEngine:
    return cast(AsyncEngine, connection.app.state.engine)


def sessionmaker_of(connection: HTTPConnection) -> async_sessionmaker[AsyncSession]:
    return cast("async_sessionmaker[AsyncSession]", connection.app.state.sessionmaker)


def writer_of(connection: HTTPConnection) -> CommitQueue:
    """The group-commit writer every write goes through."""
    return cast(CommitQueue, connection.app.state.writer)


def rooms_of(connection: HTTPConnection) -> RoomManager:
    return cast(RoomManager, connection.app.state.rooms)


def identities_of(connection: HTTPConnection) -> Identities:
    """Token to identity, with its cache (``app.players.identities``)."""
    return cast(Identities, connection.app.state.identities)


def analyses_of(connection: HTTPConnection) -> Analyses:
    """The deal analyses being computed (``app.players.analyses``)."""
    return cast(Analyses, connection.app.state.analyses)


def templates_of(connection: HTTPConnection) -> Jinja2Templates:
    return cast(Jinja2Templates, connection.app.state.templates)


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    """One session per request, closed afterwards (for reads; commit is never called)."""
    async with sessionmaker_of(request)() as session:
        yield session


SettingsDep = Annotated[Settings, Depends(settings_of)]
SessionDep = Annotated[AsyncSession, Depends(get_session)]
WriterDep = Annotated[CommitQueue, Depends(writer_of)]
RoomsDep = Annotated[RoomManager, Depends(rooms_of)]
IdentitiesDep = Annotated[Identities, Depends(identities_of)]
AnalysesDep = Annotated[Analyses, Depends(analyses_of)]
