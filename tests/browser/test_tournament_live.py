"""A live duplicate Swiss event in Chromium (docs/tournaments.md, "Live Swiss"): registering
as a pair through a partner link and alone, on a phone; then a player taken from the event's
page to each board's table as it is dealt, and back to the standings."""

from __future__ import annotations

import json
import urllib.request
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.browser.conftest import errors_of, screenshot
from tests.browser.test_tournament import play_board

pytestmark = pytest.mark.browser

ENV = {"ATOUT_TOURNAMENT_PLAYER_SWISS": "1", "ATOUT_TOURNAMENT_LIVE_SECONDS": "0.2"}


@pytest.fixture
def live(live_server):  # type: ignore[no-untyped-def]
    return live_server(ENV)


def create_event(base_url: str, seconds: float, **values: Any) -> str:
    starts = datetime.now(UTC) + timedelta(seconds=seconds)
    body = {
        "variant": "classic",
        "rounds": 1,
        "boards": 2,
        "clock": 60,
        "level": "easy",
        "starts_at": starts.isoformat(),
        **values,
    }
    request = urllib.request.Request(
        base_url + "/api/tournaments/swiss",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return str(json.load(response)["id"])


def test_pairs_register_through_the_partner_link_on_a_phone(chromium: Any, live: Any) -> None:
    event_id = create_event(live.base_url, 3600, title="Club night")
    contexts = [chromium.new_context(viewport={"width": 390, "height": 844}) for _ in range(3)]
    try:
        ann, bob, cy = (c.new_page() for c in contexts)
        errors = errors_of(ann)
        ann.goto(live.url(f"/t/{event_id}"))
        assert "Starts in" in ann.locator("#countdown").inner_text()
        ann.click("text=Register as a pair")
        ann.wait_for_selector("#partner-link")
        link = ann.locator("#partner-link").input_value()
        assert f"/t/{event_id}/join/" in link
        # Bob opens the link and joins; the link is spent
        bob.goto(link)
        bob.click("text=Join this pair")
        bob.wait_for_selector("#btn-leave")
        assert "pair 1" in bob.locator("#live-you").inner_text()
        # Cy registers alone: the house player partners him
        cy.goto(live.url(f"/t/{event_id}"))
        cy.click("text=Register alone")
        cy.wait_for_selector("#btn-leave")
        # Ann's page is told over its socket: her link is gone, both pairs listed
        ann.wait_for_function("() => document.querySelectorAll('#live-pairs li').length === 2")
        ann.wait_for_function("() => !document.getElementById('partner-link')")
        ann.wait_for_selector("#btn-leave")  # her page speaks to her, not to a stranger
        assert "computer partner" in ann.locator("#live-pairs li[data-pair='2']").inner_text()
        assert ann.evaluate("document.documentElement.scrollWidth") <= 390
        screenshot(ann, "tournament-live-open")
        # the spent link, opened again: a clear refusal
        contexts.append(chromium.new_context(viewport={"width": 390, "height": 844}))
        page = contexts[3].new_page()
        page.goto(link)
        page.click("text=Join this pair")
        page.wait_for_selector("#toast:not(:empty)")
        assert "already" in page.locator("#toast").inner_text()
        # the list of events shows it, with its badge
        ann.goto(live.url("/tournaments"))
        item = ann.locator(f".event-item[data-event='{event_id}']")
        assert "Live" in item.inner_text()
        assert errors == []
    finally:
        for context in contexts:
            context.close()


def test_a_player_is_taken_to_each_board_and_back_to_the_standings(
    chromium: Any, live: Any
) -> None:
    """One pair (a player and the house partner) against a pair of house players: 1 round of
    2 boards. The event's page takes the player to board 1's table when the event starts, the
    table to board 2's when it is dealt, and the end of the round back to the standings."""
    event_id = create_event(live.base_url, 6)
    context = chromium.new_context(viewport={"width": 1366, "height": 768})
    try:
        page = context.new_page()
        errors = errors_of(page, console=False)
        page.goto(live.url(f"/t/{event_id}"))
        page.click("text=Register alone")
        page.wait_for_selector("#btn-leave")
        # the start: the page follows the player to the table
        page.wait_for_url("**/g/**", timeout=60_000)
        first = page.url
        play_board(page)
        # board 2 is dealt (the only table has finished board 1): the table offers it, and
        # would go there by itself a few seconds later
        page.wait_for_selector("#next-board", timeout=60_000)
        page.click("#next-board")
        page.wait_for_function("(first) => location.href !== first", arg=first, timeout=60_000)
        page.wait_for_url("**/g/**")
        play_board(page)
        page.wait_for_function(
            "() => document.querySelector('#board-link')?.dataset.over === 'yes'"
        )
        page.click("#board-link a")
        page.wait_for_url(f"**/t/{event_id}")
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_selector("#standings tr.you")
        assert page.locator("#event-phase").inner_text() == "Finished"
        assert "computer partner" in page.locator("#standings tr.you").inner_text()
        assert page.locator("#live-boards a").count() == 2
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        screenshot(page, "tournament-live-finished")
        page.click("#live-boards a >> nth=0")
        page.wait_for_url(f"**/t/{event_id}/boards/1")
        assert page.locator("#traveller tbody tr").count() == 2  # the table and the datum
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert errors == []
    finally:
        context.close()
