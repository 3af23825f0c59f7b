import asyncio

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from app.persistence import models  # noqa: F401  (registers the tables)
from app.persistence.db import Base, create_engine_from_url
from app.persistence.migrate import current_revision, downgrade_base, head_revision, upgrade_head

pytestmark = pytest.mark.db


def table_names(url: str) -> set[str]:
    async def read() -> set[str]:
        engine = create_engine_from_url(url)
        try:
            async with engine.connect() as connection:
                return set(await connection.run_sync(lambda sync: inspect(sync).get_table_names()))
        finally:
            await engine.dispose()

    return asyncio.run(read())


def test_upgrade_downgrade_upgrade(database_url: str) -> None:
    assert current_revision(database_url) is None

    upgrade_head(database_url)
    assert current_revision(database_url) == head_revision()
    assert {"identities", "alembic_version"} <= table_names(database_url)

    downgrade_base(database_url)
    assert current_revision(database_url) is None
    assert "identities" not in table_names(database_url)

    upgrade_head(database_url)
    assert current_revision(database_url) == head_revision()
    assert "identities" in table_names(database_url)


def test_migrations_match_the_models(migrated_database_url: str) -> None:
    """A model changed without a migration (or the reverse) shows up here."""

    async def diff() -> list:
        engine = create_engine_from_url(migrated_database_url)
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(
                    lambda sync: compare_metadata(
                        MigrationContext.configure(sync, opts={"compare_type": True}),
                        Base.metadata,
                    )
                )
        finally:
            await engine.dispose()

    assert asyncio.run(diff()) == []


async def test_upgrade_head_works_from_inside_an_event_loop(database_url: str) -> None:
    upgrade_head(database_url)  # env.py runs its own loop; migrate.py moves it to a thread
    assert current_revision(database_url) == head_revision()
