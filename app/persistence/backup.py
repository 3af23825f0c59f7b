"""Backups that restore: ``atout backup``, ``atout restore`` and the automatic backups.

SQLite: an online, consistent copy through SQLite's backup API, taken inside one read
transaction on its own connection (WAL: the server keeps writing meanwhile), never a copy of the
live file. The figures written beside the copy (games, players, moves, the last move's time) are
read in that same transaction: they describe exactly the copy.

PostgreSQL: ``pg_dump`` in its custom format, given a snapshot exported by a REPEATABLE READ
transaction of ours in which the same figures are read; ``atout restore`` replays it with
``pg_restore`` piped into ``psql`` in one transaction. The tools come from ``ATOUT_PG_BIN_DIR``
or ``PATH``; when they are missing, one line says how to get them.

A backup is a file ``atout-YYYYmmdd-HHMMSS.db`` (or ``.dump``) in ``ATOUT_BACKUP_DIR``, written
under a temporary name and renamed when complete, with its figures in ``<file>.json``. Each new
backup removes the oldest beyond ``ATOUT_BACKUP_KEEP``.

``atout restore FILE`` refuses while a server uses the database, checks the file (SQLite's
integrity check; a migration revision this code knows), migrates it if it is older, keeps the
previous database beside it (SQLite: ``<db>.before-restore-<time>``; PostgreSQL: a dump in the
backup folder) and prints what it restored.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import json
import logging
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url

from app.persistence.db import create_engine_from_url, describe_url, sqlite_file
from app.settings import Settings

log = logging.getLogger("atout.backup")

NAME = re.compile(r"^atout-(\d{8}-\d{6})(?:-(\d+))?\.(db|dump)$")
PG_TOOLS_HINT = (
    "install PostgreSQL's client tools (Debian/Ubuntu: apt-get install postgresql-client; "
    "macOS: brew install libpq), or set ATOUT_PG_BIN_DIR to the folder that holds them "
    "(e.g. /usr/lib/postgresql/16/bin)"
)
FIRST_AUTOMATIC_SECONDS = 600.0  # no backup yet: the first one, ten minutes after start
BACKUP_LOCK_KEY = 0x61746F75  # PostgreSQL advisory lock: one automatic backup at a time


class BackupError(RuntimeError):
    """A backup or a restore cannot be done; ``str(exc)`` is one line for a human."""


@dataclass
class Figures:
    """What a database holds: the numbers ``atout restore`` prints."""

    games: int
    players: int
    moves: int
    last_move_at: str | None  # ISO time of the newest move, UTC

    def describe(self) -> str:
        last = self.last_move_at or "none"
        return f"{self.games} games, {self.players} players, {self.moves} moves, last move {last}"


@dataclass
class Backup:
    """One backup file and its figures (None when its ``.json`` is missing)."""

    path: Path
    size: int
    created_at: datetime
    kind: str  # sqlite | postgresql
    figures: Figures | None

    @property
    def name(self) -> str:
        return self.path.name

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "size": self.size,
            "created_at": self.created_at.isoformat(),
            "kind": self.kind,
            "figures": asdict(self.figures) if self.figures else None,
        }


FIGURES_SQL = (
    "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM identities), "
    "(SELECT count(*) FROM actions), (SELECT max(created_at) FROM actions)"
)


def _figures(row: Any) -> Figures:
    last = row[3]
    if isinstance(last, datetime):
        if last.tzinfo is None:
            last = last.replace(tzinfo=UTC)
        last = last.astimezone(UTC).isoformat()
    elif last is not None:
        last = str(last)
    return Figures(int(row[0]), int(row[1]), int(row[2]), last)


# --------------------------------------------------------------------------- the folder


def backup_dir(settings: Settings, override: str | Path | None = None) -> Path:
    return Path(override or settings.backup_dir).expanduser()


def list_backups(folder: Path) -> list[Backup]:
    """The backups in ``folder``, newest first."""
    out: list[Backup] = []
    if not folder.is_dir():
        return out
    for path in folder.iterdir():
        match = NAME.match(path.name)
        if not match or not path.is_file():
            continue
        stamp = datetime.strptime(match.group(1), "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
        figures = None
        with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
            data = json.loads(path.with_name(path.name + ".json").read_text())
            figures = Figures(**data["figures"])
        kind = "sqlite" if match.group(3) == "db" else "postgresql"
        out.append(Backup(path, path.stat().st_size, stamp, kind, figures))
    out.sort(key=lambda b: (b.created_at, int(NAME.match(b.name).group(2) or 0)), reverse=True)  # type: ignore[union-attr]
    return out


def find_backup(folder: Path, name: str) -> Backup | None:
    """The backup called ``name`` in ``folder`` (a bare file name, never a path)."""
    if not NAME.match(name):
        return None
    for backup in list_backups(folder):
        if backup.name == name:
            return backup
    return None


def _new_path(folder: Path, suffix: str, now: datetime) -> Path:
    """A new name, sorting after every backup of the same second (even removed ones)."""
    stamp = now.strftime("%Y%m%d-%H%M%S")
    taken = [NAME.match(p.name) for p in folder.glob(f"atout-{stamp}*")]
    numbers = [int(m.group(2) or 1) for m in taken if m]
    if not numbers:
        return folder / f"atout-{stamp}.{suffix}"
    return folder / f"atout-{stamp}-{max(numbers) + 1}.{suffix}"


def prune(folder: Path, keep: int) -> list[Path]:
    """Remove the oldest backups beyond ``keep``; returns the removed files."""
    removed = []
    for backup in list_backups(folder)[keep:]:
        for path in (backup.path, backup.path.with_name(backup.name + ".json")):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        removed.append(backup.path)
    return removed


def _write_figures(path: Path, kind: str, figures: Figures) -> None:
    data = {"kind": kind, "figures": asdict(figures)}
    path.with_name(path.name + ".json").write_text(json.dumps(data) + "\n")


# --------------------------------------------------------------------------- SQLite


def _sqlite_source(settings: Settings) -> Path:
    path = sqlite_file(settings.database_url)
    if path is None:
        raise BackupError(f"cannot back up {describe_url(settings.database_url)}: not a file")
    if not path.exists():
        raise BackupError(f"no database at {path}")
    return path


def sqlite_backup(source: Path, target: Path) -> Figures:
    """Copy the database ``source`` to ``target`` (which must not exist) online and
    consistently; the figures are read in the copy's own read transaction."""
    partial = target.with_name(target.name + ".partial")
    with contextlib.suppress(FileNotFoundError):
        partial.unlink()
    src = sqlite3.connect(source, isolation_level=None, timeout=30)
    try:
        src.execute("PRAGMA busy_timeout=30000")
        src.execute("BEGIN")  # one read transaction: the snapshot the copy is taken from
        figures = _figures(src.execute(FIGURES_SQL).fetchone())
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst)  # in one step, inside the snapshot above
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            ok = dst.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            dst.close()
        src.execute("COMMIT")
    finally:
        src.close()
    if ok != "ok":
        partial.unlink()
        raise BackupError(f"the copy failed its check: {ok}")
    os.replace(partial, target)
    return figures


def sqlite_figures(path: Path) -> Figures:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return _figures(conn.execute(FIGURES_SQL).fetchone())
    finally:
        conn.close()


# --------------------------------------------------------------------------- PostgreSQL


def pg_tool(settings: Settings, name: str) -> str:
    """The path of ``pg_dump``/``pg_restore``/``psql``, or BackupError saying how to get it."""
    if settings.pg_bin_dir:
        path = Path(settings.pg_bin_dir).expanduser() / name
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
        raise BackupError(
            f"{name} not found in ATOUT_PG_BIN_DIR={settings.pg_bin_dir}: {PG_TOOLS_HINT}"
        )
    found = shutil.which(name)
    if found is None:
        raise BackupError(f"{name} not found on PATH: {PG_TOOLS_HINT}")
    return found


def pg_env(database_url: str) -> dict[str, str]:
    """The libpq environment of a URL (the password never goes on a command line)."""
    url = make_url(database_url)
    env = dict(os.environ)
    for key, value in (
        ("PGHOST", url.host),
        ("PGPORT", url.port),
        ("PGUSER", url.username),
        ("PGPASSWORD", url.password),
        ("PGDATABASE", url.database),
    ):
        if value is not None:
            env[key] = str(value)
    return env


async def pg_backup(settings: Settings, target: Path, *, wait_lock: bool = True) -> Figures | None:
    """``pg_dump -Fc`` of the database into ``target``, from a snapshot in which the figures
    are read. With ``wait_lock=False`` (automatic backups, several processes) returns None
    when another process is taking one right now."""
    pg_dump = pg_tool(settings, "pg_dump")
    partial = target.with_name(target.name + ".partial")
    engine = create_engine_from_url(settings.database_url)
    try:
        async with engine.connect() as conn:
            if wait_lock:
                await conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": BACKUP_LOCK_KEY})
            else:
                got = await conn.scalar(
                    text("SELECT pg_try_advisory_lock(:k)"), {"k": BACKUP_LOCK_KEY}
                )
                if not got:
                    await conn.rollback()
                    return None
            await conn.commit()
            try:
                await conn.execute(text("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"))
                snapshot = await conn.scalar(text("SELECT pg_export_snapshot()"))
                figures = Figures(0, 0, 0, None)
                if await conn.scalar(text("SELECT to_regclass('actions') IS NOT NULL")):
                    figures = _figures((await conn.execute(text(FIGURES_SQL))).one())
                proc = await asyncio.create_subprocess_exec(
                    pg_dump,
                    "--format=custom",
                    f"--snapshot={snapshot}",
                    f"--file={partial}",
                    env=pg_env(settings.database_url),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                )
                _, err = await proc.communicate()
                await conn.rollback()
                if proc.returncode != 0:
                    with contextlib.suppress(FileNotFoundError):
                        partial.unlink()
                    raise BackupError(f"pg_dump failed: {_first_line(err)}")
            finally:
                await conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": BACKUP_LOCK_KEY})
                await conn.commit()
    finally:
        await engine.dispose()
    os.replace(partial, target)
    return figures


def _first_line(raw: bytes | str | None) -> str:
    if isinstance(raw, bytes):
        raw = raw.decode(errors="replace")
    lines = [line.strip() for line in (raw or "").splitlines() if line.strip()]
    return lines[0] if lines else "no message"


async def pg_figures(database_url: str) -> Figures:
    engine = create_engine_from_url(database_url)
    try:
        async with engine.connect() as conn:
            return _figures((await conn.execute(text(FIGURES_SQL))).one())
    finally:
        await engine.dispose()


# --------------------------------------------------------------------------- take one


async def take_backup(
    settings: Settings, to: str | Path | None = None, *, automatic: bool = False
) -> Backup | None:
    """Take one backup now into ``to`` (default ``ATOUT_BACKUP_DIR``), then prune that folder.
    Returns the backup, or None when ``automatic`` and another process is taking one."""
    folder = backup_dir(settings, to)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BackupError(f"cannot create backup folder {folder}: {exc.strerror or exc}") from exc
    if not os.access(folder, os.W_OK):
        raise BackupError(f"backup folder {folder} is not writable")
    now = datetime.now(UTC)
    url = make_url(settings.database_url)
    if url.get_backend_name() == "sqlite":
        source = _sqlite_source(settings)
        target = _new_path(folder, "db", now)
        try:
            figures: Figures | None = await asyncio.to_thread(sqlite_backup, source, target)
        except sqlite3.Error as exc:
            raise BackupError(f"cannot back up {source}: {exc}") from exc
        kind = "sqlite"
    else:
        target = _new_path(folder, "dump", now)
        figures = await pg_backup(settings, target, wait_lock=not automatic)
        kind = "postgresql"
        if figures is None:
            return None
    assert figures is not None
    _write_figures(target, kind, figures)
    prune(folder, settings.backup_keep)
    return Backup(target, target.stat().st_size, now, kind, figures)


class BackupSchedule:
    """The automatic backups of a running server: one every ``ATOUT_BACKUP_HOURS``, counted
    from the newest backup in the folder (none yet: ten minutes after start)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.task: asyncio.Task[None] | None = None
        self.last_error: str | None = None
        self.lock = asyncio.Lock()  # one backup at a time in this process

    def start(self) -> None:
        if self.settings.backup_hours > 0 and self.task is None:
            self.task = asyncio.create_task(self._run(), name="atout-backups")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
            self.task = None

    def next_delay(self) -> float:
        interval = self.settings.backup_hours * 3600
        backups = list_backups(backup_dir(self.settings))
        if not backups:
            return min(interval, FIRST_AUTOMATIC_SECONDS)
        newest = backups[0].path.stat().st_mtime
        return max(0.0, newest + interval - time.time())

    async def backup_now(self, *, automatic: bool = False) -> Backup | None:
        async with self.lock:
            try:
                backup = await take_backup(self.settings, automatic=automatic)
            except BackupError as exc:
                self.last_error = str(exc)
                raise
            self.last_error = None
            return backup

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.next_delay())
            try:
                backup = await self.backup_now(automatic=True)
            except Exception as exc:
                log.error(
                    "automatic backup failed",
                    extra={"event": "backup_failed", "error": str(exc)},
                )
                await asyncio.sleep(min(3600.0, self.settings.backup_hours * 3600))
                continue
            if backup is not None:
                log.info(
                    "backup taken",
                    extra={"event": "backup", "file": str(backup.path), "size": backup.size},
                )
            else:  # another process is taking it: look again later
                await asyncio.sleep(60.0)


# --------------------------------------------------------------------------- restore


def _known_revisions() -> dict[str, int]:
    """Every revision of migrations/versions -> its distance from the first (0)."""
    from alembic.script import ScriptDirectory

    from app.persistence.migrate import alembic_config

    script = ScriptDirectory.from_config(alembic_config())
    order = [rev.revision for rev in script.walk_revisions()]  # newest first
    return {rev: len(order) - 1 - i for i, rev in enumerate(order)}


def check_revision(revision: str | None) -> str:
    """The revision of a backup, if this code knows it; BackupError otherwise."""
    if not revision:
        raise BackupError("the file holds no Atout schema (no migration revision)")
    known = _known_revisions()
    if revision not in known:
        raise BackupError(
            f"the file's schema revision {revision} is unknown to this version of Atout "
            "(a backup of a newer version?)"
        )
    return revision


@contextlib.contextmanager
def sqlite_server_lock(db: Path) -> Iterator[None]:
    """Hold the lock a server holds on ``<db>.lock``; BackupError if a server holds it."""
    lock = db.with_name(db.name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a+") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            pid = handle.read().strip()
            who = f" (pid {pid})" if pid.isdigit() else ""
            raise BackupError(
                f"a server is using {db}{who}: stop it, then restore; nothing was changed"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def check_sqlite_file(path: Path) -> str:
    """Integrity check and revision of a SQLite backup; returns the revision."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot open {path}: {exc}") from exc
    try:
        try:
            result = conn.execute("PRAGMA integrity_check").fetchall()
        except sqlite3.DatabaseError as exc:
            raise BackupError(f"{path} is not a SQLite database: {exc}") from exc
        if [r[0] for r in result] != ["ok"]:
            raise BackupError(f"{path} fails SQLite's integrity check: {result[0][0]}")
        try:
            row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        except sqlite3.DatabaseError:
            row = None
    finally:
        conn.close()
    return check_revision(row[0] if row else None)


def restore_sqlite(settings: Settings, file: Path) -> tuple[Figures, Path | None]:
    db = _sqlite_target(settings)
    with sqlite_server_lock(db):
        check_sqlite_file(file)
        staging = db.with_name(db.name + ".restoring")
        for leftover in (staging, Path(f"{staging}-wal"), Path(f"{staging}-shm")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()
        shutil.copyfile(file, staging)
        from app.persistence.migrate import upgrade_head

        try:
            upgrade_head(f"sqlite+aiosqlite:///{staging}")  # an older backup: to this version
            conn = sqlite3.connect(staging, isolation_level=None)
            try:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                conn.execute("PRAGMA journal_mode=WAL")
            finally:
                conn.close()
        except Exception as exc:
            staging.unlink()
            raise BackupError(f"cannot migrate {file}: {exc}") from exc
        previous = None
        if db.exists():
            conn = sqlite3.connect(db, isolation_level=None)
            try:  # the previous database as one file (its WAL folded in)
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                conn.close()
            stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
            previous = db.with_name(f"{db.name}.before-restore-{stamp}")
            os.replace(db, previous)
        for side in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                Path(f"{db}{side}").unlink()
            with contextlib.suppress(FileNotFoundError):
                Path(f"{staging}{side}").unlink()
        os.replace(staging, db)
        return sqlite_figures(db), previous


def _sqlite_target(settings: Settings) -> Path:
    path = sqlite_file(settings.database_url)
    if path is None:
        raise BackupError(f"cannot restore into {describe_url(settings.database_url)}")
    return path


async def pg_other_connections(database_url: str) -> int:
    engine = create_engine_from_url(database_url)
    try:
        async with engine.connect() as conn:
            value = await conn.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
                )
            )
    finally:
        await engine.dispose()
    return int(value or 0)


def pg_dump_revision(settings: Settings, file: Path) -> str:
    """Check a custom-format dump (``pg_restore --list``) and read its migration revision."""
    pg_restore = pg_tool(settings, "pg_restore")
    listing = subprocess.run(
        [pg_restore, "--list", str(file)], capture_output=True, text=True, check=False
    )
    if listing.returncode != 0:
        raise BackupError(f"{file} is not a pg_dump archive: {_first_line(listing.stderr)}")
    if "TABLE DATA public alembic_version" not in listing.stdout:
        return check_revision(None)
    data = subprocess.run(
        [pg_restore, "--data-only", "--table=alembic_version", "--file=-", str(file)],
        capture_output=True,
        text=True,
        check=False,
    )
    revision = None
    lines = data.stdout.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("COPY ") and "alembic_version" in line and i + 1 < len(lines):
            value = lines[i + 1].strip()
            revision = value if value and value != "\\." else None
            break
    return check_revision(revision)


async def restore_postgresql(settings: Settings, file: Path) -> tuple[Figures, Path | None]:
    url = settings.database_url
    pg_restore = pg_tool(settings, "pg_restore")
    psql = pg_tool(settings, "psql")
    others = await pg_other_connections(url)
    if others:
        name = make_url(url).database
        raise BackupError(
            f"a server (or another client: {others} connection{'s' if others > 1 else ''}) is "
            f"using database {name}: stop it, then restore; nothing was changed"
        )
    pg_dump_revision(settings, file)
    # the previous database, beside the backups
    folder = backup_dir(settings)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    previous = folder / f"before-restore-{stamp}.dump"
    await pg_backup(settings, previous)
    env = pg_env(url)
    # one transaction: the schema emptied and the archive replayed, or nothing at all
    with tempfile.TemporaryFile() as produce_err, tempfile.TemporaryFile() as consume_err:
        producer = subprocess.Popen(
            [pg_restore, "--no-owner", "--no-privileges", "--file=-", str(file)],
            stdout=subprocess.PIPE,
            stderr=produce_err,
            env=env,
        )
        consumer = subprocess.Popen(
            [psql, "--quiet", "--no-psqlrc", "--single-transaction", "-v", "ON_ERROR_STOP=1"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=consume_err,
            env=env,
        )

        def pump() -> None:
            assert producer.stdout is not None and consumer.stdin is not None
            try:
                consumer.stdin.write(
                    b"DROP SCHEMA IF EXISTS public CASCADE;\nCREATE SCHEMA public;\n"
                )
                shutil.copyfileobj(producer.stdout, consumer.stdin, 1 << 16)
            except BrokenPipeError:
                pass
            finally:
                with contextlib.suppress(BrokenPipeError):
                    consumer.stdin.close()
                producer.stdout.close()
            producer.wait()
            consumer.wait()

        await asyncio.to_thread(pump)
        if producer.returncode != 0:
            produce_err.seek(0)
            raise BackupError(
                f"pg_restore failed, nothing was changed: {_first_line(produce_err.read())}"
            )
        if consumer.returncode != 0:
            consume_err.seek(0)
            raise BackupError(
                f"psql failed, nothing was changed: {_first_line(consume_err.read())}"
            )
    from app.persistence.migrate import upgrade_head

    upgrade_head(url)
    return await pg_figures(url), previous


async def restore(settings: Settings, file: str | Path) -> tuple[Figures, Path | None]:
    """Restore ``file`` into the configured database; returns its figures and where the
    previous database was kept."""
    path = Path(file).expanduser()
    if not path.is_file():
        raise BackupError(f"no backup file at {path}")
    if make_url(settings.database_url).get_backend_name() == "sqlite":
        return await asyncio.to_thread(restore_sqlite, settings, path)
    return await restore_postgresql(settings, path)


# --------------------------------------------------------------------------- the commands


def _settings() -> Settings:
    from app.settings import get_settings

    return get_settings()


def cmd_backup(args: argparse.Namespace) -> int:
    settings = _settings()
    try:
        backup = asyncio.run(take_backup(settings, args.to))
    except BackupError as exc:
        print(f"atout backup: {exc}", file=sys.stderr)
        return 1
    assert backup is not None and backup.figures is not None
    print(f"backup {backup.path} ({backup.size} bytes): {backup.figures.describe()}")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    settings = _settings()
    try:
        figures, previous = asyncio.run(restore(settings, args.file))
    except BackupError as exc:
        print(f"atout restore: {exc}", file=sys.stderr)
        return 1
    print(f"restored {args.file} into {describe_url(settings.database_url)}: {figures.describe()}")
    if previous is not None:
        print(f"the previous database is kept in {previous}")
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "backup",
        help="take a backup of the database now (the server may be running)",
        description="Take an online, consistent backup of the database (SQLite: the backup "
        "API; PostgreSQL: pg_dump) into ATOUT_BACKUP_DIR or --to.",
    )
    parser.add_argument("--to", metavar="DIR", help="folder to write it in")
    parser.set_defaults(func=cmd_backup)
    parser = subparsers.add_parser(
        "restore",
        help="restore a backup (the server must be stopped)",
        description="Check a backup file, keep the current database beside it, restore the "
        "file and print what it holds. Refused while a server uses the database.",
    )
    parser.add_argument("file", metavar="FILE", help="a file written by atout backup")
    parser.set_defaults(func=cmd_restore)
