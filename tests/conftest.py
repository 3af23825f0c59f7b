"""Shared fixtures.

``database_url``
    A clean, empty database for one test. With ``ATOUT_DATABASE_URL`` set when pytest starts
    (CI sets it to a PostgreSQL database for ``make test-db``) that database is wiped before
    the test; otherwise it is a fresh SQLite file in the test's temporary folder. Under
    pytest-xdist (``make test`` runs ``-n logical``) each worker wipes a database of its own,
    ``<name>_gw0``, ``<name>_gw1``..., created beside the configured one on first use.

``migrated_database_url``
    The same, brought to the newest migration.

``live_server``
    A factory that starts a REAL server process (``python -m app serve``) on 127.0.0.1 and a free
    port, waits for /healthz, and stops it after the test::

        def test_something(live_server):
            server = live_server()                      # fresh SQLite db, bots instant
            server = live_server(env={"ATOUT_IDLE_ROOM_SECONDS": "5"})
            server.kill()                               # SIGKILL, like a crash
            server.restart()                            # same port, same database

See LiveServer below for everything it offers.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sqlalchemy import MetaData, text
from sqlalchemy.engine import make_url

from app.persistence.db import create_engine_from_url, describe_url
from app.persistence.migrate import upgrade_head
from app.settings import get_settings
from tests.database import Database

PROJECT_ROOT = Path(__file__).resolve().parent.parent

# pytest-xdist names each worker process (gw0, gw1, ...); None when pytest runs alone.
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER") or None


def worker_database_url(url: str, worker: str | None) -> str:
    """The database of one xdist worker: ``<name>_<worker>`` beside the configured one.

    Each test wipes its database, so two workers on one database would wipe each other's; each
    worker gets its own (PostgreSQL: a database created on the cluster when first used; SQLite:
    a file beside the configured one). Without xdist the configured database is used as it is.
    """
    if worker is None:
        return url
    parsed = make_url(url)
    name = parsed.database or ""
    if parsed.get_backend_name() == "sqlite":
        if name in ("", ":memory:"):
            return url
        path = Path(name)
        name = str(path.with_name(f"{path.stem}_{worker}{path.suffix}"))
    else:
        name = f"{name}_{worker}"
    return parsed.set(database=name).render_as_string(hide_password=False)


# Read once, before any test can change the environment; a worker's own database (see above).
CONFIGURED_DATABASE_URL = os.environ.get("ATOUT_DATABASE_URL") or None
EXTERNAL_DATABASE_URL = (
    worker_database_url(CONFIGURED_DATABASE_URL, XDIST_WORKER) if CONFIGURED_DATABASE_URL else None
)
if EXTERNAL_DATABASE_URL:
    # what an in-process Settings() of a test reads is this worker's database too
    os.environ["ATOUT_DATABASE_URL"] = EXTERNAL_DATABASE_URL


_migrated_sqlite: Path | None = None


def migrate_database(url: str) -> None:
    """``upgrade_head(url)``, cheaper for a new SQLite file: a copy of an empty database this
    process brought to the newest migration once (the same file the upgrade would write: schema,
    ``alembic_version`` and all). A database that exists, and any other than SQLite, is upgraded;
    tests/persistence/test_migrations.py runs the migrations themselves."""
    global _migrated_sqlite
    parsed = make_url(url)
    path = Path(parsed.database or "")
    if parsed.get_backend_name() != "sqlite" or path.name in ("", ":memory:") or path.exists():
        upgrade_head(url)
        return
    if _migrated_sqlite is None:
        folder = Path(tempfile.mkdtemp(prefix="atout-migrated-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        template = folder / "atout.db"
        upgrade_head(parsed.set(database=str(template)).render_as_string(hide_password=False))
        # the upgrade closed its connections: nothing is left in a journal beside the file
        if any(folder.glob("atout.db-*")):
            raise RuntimeError(f"a journal was left beside {template}")
        _migrated_sqlite = template
    shutil.copyfile(_migrated_sqlite, path)


def pytest_report_header(config: pytest.Config) -> str:
    if EXTERNAL_DATABASE_URL:
        return f"database: {describe_url(EXTERNAL_DATABASE_URL)} (from ATOUT_DATABASE_URL)"
    return "database: a temporary SQLite file per test (set ATOUT_DATABASE_URL to change)"


@pytest.fixture(autouse=True)
def _fresh_settings() -> Iterator[None]:
    """Every test reads ATOUT_* again (tests change the environment with monkeypatch)."""
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


# --------------------------------------------------------------------------- databases


def wipe_database(url: str) -> None:
    """Drop everything in the database at ``url`` (tables, types, alembic_version)."""
    import asyncio

    async def wipe() -> None:
        engine = create_engine_from_url(url)
        try:
            async with engine.begin() as connection:
                if connection.dialect.name == "postgresql":
                    await connection.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
                    await connection.execute(text("CREATE SCHEMA public"))
                else:
                    await connection.execute(text("PRAGMA foreign_keys=OFF"))

                    def drop_all(sync_connection):  # type: ignore[no-untyped-def]
                        metadata = MetaData()
                        metadata.reflect(sync_connection)
                        metadata.drop_all(sync_connection)

                    await connection.run_sync(drop_all)
                    await connection.execute(text("PRAGMA foreign_keys=ON"))
        finally:
            await engine.dispose()

    asyncio.run(wipe())


def _sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


_created: set[str] = set()


def ensure_database(url: str) -> None:
    """Create the PostgreSQL database of ``url`` if it does not exist (once per process),
    connected through CONFIGURED_DATABASE_URL, which must exist. SQLite creates its own file."""
    if url in _created or make_url(url).get_backend_name() != "postgresql":
        return
    import asyncio

    assert CONFIGURED_DATABASE_URL is not None
    name = make_url(url).database

    async def create() -> None:
        engine = create_engine_from_url(CONFIGURED_DATABASE_URL).execution_options(
            isolation_level="AUTOCOMMIT"
        )
        try:
            async with engine.connect() as connection:
                found = await connection.scalar(
                    text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": name}
                )
                if not found:
                    # template0: nobody is ever connected to it, so workers never wait on it
                    quoted = connection.dialect.identifier_preparer.quote(name)
                    await connection.execute(text(f"CREATE DATABASE {quoted} TEMPLATE template0"))
        finally:
            await engine.dispose()

    asyncio.run(create())
    _created.add(url)


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    """A clean, empty database (no tables) for this test; see the module docstring."""
    if EXTERNAL_DATABASE_URL:
        ensure_database(EXTERNAL_DATABASE_URL)
        wipe_database(EXTERNAL_DATABASE_URL)
        return EXTERNAL_DATABASE_URL
    return _sqlite_url(tmp_path / "atout.db")


@pytest.fixture
def migrated_database_url(database_url: str) -> str:
    """``database_url`` brought to the newest migration."""
    migrate_database(database_url)
    return database_url


@pytest.fixture
async def database(migrated_database_url: str) -> AsyncIterator[Database]:
    """``migrated_database_url`` opened: its engine, a sessionmaker and a started commit queue
    (tests/database.py), closed after the test."""
    async with Database.open(migrated_database_url, writer=True) as db:
        yield db


@pytest.fixture
def is_postgresql(database_url: str) -> bool:
    return make_url(database_url).get_backend_name() == "postgresql"


# --------------------------------------------------------------------------- live server


def seed_of(name: str) -> int:
    """A test's own deck and bot seed (ATOUT_TEST_SEED): stable across runs and machines."""
    return zlib.crc32(name.encode()) % 1_000_000


def free_port() -> int:
    """A TCP port that nothing listens on right now, on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveServerError(RuntimeError):
    pass


@dataclass
class LiveServer:
    """One real ``atout serve`` process. Not started until ``start()`` (the factory starts it).

    Attributes: ``base_url`` (http://127.0.0.1:PORT), ``ws_url`` (ws://127.0.0.1:PORT),
    ``port``, ``database_url``, ``env`` (the full environment of the process), ``proc``
    (the subprocess.Popen, or None when stopped), ``log_path`` (stdout+stderr of every run,
    appended). The port and the database stay the same across ``restart()``.
    """

    port: int
    database_url: str
    env: dict[str, str]
    workdir: Path
    startup_timeout: float = 30.0
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0
    log_path: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log_path = self.workdir / "server.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def url(self, path: str = "/") -> str:
        return self.base_url + (path if path.startswith("/") else "/" + path)

    def is_running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def logs(self) -> str:
        """Everything the server printed so far (JSON lines), across restarts."""
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def start(self) -> LiveServer:
        if self.is_running():
            raise LiveServerError("server already running")
        self.starts += 1
        with self.log_path.open("ab") as log:
            log.write(f"--- start #{self.starts} ---\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "app",
                    "serve",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                ],
                cwd=self.workdir,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C in the terminal does not reach it
            )
        self.wait_ready()
        return self

    def wait_ready(self) -> None:
        """Block until GET /healthz answers 200; raise with the server's output otherwise."""
        assert self.proc is not None
        deadline = time.monotonic() + self.startup_timeout
        last_error = "no answer yet"
        while time.monotonic() < deadline:
            code = self.proc.poll()
            if code is not None:
                self.proc = None
                raise LiveServerError(
                    f"server exited with code {code} during start-up; output:\n{self.logs()}"
                )
            try:
                with urllib.request.urlopen(self.url("/healthz"), timeout=2) as response:
                    if response.status == 200:
                        return
                    last_error = f"HTTP {response.status}"
            except urllib.error.HTTPError as exc:
                last_error = f"HTTP {exc.code}"
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as exc:
                last_error = str(exc)
            time.sleep(0.05)
        self.stop()
        raise LiveServerError(
            f"server not healthy after {self.startup_timeout}s ({last_error}); output:\n"
            f"{self.logs()}"
        )

    def kill(self) -> None:
        """SIGKILL the process, like a crash or a power cut: no shutdown hook runs."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None

    def stop(self, timeout: float = 10.0) -> int | None:
        """Graceful stop (SIGTERM: shutdown hooks run), SIGKILL after ``timeout`` seconds.

        Returns the exit code, or None if the server was not running. uvicorn re-raises the
        signal after a clean shutdown, so a graceful stop usually returns -15 (SIGTERM).
        """
        if self.proc is None:
            return None
        proc, self.proc = self.proc, None
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
            try:
                return proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                return proc.wait(timeout=10)
        return proc.returncode

    def restart(self, *, graceful: bool = True) -> LiveServer:
        """Stop (gracefully, or with SIGKILL when ``graceful=False``) and start again on the
        same port with the same environment and database; returns when healthy again."""
        if graceful:
            self.stop()
        else:
            self.kill()
        return self.start()


LiveServerFactory = Callable[..., LiveServer]


class LiveServers:
    """Starts real servers (see ``live_server``) and stops every one of them in ``close``."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory, seed_name: str) -> None:
        self.tmp_path_factory = tmp_path_factory
        self.seed_name = seed_name
        self.servers: list[LiveServer] = []

    def __call__(
        self,
        env: Mapping[str, str] | None = None,
        *,
        database_url: str | None = None,
        migrate: bool = True,
        start: bool = True,
    ) -> LiveServer:
        workdir = self.tmp_path_factory.mktemp("live-server")
        url = database_url or _sqlite_url(workdir / "data" / "atout.db")
        port = free_port()
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
        full_env.update(
            {
                "ATOUT_DATABASE_URL": url,
                "ATOUT_BOT_DELAY_MS": "0",
                "ATOUT_LOG_LEVEL": "INFO",
                "ATOUT_PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
                # PostgreSQL: a restart on the same port is the same node: it takes its room
                # leases back at once (docs/scaling.md)
                "ATOUT_NODE_ID": f"live-server-{port}",
                # the test's decks and bots are the same at every run (ATOUT_TEST_SEED)
                "ATOUT_TEST_SEED": str(seed_of(self.seed_name)),
                "PYTHONUNBUFFERED": "1",
                "PYTHONPATH": os.pathsep.join(
                    p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH")) if p
                ),
            }
        )
        full_env.update(env or {})
        if migrate:
            if url.startswith("sqlite"):
                (workdir / "data").mkdir(exist_ok=True)
            migrate_database(url)
        server = LiveServer(port=port, database_url=url, env=full_env, workdir=workdir)
        self.servers.append(server)
        if start:
            server.start()
        return server

    def close(self) -> None:
        for server in self.servers:
            server.stop()


@pytest.fixture
def live_server(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[LiveServerFactory]:
    """Factory: ``live_server(env=None, *, database_url=None, migrate=True, start=True)``.

    - ``database_url``: default a new SQLite file for this server.
    - ``env``: extra environment variables (strings) on top of the defaults
      ``ATOUT_BOT_DELAY_MS=0``, ``ATOUT_LOG_LEVEL=INFO`` and ``ATOUT_PUBLIC_BASE_URL``.
      ATOUT_* variables of the pytest process itself are not passed on.
    - ``migrate``: bring the database to the newest migration first (``migrate_database``).
    - ``start``: set False to get the LiveServer unstarted (call ``.start()``).

    Every server started here is stopped (SIGTERM by pid, then SIGKILL) after the test.
    """
    servers = LiveServers(tmp_path_factory, request.node.nodeid)
    yield servers
    servers.close()


@pytest.fixture(scope="module")
def module_live_server(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[LiveServerFactory]:
    """``live_server`` for the tests of one module: its servers are shared by them, seeded with
    the module's name, and stopped after its last test."""
    servers = LiveServers(tmp_path_factory, request.node.nodeid)
    yield servers
    servers.close()
