"""The admin page (app/web/admin.py) and what its decisions do (app/web/moderation.py): off by
default, the login and its limit, the session cookie, CSRF, every refusal changing nothing,
sanctions that reach the player at once, rooms closed, reports, backups, the audit log."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from starlette.websockets import WebSocketDisconnect

from app.main import create_app
from app.settings import Settings
from tests.conftest import migrate_database

TOKEN = "correct horse battery staple"
LOCAL = ("127.0.0.1", 40000)


def make(tmp_path: Path, **settings: Any) -> TestClient:
    url = f"sqlite+aiosqlite:///{tmp_path / 'admin.db'}"
    migrate_database(url)
    config = Settings(
        _env_file=None,
        database_url=url,
        bot_delay_ms=0,
        bot_workers=0,
        backup_hours=0,
        backup_dir=str(tmp_path / "backups"),
        **settings,
    )
    return TestClient(create_app(config), client=LOCAL, follow_redirects=False)


def rows(tmp_path: Path, sql: str) -> list[tuple]:
    engine = create_engine(f"sqlite:///{tmp_path / 'admin.db'}")
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(sql))]
    finally:
        engine.dispose()


def call(
    client: TestClient, method: str, path: str, cookies: dict[str, str] | None = None, **kw: Any
):
    """A request with exactly these cookies (the client's jar is not used)."""
    client.cookies.clear()
    headers = dict(kw.pop("headers", {}) or {})
    if cookies:
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    response = client.request(method, path, headers=headers, **kw)
    client.cookies.clear()
    return response


def login(client: TestClient) -> dict[str, str]:
    response = call(client, "POST", "/admin/login", data={"token": TOKEN})
    assert response.status_code == 303, response.text
    return {"atout_admin": response.cookies["atout_admin"]}


def csrf_of(client: TestClient, cookies: dict[str, str]) -> str:
    page = call(client, "GET", "/admin", cookies)
    assert page.status_code == 200
    match = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert match
    return match.group(1)


def new_player(client: TestClient, name: str) -> tuple[int, str]:
    response = call(client, "POST", "/api/me")
    token = response.cookies["atout_id"]
    response = call(client, "POST", "/api/me/name", {"atout_id": token}, json={"name": name})
    assert response.status_code in (200, 204), response.text
    folder = Path(client.app.state.settings.database_url.split("///", 1)[1]).parent
    [(identity_id,)] = rows(folder, f"SELECT id FROM identities WHERE display_name = '{name}'")
    return int(identity_id), token


@pytest.fixture
def admin(tmp_path: Path) -> Iterator[TestClient]:
    with make(tmp_path, admin_token=TOKEN) as client:
        yield client


def test_without_a_token_every_admin_path_is_a_404_like_any_unknown_path(tmp_path: Path):
    with make(tmp_path) as client:
        unknown = call(client, "GET", "/no-such-page")
        for method, path in [
            ("GET", "/admin"),
            ("GET", "/admin/players"),
            ("GET", "/admin/backups/atout-20250101-000000.db"),
            ("POST", "/admin/login"),
            ("POST", "/admin/players/1/sanction"),
        ]:
            response = call(client, method, path, data={"token": ""})
            assert response.status_code == 404, (method, path)
            assert response.content == unknown.content


def test_login_sets_a_strict_httponly_cookie_and_a_wrong_token_is_refused(admin, tmp_path):
    page = call(admin, "GET", "/admin")
    assert page.status_code == 200 and 'name="token"' in page.text
    wrong = call(admin, "POST", "/admin/login", data={"token": "guess"})
    assert wrong.status_code == 401 and 'data-error="login.wrong"' in wrong.text
    assert "atout_admin" not in wrong.cookies
    ok = call(admin, "POST", "/admin/login", data={"token": TOKEN})
    assert ok.status_code == 303
    cookie = ok.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/admin" in cookie
    assert "Secure" not in cookie  # plain http here
    # only the cookie's hash is stored
    [(stored,)] = rows(tmp_path, "SELECT token_hash FROM admin_sessions")
    assert ok.cookies["atout_admin"] not in stored
    # the page's scripts are files: no inline script, and the policy says so
    home = call(admin, "GET", "/admin", {"atout_admin": ok.cookies["atout_admin"]})
    assert "script-src 'self'" in home.headers["content-security-policy"]
    for tag in re.findall(r"<script[^>]*>", home.text):
        assert 'type="application/json"' in tag or "src=" in tag, tag
    assert 'style="' not in home.text and "onclick" not in home.text


def test_the_cookie_is_secure_behind_https(tmp_path: Path):
    with make(tmp_path, admin_token=TOKEN, public_base_url="https://belote.example.org") as c:
        ok = call(c, "POST", "/admin/login", data={"token": TOKEN})
        assert ok.status_code == 303 and "Secure" in ok.headers["set-cookie"]


def test_failed_logins_are_limited_per_address(admin):
    for _ in range(5):
        assert call(admin, "POST", "/admin/login", data={"token": "nope"}).status_code == 401
    limited = call(admin, "POST", "/admin/login", data={"token": TOKEN})
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) > 0
    assert "atout_admin" not in limited.cookies
    admin._transport.client = ("10.0.0.9", 5000)  # another address is not limited
    assert call(admin, "POST", "/admin/login", data={"token": TOKEN}).status_code == 303


def test_refusals_change_nothing(admin, tmp_path):
    player_id, _ = new_player(admin, "Target")
    cookies = login(admin)
    csrf = csrf_of(admin, cookies)
    path = f"/admin/players/{player_id}/sanction"
    form = {"kind": "ban", "on": "1"}
    # no session, a forged session, a missing CSRF token, a wrong one, another origin
    assert call(admin, "POST", path, data={**form, "csrf": csrf}).status_code == 401
    forged = {"atout_admin": "x" * 43}
    assert call(admin, "POST", path, forged, data={**form, "csrf": csrf}).status_code == 401
    assert call(admin, "POST", path, cookies, data=form).status_code == 403
    assert call(admin, "POST", path, cookies, data={**form, "csrf": "wrong"}).status_code == 403
    evil = {"Origin": "https://evil.example"}
    response = call(admin, "POST", path, cookies, data={**form, "csrf": csrf}, headers=evil)
    assert response.status_code == 403
    # an expired session
    rows_before = rows(tmp_path, "SELECT count(*) FROM admin_audit")
    engine = create_engine(f"sqlite:///{tmp_path / 'admin.db'}")
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE admin_sessions SET expires_at = :t"),
            {"t": datetime.now(UTC) - timedelta(minutes=1)},
        )
    engine.dispose()
    assert call(admin, "POST", path, cookies, data={**form, "csrf": csrf}).status_code == 401
    page = call(admin, "GET", "/admin/players", cookies)
    assert page.status_code == 303 and page.headers["location"] == "/admin"
    assert rows(tmp_path, "SELECT * FROM sanctions") == []
    assert rows(tmp_path, "SELECT count(*) FROM admin_audit") == rows_before
    # a bad kind, an unknown player: refused too
    cookies = login(admin)
    csrf = csrf_of(admin, cookies)
    bad = call(admin, "POST", path, cookies, data={"kind": "exile", "on": "1", "csrf": csrf})
    assert bad.status_code == 400
    missing = call(
        admin, "POST", "/admin/players/99999/sanction", cookies, data={**form, "csrf": csrf}
    )
    assert missing.status_code == 404
    assert rows(tmp_path, "SELECT * FROM sanctions") == []


def test_mute_and_ban_reach_the_player_at_once_and_are_reversible(admin, tmp_path):
    player_id, token = new_player(admin, "Rude")
    me = {"atout_id": token}
    game = call(admin, "POST", "/api/games", me, json={"variant": "classic", "mode": "friends"})
    assert game.status_code == 201, game.text
    game_id = game.json()["game_id"]
    cookies = login(admin)
    csrf = csrf_of(admin, cookies)
    found = call(admin, "GET", "/admin/players?q=rud", cookies)
    assert f'data-player="{player_id}"' in found.text

    def sanction(kind: str, on: bool) -> None:
        response = call(
            admin,
            "POST",
            f"/admin/players/{player_id}/sanction",
            cookies,
            data={"kind": kind, "on": "1" if on else "0", "csrf": csrf},
        )
        assert response.status_code == 303, response.text

    headers = {"Cookie": f"atout_id={token}", "Accept-Language": "fr"}
    with admin.websocket_connect(f"/ws/{game_id}", headers=headers) as ws:
        assert ws.receive_json()["type"] == "state"
        sanction("mute", True)
        ws.send_json({"type": "chat", "id": "c-1", "kind": "text", "text": "hello"})
        refused = ws.receive_json()
        assert refused["type"] == "error" and refused["code"] == "muted"
        assert refused["id"] == "c-1" and "muet" in refused["message"]
        assert rows(tmp_path, "SELECT count(*) FROM chat_messages") == [(0,)]
        sanction("mute", False)
        ws.send_json({"type": "chat", "id": "c-2", "kind": "text", "text": "sorry"})
        while (msg := ws.receive_json())["type"] != "ack":
            assert msg["type"] != "error", msg
        sanction("ban", True)  # the open socket is told, in its language, and closed
        while (msg := ws.receive_json())["type"] != "error":
            pass
        assert msg["code"] == "banned" and "banni" in msg["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                ws.receive_json()
        assert closed.value.code == 4003
    api = call(admin, "GET", "/api/me", me, headers={"Accept-Language": "fr"})
    assert api.status_code == 403 and api.json()["error"]["code"] == "banned"
    page = call(admin, "GET", "/", me, headers={"Accept-Language": "ru"})
    assert page.status_code == 403 and "заблокировал" in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert api.headers["x-content-type-options"] == "nosniff"
    with pytest.raises(WebSocketDisconnect):
        with admin.websocket_connect(f"/ws/{game_id}", headers=headers) as ws:
            ws.receive_json()
    sanction("ban", False)
    assert call(admin, "GET", "/api/me", me).status_code == 200
    audit = call(admin, "GET", "/admin", cookies).text
    for action in ("mute_on", "mute_off", "ban_on", "ban_off", "login"):
        assert f'data-action="{action}"' in audit


def test_rename_and_reset_name(admin, tmp_path):
    player_id, _ = new_player(admin, "Badname")
    cookies = login(admin)
    csrf = csrf_of(admin, cookies)
    path = f"/admin/players/{player_id}/rename"
    assert (
        call(admin, "POST", path, cookies, data={"name": "Fine", "csrf": csrf}).status_code == 303
    )
    assert rows(tmp_path, f"SELECT display_name FROM identities WHERE id={player_id}") == [
        ("Fine",)
    ]
    too_long = call(admin, "POST", path, cookies, data={"name": "x" * 40, "csrf": csrf})
    assert "player.bad_name" in too_long.headers["location"]
    assert rows(tmp_path, f"SELECT display_name FROM identities WHERE id={player_id}") == [
        ("Fine",)
    ]
    call(admin, "POST", path, cookies, data={"reset": "1", "csrf": csrf})
    assert rows(tmp_path, f"SELECT display_name FROM identities WHERE id={player_id}") == [
        (f"Player {player_id}",)
    ]


def test_closing_a_room_tells_its_players_and_keeps_it_closed(admin, tmp_path):
    _, token = new_player(admin, "Host")
    me = {"atout_id": token}
    game = call(admin, "POST", "/api/games", me, json={"variant": "classic", "mode": "computer"})
    game_id = game.json()["game_id"]
    cookies = login(admin)
    csrf = csrf_of(admin, cookies)
    headers = {"Cookie": f"atout_id={token}"}
    with admin.websocket_connect(f"/ws/{game_id}", headers=headers) as ws:
        assert ws.receive_json()["type"] == "state"
        rooms = call(admin, "GET", f"/admin/rooms?q={game_id}", cookies)
        assert f'data-room="{game_id}"' in rooms.text
        closed = call(admin, "POST", f"/admin/rooms/{game_id}/close", cookies, data={"csrf": csrf})
        assert closed.status_code == 303
        while (msg := ws.receive_json())["type"] != "error":
            pass
        assert msg["code"] == "room_closed"
    assert rows(tmp_path, "SELECT game_id FROM closed_games") == [(game_id,)]
    assert rows(tmp_path, f"SELECT count(*) FROM games WHERE id='{game_id}'") == [(1,)]
    with pytest.raises(WebSocketDisconnect) as refused:
        with admin.websocket_connect(f"/ws/{game_id}", headers=headers) as ws:
            assert ws.receive_json()["code"] == "room_closed"
            ws.receive_json()
    assert refused.value.code == 4005


def test_reports_are_listed_and_handled(admin, tmp_path):
    from app.persistence import admin as store

    reporter, _ = new_player(admin, "Alice")
    reported, _ = new_player(admin, "Bob")
    work = store.insert_report(
        reporter_id=reporter,
        reported_id=reported,
        reported_name="Bob",
        game_id=None,
        reason="abuse",
        note="rude",
        lines=[{"name": "Bob", "text": "you fool"}],
    )
    engine = create_engine(f"sqlite:///{tmp_path / 'admin.db'}")
    from sqlalchemy.orm import Session

    with Session(engine) as session:
        report_id = work(session)
        session.commit()
    engine.dispose()
    cookies = login(admin)
    csrf = csrf_of(admin, cookies)
    page = call(admin, "GET", "/admin/reports", cookies)
    assert f'data-report="{report_id}"' in page.text and "you fool" in page.text
    done = call(
        admin,
        "POST",
        f"/admin/reports/{report_id}",
        cookies,
        data={"status": "handled", "csrf": csrf},
    )
    assert done.status_code == 303
    assert rows(tmp_path, "SELECT status FROM reports") == [("handled",)]
    assert f'data-report="{report_id}"' not in call(admin, "GET", "/admin/reports", cookies).text


def test_backups_are_listed_taken_and_downloaded(admin, tmp_path):
    cookies = login(admin)
    csrf = csrf_of(admin, cookies)
    assert call(admin, "POST", "/admin/backups", cookies).status_code == 403  # no CSRF
    assert not (tmp_path / "backups").exists() or not list((tmp_path / "backups").iterdir())
    taken = call(admin, "POST", "/admin/backups", cookies, data={"csrf": csrf})
    assert taken.status_code == 303 and "backup.taken" in taken.headers["location"]
    [file] = [p for p in (tmp_path / "backups").iterdir() if p.suffix == ".db"]
    page = call(admin, "GET", "/admin/backups", cookies)
    assert f'data-backup="{file.name}"' in page.text
    download = call(admin, "GET", f"/admin/backups/{file.name}", cookies)
    assert download.status_code == 200 and download.content == file.read_bytes()
    assert call(admin, "GET", f"/admin/backups/{file.name}").status_code == 401
    assert call(admin, "GET", "/admin/backups/..%2Fadmin.db", cookies).status_code == 404
    assert call(admin, "GET", "/admin/backups/admin.db", cookies).status_code == 404


def test_the_admin_catalogs_have_every_key_in_seven_languages():
    from app.web.admin import LOCALES_DIR, admin_catalog
    from app.web.i18n import LANGUAGES

    english = admin_catalog("en")
    for language in LANGUAGES:
        assert (LOCALES_DIR / f"{language}.json").exists(), language
        catalog = admin_catalog(language)
        assert set(catalog) == set(english), language
        for key, value in catalog.items():
            assert value.strip(), (language, key)
            assert re.findall(r"{\w+}", value) == re.findall(r"{\w+}", english[key]), (
                language,
                key,
            )


def test_a_ban_from_public_tables_keeps_friends_games(admin, tmp_path):
    player_id, token = new_player(admin, "Sore")
    me = {"atout_id": token}
    public = call(
        admin,
        "POST",
        "/api/games",
        me,
        json={"variant": "classic", "mode": "friends", "public": True},
    )
    assert public.status_code == 201, public.text
    public_id = public.json()["game_id"]
    cookies = login(admin)
    csrf = csrf_of(admin, cookies)
    data = {"kind": "public", "on": "1", "csrf": csrf}
    assert (
        call(admin, "POST", f"/admin/players/{player_id}/sanction", cookies, data=data).status_code
        == 303
    )
    fr = {"Accept-Language": "fr"}
    quick = call(admin, "POST", "/api/quickplay", me, json={"variant": "classic"}, headers=fr)
    assert quick.status_code == 403 and quick.json()["error"]["code"] == "banned_public"
    assert "tables publiques" in quick.json()["error"]["message"]
    assert call(admin, "GET", f"/g/{public_id}", me).status_code == 403
    assert call(admin, "POST", f"/api/games/{public_id}/join", me).status_code == 403
    # a game with friends is still theirs to play
    friends = call(admin, "POST", "/api/games", me, json={"variant": "classic", "mode": "friends"})
    assert friends.status_code == 201
    assert call(admin, "GET", f"/g/{friends.json()['game_id']}", me).status_code == 200
    assert call(admin, "GET", "/api/me", me).status_code == 200
    data["on"] = "0"
    call(admin, "POST", f"/admin/players/{player_id}/sanction", cookies, data=data)
    assert call(admin, "GET", f"/g/{public_id}", me).status_code == 200


def test_tournaments_are_created_edited_and_cancelled(admin, tmp_path):
    cookies = login(admin)
    csrf = csrf_of(admin, cookies)
    form = {"csrf": csrf, "variant": "classic", "boards": "2", "hours": "2", "title": "Club night"}
    assert (
        call(admin, "POST", "/admin/tournaments", cookies, data={**form, "csrf": "x"}).status_code
        == 403
    )
    assert rows(tmp_path, "SELECT count(*) FROM tournaments") == [(0,)]
    made = call(admin, "POST", "/admin/tournaments", cookies, data=form)
    assert made.status_code == 303 and "tour.created" in made.headers["location"], made.headers
    [(event_id, title)] = rows(tmp_path, "SELECT id, title FROM tournaments")
    assert title == "Club night"
    page = call(admin, "GET", "/admin/tournaments", cookies)
    assert f'data-event="{event_id}"' in page.text
    bad = call(admin, "POST", "/admin/tournaments", cookies, data={**form, "boards": "99"})
    assert "tour.failed" in bad.headers["location"]
    edit = {"csrf": csrf, "title": "Club night, table 2"}
    assert (
        call(admin, "POST", f"/admin/tournaments/{event_id}", cookies, data=edit).status_code == 303
    )
    assert rows(tmp_path, "SELECT title FROM tournaments") == [("Club night, table 2",)]
    cancel = {"csrf": csrf, "cancel": "1"}
    assert (
        call(admin, "POST", f"/admin/tournaments/{event_id}", cookies, data=cancel).status_code
        == 303
    )
    assert rows(tmp_path, "SELECT cancelled FROM tournaments") == [(1,)]
    missing = call(admin, "POST", "/admin/tournaments/nope", cookies, data=cancel)
    assert missing.status_code == 404


def test_the_admin_creates_a_live_swiss_for_pairs(admin, tmp_path):
    cookies = login(admin)
    csrf = csrf_of(admin, cookies)
    form = {
        "csrf": csrf,
        "kind": "swiss",
        "variant": "coinche",
        "rounds": "3",
        "boards": "4",
        "clock": "30",
        "max_pairs": "16",
        "starts_at": "2099-01-01T20:00",
        "title": "Friday pairs",
    }
    page = call(admin, "GET", "/admin/tournaments", cookies)
    assert 'id="admin-live-form"' in page.text
    bad = call(admin, "POST", "/admin/tournaments", cookies, data={**form, "clock": "7"})
    assert "tour.failed" in bad.headers["location"]
    assert rows(tmp_path, "SELECT count(*) FROM tournaments") == [(0,)]
    made = call(admin, "POST", "/admin/tournaments", cookies, data=form)
    assert made.status_code == 303 and "tour.created" in made.headers["location"], made.headers
    assert rows(
        tmp_path, "SELECT kind, rounds, boards, clock, max_pairs, status, title FROM tournaments"
    ) == [("swiss", 3, 4, 30, 16, "open", "Friday pairs")]
    assert rows(tmp_path, "SELECT count(*) FROM tournament_boards") == [(12,)]
