"""The tournaments' HTTP API and pages against a real server: bad input is refused with a
structured error and changes nothing; a hidden board answers 403 everywhere; the pages render
in every language."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.tournaments.conftest import check_answer

pytestmark = pytest.mark.db

LANGUAGES = ("en", "fr", "bg", "hr", "ro", "ru", "cs")


def create(client: httpx.Client, **values: object) -> str:
    body = {"variant": "classic", "boards": 1, "level": "easy", "hours": 1, **values}
    response = client.post("/api/tournaments", json=body)
    assert response.status_code == 201, response.text
    return str(check_answer("Created", response.json())["id"])


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"variant": "poker"}, "invalid_options"),
        ({"variant": "classic", "boards": 0}, "invalid_request"),
        ({"variant": "classic", "boards": 99}, "invalid_request"),
        ({"variant": "classic", "level": "godlike"}, "invalid_level"),
        ({"variant": "classic", "hours": 0}, "invalid_request"),
        ({"variant": "classic", "extra": 1}, "invalid_request"),
        ({"variant": "bela", "players": 5}, "invalid_options"),
        ({"variant": "classic", "options": {"target": 7}}, "invalid_options"),
        ({"variant": "classic", "starts_at": "2026-12-06T10:00:00"}, "invalid_window"),
    ],
)
def test_a_bad_event_is_refused_and_nothing_is_made(module_server, body, code) -> None:  # type: ignore[no-untyped-def]
    with httpx.Client(base_url=module_server.base_url) as client:
        before = client.get("/api/tournaments").json()
        response = client.post("/api/tournaments", json=body)
        assert response.status_code in (403, 422), response.text
        error = check_answer("Error", response.json())["error"]
        assert error["code"] == code and error["message"]
        assert client.get("/api/tournaments").json() == before


def test_unknown_events_and_boards_are_404_and_hidden_boards_403(module_server) -> None:  # type: ignore[no-untyped-def]
    with httpx.Client(base_url=module_server.base_url) as client:
        event_id = create(client)
        assert client.get("/api/tournaments/nope").status_code == 404
        assert client.get("/api/tournaments/bad%20id!").status_code in (404, 422)
        assert client.get("/t/nope").status_code == 404
        assert client.get(f"/api/tournaments/{event_id}/boards/2").status_code == 404
        assert client.get(f"/api/tournaments/{event_id}/boards/0").status_code == 422
        hidden = client.get(f"/api/tournaments/{event_id}/boards/1")
        assert hidden.status_code == 403 and hidden.json()["error"]["code"] == "hidden"
        assert client.get(f"/t/{event_id}/boards/1").status_code == 403
        # not entered: no board to play; exports wait for the window's end
        refused = client.post(f"/api/tournaments/{event_id}/boards/1/play")
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_entered"
        running = client.get(f"/api/tournaments/{event_id}/results.csv")
        assert running.status_code == 409 and running.json()["error"]["code"] == "event_running"
        assert check_answer("Entered", client.post(f"/api/tournaments/{event_id}/enter").json())
        assert client.post(f"/api/tournaments/{event_id}/enter").json() == {"table": 1}
        order = client.post(f"/api/tournaments/{event_id}/boards/2/play")
        assert order.status_code == 404
        game = client.post(f"/api/tournaments/{event_id}/boards/1/play").json()
        check_answer("BoardGame", game)
        check_answer("EventView", client.get(f"/api/tournaments/{event_id}").json())
        assert game["url"].startswith("/g/")
        # the game is this browser's; another browser may not read or watch it
        with httpx.Client(base_url=module_server.base_url) as stranger:
            assert stranger.get(f"/api/games/{game['game_id']}/record").status_code == 403
            assert stranger.get(f"/api/games/{game['game_id']}/replay").status_code == 403


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_pages_render_in_every_language(module_server, language: str) -> None:  # type: ignore[no-untyped-def]
    with httpx.Client(base_url=module_server.base_url, cookies={"atout_lang": language}) as client:
        event_id = create(client)
        for path in ("/tournaments", f"/t/{event_id}"):
            page = client.get(path, headers={"Accept-Language": language})
            assert page.status_code == 200
            visible = re.sub(r"<script.*?</script>", "", page.text, flags=re.S)
            assert "tour." not in visible  # no raw key
            assert f'lang="{language}"' in page.text


def test_the_api_schema_file_is_current() -> None:
    from app.web.tournament_schema import main

    assert main(["--check"]) == 0, "run python -m app.web.tournament_schema --write"
