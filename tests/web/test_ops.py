"""What a host watches and what a crawler leaves: /metrics, /api/stats, the stall watchdog, and
identities created only when a browser acts."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from app import loop, metrics
from app.logging import JsonFormatter
from app.main import create_app
from app.settings import Settings
from tests.conftest import migrate_database
from tests.web.wsclient import Browser

LOCAL = ("127.0.0.1", 40000)


def make_client(tmp_path: Path, client: tuple[str, int] = LOCAL, **settings: object) -> TestClient:
    url = f"sqlite+aiosqlite:///{tmp_path / 'ops.db'}"
    migrate_database(url)
    config = Settings(
        _env_file=None,
        database_url=url,
        bot_delay_ms=0,
        bot_workers=0,
        **settings,  # type: ignore[arg-type]
    )
    return TestClient(create_app(config), client=client)


@pytest.fixture
def local(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path) as client:
        yield client


def families(text: str) -> dict[str, list]:
    """Metric name -> samples, from the Prometheus text format."""
    return {f.name: f.samples for f in text_string_to_metric_families(text)}


def value(samples: list, name: str, **labels: str) -> float:
    return sum(
        s.value
        for s in samples
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())
    )


def identity_rows(tmp_path: Path) -> int:
    with sqlite3.connect(tmp_path / "ops.db") as db:
        return int(db.execute("SELECT COUNT(*) FROM identities").fetchone()[0])


# ---------------------------------------------------------------------------- /metrics


async def test_metrics_report_rooms_sockets_actions_commits_bots_and_errors(module_server):
    browser = await Browser.new(module_server)
    game_id = await browser.create(variant="classic", mode="computer", level="easy")
    sock = await browser.connect(game_id)
    watcher_browser = await Browser.new(module_server)
    watcher = await watcher_browser.connect(game_id)
    acted = 0
    while acted < 3:
        await sock.until(lambda s: s.my_turn_seat() is not None)
        await sock.act(sock.legal()[0])
        acked = await sock.next_of("ack", "error")
        assert acked["type"] == "ack", acked
        await sock.until(lambda s, v=acked["version"]: s.version >= v)
        acted += 1
    await sock.send({"type": "no_such_message"})
    assert (await sock.next_of("error"))["type"] == "error"
    async with httpx.AsyncClient(base_url=module_server.base_url) as client:
        response = await client.get("/metrics")
        stats = (await client.get("/api/stats")).json()
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    found = families(response.text)
    assert value(found["atout_rooms"], "atout_rooms") >= 1
    assert value(found["atout_sockets"], "atout_sockets") >= 2
    assert value(found["atout_players_connected"], "atout_players_connected") >= 1
    assert value(found["atout_spectators"], "atout_spectators") >= 1
    actions = found["atout_action_seconds"]
    assert value(actions, "atout_action_seconds_count") >= 3
    assert value(actions, "atout_action_seconds_bucket", le="+Inf") >= 3
    assert value(found["atout_commit_seconds"], "atout_commit_seconds_count") >= 3
    assert value(found["atout_commit_batch_size"], "atout_commit_batch_size_count") >= 3
    assert value(found["atout_commit_writes"], "atout_commit_writes_total") >= 3
    # the computer players of the table thought at the easy level
    assert value(found["atout_bot_think_seconds"], "atout_bot_think_seconds_count", level="easy")
    assert value(found["atout_errors"], "atout_errors_total", transport="ws") >= 1
    for name in (
        "atout_gc_pause_seconds",
        "atout_loop_stall_seconds",
        "atout_loop_stall_max_seconds",
        "atout_rooms_loaded",
        "atout_rooms_evicted",
        "process_resident_memory_bytes",
    ):
        assert name in found, name
    # /api/stats reads the same registry
    assert stats["rooms"] == value(found["atout_rooms"], "atout_rooms")
    assert sum(stats["actions"]["counts"]) >= 3
    assert stats["writer"]["works"] >= 3 and stats["writer"]["largest_batch"] >= 1
    assert set(stats["stall"]) >= {"counts", "max_ms"} and "longest_stall_ms" in stats
    await sock.close()
    await watcher.close()


def test_metrics_are_open_to_this_machine_only_without_a_token(tmp_path: Path):
    with make_client(tmp_path, client=("203.0.113.9", 5000)) as remote:
        for path in ("/metrics", "/api/stats"):
            response = remote.get(path)
            assert response.status_code == 403
            assert response.json()["error"]["code"] == "not_allowed"
    with make_client(tmp_path) as local:
        assert local.get("/metrics").status_code == 200
        assert local.get("/api/stats").status_code == 200
        # a reverse proxy on this machine forwards the world's requests: not local
        proxied = local.get("/metrics", headers={"X-Forwarded-For": "203.0.113.9"})
        assert proxied.status_code == 403


def test_a_metrics_token_opens_them_from_anywhere(tmp_path: Path):
    with make_client(tmp_path, client=("203.0.113.9", 5000), metrics_token="s3cret-t0ken") as c:
        missing = c.get("/metrics")
        assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
        wrong = c.get("/metrics", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        good = c.get("/metrics", headers={"Authorization": "Bearer s3cret-t0ken"})
        assert good.status_code == 200 and "atout_action_seconds" in good.text
        stats = c.get("/api/stats", headers={"Authorization": "Bearer s3cret-t0ken"})
        assert stats.status_code == 200 and "actions" in stats.json()


# ---------------------------------------------------------------------------- stall watchdog


def slow_stalls(stats: dict) -> int:
    """Stalls longer than 200 ms (the buckets above that bound)."""
    bounds = stats["stall"]["bounds_ms"]
    return sum(stats["stall"]["counts"][bounds.index(200) + 1 :])


def test_the_watchdog_reports_a_300_ms_block_of_the_event_loop(local: TestClient):
    before = local.get("/api/stats").json()
    local.get("/healthz")
    assert local.portal is not None
    local.portal.call(asyncio.sleep, 0.1)  # the watchdog is sleeping on the app's loop
    blocked_at = time.monotonic()
    local.portal.call(time.sleep, 0.3)  # a blocking call, in the loop's own thread
    local.portal.call(asyncio.sleep, 0.1)  # the watchdog wakes up late, and says so
    after = local.get("/api/stats").json()
    assert slow_stalls(after) - slow_stalls(before) >= 1
    assert after["longest_stall_ms"] >= 250
    # the long stall is kept with its time on the system's monotonic clock (bench/sentinel)
    ((t, ms),) = [s for s in after["long_stalls"] if s not in before["long_stalls"] and s[1] >= 250]
    assert blocked_at + 0.25 <= t <= time.monotonic()
    found = families(local.get("/metrics").text)
    assert value(found["atout_loop_stall_max_seconds"], "atout_loop_stall_max_seconds") >= 0.25
    stalls = found["atout_loop_stall_seconds"]
    assert value(stalls, "atout_loop_stall_seconds_count") > value(
        stalls, "atout_loop_stall_seconds_bucket", le="0.2"
    )


def test_the_watchdog_alone_measures_how_late_it_wakes():
    async def run() -> tuple[int, float]:
        task = asyncio.create_task(loop.watch_loop(0.01))
        await asyncio.sleep(0.05)
        before = sum(metrics.STALLS.as_dict()["counts"][7:])  # above 200 ms
        time.sleep(0.3)
        await asyncio.sleep(0.05)
        task.cancel()
        return sum(metrics.STALLS.as_dict()["counts"][7:]) - before, metrics.STALLS.as_dict()[
            "max_ms"
        ]

    slow, longest = asyncio.run(run())
    assert slow >= 1 and longest >= 250


def a_deliberate_block() -> None:
    """Blocks the calling thread (the loop's, below) for 300 ms in Python code."""
    end = time.perf_counter() + 0.3
    while time.perf_counter() < end:
        sum(range(1000))


def test_the_stall_tracer_names_what_blocked_the_loop():
    async def run() -> list[dict]:
        tracer = loop.StallTracer(0.05)
        tracer.start()
        task = asyncio.create_task(loop.watch_loop(tracer=tracer))
        try:
            await asyncio.sleep(0.1)  # a quiet loop: nothing to report
            assert tracer.culprits() == []
            a_deliberate_block()
            await asyncio.sleep(0.1)  # the watchdog wakes: the stall is over
            return tracer.culprits()
        finally:
            task.cancel()
            tracer.stop()

    culprits = asyncio.run(run())
    assert len(culprits) == 1
    (stall,) = culprits
    assert "test_ops.py" in stall["where"] and "a_deliberate_block" in stall["where"]
    assert stall["stalls"] == 1 and 250 <= stall["longest_ms"] <= 1000


def test_the_server_lists_stall_culprits_when_asked(tmp_path: Path):
    with make_client(tmp_path, stall_trace_ms=100) as client:
        assert client.portal is not None
        client.portal.call(asyncio.sleep, 0.1)
        client.portal.call(a_deliberate_block)  # in the loop's own thread
        client.portal.call(asyncio.sleep, 0.1)
        culprits = client.get("/api/stats").json()["stall_culprits"]
    assert any("a_deliberate_block" in c["where"] and c["longest_ms"] >= 250 for c in culprits)
    with make_client(tmp_path) as client:
        assert client.get("/api/stats").json()["stall_culprits"] is None


# ---------------------------------------------------------------------------- identities


def test_a_thousand_cookieless_reads_create_no_identity(tmp_path: Path):
    with make_client(tmp_path) as client:
        created = client.post(
            "/api/games", json={"variant": "classic", "mode": "computer", "level": "easy"}
        )
        assert created.status_code == 201
        game_id = created.json()["game_id"]
        client.cookies.clear()
        rows = identity_rows(tmp_path)
        assert rows == 1
        paths = [
            "/",
            "/rules/classic",
            "/ranking",
            "/ranking/classic",
            "/profile",
            "/replay",
            f"/replay/{game_id}",
            "/g/NoSuchGame12345",
            "/api/me",
            "/api/me/profile",
            "/api/me/history",
            "/api/ranking/classic",
            f"/api/games/{game_id}",
            f"/api/games/{game_id}/record",
            f"/api/games/{game_id}/replay",
            f"/api/games/{game_id}/awards",
            "/api/games/NoSuchGame12345",
            "/healthz",
            "/static/js/common.js",
            "/no/such/page",
        ]
        statuses = set()
        for i in range(1000):
            response = client.get(paths[i % len(paths)], headers={"Cookie": ""})
            assert "set-cookie" not in response.headers, paths[i % len(paths)]
            assert response.status_code < 500, paths[i % len(paths)]
            statuses.add(response.status_code)
            client.cookies.clear()
        assert identity_rows(tmp_path) == rows
        assert 200 in statuses and 404 in statuses
        me = client.get("/api/me").json()
        assert me == {"name": None, "games": [], "grouped": {}}
        # acting creates one: naming itself
        named = client.post("/api/me/name", json={"name": "Ana"})
        assert named.status_code == 200 and "atout_id=" in named.headers["set-cookie"]
        assert identity_rows(tmp_path) == rows + 1


# ---------------------------------------------------------------------------- logs


def test_log_lines_about_a_game_carry_game_id_and_seat(tmp_path: Path, caplog):
    caplog.set_level("INFO", logger="atout")
    with make_client(tmp_path) as client:
        created = client.post("/api/games", json={"variant": "duel", "mode": "friends"})
        game_id = created.json()["game_id"]
        client.cookies.clear()  # a guest joins, then leaves
        assert client.post(f"/api/games/{game_id}/join").json()["seats"] == [1]
        left = client.post(f"/api/games/{game_id}/leave")
        assert left.status_code == 200, left.json()
    about_games = [r for r in caplog.records if hasattr(r, "game_id") or hasattr(r, "game")]
    events = {getattr(r, "event", None) for r in about_games}
    assert {"game_created", "seat_left"} <= events
    for record in about_games:
        assert not hasattr(record, "game"), record.getMessage()
        assert record.game_id == game_id and hasattr(record, "seat"), record.getMessage()
    left = next(r for r in about_games if getattr(r, "event", None) == "seat_left")
    assert left.seat == 1
    line = json.loads(JsonFormatter().format(left))
    assert line["game_id"] == game_id and line["seat"] == 1
