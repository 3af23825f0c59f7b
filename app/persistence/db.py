"""Database plumbing: the async engine, sessions, the declarative base and the start-up check.

Two drivers are supported: ``sqlite+aiosqlite`` (the default, a file under ./data) and
``postgresql+asyncpg``. Every SQLite connection gets WAL journaling, full fsync, foreign keys and a
busy timeout, so that a crash never loses an acknowledged write.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import MetaData, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase

if TYPE_CHECKING:
    from app.settings import Settings

SUPPORTED_DRIVERS = ("sqlite+aiosqlite", "postgresql+asyncpg")
CONNECT_TIMEOUT_SECONDS = 10.0

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

SQLITE_PRAGMAS = (
    "PRAGMA busy_timeout=5000",
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=FULL",
    "PRAGMA foreign_keys=ON",
)


class Base(DeclarativeBase):
    """Base class of every model; constraint names follow NAMING_CONVENTION."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class DatabaseUnavailable(RuntimeError):
    """The database cannot be used. ``str(exc)`` is one line meant for a human."""


_LOCKS: list[Any] = []  # the lock files held for the life of the process


def single_process_lock(url: str | URL) -> Path | None:
    """SQLite is one server process's: hold an exclusive ``flock`` on ``<file>.lock`` beside
    the database for the life of this process. Raises ``DatabaseUnavailable`` (one line) if
    another process holds it. Returns the lock file (None for PostgreSQL, or in-memory)."""
    import fcntl

    path = sqlite_file(url)
    if path is None:
        return None
    lock = path.with_name(path.name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    handle = open(lock, "a+")  # noqa: SIM115 - kept open on purpose: the lock lives with it
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise DatabaseUnavailable(
            f"another atout server already uses {path} (SQLite serves one process; "
            "use PostgreSQL for several, docs/scaling.md)"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    _LOCKS.append(handle)
    return lock


def describe_url(url: str | URL) -> str:
    """The URL as safe to print: the password, if any, is masked."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return str(url)


def is_sqlite(url: str | URL) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def sqlite_file(url: str | URL) -> Path | None:
    """The database file of a SQLite URL, or None for an in-memory or non-SQLite database."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        return None
    return Path(database)


def set_sqlite_pragmas(dbapi_connection: Any, _connection_record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        for pragma in SQLITE_PRAGMAS:
            cursor.execute(pragma)
    finally:
        cursor.close()


def postgresql_session_settings(
    lease_seconds: float, statement_timeout_seconds: float = 30.0
) -> dict[str, str]:
    """The settings every PostgreSQL session of a server process runs with (docs/scaling.md,
    "What PostgreSQL enforces"), so that a process that freezes or whose machine is lost
    never pins a room's lease row for longer than the lease:

    * ``idle_in_transaction_session_timeout``, one lease (at least 1 s): a process frozen
      inside a transaction (SIGSTOP, a stuck VM, a long pause) has its session ended by the
      server, and with it the row locks that would hold another process's takeover back, by
      the time its lease has expired anyway (the last renewal it committed was before the
      freeze). A process stalled that long has lost its rooms already, so a busy but live one
      never reaches it; the fence refuses whatever a woken one does.
    * ``statement_timeout``: no statement runs or queues for longer than this.
    * TCP keepalives (``tcp_keepalives_idle``/``interval``/``count``): the server notices a
      lost peer in about 25 s and ends its session (and its liveness lock), instead of
      waiting for the kernel's two hours.

    A takeover also sets ``lock_timeout`` on its own transaction (leases.py ``acquire``)."""
    idle_ms = max(1000, int(lease_seconds * 1000))
    return {
        "idle_in_transaction_session_timeout": str(idle_ms),
        "statement_timeout": str(int(statement_timeout_seconds * 1000)),
        "tcp_keepalives_idle": "10",
        "tcp_keepalives_interval": "5",
        "tcp_keepalives_count": "3",
    }


def create_engine_from_url(
    url: str | URL, *, server_settings: dict[str, str] | None = None, **kwargs: Any
) -> AsyncEngine:
    """An async engine for ``url``; SQLite connections get the pragmas above, PostgreSQL
    sessions ``server_settings`` (``postgresql_session_settings``) when given."""
    parsed = make_url(url)
    if parsed.drivername not in SUPPORTED_DRIVERS:
        raise ArgumentError(
            f"unsupported driver {parsed.drivername!r}; use sqlite+aiosqlite:///path/to/file.db "
            "or postgresql+asyncpg://user:password@host:5432/dbname"
        )
    if parsed.get_backend_name() == "postgresql":
        connect_args = kwargs.setdefault("connect_args", {})
        connect_args.setdefault("timeout", CONNECT_TIMEOUT_SECONDS)
        if server_settings:
            connect_args.setdefault("server_settings", dict(server_settings))
    kwargs.setdefault("pool_pre_ping", True)
    engine = create_async_engine(parsed, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine.sync_engine, "connect", set_sqlite_pragmas)
    return engine


def create_engine_from_settings(settings: Settings) -> AsyncEngine:
    return create_engine_from_url(settings.database_url)


def create_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


def prepare_data_folder(url: str | URL) -> None:
    """For a SQLite file, create its folder if needed and prove that it is writable.

    SQLite in WAL mode writes ``-wal`` and ``-shm`` files beside the database, so the folder
    itself, not only the file, must be writable.
    """
    path = sqlite_file(url)
    if path is None:
        return
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatabaseUnavailable(
            f"cannot create data folder {folder}: {exc.strerror or exc}"
        ) from exc
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".atout-write-check-"):
            pass
    except OSError as exc:
        raise DatabaseUnavailable(
            f"data folder {folder} is not writable: {exc.strerror or exc}"
        ) from exc


async def ping(engine: AsyncEngine) -> None:
    """Run ``SELECT 1``; raises whatever the driver raises."""
    async with engine.connect() as connection:
        await connection.execute(text("SELECT 1"))


def _reason(exc: BaseException) -> str:
    """A one-line explanation of a database error."""
    if isinstance(exc, DatabaseUnavailable):
        return str(exc)
    if isinstance(exc, TimeoutError):
        return "timed out while connecting"
    source: BaseException = exc
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        source = exc.orig
    lines = [line.strip() for line in str(source).splitlines() if line.strip()]
    message = lines[0] if lines else type(source).__name__
    # sqlalchemy prefixes wrapped errors with "(module.Class) "; keep the human part
    if message.startswith("(") and ") " in message:
        message = message.split(") ", 1)[1]
    return message


async def open_database(
    url: str, *, timeout: float = 15.0, server_settings: dict[str, str] | None = None
) -> AsyncEngine:
    """Create an engine for ``url`` and prove the database answers; the caller disposes it.

    Raises DatabaseUnavailable with one line, ``cannot open database <url>: <reason>``.
    """
    shown = describe_url(url)
    try:
        make_url(url)
    except ArgumentError as exc:
        raise DatabaseUnavailable(f"cannot open database {shown}: {_reason(exc)}") from exc
    try:
        prepare_data_folder(url)
        engine = create_engine_from_url(url, server_settings=server_settings)
    except Exception as exc:
        raise DatabaseUnavailable(f"cannot open database {shown}: {_reason(exc)}") from exc
    try:
        await asyncio.wait_for(ping(engine), timeout)
    except Exception as exc:
        await engine.dispose()
        raise DatabaseUnavailable(f"cannot open database {shown}: {_reason(exc)}") from exc
    return engine


async def check_database(url: str, *, timeout: float = 15.0) -> None:
    """Like open_database, then close again: used before starting the server."""
    engine = await open_database(url, timeout=timeout)
    await engine.dispose()
