"""Backups that restore (app/persistence/backup.py).

The proof: games are played under load while ``atout backup`` runs against the live server;
play goes on; the server is killed; ``atout restore`` puts the backup back; exactly the moves
acknowledged before the backup's consistent point are there (each game holds a prefix of its
acknowledged moves, with every move acknowledged before the backup started and none sent after
it ended), every record replays and the server serves again. Marked ``db``: on SQLite in
``make test``, on PostgreSQL in ``make test-db``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.engine.record import replay
from app.persistence import backup as bk
from app.persistence import repository as repo
from app.persistence.db import create_engine_from_url, create_sessionmaker
from app.settings import Settings
from tests.conftest import PROJECT_ROOT
from tests.web.wsclient import Browser, Socket

pytestmark = pytest.mark.db

GAMES = 6
MOVES_BEFORE = 12  # acknowledged moves per game before the backup starts
MOVES_AFTER = 8  # and after it ended


def atout(database_url: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
    full.update({"ATOUT_DATABASE_URL": database_url, "PYTHONPATH": str(PROJECT_ROOT), **env})
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
    )


async def stored_games(database_url: str) -> dict[str, repo.StoredGame]:
    engine = create_engine_from_url(database_url)
    try:
        async with create_sessionmaker(engine)() as session:
            from sqlalchemy import select

            from app.persistence.models import Game

            ids = list((await session.execute(select(Game.id))).scalars())
            games = {}
            for game_id in ids:
                game = await repo.load_game(session, game_id)
                assert game is not None
                games[game_id] = game
    finally:
        await engine.dispose()
    return games


async def wait_no_other_connections(database_url: str) -> None:
    if database_url.startswith("sqlite"):
        return
    for _ in range(200):
        if await bk.pg_other_connections(database_url) == 0:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the killed server's connections did not go away")


class Player:
    """Plays one local game (every seat from this socket), recording each move's send and
    acknowledgement times."""

    def __init__(self, sock: Socket, seed: int) -> None:
        self.sock = sock
        self.rng = random.Random(seed)
        self.moves: list[dict] = []  # {"id", "sent", "acked"}
        self.stop = False

    def acked_after(self, moment: float) -> int:
        return sum(1 for m in self.moves if m["acked"] is not None and m["sent"] > moment)

    async def run(self) -> None:
        sock = self.sock
        while not self.stop:
            seat = sock.my_turn_seat()
            if seat is not None:
                move = {"sent": time.monotonic(), "acked": None}
                move["id"] = await sock.act(self.rng.choice(sock.legal(seat)), seat=seat)
                self.moves.append(move)
                ack = await sock.next_of("ack", "error")
                assert ack["type"] == "ack" and ack["id"] == move["id"], ack
                move["acked"] = time.monotonic()
                await sock.until(lambda s, v=ack["version"]: s.version >= v)
            elif sock.view and sock.view.get("phase") == "deal_over":
                deal = sock.view["deal_number"]
                await sock.send({"type": "consent", "kind": "next_deal"})
                await sock.until(lambda s, d=deal: s.view["deal_number"] > d)
            else:
                await sock.recv()


async def test_backup_under_load_restores_exactly_the_acknowledged_moves(
    live_server, database_url, tmp_path
):
    backups = tmp_path / "backups"
    env = {"ATOUT_BACKUP_HOURS": "0", "ATOUT_BACKUP_DIR": str(backups), "ATOUT_WS_RATE": "1000"}
    env["ATOUT_WS_BURST"] = "1000"  # one socket plays four seats as fast as it can
    server = live_server(database_url=database_url, env=env)
    players: dict[str, Player] = {}
    for i in range(GAMES):
        browser = await Browser.new(server)
        game_id = await browser.create(variant="classic", mode="local", options={"target": 2000})
        players[game_id] = Player(await browser.connect(game_id), seed=i)
    tasks = [asyncio.create_task(p.run()) for p in players.values()]

    async def until(predicate) -> None:
        for _ in range(6000):
            if predicate():
                return
            for task in tasks:
                if task.done():
                    task.result()  # raise what a player raised
            await asyncio.sleep(0.01)
        raise AssertionError("the games did not get there")

    await until(lambda: all(len(p.moves) >= MOVES_BEFORE for p in players.values()))
    started = time.monotonic()
    result = await asyncio.to_thread(atout, database_url, "backup", "--to", str(backups))
    ended = time.monotonic()
    assert result.returncode == 0, result.stderr
    await until(lambda: all(p.acked_after(ended) >= MOVES_AFTER for p in players.values()))
    for p in players.values():
        p.stop = True
    server.kill()  # like a crash; the moves after the backup are in the live database only
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)

    [taken] = bk.list_backups(backups)
    assert result.stdout.startswith(f"backup {taken.path} ")
    await wait_no_other_connections(database_url)
    result = await asyncio.to_thread(atout, database_url, "restore", str(taken.path), **env)
    assert result.returncode == 0, result.stderr
    assert "restored" in result.stdout and f"{taken.figures.moves} moves" in result.stdout

    games = await stored_games(database_url)
    assert set(games) == set(players)
    total = 0
    for game_id, player in players.items():
        game = games[game_id]
        ids = [a.client_id for a in game.actions]
        sent = [m["id"] for m in player.moves]
        # a prefix of this game's acknowledged moves ...
        assert ids == sent[: len(ids)]
        assert all(m["acked"] is not None for m in player.moves[: len(ids)])
        # ... holding every move acknowledged before the backup started, none sent after it
        before = [m["id"] for m in player.moves if m["acked"] is not None and m["acked"] < started]
        after = {m["id"] for m in player.moves if m["sent"] > ended}
        assert set(before) <= set(ids)
        assert not after & set(ids)
        assert len(ids) < len(sent)  # the moves played after the backup are gone
        state = replay(game.record())  # every record replays
        assert state is not None
        total += len(ids)
    # the figures written beside the backup were read in its consistent snapshot
    assert taken.figures is not None and taken.figures.moves == total
    assert taken.figures.games == GAMES

    # and the server serves the restored database
    server.start()
    game_id = next(iter(players))
    browser = Browser(server, players[game_id].sock.browser.token)
    sock = await browser.connect(game_id)
    game = games[game_id]
    # the room is rebuilt from the restored rows (it may add a step of its own on loading)
    assert sock.version >= len(game.deals) + len(game.actions)
    seat = sock.my_turn_seat()
    if seat is None:
        await sock.send({"type": "consent", "kind": "next_deal"})
        await sock.until(lambda s: s.my_turn_seat() is not None)
        seat = sock.my_turn_seat()
    msg_id = await sock.act(sock.legal(seat)[0], seat=seat)
    ack = await sock.next_of("ack", "error")
    assert ack == {"type": "ack", "id": msg_id, "version": ack["version"]}


async def test_restore_refuses_while_a_server_uses_the_database(
    live_server, database_url, tmp_path
):
    server = live_server(database_url=database_url, env={"ATOUT_BACKUP_HOURS": "0"})
    browser = await Browser.new(server)
    await browser.create(variant="classic", mode="local")
    result = atout(database_url, "backup", "--to", str(tmp_path / "b"))
    assert result.returncode == 0, result.stderr
    [taken] = bk.list_backups(tmp_path / "b")
    before = await stored_games(database_url)
    env = {"ATOUT_BACKUP_DIR": str(tmp_path / "kept")}
    result = atout(database_url, "restore", str(taken.path), **env)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "atout restore:" in lines[0] and "stop it" in lines[0], lines
    assert "nothing was changed" in lines[0]
    assert set(await stored_games(database_url)) == set(before)
    assert not (tmp_path / "kept").exists()  # no copy of the previous database either
    if database_url.startswith("sqlite"):
        db = Path(database_url.split("///", 1)[1])
        assert not list(db.parent.glob("*.before-restore-*"))


async def test_restore_refuses_a_damaged_or_foreign_file(migrated_database_url, tmp_path):
    url = migrated_database_url
    result = atout(url, "backup", "--to", str(tmp_path / "b"))
    assert result.returncode == 0, result.stderr
    [good] = bk.list_backups(tmp_path / "b")
    env = {"ATOUT_BACKUP_DIR": str(tmp_path / "kept")}

    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a backup at all" * 100)
    result = atout(url, "restore", str(garbage), **env)
    assert result.returncode == 1 and result.stderr.startswith("atout restore: ")

    missing = atout(url, "restore", str(tmp_path / "nope.db"), **env)
    assert missing.returncode == 1 and "no backup file" in missing.stderr

    if url.startswith("sqlite"):
        # a SQLite file of a newer version (unknown revision), and a damaged one
        newer = tmp_path / "newer.db"
        newer.write_bytes(good.path.read_bytes())
        conn = sqlite3.connect(newer)
        conn.execute("UPDATE alembic_version SET version_num = 'from_the_future'")
        conn.commit()
        conn.close()
        result = atout(url, "restore", str(newer), **env)
        assert result.returncode == 1 and "unknown to this version" in result.stderr

        damaged = tmp_path / "damaged.db"
        data = bytearray(good.path.read_bytes())
        page = 4096
        for offset in range(2 * page + 100, len(data), page):
            data[offset : offset + 200] = os.urandom(200)
        damaged.write_bytes(bytes(data))
        result = atout(url, "restore", str(damaged), **env)
        assert result.returncode == 1 and "atout restore:" in result.stderr
        db = Path(url.split("///", 1)[1])
        assert not list(db.parent.glob("*.before-restore-*"))
    assert not (tmp_path / "kept").exists()
    # the good one restores, keeping the previous database
    result = atout(url, "restore", str(good.path), **env)
    assert result.returncode == 0, result.stderr
    assert "the previous database is kept in" in result.stdout


async def test_restore_into_an_empty_database(migrated_database_url, tmp_path):
    """A new machine: the database is empty (or missing), and the backup brings it all."""
    url = migrated_database_url
    result = atout(url, "backup", "--to", str(tmp_path / "b"))
    assert result.returncode == 0, result.stderr
    [taken] = bk.list_backups(tmp_path / "b")
    if url.startswith("sqlite"):
        db = Path(url.split("///", 1)[1])
        for path in db.parent.glob(db.name + "*"):
            if not path.name.endswith(".lock"):
                path.unlink()
    else:
        from tests.conftest import wipe_database

        await asyncio.to_thread(wipe_database, url)
    result = atout(url, "restore", str(taken.path), ATOUT_BACKUP_DIR=str(tmp_path / "kept"))
    assert result.returncode == 0, result.stderr
    assert "restored" in result.stdout and "0 games" in result.stdout
    from app.persistence.migrate import current_revision, head_revision

    assert current_revision(url) == head_revision()


def test_missing_postgresql_tools_say_how_to_get_them(tmp_path):
    url = "postgresql+asyncpg://postgres@127.0.0.1:1/nothing"
    result = atout(url, "backup", "--to", str(tmp_path), ATOUT_PG_BIN_DIR=str(tmp_path))
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert "pg_dump not found in ATOUT_PG_BIN_DIR" in result.stderr
    assert "postgresql-client" in result.stderr
    bare = Settings(database_url=url, pg_bin_dir="")
    path = os.environ.get("PATH", "")
    try:
        os.environ["PATH"] = str(tmp_path)
        with pytest.raises(bk.BackupError, match="pg_restore not found on PATH"):
            bk.pg_tool(bare, "pg_restore")
    finally:
        os.environ["PATH"] = path


async def test_backups_keep_the_newest_and_list_their_figures(migrated_database_url, tmp_path):
    folder = tmp_path / "backups"
    settings = Settings(database_url=migrated_database_url, backup_dir=str(folder), backup_keep=2)
    taken = [await bk.take_backup(settings) for _ in range(4)]
    listed = bk.list_backups(folder)
    assert [b.path for b in listed] == [taken[3].path, taken[2].path]
    assert all(b.figures is not None and b.figures.games == 0 for b in listed)
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted([b.name for b in listed] + [b.name + ".json" for b in listed])
    assert bk.find_backup(folder, "../etc/passwd") is None
    assert bk.find_backup(folder, listed[0].name) is not None


async def test_the_server_takes_automatic_backups(live_server, database_url, tmp_path):
    folder = tmp_path / "auto"
    env = {
        "ATOUT_BACKUP_HOURS": "0.0002",  # 0.72 s
        "ATOUT_BACKUP_DIR": str(folder),
        "ATOUT_BACKUP_KEEP": "2",
    }
    server = live_server(database_url=database_url, env=env)
    for _ in range(600):
        logs = server.logs()
        if logs.count('"backup taken"') >= 3:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError(f"fewer than 3 automatic backups:\n{server.logs()[-2000:]}")
    listed = bk.list_backups(folder)
    assert 1 <= len(listed) <= 2  # the third removed the first
    line = next(json.loads(x) for x in server.logs().splitlines() if '"backup taken"' in x)
    assert line["event"] == "backup" and line["file"].startswith(str(folder))
