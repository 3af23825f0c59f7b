"""A live Swiss event end to end against a real server process, with real sockets: four
pairs (humans through WebSocket clients, a house partner, an absent player played by the
stand-in under the clock), 2 rounds of 2 boards, and a SIGKILL of the server in the middle of
round 1. The round goes on after the restart; nothing is lost."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import websockets

from tests.web.wsclient import Browser

pytestmark = pytest.mark.db

ENV = {
    "ATOUT_TOURNAMENT_PLAYER_SWISS": "1",
    "ATOUT_CLOCK_SECONDS": "1",  # an absent player's decision is played after 1 s
    "ATOUT_TOURNAMENT_LIVE_SECONDS": "0.2",
}


class Human:
    """A browser at the event: follows its pair's table from the event's API and plays its
    seat at random; survives the server's restarts (reconnects and goes on)."""

    def __init__(self, browser: Browser, event_id: str, seed: int) -> None:
        self.browser = browser
        self.event_id = event_id
        self.rng = random.Random(seed)
        self.done: set[str] = set()
        self.played = 0

    async def run(self) -> None:
        while True:
            try:
                status, data = await self.browser.get(f"/api/tournaments/{self.event_id}")
            except Exception:  # the server is down: try again
                await asyncio.sleep(0.2)
                continue
            if status != 200:
                await asyncio.sleep(0.2)
                continue
            if data["event"]["phase"] == "finished":
                return
            game_id = (data["you"] or {}).get("game_id")
            if game_id is None or game_id in self.done:
                await asyncio.sleep(0.1)
                continue
            try:
                await self.play(game_id)
            except (OSError, websockets.WebSocketException, TimeoutError, AssertionError):
                await asyncio.sleep(0.2)  # the server went away: reconnect

    async def play(self, game_id: str) -> None:
        sock = await self.browser.connect(game_id)
        try:
            assert sock.role == "seat", sock.role
            while True:
                view = sock.view or {}
                if view.get("phase") in ("deal_over", "match_over"):
                    self.done.add(game_id)
                    return
                if await sock.play_random(self.rng):
                    answer = await sock.next_of("ack", "error")
                    if answer["type"] == "ack":
                        self.played += 1
                        await sock.until(lambda s, v=answer["version"]: s.version >= v)
                    continue
                await sock.recv()
        finally:
            with contextlib.suppress(Exception):
                await sock.close()


async def event_view(browser: Browser, event_id: str) -> dict[str, Any]:
    for _ in range(100):
        try:
            status, data = await browser.get(f"/api/tournaments/{event_id}")
        except Exception:
            await asyncio.sleep(0.2)
            continue
        if status == 200:
            return data  # type: ignore[no-any-return]
        await asyncio.sleep(0.2)
    raise AssertionError("the event's API never answered")


async def until(browser: Browser, event_id: str, predicate: Any, timeout: float) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        data = await event_view(browser, event_id)
        if predicate(data):
            return data
        assert loop.time() < end, f"timed out; the event: {data['event']} {data['round']}"
        await asyncio.sleep(0.2)


async def test_a_live_swiss_survives_a_sigkill_in_the_middle_of_a_round(live_server, database_url):
    server = live_server(ENV, database_url=database_url)
    organiser = await Browser.new(server)
    starts = datetime.now(UTC) + timedelta(seconds=4)
    status, created = await organiser.post(
        "/api/tournaments/swiss",
        {
            "variant": "classic",
            "rounds": 2,
            "boards": 2,
            "clock": 15,
            "starts_at": starts.isoformat(),
            "level": "easy",
            "title": "Live",
        },
    )
    assert status == 201, created
    event_id = created["id"]
    browsers = [await Browser.new(server) for _ in range(6)]
    a, b, c, d, e, f = browsers
    # pair 1: a + b through the partner link; pair 2: c alone (house partner); pair 3: d + e;
    # pair 4: f alone, who never comes to the table (the stand-in plays, under the clock)
    status, got = await a.post(f"/api/tournaments/{event_id}/register", {"partner": "link"})
    assert status == 200 and got["link"], got
    status, joined = await b.post(
        f"/api/tournaments/{event_id}/join/{got['link'].rsplit('/', 1)[1]}"
    )
    assert status == 200 and joined == {"pair": 1}, joined
    # the link is spent
    status, again = await c.post(
        f"/api/tournaments/{event_id}/join/{got['link'].rsplit('/', 1)[1]}"
    )
    assert status == 409 and again["error"]["code"] == "link_used", again
    assert (await c.post(f"/api/tournaments/{event_id}/register", {"partner": "house"}))[0] == 200
    status, got = await d.post(f"/api/tournaments/{event_id}/register", {"partner": "link"})
    assert status == 200
    assert (await e.post(f"/api/tournaments/{event_id}/join/{got['link'].rsplit('/', 1)[1]}"))[
        0
    ] == 200
    assert (await f.post(f"/api/tournaments/{event_id}/register", {"partner": "house"}))[0] == 200
    # a page watching the event over its socket
    page = await websockets.connect(
        f"{server.ws_url}/ws/tournaments/{event_id}",
        additional_headers={"Cookie": f"atout_id={a.token}"},
    )
    first = await asyncio.wait_for(page.recv(), 10)
    assert '"type": "tournament"' in first
    humans = [Human(x, event_id, seed) for seed, x in enumerate((a, b, c, d, e))]
    tasks = [asyncio.create_task(h.run()) for h in humans]
    try:
        # in the middle of round 1: its second board dealt
        before = await until(
            organiser,
            event_id,
            lambda v: (
                v["round"] is not None and v["round"]["round"] == 1 and v["round"]["board"] == 2
            ),
            120,
        )
        assert len(before["round"]["tables"]) == 2
        # during the round its boards are hidden from everyone, with the reason
        status, hidden = await a.get(f"/api/tournaments/{event_id}/boards/1")
        assert status == 403 and hidden["error"]["code"] == "hidden", hidden
        status, text = await a.get(f"/t/{event_id}/boards/1")
        assert status == 403 and "until its round is over" in text
        pushed = []
        with contextlib.suppress(TimeoutError):
            while True:
                pushed.append(await asyncio.wait_for(page.recv(), 0.5))
        assert pushed, "the page was told of the start and the boards"
        server.kill()
        await asyncio.sleep(0.5)
        server.start()
        after = await event_view(organiser, event_id)
        # the event goes on from where it was, never back (board 2 of round 1, or later if a
        # slow machine let it finish before the kill)
        assert (after["round"]["round"], after["round"]["board"]) >= (1, 2), after["round"]
        final = await until(organiser, event_id, lambda v: v["event"]["phase"] == "finished", 240)
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            await page.close()
    assert all(h.played > 0 for h in humans)
    rows = {r["pair"]: r for r in final["standings"]}
    assert set(rows) == {1, 2, 3, 4}
    assert rows[2]["house_partner"] and rows[4]["house_partner"]
    assert rows[4]["withdrawn"]  # absent from every board of round 1
    assert final["round"]["round"] == 2 and final["round"]["finished"]
    # round 2: three pairs, one of them against a pair of house players
    assert len(final["round"]["tables"]) == 2
    assert any(0 in (t["ns"], t["ew"]) for t in final["round"]["tables"])
    # every board's traveller: every table's result, each record readable
    for board in range(1, 5):
        status, trav = await a.get(f"/api/tournaments/{event_id}/boards/{board}")
        assert status == 200, trav
        assert len([t for t in trav["tables"] if not t["datum"]]) == 2
        assert any(t["datum"] for t in trav["tables"])  # fewer than 3 tables: a datum
        for t in trav["tables"]:
            status, record = await a.get(f"/api/games/{t['game_id']}/record")
            assert status == 200, record
            assert record["meta"]["event"] == event_id
            assert record["meta"]["board"] == board
    status, text = await a.get(f"/api/tournaments/{event_id}/results.csv")
    assert status == 200 and text.count("\n") == 1 + 4 * 3
    await check_lockstep(database_url, event_id, boards=2)


async def check_lockstep(database_url: str, event_id: str, boards: int) -> None:
    """From the stored rows, across the restart: no table's game of a round's board k+1 was
    created before every table's game of board k had its last action."""
    from sqlalchemy import text as sql

    from app.persistence.db import create_engine_from_url

    engine = create_engine_from_url(database_url)
    try:
        async with engine.connect() as conn:
            rows = (
                await conn.execute(
                    sql(
                        "SELECT t.board, g.created_at, g.updated_at FROM tournament_tables t"
                        " JOIN games g ON g.id = t.game_id"
                        ' WHERE t.tournament_id = :e AND t."table" > 0'
                    ),
                    {"e": event_id},
                )
            ).all()
    finally:
        await engine.dispose()
    by_board: dict[int, list[Any]] = {}
    for board, created, updated in rows:
        by_board.setdefault(board, []).append((created, updated))
    for board, games in by_board.items():
        if (board - 1) % boards == 0:
            continue  # a round's first board follows the round before
        dealt = min(created for created, _ in games)
        ended = max(updated for _, updated in by_board[board - 1])
        assert dealt >= ended, (board, dealt, ended)


async def lease_owners(database_url: str, event_id: str) -> list[str]:
    """The lease owners of the event's unfinished tables (their node ids)."""
    import asyncpg

    from app.persistence.notify import asyncpg_dsn

    conn = await asyncpg.connect(asyncpg_dsn(database_url))
    try:
        rows = await conn.fetch(
            "SELECT l.owner FROM room_leases l JOIN tournament_tables t ON t.game_id = l.game_id"
            " JOIN games g ON g.id = t.game_id WHERE t.tournament_id = $1"
            " AND g.status = 'playing' AND l.expires_at > now()",
            event_id,
        )
    finally:
        await conn.close()
    return [r["owner"] for r in rows]


async def test_a_live_swiss_fails_over_to_another_process(live_server, database_url, is_postgresql):
    """Two server processes on one PostgreSQL database, both running the live events' loop
    (each may load some of the round's tables): a process holding tables is killed (SIGKILL)
    in the middle of a round (round 1 once its second board is dealt, or the first board
    after it that a table is still playing); the other takes their leases, plays on, and the
    event ends. The players' browsers move to the other process (as a proxy would send
    them)."""
    if not is_postgresql:
        pytest.skip("several processes need PostgreSQL: set ATOUT_DATABASE_URL (make test-db)")
    env = {**ENV, "ATOUT_LEASE_SECONDS": "1.5"}
    first = live_server(env, database_url=database_url)
    second = live_server(env, database_url=database_url, migrate=False)
    organiser = await Browser.new(first)
    starts = datetime.now(UTC) + timedelta(seconds=4)
    status, created = await organiser.post(
        "/api/tournaments/swiss",
        {
            "variant": "classic",
            "rounds": 2,
            "boards": 2,
            "clock": 15,
            "level": "easy",
            "starts_at": starts.isoformat(),
        },
    )
    assert status == 201, created
    event_id = created["id"]
    browsers = [await Browser.new(first) for _ in range(4)]
    for b in browsers:
        status, _ = await b.post(f"/api/tournaments/{event_id}/register", {"partner": "house"})
        assert status == 200
    humans = [Human(x, event_id, seed) for seed, x in enumerate(browsers)]
    tasks = [asyncio.create_task(h.run()) for h in humans]
    try:
        await until(
            organiser,
            event_id,
            lambda v: v["round"] is not None and v["round"]["board"] == 2,
            120,
        )
        # the process that holds the round's tables is killed; every browser goes to the
        # other one from now on
        owners = await lease_owners(database_url, event_id)
        deadline = time.monotonic() + 60
        while not owners:  # between two boards no table is playing: the next one's leases
            assert time.monotonic() < deadline, "the tables are held under leases"
            await asyncio.sleep(0.05)
            owners = await lease_owners(database_url, event_id)
        # (each process may hold some of them: both run the loop that loads them)
        dead = next(x for x in (first, second) if owners[0] == f"live-server-{x.port}")
        alive = second if dead is first else first
        for b in (organiser, *browsers):
            b.server = alive
        dead.kill()
        final = await until(organiser, event_id, lambda v: v["event"]["phase"] == "finished", 240)
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    assert final["round"]["round"] == 2 and final["round"]["finished"]
    assert {r["pair"] for r in final["standings"]} == {1, 2, 3, 4}
    assert not any(r["withdrawn"] for r in final["standings"])
    for board in range(1, 5):
        status, trav = await organiser.get(f"/api/tournaments/{event_id}/boards/{board}")
        assert status == 200 and len([t for t in trav["tables"] if not t["datum"]]) == 2
