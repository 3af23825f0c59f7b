"""A player's own data (app/web/mydata.py): the archive of everything the identity owns, and
deleting the identity: "Former player N" everywhere, chat lines gone, cookie and transfer code
dead, the other player's record and replay still served."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.web.test_admin import call, make, rows
from tests.web.test_reports import say


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make(tmp_path) as c:
        yield c


def duel(client: TestClient) -> tuple[str, dict[str, str], dict[str, str], int]:
    ana = {"atout_id": call(client, "POST", "/api/me").cookies["atout_id"]}
    bob = {"atout_id": call(client, "POST", "/api/me").cookies["atout_id"]}
    call(client, "POST", "/api/me/name", ana, json={"name": "Ana"})
    call(client, "POST", "/api/me/name", bob, json={"name": "Bob"})
    game = call(client, "POST", "/api/games", ana, json={"variant": "duel", "mode": "friends"})
    game_id = game.json()["game_id"]
    assert call(client, "POST", f"/api/games/{game_id}/join", bob).status_code == 200
    folder = Path(client.app.state.settings.database_url.split("///", 1)[1]).parent
    [(ana_id,)] = rows(folder, "SELECT id FROM identities WHERE display_name = 'Ana'")
    return game_id, ana, bob, int(ana_id)


def test_the_archive_holds_what_the_identity_owns(client):
    game_id, ana, _bob, ana_id = duel(client)
    say(client, game_id, ana, "bonne chance à tous")
    response = call(client, "GET", "/api/me/export", ana)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/zip"
    assert "attachment" in response.headers["content-disposition"]
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    names = set(archive.namelist())
    assert {"identity.json", "profile.json", "chat.json", f"games/{game_id}.json"} <= names
    identity = json.loads(archive.read("identity.json"))
    assert identity["name"] == "Ana" and identity["number"] == ana_id
    chat = json.loads(archive.read("chat.json"))
    assert [c["text"] for c in chat] == ["bonne chance à tous"]
    record = json.loads(archive.read(f"games/{game_id}.json"))
    assert record["format"] == "belote-record/1"
    profile = json.loads(archive.read("profile.json"))
    assert set(profile) >= {"xp", "ratings", "xp_history"}
    # a browser without an identity has nothing to take
    assert call(client, "GET", "/api/me/export").status_code == 404


def test_deleting_the_identity(client, tmp_path):
    game_id, ana, bob, ana_id = duel(client)
    say(client, game_id, ana, "my words")
    say(client, game_id, bob, "his words")
    assert call(client, "POST", "/api/me/transfer", ana).status_code == 201
    # not without the confirmation, and nothing changes
    for body in (None, {}, {"confirm": "yes"}):
        refused = call(client, "POST", "/api/me/delete", ana, json=body)
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "not_confirmed"
    assert rows(tmp_path, f"SELECT display_name FROM identities WHERE id={ana_id}") == [("Ana",)]

    done = call(client, "POST", "/api/me/delete", ana, json={"confirm": True})
    assert done.status_code == 200 and done.json()["name"] == f"Former player {ana_id}"
    cookie = done.headers["set-cookie"]
    assert cookie.startswith('atout_id=""') or "Max-Age=0" in cookie
    former = f"Former player {ana_id}"
    assert rows(tmp_path, f"SELECT display_name FROM identities WHERE id={ana_id}") == [(former,)]
    assert rows(
        tmp_path, f"SELECT DISTINCT display_name FROM seats WHERE identity_id={ana_id}"
    ) == [(former,)]
    assert rows(tmp_path, "SELECT text FROM chat_messages") == [("his words",)]
    assert rows(tmp_path, f"SELECT count(*) FROM transfer_codes WHERE identity_id={ana_id}") == [
        (0,)
    ]
    # the old cookie is nobody now
    me = call(client, "GET", "/api/me", ana)
    assert me.status_code == 200 and me.json()["name"] is None
    assert call(client, "GET", "/api/me/export", ana).status_code == 404
    # Bob's record and replay still work, with the neutral name
    record = call(client, "GET", f"/api/games/{game_id}/record", bob)
    assert record.status_code == 200, record.text
    assert former in json.dumps(record.json())
    assert call(client, "GET", f"/api/games/{game_id}/replay", bob).status_code == 200
    # and the table's history no longer holds her line
    headers = {"Cookie": f"atout_id={bob['atout_id']}"}
    with client.websocket_connect(f"/ws/{game_id}", headers=headers) as ws:
        state = ws.receive_json()
        assert [line["text"] for line in state["chat"]] == ["his words"]
