"""A robot duplicate event played in Chromium by three entrants (docs/tournaments.md): each
enters, plays the boards at a table with the house players, and then sees the traveller of
each board and their matchpoints."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from tests.browser.conftest import screenshot
from tests.browser.driver import STATE_JS, play_first_card, plays_itself, take_turn

pytestmark = pytest.mark.browser

BOARDS = 2
# the table's next step, or "over" once the board's deal is over and its summary (held back
# while the last trick shows) has been shown and closed; a deal thrown in has none
BOARD_STATE_JS = (
    "() => { const over = document.querySelector('#board-link[data-over=yes]');"
    " const dlg = document.getElementById('dlg-deal');"
    " const table = window.atoutTable; const v = table && table.state.view;"
    " const last = v && v.results && v.results[v.results.length - 1];"
    " const seen = !!last && (last.thrown_in || table.ui.dealSeen === last.number);"
    " if (over && seen && !(dlg && dlg.open)) return 'over';"
    f" return ({STATE_JS})(); }}"
)


def create_event(base_url: str) -> str:
    body = json.dumps({"variant": "classic", "boards": BOARDS, "level": "easy", "hours": 2})
    request = urllib.request.Request(
        base_url + "/api/tournaments",
        data=body.encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return str(json.load(response)["id"])


def play_board(page: Any) -> None:
    page.wait_for_selector("#table-app[data-state=ready]", timeout=30_000)
    page.wait_for_selector("#board-link")
    for _ in range(200):
        state = str(page.wait_for_function(BOARD_STATE_JS, timeout=30_000).json_value())
        if state == "over":
            return
        special = "#controls button[data-action=exchange], #controls button[data-action^=call]"
        if state == "turn:play" and not page.locator(special).count() and not plays_itself(page):
            play_first_card(page, BOARD_STATE_JS)
            continue
        take_turn(page, state)
    raise AssertionError("the board never ended")


def test_three_entrants_play_and_see_the_traveller(chromium: Any, server: Any) -> None:
    event_id = create_event(server.base_url)
    # the tables are played on a laptop's screen, the event's pages read on a phone's
    contexts = [chromium.new_context(viewport={"width": 1366, "height": 768}) for _ in range(3)]
    try:
        for n, context in enumerate(contexts, start=1):
            page = context.new_page()
            page.goto(server.url(f"/t/{event_id}"))
            page.click("#btn-enter")
            page.wait_for_selector("#btn-play")
            assert page.locator("#standings-hidden").count() == 1
            for board in range(1, BOARDS + 1):
                page.set_viewport_size({"width": 1366, "height": 768})
                page.click("#btn-play")
                page.wait_for_url("**/g/**")
                assert page.locator("#btn-hint").is_hidden()
                play_board(page)
                if board == 1 and n == 1:
                    screenshot(page, "tournament-board-over")
                if board < BOARDS:  # the next board is offered at the table
                    page.wait_for_selector("#next-board")
                    assert page.locator("#next-board").inner_text().endswith(str(board + 1))
                page.click("#board-link a")
                page.wait_for_url(f"**/t/{event_id}")
                page.set_viewport_size({"width": 390, "height": 844})
                page.reload()
                page.wait_for_url(f"**/t/{event_id}")
                row = page.locator(f"tr[data-board='{board}']")
                assert row.get_attribute("data-status") == "played"
                # this board's matchpoints, and its traveller opened to this entrant
                assert "%" in row.locator(".mp").inner_text()
                if board < BOARDS:
                    next_row = page.locator(f"tr[data-board='{board + 1}']")
                    assert next_row.locator(".traveller-link").count() == 0
            # every board played: the standings show, with this entrant's rank
            page.set_viewport_size({"width": 390, "height": 844})
            page.wait_for_selector("#standings")
            assert page.locator("#your-percent").count() == 1
            assert page.locator("#standings tr.you").count() == 1
            if n == 3:
                screenshot(page, "tournament-event")
            page.click("tr[data-board='1'] .traveller-link")
            page.wait_for_url(f"**/t/{event_id}/boards/1")
            rows = page.locator("#traveller tbody tr")
            assert rows.count() == n + 1  # the entrants so far and the house table
            assert page.locator("#traveller tr.datum").count() == 1
            you = page.locator("#traveller tr.you")
            assert you.count() == 1 and you.get_attribute("data-percent")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"the traveller is {width} px wide at 390 px"
            # the replay of another table of this board opens to this entrant
            replay = page.locator("#traveller tr.datum a").first.get_attribute("href")
            response = page.request.get(server.url(f"/api/games/{replay.split('/')[-1]}/replay"))
            assert response.status == 200
            if n == 3:
                screenshot(page, "tournament-traveller")
    finally:
        for context in contexts:
            context.close()


def test_an_event_is_created_from_the_form_on_a_phone(chromium: Any, fresh_server: Any) -> None:
    server = fresh_server  # the event made here is the only one listed
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(server.url("/tournaments"))
        page.select_option("#tour-form select[name=variant]", "bela:3")
        page.fill("#tour-form input[name=boards]", "1")
        page.select_option("#tour-form select[name=level]", "easy")
        page.click("#tour-form button[type=submit]")
        page.wait_for_url("**/t/*")
        assert page.locator("#event-phase").get_attribute("class").endswith("phase-running")
        assert "3" in page.locator("#event-title").inner_text()
        page.click("#btn-enter")
        page.wait_for_selector("#btn-play")
        page.click("#btn-play")
        page.wait_for_url("**/g/**")
        page.wait_for_selector("#board-link")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.goto(server.url("/tournaments"))
        assert page.locator("section[data-phase=running] .event-item").count() == 1
    finally:
        context.close()
