"""Public tables on two processes behind HAProxy: strangers meet through quick play, a late
human takes a computer's seat at the end of the deal, and the lobby is the same on both
processes (its changes cross over as lobby notices, its counts as online notices)."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest

from bench.cluster import Cluster
from tests.scale.table import Player
from tests.web.test_live import play_randomly
from tests.web.test_lobby import Watcher
from tests.web.wsclient import Browser

pytestmark = pytest.mark.db


async def _post(browser: Browser, path: str, body: Any = None) -> tuple[int, Any]:
    """POST through the proxy; a 503 (the room is moving to the process the proxy sends its
    requests to) is tried again, as the browser does."""
    deadline = time.monotonic() + 15
    while True:
        status, answer = await browser.post(path, body)
        if status != 503 or time.monotonic() > deadline:
            return status, answer
        await asyncio.sleep(0.3)


def kinds(watcher: Watcher, game_id: str) -> list[str]:
    table = watcher.tables.get(game_id)
    return [] if table is None else [s["kind"] for s in table["seats"]]


async def both(watchers: list[Watcher], predicate: Any, timeout: float = 15) -> None:
    await asyncio.gather(*(w.until(predicate, timeout) for w in watchers))


async def test_strangers_meet_and_the_lobby_is_the_same_on_both_processes(
    make_cluster: Any,
) -> None:
    cluster: Cluster = make_cluster(
        2, env={"ATOUT_PUBLIC_FILL_SECONDS": "4", "ATOUT_NEXT_DEAL_SECONDS": "0.5"}
    )
    first, second, late = [await Browser.new(cluster) for _ in range(3)]
    # a home page on each process, straight to it (not through the proxy)
    watchers = []
    for node in cluster.nodes:
        home = await Browser.new(cluster)
        watchers.append(await Watcher.open(Browser(node, home.token)))

    status, body = await first.post("/api/quickplay", {"variant": "classic"})
    assert status == 200 and body["candidates"] == [], body
    game_id = body["created"]["game_id"]
    a = await Player(first).connect(game_id, within=15)
    assert a.seats == [0]
    await both(watchers, lambda w: kinds(w, game_id) == ["human", "free", "free", "free"])

    # the second stranger is offered that table, whichever process answers
    status, body = await second.post("/api/quickplay", {"variant": "classic"})
    assert status == 200 and [c["game_id"] for c in body["candidates"]] == [game_id], body
    status, body = await _post(second, f"/api/games/{game_id}/sit", {})
    assert status == 200 and body["role"] == "seat", body
    b = await Player(second).connect(game_id, within=15)
    await both(watchers, lambda w: kinds(w, game_id)[:2] == ["human", "human"])

    # nobody else: computers take seats 2 and 3, on both lobbies
    await a.until(lambda s: s.room["status"] == "playing", timeout=20)
    await both(
        watchers,
        lambda w: (
            kinds(w, game_id) == ["human", "human", "computer", "computer"]
            and w.tables[game_id]["status"] == "playing"
            and w.tables[game_id]["free"] == 2
        ),
    )

    # the late human asks for seat 3 mid-deal; both lobbies lose that "Sit here"
    status, body = await _post(late, f"/api/games/{game_id}/sit", {"seat": 3})
    assert status == 200 and body["role"] == "heir" and body["seat"] == 3, body
    c = await Player(late).connect(game_id, within=15)
    assert c.role == "spectator"
    await both(watchers, lambda w: w.tables[game_id]["free"] == 1)
    assert [s["free"] for s in watchers[0].tables[game_id]["seats"]] == [
        False,
        False,
        True,
        False,
    ]

    rng = random.Random(33)

    def deal_over(sock: Any) -> bool:
        return sock.view is not None and sock.view["phase"] == "deal_over"

    await asyncio.gather(
        play_randomly(a, "classic", rng, stop=deal_over),
        play_randomly(b, "classic", rng, stop=deal_over),
    )
    await c.until(lambda s: s.seats == [3], timeout=15)
    assert c.room["seats"][3]["kind"] == "human"
    await both(watchers, lambda w: kinds(w, game_id) == ["human", "human", "computer", "human"])
    # the counts add both processes: three players and two home pages
    await both(watchers, lambda w: w.counts.get("online", 0) >= 5, timeout=20)
    # every entry reached the two home pages the same, in the same order of changes
    tables = [[m["table"] for m in w.log if m["type"] == "lobby_table"] for w in watchers]
    assert tables[0][-1] == tables[1][-1]
    for sock in (a, b, c):
        await sock.close()
    for watcher in watchers:
        await watcher.close()


async def test_two_quick_plays_on_two_processes_meet_at_one_table(make_cluster: Any) -> None:
    """Two browsers press "Play with people" at the same moment, each on its own process, with
    no table open: one table is made (a lock on the database), and the other is offered it."""
    cluster: Cluster = make_cluster(2, env={"ATOUT_PUBLIC_FILL_SECONDS": "600"})
    for variant in ("classic", "coinche", "bulgarian"):
        browsers = [Browser(node, (await Browser.new(cluster)).token) for node in cluster.nodes]
        answers = await asyncio.gather(
            *(b.post("/api/quickplay", {"variant": variant}) for b in browsers)
        )
        assert [status for status, _ in answers] == [200, 200], answers
        made = [body["created"]["game_id"] for _, body in answers if body.get("created")]
        offered = [[c["game_id"] for c in body["candidates"]] for _, body in answers]
        assert len(made) == 1, answers
        assert [found for found in offered if found] == [made], answers
