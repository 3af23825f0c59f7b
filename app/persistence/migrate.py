"""Run the Alembic migrations from Python (tests, ``make run``, Docker).

    from app.persistence.migrate import upgrade_head
    upgrade_head("sqlite+aiosqlite:///./data/atout.db")

These functions block. Called from inside a running event loop (an async test, say) they run
Alembic in a worker thread, because migrations/env.py starts its own loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from app.persistence.db import create_engine_from_url

PROJECT_ROOT = Path(__file__).resolve().parents[2]
ALEMBIC_INI = PROJECT_ROOT / "alembic.ini"
MIGRATIONS_DIR = PROJECT_ROOT / "migrations"

T = TypeVar("T")


def alembic_config(url: str | None = None) -> Config:
    """Alembic config for this project; ``url`` overrides ATOUT_DATABASE_URL."""
    config = Config(str(ALEMBIC_INI))
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["configure_logging"] = False  # leave the caller's logging alone
    if url:
        config.attributes["database_url"] = url
    return config


def _blocking(func: Callable[[], T]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return func()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="alembic") as pool:
        return pool.submit(func).result()


def upgrade_head(url: str | None = None) -> None:
    """Bring the database at ``url`` (default: from settings) to the newest revision."""
    _blocking(lambda: command.upgrade(alembic_config(url), "head"))


def downgrade_base(url: str | None = None) -> None:
    """Undo every migration (drops all tables the migrations created)."""
    _blocking(lambda: command.downgrade(alembic_config(url), "base"))


def current_revision(url: str | None = None) -> str | None:
    """The revision the database is at, or None for an empty database."""

    async def read() -> str | None:
        engine = create_engine_from_url(url or _settings_url())
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(
                    lambda sync: MigrationContext.configure(sync).get_current_revision()
                )
        finally:
            await engine.dispose()

    return _blocking(lambda: asyncio.run(read()))


def head_revision() -> str | None:
    """The newest revision in migrations/versions."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def _settings_url() -> str:
    from app.settings import get_settings

    return get_settings().database_url
