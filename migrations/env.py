"""Alembic environment: async engine, URL from app.settings, batch mode on SQLite.

The URL is ``config.attributes["database_url"]`` when a caller passes one (see
app/persistence/migrate.py), else ``get_settings().database_url`` (ATOUT_DATABASE_URL).
"""

from __future__ import annotations

import asyncio
from logging.config import fileConfig

from alembic import context
from alembic.util import CommandError
from sqlalchemy.engine import Connection
from sqlalchemy.pool import NullPool

from app.persistence import models  # noqa: F401  (registers the tables on Base.metadata)
from app.persistence.db import (
    Base,
    DatabaseUnavailable,
    create_engine_from_url,
    open_database,
)
from app.settings import get_settings

config = context.config

if config.config_file_name is not None and config.attributes.get("configure_logging", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def database_url() -> str:
    url = config.attributes.get("database_url")
    return str(url) if url else get_settings().database_url


def run_migrations_offline() -> None:
    """``alembic upgrade head --sql``: print the SQL instead of running it."""
    url = database_url()
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        render_as_batch=url.startswith("sqlite"),
    )
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_async_migrations() -> None:
    url = database_url()
    try:
        # Same check as the server's start: one clear line instead of a traceback.
        probe = await open_database(url)
        await probe.dispose()
    except DatabaseUnavailable as exc:
        raise CommandError(str(exc)) from exc
    engine = create_engine_from_url(url, poolclass=NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(do_run_migrations)
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    asyncio.run(run_async_migrations())


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
