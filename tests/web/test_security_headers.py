"""Every HTML page sends the security headers, and its markup needs no inline script or style."""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.engine import VARIANTS
from app.main import create_app
from app.settings import Settings
from app.web.security import content_security_policy
from tests.conftest import migrate_database


def make_client(tmp_path: Path, **settings: object) -> TestClient:
    url = f"sqlite+aiosqlite:///{tmp_path / 'headers.db'}"
    migrate_database(url)
    config = Settings(_env_file=None, database_url=url, bot_delay_ms=0, bot_workers=0, **settings)  # type: ignore[arg-type]
    return TestClient(create_app(config), base_url="http://belote.test:8123")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path) as test_client:
        yield test_client


class InlineFinder(HTMLParser):
    """Collects what a Content-Security-Policy without 'unsafe-inline' would refuse."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        for name, _value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...>")
            if name == "style":
                self.problems.append(f"<{tag} style=...>")
        if tag == "style":
            self.problems.append("<style>")
        if tag == "script":
            kind = names.get("type") or ""
            if not names.get("src") and kind != "application/json":
                self._in_script = True
        if tag == "a" and (names.get("href") or "").lower().startswith("javascript:"):
            self.problems.append("javascript: link")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.problems.append(f"inline script: {data.strip()[:40]}")


def pages(client: TestClient) -> list[str]:
    created = client.post("/api/games", json={"variant": "bela", "players": 2, "mode": "friends"})
    assert created.status_code == 201
    game_id = created.json()["game_id"]
    closed = client.post(
        "/api/games",
        json={"variant": "classic", "mode": "friends", "spectators": False},
    ).json()["game_id"]
    for seat in range(3):  # three other browsers fill the table
        client.cookies.clear()
        assert client.post(f"/api/games/{closed}/join").status_code == 200, seat
    client.cookies.clear()  # a fourth browser finds it full
    listed = [
        "/",
        *(f"/rules/{variant}" for variant in VARIANTS),
        "/rules/no-such-variant",
        "/ranking/classic",
        "/ranking/no-such-family",
        "/profile",
        "/replay",
        f"/replay/{game_id}",
        f"/g/{game_id}",
        f"/g/{closed}",
        "/g/NoSuchGame12345",
    ]
    return listed


def test_every_page_sends_the_security_headers(client: TestClient):
    seen = set()
    for path in pages(client):
        response = client.get(path)
        assert response.headers["content-type"].startswith("text/html"), path
        seen.add(response.status_code)
        csp = response.headers["content-security-policy"]
        directives = {d.split()[0]: d.split()[1:] for d in csp.split("; ")}
        assert directives["default-src"] == ["'self'"], path
        assert directives["script-src"] == ["'self'"], path
        assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp, path
        assert directives["frame-ancestors"] == ["'none'"], path
        assert directives["connect-src"] == [
            "'self'",
            "ws://belote.test:8123",
            "wss://belote.test:8123",
        ], path
        assert response.headers["x-content-type-options"] == "nosniff", path
        assert response.headers["referrer-policy"] == "same-origin", path
        finder = InlineFinder()
        finder.feed(response.text)
        assert finder.problems == [], (path, finder.problems)
    assert {200, 404} <= seen
    # JSON and static files are not sniffed either
    for path in ("/api/me", "/static/js/common.js", "/healthz"):
        response = client.get(path)
        assert response.headers["x-content-type-options"] == "nosniff", path
        assert response.headers["referrer-policy"] == "same-origin", path


def test_the_full_table_page_is_among_them(client: TestClient):
    paths = pages(client)
    full = paths[-2]
    response = client.get(full)
    assert response.status_code == 200 and "content-security-policy" in response.headers
    assert "table-app" not in response.text  # the "table is full" page, not the table


def test_websockets_may_reach_the_public_base_url_too(tmp_path: Path):
    with make_client(tmp_path, public_base_url="https://belote.example.org") as client:
        csp = client.get("/").headers["content-security-policy"]
    connect = next(d for d in csp.split("; ") if d.startswith("connect-src"))
    assert connect.split()[1:] == [
        "'self'",
        "ws://belote.test:8123",
        "wss://belote.test:8123",
        "ws://belote.example.org",
        "wss://belote.example.org",
    ]


def test_a_host_header_cannot_add_a_directive():
    policy = content_security_policy("evil.test; script-src *")
    assert "script-src 'self'" in policy and "*" not in policy
    assert "connect-src 'self'" in policy
