"""Claiming the last tricks in the browser (RULES.md §15): "Claim the rest" appears only when
the seat's view proves the claim, one tap claims, and the server plays the deal out."""

from __future__ import annotations

import os

import pytest

from .driver import choose_game, open_home, start, take_turn, wait_state

pytestmark = pytest.mark.browser

CLAIM = "#controls button[data-action=claim]"


def test_a_player_claims_with_the_button_and_the_deal_finishes(server, chromium) -> None:
    """A local classic game (every seat on this device, so every lead is the player's): the
    turns are taken until the table offers the claim; its button (key R) claims, the claimer's
    cards are shown, and the rest of the deal is played out without another tap."""
    context = chromium.new_context(viewport={"width": 1366, "height": 768})
    context.add_init_script("localStorage.setItem('atout.autoPlay', '0')")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    open_home(page, server.base_url)
    choose_game(page, "classic")
    start(page, "local")
    claimed = False
    for _ in range(600):
        state = wait_state(page)
        if state == "pass":
            page.click("#pass-ready")
            page.wait_for_function("() => document.getElementById('pass-screen').hidden")
            continue
        if state == "turn:play" and page.locator(CLAIM).count():
            button = page.locator(CLAIM)
            assert button.get_attribute("aria-keyshortcuts") == "R"
            assert page.evaluate("window.atoutTable.state.view.can_claim") is True
            if os.environ.get("ATOUT_SCREENSHOTS") == "1":
                page.screenshot(path="/tmp/claim-offered.png")
            deal = page.evaluate("window.atoutTable.state.view.deal_number")
            button.click()
            claimed = True
            break
        if state == "turn:play":
            # the button is there exactly when the view says a claim is possible
            assert page.evaluate("window.atoutTable.state.view.can_claim") is False
        take_turn(page, state)
    assert claimed, "no claim was offered"
    # the deal is played out by the server, as plays marked "claim", and its summary opens
    page.wait_for_function(
        "(d) => { const v = window.atoutTable.state.view;"
        " return v.deal_number > d || v.phase === 'deal_over' || v.phase === 'match_over'; }",
        arg=deal,
        timeout=30_000,
    )
    assert wait_state(page) in ("deal", "match")  # its summary opens
    # every card of the play-out came marked "claim" (the trick's slots and the log say so)
    marks = page.evaluate("window.atoutTable.moves.filter(m => m.by === 'claim').length")
    assert marks >= 4 and marks % 4 == 0, marks
    assert errors == []
    context.close()
