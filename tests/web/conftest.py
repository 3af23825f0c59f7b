"""A live server shared by the tests of one module (starting one costs about a second)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT, LiveServer, free_port, migrate_database, seed_of


def start_server(workdir: Path, env: Mapping[str, str] | None = None) -> LiveServer:
    """Like the ``live_server`` factory of tests/conftest.py, for a longer-lived server."""
    url = f"sqlite+aiosqlite:///{workdir / 'data' / 'atout.db'}"
    (workdir / "data").mkdir(exist_ok=True)
    port = free_port()
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
    full_env.update(
        {
            "ATOUT_DATABASE_URL": url,
            "ATOUT_BOT_DELAY_MS": "0",
            "ATOUT_LOG_LEVEL": "WARNING",
            "ATOUT_PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
            "ATOUT_TEST_SEED": str(seed_of(workdir.name)),  # the same decks at every run
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": os.pathsep.join(
                p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH")) if p
            ),
        }
    )
    full_env.update(env or {})
    migrate_database(url)
    server = LiveServer(port=port, database_url=url, env=full_env, workdir=workdir)
    return server.start()


@pytest.fixture(scope="module")
def module_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One ``atout serve`` process for the whole module (fresh SQLite database)."""
    server = start_server(tmp_path_factory.mktemp("module-server"))
    try:
        yield server
    finally:
        server.stop()
