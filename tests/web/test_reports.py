"""Reports and blocks from the table (app/web/reports.py) and the word filter: what a report
keeps, what is refused (nothing stored, the table's socket still usable), and what quick play
can ask (app/web/moderation.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.web import moderation
from tests.web.test_admin import call, make, rows


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make(tmp_path, word_filter="merde, дурак") as c:
        yield c


def table(client: TestClient) -> tuple[str, dict[str, str], dict[str, str]]:
    """A friends game with two humans at it: (game id, host's cookies, guest's cookies)."""
    host = {"atout_id": call(client, "POST", "/api/me").cookies["atout_id"]}
    guest = {"atout_id": call(client, "POST", "/api/me").cookies["atout_id"]}
    call(client, "POST", "/api/me/name", host, json={"name": "Ana"})
    call(client, "POST", "/api/me/name", guest, json={"name": "Rude"})
    game = call(client, "POST", "/api/games", host, json={"variant": "classic", "mode": "friends"})
    game_id = game.json()["game_id"]
    joined = call(client, "POST", f"/api/games/{game_id}/join", guest)
    assert joined.status_code == 200, joined.text
    return game_id, host, guest


def say(client: TestClient, game_id: str, who: dict[str, str], text: str) -> dict:
    headers = {"Cookie": f"atout_id={who['atout_id']}"}
    with client.websocket_connect(f"/ws/{game_id}", headers=headers) as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_json({"type": "chat", "id": "c-1", "kind": "text", "text": text})
        while (msg := ws.receive_json())["type"] != "chat":
            assert msg["type"] != "error", msg
        return msg["message"]


def test_a_report_keeps_the_lines_as_shown_and_the_host_sees_it(client, tmp_path):
    game_id, host, guest = table(client)
    line = say(client, game_id, guest, "quelle MERDE, toi")
    assert line["text"] == "quelle *****, toi"  # the word filter, before anyone sees it
    seat = line["seat"]
    sent = call(
        client,
        "POST",
        f"/api/games/{game_id}/reports",
        host,
        json={"reason": "abuse", "seat": seat, "lines": [line["id"]], "note": "  rude  "},
    )
    assert sent.status_code == 201, sent.text
    [(reason, note, status, lines, name)] = rows(
        tmp_path, "SELECT reason, note, status, lines, reported_name FROM reports"
    )
    assert (reason, note, status, name) == ("abuse", "rude", "open", "Rude")
    assert "quelle *****, toi" in lines
    # by lines alone: the author is the reported player
    alone = call(
        client,
        "POST",
        f"/api/games/{game_id}/reports",
        host,
        json={"reason": "spam", "lines": [line["id"]]},
    )
    assert alone.status_code == 201


def test_bad_reports_are_refused_and_change_nothing(client, tmp_path):
    game_id, host, guest = table(client)
    line = say(client, game_id, guest, "hello")
    path = f"/api/games/{game_id}/reports"
    bad = [
        {"reason": "abuse", "seat": line["seat"], "note": "x" * 501},
        {"reason": "boredom", "seat": line["seat"]},
        {"reason": "abuse"},
        {"reason": "abuse", "seat": line["seat"], "lines": [line["id"] + 999]},
        {"reason": "abuse", "seat": line["seat"], "lines": list(range(50))},
        {"reason": "abuse", "seat": line["seat"], "extra": 1},
        {"reason": "abuse", "seat": 3},  # nobody there
        {"reason": "abuse", "seat": "1"},
    ]
    for body in bad:
        response = call(client, "POST", path, host, json=body)
        assert response.status_code == 400, body
        assert response.json()["error"]["code"] == "invalid_report"
    me = call(client, "POST", path, guest, json={"reason": "abuse", "seat": line["seat"]})
    assert me.status_code == 400  # oneself
    anonymous = call(client, "POST", path, json={"reason": "abuse", "seat": line["seat"]})
    assert anonymous.status_code == 403
    missing = call(
        client, "POST", "/api/games/nope/reports", host, json={"reason": "abuse", "seat": 0}
    )
    assert missing.status_code == 404
    assert rows(tmp_path, "SELECT count(*) FROM reports") == [(0,)]


def test_a_flood_of_reports_is_refused_and_the_table_stays_usable(client, tmp_path):
    game_id, host, guest = table(client)
    seat = say(client, game_id, guest, "hi")["seat"]
    path = f"/api/games/{game_id}/reports"
    headers = {"Cookie": f"atout_id={host['atout_id']}"}
    with client.websocket_connect(f"/ws/{game_id}", headers=headers) as ws:
        assert ws.receive_json()["type"] == "state"
        codes = [
            call(client, "POST", path, host, json={"reason": "spam", "seat": seat}).status_code
            for _ in range(7)
        ]
        assert codes == [201] * 5 + [429] * 2
        ws.send_json({"type": "ping"})
        while ws.receive_json()["type"] != "pong":
            pass
    assert rows(tmp_path, "SELECT count(*) FROM reports") == [(5,)]


def test_blocks_are_stored_and_quick_play_can_ask(client, tmp_path):
    game_id, host, guest = table(client)
    seat = say(client, game_id, guest, "hi")["seat"]
    path = f"/api/games/{game_id}/blocks"
    assert call(client, "POST", path, host, json={"seat": seat}).json() == {"blocked": True}
    assert call(client, "POST", path, host, json={"seat": 0}).status_code == 400  # oneself
    assert call(client, "POST", path, host, json={"seat": "x"}).status_code == 400
    [(a, b)] = rows(tmp_path, "SELECT identity_id, blocked_id FROM blocks")
    app = client.app

    async def ask() -> tuple[set, bool, bool]:
        return (
            await moderation.blocked_pairs(app, [a, b]),
            await moderation.may_sit_together(app, b, [a]),
            await moderation.may_sit_together(app, a, [999]),
        )

    pairs, together, others = client.portal.call(ask)  # type: ignore[union-attr]
    assert pairs == {(a, b)} and together is False and others is True
    assert (
        call(client, "POST", path, host, json={"seat": seat, "blocked": False}).status_code == 200
    )
    assert rows(tmp_path, "SELECT count(*) FROM blocks") == [(0,)]


def test_the_word_filter_masks_whole_words_in_any_script():
    pattern = moderation.word_pattern("merde, дурак ,Idiot")
    assert moderation.mask_words(pattern, "Merde! мерде ДУРАК, idiots, idiot.") == (
        "*****! мерде *****, idiots, *****."
    )
    assert moderation.mask_words(moderation.word_pattern(""), "merde") == "merde"
    assert moderation.mask_words(pattern, "mérde") == "*****"
