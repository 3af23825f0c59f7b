import json
import logging
import urllib.request

import pytest
from fastapi.testclient import TestClient

from app.logging import JsonFormatter
from app.main import create_app
from app.persistence.db import DatabaseUnavailable, create_engine_from_url
from app.settings import Settings


def make_client(database_url: str) -> TestClient:
    return TestClient(create_app(Settings(_env_file=None, database_url=database_url)))


@pytest.mark.db
def test_healthz_is_ok_when_the_database_answers(database_url: str) -> None:
    with make_client(database_url) as client:
        response = client.get("/healthz")
    assert response.status_code == 200
    node = client.app.state.rooms.node_id
    assert response.json() == {"status": "ok", "database": "ok", "node": node}
    # every response names the process that answered it (docs/scaling.md)
    assert response.headers["X-Atout-Node"] == node


def test_healthz_is_503_when_the_database_stops_answering(tmp_path) -> None:
    with make_client(f"sqlite+aiosqlite:///{tmp_path / 'atout.db'}") as client:
        app = client.app
        good_engine = app.state.engine
        app.state.engine = create_engine_from_url("sqlite+aiosqlite:////proc/nope/gone.db")
        try:
            response = client.get("/healthz")
        finally:
            app.state.engine = good_engine
    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "unavailable"}


def test_home_page_is_html(tmp_path) -> None:
    with make_client(f"sqlite+aiosqlite:///{tmp_path / 'atout.db'}") as client:
        response = client.get("/")
        css = client.get("/static/css/app.css")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "<title>Atout</title>" in response.text
    assert "Belote" in response.text
    assert "/static/css/app.css" in response.text
    assert css.status_code == 200


def test_settings_are_kept_on_app_state(tmp_path) -> None:
    settings = Settings(_env_file=None, database_url=f"sqlite+aiosqlite:///{tmp_path / 'a.db'}")
    assert create_app(settings).state.settings is settings


def test_startup_refuses_an_unusable_database() -> None:
    app = create_app(
        Settings(_env_file=None, database_url="sqlite+aiosqlite:////proc/nope/atout.db")
    )
    with pytest.raises(DatabaseUnavailable, match="cannot open database"):
        with TestClient(app):
            pass


def test_logs_are_one_json_object_per_line() -> None:
    record = logging.LogRecord("atout.test", logging.INFO, __file__, 1, "hello %s", ("you",), None)
    record.room = "abc"
    try:
        raise ValueError("boom\nsecond line")
    except ValueError:
        import sys

        record.exc_info = sys.exc_info()
    line = JsonFormatter().format(record)
    assert "\n" not in line
    payload = json.loads(line)
    assert payload["level"] == "INFO"
    assert payload["logger"] == "atout.test"
    assert payload["message"] == "hello you"
    assert payload["room"] == "abc"
    assert payload["time"].endswith("Z")
    assert "ValueError: boom" in payload["exception"]


@pytest.mark.db
def test_live_server_answers_healthz_over_real_http(live_server, database_url: str) -> None:
    server = live_server(database_url=database_url)
    with urllib.request.urlopen(server.url("/healthz"), timeout=5) as response:
        assert response.status == 200
        body = json.loads(response.read())
        assert body["status"] == "ok" and body["database"] == "ok"
        assert body["node"] and response.headers["X-Atout-Node"] == body["node"]
    # the server logs JSON lines
    startup = [
        json.loads(line)
        for line in server.logs().splitlines()
        if line.startswith("{") and '"event": "startup"' in line
    ]
    assert startup and startup[0]["logger"] == "atout.main"


def test_live_server_survives_kill_and_restart_on_the_same_database(live_server) -> None:
    server = live_server()
    first_pid = server.pid
    server.kill()
    assert not server.is_running()
    server.restart()
    assert server.pid != first_pid
    with urllib.request.urlopen(server.url("/healthz"), timeout=5) as response:
        assert response.status == 200
    server.stop()  # graceful: the shutdown hook runs
    assert server.logs().count('"atout stopped"') == 1  # the SIGKILLed run never logged it
