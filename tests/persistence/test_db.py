import asyncio
from pathlib import Path

import pytest
from sqlalchemy import text

from app.persistence.db import (
    Base,
    DatabaseUnavailable,
    check_database,
    create_engine_from_url,
    describe_url,
)


async def test_sqlite_pragmas_are_set_on_every_connection(tmp_path: Path) -> None:
    engine = create_engine_from_url(f"sqlite+aiosqlite:///{tmp_path / 'atout.db'}")
    try:
        for _ in range(2):  # a second, pooled-or-new connection has them too
            async with engine.connect() as connection:
                journal = (await connection.execute(text("PRAGMA journal_mode"))).scalar()
                foreign_keys = (await connection.execute(text("PRAGMA foreign_keys"))).scalar()
                synchronous = (await connection.execute(text("PRAGMA synchronous"))).scalar()
                busy = (await connection.execute(text("PRAGMA busy_timeout"))).scalar()
            assert (journal, foreign_keys, synchronous, busy) == ("wal", 1, 2, 5000)
    finally:
        await engine.dispose()


def test_check_database_creates_a_missing_data_folder(tmp_path: Path) -> None:
    folder = tmp_path / "new" / "data"
    asyncio.run(check_database(f"sqlite+aiosqlite:///{folder / 'atout.db'}"))
    assert folder.is_dir()


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("nosuchdriver://x", "unsupported driver 'nosuchdriver'"),
        ("sqlite+aiosqlite:////proc/nope/atout.db", "cannot create data folder /proc/nope"),
        ("::::", "Could not parse"),
    ],
)
def test_check_database_explains_in_one_line(url: str, reason: str) -> None:
    with pytest.raises(DatabaseUnavailable) as caught:
        asyncio.run(check_database(url))
    message = str(caught.value)
    assert message.startswith(f"cannot open database {url}: ")
    assert reason in message
    assert "\n" not in message


def test_describe_url_masks_the_password() -> None:
    shown = describe_url("postgresql+asyncpg://atout:s3cret@db:5432/atout")
    assert "s3cret" not in shown and "atout:***@db" in shown


def test_constraint_names_follow_the_naming_convention() -> None:
    from app.persistence import models  # noqa: F401

    identities = Base.metadata.tables["identities"]
    names = {constraint.name for constraint in identities.constraints}
    assert {"pk_identities", "uq_identities_token_hash"} <= names
