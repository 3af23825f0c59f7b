"""Bans apply across processes (PostgreSQL, several servers on one database): the host bans a
player on one process, and the player's table on another process is told and closed at once
(a ``sanctions`` notice, app/persistence/notify.py); the mute is refused there too. Marked
``db``: it runs in ``make test-db``; on SQLite (one process) it is skipped."""

from __future__ import annotations

import re

import httpx
import pytest

from app.persistence.notify import decode, encode
from tests.web.wsclient import Browser

pytestmark = pytest.mark.db

TOKEN = "cross-process-admin-token"


def test_the_sanctions_notice_carries_ids_only() -> None:
    assert encode("sanctions", [12]) == "sanctions:12"
    assert decode("sanctions:12") == ("sanctions", [12])
    assert decode("sanctions:x") is None


async def test_a_ban_on_one_process_closes_the_table_on_another(live_server, database_url):
    if database_url.startswith("sqlite"):
        pytest.skip("SQLite serves one process")
    env = {"ATOUT_ADMIN_TOKEN": TOKEN, "ATOUT_BACKUP_HOURS": "0"}
    first = live_server(database_url=database_url, env=env)
    second = live_server(database_url=database_url, env=env, migrate=False)
    player = await Browser.new(second)
    await player.post("/api/me/name", {"name": "Rude"})
    game_id = await player.create(variant="classic", mode="computer")
    sock = await player.connect(game_id)
    async with httpx.AsyncClient(base_url=first.base_url, follow_redirects=False) as admin:
        assert (await admin.post("/admin/login", data={"token": TOKEN})).status_code == 303
        page = await admin.get("/admin/players", params={"q": "Rude"})
        identity_id = int(re.search(r'data-player="(\d+)"', page.text).group(1))
        csrf = re.search(r'name="csrf" value="([^"]+)"', (await admin.get("/admin")).text).group(1)
        done = await admin.post(
            f"/admin/players/{identity_id}/sanction",
            data={"kind": "ban", "on": "1", "csrf": csrf},
        )
        assert done.status_code == 303
    message = await sock.next_of("error", timeout=15)
    assert message["code"] == "banned"
    status, body = await player.get("/api/me")  # the other process refuses it too
    assert status == 403 and body["error"]["code"] == "banned"


async def test_closing_a_room_held_by_another_process(live_server, database_url):
    if database_url.startswith("sqlite"):
        pytest.skip("SQLite serves one process")
    env = {"ATOUT_ADMIN_TOKEN": TOKEN, "ATOUT_BACKUP_HOURS": "0"}
    first = live_server(database_url=database_url, env=env)
    second = live_server(database_url=database_url, env=env, migrate=False)
    player = await Browser.new(second)
    game_id = await player.create(variant="classic", mode="computer")
    sock = await player.connect(game_id)
    async with httpx.AsyncClient(base_url=first.base_url, follow_redirects=False) as admin:
        assert (await admin.post("/admin/login", data={"token": TOKEN})).status_code == 303
        rooms = await admin.get("/admin/rooms")
        assert f'data-room="{game_id}" data-node="live-server-{second.port}"' in rooms.text
        csrf = re.search(r'name="csrf" value="([^"]+)"', rooms.text).group(1)
        done = await admin.post(f"/admin/rooms/{game_id}/close", data={"csrf": csrf})
        assert done.status_code == 303
    message = await sock.next_of("error", timeout=15)
    assert message["code"] == "room_closed"
    assert decode(encode("closed", [game_id])) == ("closed", [game_id])
    assert decode("closed:<script>") is None
