"""The hint button: in a game against the computer it highlights the hard bot's choice."""

from __future__ import annotations

import pytest

from .conftest import errors_of
from .driver import choose_game, open_home, start, take_turn, wait_state

pytestmark = pytest.mark.browser


def redraw_the_table(page) -> None:  # type: ignore[no-untyped-def]
    """Change the computer players' level: the room's news redraws the whole table."""
    select = page.locator("#level-select")
    if page.locator("#btn-menu").is_visible():
        page.locator("#btn-menu").click()
    other = "easy" if select.input_value() != "easy" else "medium"
    select.select_option(other)
    page.wait_for_function(
        "(lv) => window.atoutTable.state.room.seats.some((s) => s.level === lv)", arg=other
    )


def test_hint_highlights_a_legal_choice(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    # every turn waits for the player: with forced cards on, the server plays a single card
    # 0.8 s into the turn, and a hint that comes back after that is for a decision gone
    context.add_init_script("localStorage.setItem('atout.autoPlay', '0')")
    page = context.new_page()
    errors = errors_of(page, console=False)
    open_home(page, server.base_url)
    choose_game(page, "classic", options={"target": "one_deal"})
    start(page, "computer")
    hinted = 0
    for _ in range(40):
        state = wait_state(page)
        if state in ("deal", "match"):
            break
        if state in ("turn:bidding", "turn:play"):
            button = page.locator("#btn-hint")
            assert button.is_visible() and button.is_enabled()
            button.click()
            page.wait_for_selector(".hinted", timeout=15_000)
            target = page.locator(".hinted").first
            # the highlighted thing is something the player may choose now
            assert target.get_attribute("aria-disabled") != "true"
            assert not target.is_disabled()
            if hinted == 0:
                # the table redrawn for news about the room keeps the hint of this decision
                redraw_the_table(page)
                assert page.locator(".hinted").count() == 1
            hinted += 1
            if hinted >= 3:
                break
        take_turn(page, state)
    assert hinted >= 3
    assert errors == []
    context.close()


def test_no_hint_in_friends_games(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    open_home(page, server.base_url)
    choose_game(page, "duel")
    start(page, "friends")
    page.goto(page.locator("#invite-link").input_value())
    page.wait_for_selector("#table-app")
    page.wait_for_timeout(500)
    assert page.locator("#btn-invite").count() == 1
    assert not page.locator("#btn-hint").is_visible()
    context.close()
