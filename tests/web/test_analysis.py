"""``GET /api/games/{id}/analysis?deal=N`` through a real server: who may read it and when
(RULES.md §13), the progress state, bad deal numbers, and the stored analysis (a deal is
analysed once, across restarts too). Few drawn deals: the figures are not the point here."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from typing import Any

from tests.players.test_server import play_to_the_end
from tests.rooms.test_full_games import stored_record
from tests.web.wsclient import Browser

ENV = {"ATOUT_ANALYSIS_WORLDS": "3", "ATOUT_WS_RATE": "100000", "ATOUT_LOG_LEVEL": "WARNING"}
WAIT_SECONDS = 240


async def analysed(browser: Browser, game_id: str, deal: int) -> list[tuple[int, Any]]:
    """Every answer until the analysis is there (the last one, 200)."""
    answers: list[tuple[int, Any]] = []
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        status, body = await browser.get(f"/api/games/{game_id}/analysis?deal={deal}")
        answers.append((status, body))
        if status != 202:
            return answers
        assert time.monotonic() < deadline, body
        await asyncio.sleep(0.1)


async def finished_computer_game(server: Any, **options: Any) -> tuple[Browser, str]:
    me = await Browser.new(server)
    game_id = await me.create(
        variant="classic", options={"target": "one_deal"}, mode="computer", **options
    )
    sock = await me.connect(game_id)
    # the deal is being played: no analysis of it, not even for its player
    status, body = await me.get(f"/api/games/{game_id}/analysis?deal=0")
    assert (status, body["error"]["code"]) == (409, "deal_in_progress")
    await play_to_the_end(server, [sock], "classic", game_id)
    await sock.close()
    return me, game_id


async def test_a_finished_deal_is_analysed_once_for_its_player_and_its_spectators(
    live_server,
) -> None:
    server = live_server(ENV)
    for _ in range(6):
        me, game_id = await finished_computer_game(server)
        record = await stored_record(server.database_url, game_id)
        answers = await analysed(me, game_id, 0)
        # a deal everyone passed (thrown in) has no card to analyse: deal another game
        if not answers[-1][1].get("deal", {}).get("thrown_in"):
            break
    # the progress state: 202 with how many decisions are done, never going back
    first_status, first = answers[0]
    assert first_status == 202
    assert first["status"] in ("queued", "running") and first["deal"] == 0
    dones = [b["done"] for s, b in answers if s == 202]
    assert dones == sorted(dones)
    for _, b in answers[:-1]:
        assert 0 <= b["done"] <= b["total"]
    status, data = answers[-1]
    assert status == 200, data
    assert data["status"] == "done" and data["yours"] == [0] and data["seats"] == [0]
    deal = data["deal"]
    assert deal["deal"] == 0 and data["worlds"] == 3
    actions = record["deals"][0]["actions"]
    cards = [x for x in deal["decisions"] if x["kind"] == "card"]
    assert cards, deal
    for x in deal["decisions"]:
        assert x["seat"] == 0  # the computer players' decisions are not analysed
        assert actions[x["index"]]["seat"] == 0
    for x in cards:
        assert actions[x["index"]]["card"] == x["played"]
        assert x["expected"]["cost"] >= 0 and x["real"]["cost"] >= 0
        assert 1 <= x["expected"]["worlds"] <= 3
    assert deal["summary"]["0"]["cards"] == len(cards)

    # asked again: the stored analysis, at once
    status, again = await me.get(f"/api/games/{game_id}/analysis?deal=0")
    assert status == 200 and again["deal"] == deal

    # a stranger may watch this table (spectators allowed): the same analysis, no seat of theirs
    stranger = await Browser.new(server)
    status, seen = await stranger.get(f"/api/games/{game_id}/analysis?deal=0")
    assert status == 200 and seen["yours"] == [] and seen["deal"] == deal

    # bad deal numbers: structured errors
    for query, code in (
        ("deal=1", 404),
        ("deal=-1", 422),
        ("deal=abc", 422),
        ("", 422),
    ):
        status, body = await me.get(f"/api/games/{game_id}/analysis?{query}")
        assert status == code, (query, body)
        assert isinstance(body["error"]["code"], str) and body["error"]["message"], body
    status, body = await me.get("/api/games/nosuchgame/analysis?deal=0")
    assert (status, body["error"]["code"]) == (404, "not_found")

    # after a restart: still stored, never computed again (a new computation answers 202)
    server.restart()
    status, after = await me.get(f"/api/games/{game_id}/analysis?deal=0")
    assert status == 200 and after["deal"] == deal


async def test_a_table_without_spectators_keeps_its_analysis_to_its_players(
    live_server,
) -> None:
    server = live_server(ENV)
    me, game_id = await finished_computer_game(server, spectators=False)
    stranger = await Browser.new(server)
    status, body = await stranger.get(f"/api/games/{game_id}/analysis?deal=0")
    assert (status, body["error"]["code"]) == (403, "not_allowed")
    # and it started nothing for the stranger: the player's first answer is a fresh 202
    status, body = await me.get(f"/api/games/{game_id}/analysis?deal=0")
    assert status == 202 and body["done"] == 0


async def play_first_deal(sock: Any, seed: int) -> None:
    """Random legal moves from every seat of a local table until its first deal is scored."""
    rng = random.Random(seed)
    deadline = time.monotonic() + WAIT_SECONDS
    sent_at = -1
    while not any((sock.view or {}).get("scores") or [0]):
        assert time.monotonic() < deadline
        if sock.my_turn_seat() is not None and sent_at != sock.version:
            sent_at = sock.version
            await sock.play_random(rng)
        with contextlib.suppress(TimeoutError):
            await sock.recv(timeout=1.0)


async def test_every_seat_of_a_local_game_is_analysed_while_the_next_deal_goes_on(
    live_server,
) -> None:
    server = live_server({**ENV, "ATOUT_ANALYSIS_WORLDS": "1"})
    me = await Browser.new(server)
    game_id = await me.create(variant="bela", players=3, mode="local")
    sock = await me.connect(game_id)
    assert sock.seats == [0, 1, 2]
    await play_first_deal(sock, 5)
    status, data = (await analysed(me, game_id, 0))[-1]
    await sock.close()
    assert status == 200, data
    assert data["yours"] == [0, 1, 2] and data["seats"] == [0, 1, 2]
    assert {x["seat"] for x in data["deal"]["decisions"] if x["kind"] == "card"} == {0, 1, 2}
    assert set(data["deal"]["summary"]) == {"0", "1", "2"}
