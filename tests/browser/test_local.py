"""A local (one-device) game: the hands stay hidden behind "pass the device to …" between seats."""

from __future__ import annotations

import pytest

from .conftest import errors_of
from .driver import choose_game, open_home, start, take_turn, wait_state

pytestmark = pytest.mark.browser


def test_local_bela_pass_the_device_between_seats(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    # each player plays their own cards here: a forced card played for a seat behind the pass
    # screen would hand the device on before the hand is seen
    context.add_init_script("localStorage.setItem('atout.autoPlay', '0')")
    page = context.new_page()
    errors = errors_of(page, console=False)
    open_home(page, server.base_url)
    choose_game(page, "bela", players=2)
    start(page, "local")

    screen = page.locator("#pass-screen")
    hand = page.locator("#hand")
    names_seen: list[str] = []
    moves = 0
    for _ in range(60):
        state = wait_state(page)
        if state == "pass":
            # the next player's cards are hidden until they say they hold the device
            assert screen.is_visible()
            assert not hand.is_visible()
            title = page.locator("#pass-title").inner_text()
            names_seen.append(title)
            page.click("#pass-ready")
            page.wait_for_function("() => document.getElementById('pass-screen').hidden")
            assert hand.is_visible()
            continue
        if state in ("deal", "match"):
            break
        take_turn(page, state)
        moves += 1
        if moves >= 12:
            break
    # both players were asked for the device, by name, turn after turn
    assert len(set(names_seen)) == 2, names_seen
    assert len(names_seen) >= 4
    assert errors == []
    context.close()
