"""The fair-play batch job (app/players/fairplay.py): the shares it counts, and a real deal
played against the computer, rated by ``atout fairplay`` and shown on the admin page."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import httpx

from app.players.fairplay import MIN_DECISIONS, summarise, tally
from tests.conftest import PROJECT_ROOT
from tests.web.wsclient import Browser


def card(seat: int, played: str, real: list[str], expected: list[str]) -> dict:
    return {
        "kind": "card",
        "seat": seat,
        "played": played,
        "real": {"best": real},
        "expected": {"best": expected},
    }


def test_the_shares_and_the_distribution():
    totals: dict = {}
    holders = {0: 10, 2: 20}  # seats 1 and 3 are computer players: not rated
    deal = {
        "decisions": [
            card(0, "AS", ["AS"], ["AS"]),
            card(0, "7H", ["8H"], ["7H", "8H"]),
            card(2, "KD", ["KD"], ["QD"]),
            card(1, "9C", ["9C"], ["9C"]),
            {"kind": "bid", "seat": 0},
        ]
    }
    tally(totals, holders, deal)
    tally(totals, holders, deal)
    assert totals[10] == {"deals": 2, "decisions": 4, "dd": 2, "info": 4}
    assert totals[20] == {"deals": 2, "decisions": 2, "dd": 2, "info": 0}
    out = summarise(totals, {10: "Ana", 20: "Bob"})
    by_id = {p["identity_id"]: p for p in out["players"]}
    assert (by_id[10]["dd"], by_id[10]["info"]) == (50.0, 100.0)
    assert (by_id[20]["dd"], by_id[20]["info"]) == (100.0, 0.0)
    assert by_id[10]["percentile"] is None  # fewer than MIN_DECISIONS decisions
    assert out["server"]["dd"] == round(100 * 4 / 6, 1)
    big = {i: {"deals": 5, "decisions": MIN_DECISIONS, "dd": i, "info": 0} for i in range(1, 5)}
    ranked = summarise(big, {})
    assert [p["percentile"] for p in ranked["players"]] == [100, 75, 50, 25]


async def test_a_deal_against_the_computer_is_rated_and_shown(live_server, tmp_path):
    token = "fair-play-admin-token"
    server = live_server(env={"ATOUT_ADMIN_TOKEN": token, "ATOUT_BACKUP_DIR": str(tmp_path / "b")})
    browser = await Browser.new(server)
    await browser.post("/api/me/name", {"name": "Ana"})
    game_id = await browser.create(variant="classic", mode="computer", options={"target": 501})
    sock = await browser.connect(game_id)
    rng = random.Random(5)
    while not sock.view.get("results"):  # one whole deal
        if sock.my_turn_seat() is not None:
            await sock.act(rng.choice(sock.legal()))
            answer = await sock.next_of("ack", "error")
            assert answer["type"] == "ack" or answer["code"] == "stale_version", answer
        else:
            await sock.recv()
    await sock.close()
    out = tmp_path / "fairplay.json"
    result = subprocess.run(
        [sys.executable, "-m", "app", "fairplay", "--all", "--worlds", "2", "--out", str(out)],
        env={
            "ATOUT_DATABASE_URL": server.database_url,
            "PYTHONPATH": str(PROJECT_ROOT),
            "PATH": "/usr/bin:/bin",
        },
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    assert report["deals"] == 1 and report["scope"] == "all"
    [player] = report["players"]
    assert player["name"] == "Ana" and player["deals"] == 1
    assert 0 < player["decisions"] <= 8
    assert 0 <= player["dd"] <= 100 and 0 <= player["info"] <= 100
    # the admin page shows the report it finds beside the backup folder (tmp_path/b)
    async with httpx.AsyncClient(base_url=server.base_url, follow_redirects=False) as client:
        login = await client.post("/admin/login", data={"token": token})
        assert login.status_code == 303
        page = await client.get("/admin/fairplay")
    assert page.status_code == 200
    assert "data-fair" in page.text and "Ana" in page.text
