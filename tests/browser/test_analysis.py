"""The analysis of a deal in Chromium: a deal played against the computer by clicking, the
deal summary's link to the replay's analysis, the progress while it is computed, then a
decision's cost read on the replay, in English and in French."""

from __future__ import annotations

import os
import re

import pytest

from .conftest import errors_of, screenshot
from .driver import choose_game, open_home, start, take_turn, wait_state

pytestmark = pytest.mark.browser

ANALYSED_MS = 180_000


def test_a_deal_against_the_computer_shows_what_each_card_cost(live_server, chromium) -> None:
    server = live_server({"ATOUT_ANALYSIS_WORLDS": "2", "ATOUT_LOG_LEVEL": "WARNING"})
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = errors_of(page, console=False)
    open_home(page, server.base_url)
    choose_game(page, "classic", options={"target": "one_deal"})
    start(page, "computer")
    game_id = page.get_attribute("#table-app", "data-game-id")
    link = None
    for _ in range(200):
        state = wait_state(page)
        if state == "match":
            # the last deal's summary links to its analysis, in a new tab
            anchor = page.locator("#match-summary a.deal-analysis")
            assert anchor.get_attribute("target") == "_blank"
            link = anchor.get_attribute("href")
            break
        take_turn(page, state)
    assert link == f"/replay/{game_id}?deal=0#analysis"

    replay = context.new_page()
    errors_of(replay, console=False, into=errors)
    replay.goto(server.base_url + link)
    # opened on #analysis: asked for at once, with its progress until it is done
    replay.wait_for_function(
        "() => ['asking', 'waiting', 'done'].includes("
        "document.getElementById('analysis').dataset.state)"
    )
    replay.wait_for_selector("#analysis[data-state=done]", timeout=ANALYSED_MS)
    data = replay.evaluate(
        f"() => fetch('/api/games/{game_id}/analysis?deal=0').then(r => r.json())"
    )
    assert data["status"] == "done" and data["yours"] == [0]
    # the replay names seats as the record does, and marks the one this browser held "You"
    assert replay.locator("#viewer .v-seat[data-seat='0'] .badge.you").text_content() == "You"
    assert replay.locator("#viewer .badge.you").count() == 1
    summary = data["deal"]["summary"]["0"]
    line = replay.locator("#analysis-summary .analysis-seat[data-seat='0']").text_content()
    assert line is not None and line.startswith("You: ")
    assert f"{summary['costly_cards']} costly card" in line

    # a card decision: go to it from the list; the line under the action says what it cost
    cards = [x for x in data["deal"]["decisions"] if x["kind"] == "card"]
    assert cards
    x = max(cards, key=lambda c: c["expected"]["cost"])
    item = replay.locator(f"#analysis-list .analysis-item[data-index='{x['index']}']")
    item.locator("button").click()
    assert replay.evaluate("window.atoutReplay.state.step") == x["index"] + 1
    note = replay.locator("#viewer-analysis")
    note.wait_for(state="visible")
    text = note.text_content() or ""
    cost = x["expected"]["cost"]
    if cost >= 0.05:
        shown = replay.evaluate(
            "(n) => new Intl.NumberFormat('en', { maximumFractionDigits: 1 }).format(n)", cost
        )
        assert re.search(rf"This card cost {re.escape(shown)} points? on average", text), text
        assert ("was best" if len(x["expected"]["best"]) == 1 else "were best") in text
    else:
        assert "No card was better on average." in text
    assert f"Mean over {x['expected']['worlds']} drawn deal" in text
    if cost >= data["costly"]:
        assert "costly" in (item.get_attribute("class") or "")
    screenshot(replay, "replay-analysis-en")
    if os.environ.get("ATOUT_SCREENSHOTS") == "1":
        replay.set_viewport_size({"width": 390, "height": 844})
        replay.locator("#viewer-says").scroll_into_view_if_needed()
        screenshot(replay, "replay-analysis-phone-en")

    # the same analysis in French: stored, shown at once
    context.add_cookies([{"name": "atout_lang", "value": "fr", "url": server.base_url}])
    replay.close()
    replay = context.new_page()
    errors_of(replay, console=False, into=errors)
    replay.goto(server.base_url + link)
    assert replay.get_attribute("html", "lang") == "fr"
    replay.wait_for_selector("#analysis[data-state=done]", timeout=30_000)
    line = replay.locator("#analysis-summary .analysis-seat[data-seat='0']").text_content()
    assert line is not None and line.startswith("Vous : ")
    assert "coûteuse" in line
    replay.locator(f"#analysis-list .analysis-item[data-index='{x['index']}'] button").click()
    text = replay.locator("#viewer-analysis").text_content() or ""
    assert "Cette carte a coûté" in text or "Aucune carte n'était meilleure" in text
    assert errors == []
    context.close()
