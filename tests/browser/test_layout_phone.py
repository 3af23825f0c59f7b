"""The table and the home page on a phone, one test per fault a new player met: hover effects
that stick on a touch screen, seat names broken mid-word, the trick's labels cut, declared cards
off the screen, the rules panel wider than a phone, toasts over what a player needs, the home
page held sideways."""

from __future__ import annotations

from typing import Any

import pytest

from .driver import choose_game, legal_cards, open_home, play_to, start

pytestmark = pytest.mark.browser


def computer_game(
    chromium: Any,
    server: Any,
    variant: str = "classic",
    *,
    size: tuple[int, int] = (390, 844),
    touch: bool = True,
    lang: str | None = None,
    players: int | None = None,
) -> Any:
    # reduced motion: the page's transitions end at once (app.css), so styles are read settled
    context = chromium.new_context(
        viewport={"width": size[0], "height": size[1]}, has_touch=touch, reduced_motion="reduce"
    )
    if lang:
        context.add_cookies([{"name": "atout_lang", "value": lang, "url": server.base_url}])
    page = context.new_page()
    open_home(page, server.base_url)
    choose_game(page, variant, players=players)
    start(page, "computer")
    return page


def test_a_touch_screen_never_raises_a_card_it_did_not_tap(server, chromium) -> None:
    """A touch screen keeps :hover on the last element touched: a card or a button stayed lit
    after the finger left. Hover effects apply only where a pointer can hover."""
    transforms = {}
    for touch in (True, False):
        page = computer_game(chromium, server, touch=touch)
        play_to(page, "turn:play")
        card = legal_cards(page).first
        card.hover()
        page.evaluate(
            "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        transforms[touch] = card.evaluate("el => getComputedStyle(el).transform")
        button = page.locator("#btn-bids")
        before = button.evaluate("el => getComputedStyle(el).backgroundColor")
        button.hover()
        after = button.evaluate("el => getComputedStyle(el).backgroundColor")
        if touch:
            assert after == before, (before, after)
        page.context.close()
    assert transforms[True] == "none", transforms  # the touch screen: nothing moves
    assert transforms[False] != "none", transforms  # a mouse still lifts the card it points at
