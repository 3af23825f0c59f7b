"""Friends at a duel table in two browsers, language switching, and the phone layout."""

from __future__ import annotations

import json
import re

import pytest

from app.web.i18n import LOCALES_DIR

from .conftest import screenshot
from .driver import choose_game, open_home, start, take_turn, wait_ready, wait_state

pytestmark = pytest.mark.browser


def pile_cards(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.locator("#piles-bottom .card[data-card]").evaluate_all(
        "els => els.map(e => e.dataset.card)"
    )


def play_duel_turns(host, guest, until) -> None:  # type: ignore[no-untyped-def]
    """Alternate between the two players; each acts when its page says it is its turn."""
    for _ in range(400):
        if until():
            return
        for page in (host, guest):
            state = page.evaluate(
                "(() => { const a = document.getElementById('table-app');"
                " if (document.getElementById('dlg-deal').open) return 'deal';"
                " if (a.classList.contains('pending')) return null;"
                " return a.dataset.myTurn === 'yes' ? 'turn:' + a.dataset.phase : null; })()"
            )
            if state:
                take_turn(page, state)
        host.wait_for_timeout(30)
    raise AssertionError("the duel did not get there")


def test_friends_play_a_duel_agree_to_a_new_deal_and_reload(server, chromium) -> None:
    host_ctx = chromium.new_context(viewport={"width": 1100, "height": 800})
    host_ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.base_url)
    host = host_ctx.new_page()
    open_home(host, server.base_url)
    choose_game(host, "duel")
    start(host, "friends")
    link = host.locator("#invite-link").input_value()
    assert "/g/" in link
    host.click("#invite-copy")
    assert host.evaluate("navigator.clipboard.readText()") == link
    host.click("#invite-go")
    wait_ready(host)
    assert host.locator("#waiting").is_visible()

    guest_ctx = chromium.new_context(viewport={"width": 1100, "height": 800})
    guest = guest_ctx.new_page()
    guest.goto(link)
    wait_ready(guest)
    for page in (host, guest):
        page.wait_for_selector("#piles-bottom .pile")
    assert host.evaluate("window.atoutTable.state.held") == [0]
    assert guest.evaluate("window.atoutTable.state.held") == [1]
    # both rows of eight piles; face-down cards show their backs
    assert host.locator("#piles-top .pile").count() == 8
    assert host.locator("#piles-bottom .pile .back-card").count() == 8

    def deals() -> int:
        return int(
            host.evaluate("window.atoutTable.state.view.results.filter(r => !r.thrown_in).length")
        )

    play_duel_turns(host, guest, lambda: deals() >= 1)
    # a new deal needs both players. The deal's summary opens first, once its last trick has
    # been on show, and is the one way on: "New deal" is not offered before it
    for page in (host, guest):
        page.wait_for_selector("#dlg-deal[open] [data-action=next_deal]")
        page.locator("#dlg-deal [data-action=next_deal]").click()
    host.wait_for_function("() => window.atoutTable.state.view.phase === 'bidding'")
    play_duel_turns(host, guest, lambda: host.locator("#trick .slot").count() > 0 or deals() > 1)
    # the guest reloads mid-deal: same seat, same cards
    before = pile_cards(guest)
    guest.reload()
    wait_ready(guest)
    guest.wait_for_selector("#piles-bottom .pile")
    assert guest.evaluate("window.atoutTable.state.held") == [1]
    assert pile_cards(guest) == before
    screenshot(guest, "duel-en")
    play_duel_turns(host, guest, lambda: deals() >= 2)

    # a third browser watches (spectators are on by default)
    watcher_ctx = chromium.new_context()
    watcher = watcher_ctx.new_page()
    watcher.goto(link)
    wait_ready(watcher)
    assert watcher.evaluate("window.atoutTable.state.role") == "spectator"
    assert watcher.locator("#piles-bottom button.card").count() == 0
    for ctx in (host_ctx, guest_ctx, watcher_ctx):
        ctx.close()


def test_a_full_table_without_spectators_says_so(server, chromium) -> None:
    host_ctx = chromium.new_context()
    host = host_ctx.new_page()
    open_home(host, server.base_url)
    choose_game(host, "duel")
    host.uncheck("input[name=spectators]")
    start(host, "friends")
    link = host.locator("#invite-link").input_value()
    guest_ctx = chromium.new_context()
    guest_ctx.new_page().goto(link)
    third_ctx = chromium.new_context()
    third = third_ctx.new_page()
    response = third.goto(link)
    assert response is not None and response.status == 200
    assert third.locator("[data-page=table-full]").is_visible()
    for ctx in (host_ctx, guest_ctx, third_ctx):
        ctx.close()


RAW_KEY = re.compile(r"\b(home|mode|opt|table|prompt|seat|bid|variant|level|invite)\.[a-z_]+")


def test_switching_the_language_translates_the_page(server, chromium) -> None:
    context = chromium.new_context(locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
    open_home(page, server.base_url)
    assert page.locator("html").get_attribute("lang") == "en"
    for language in ("fr", "ru", "cs"):
        catalog = json.loads((LOCALES_DIR / f"{language}.json").read_text(encoding="utf-8"))
        with page.expect_navigation():
            page.select_option("#lang-select", language)
        assert page.locator("html").get_attribute("lang") == language
        assert page.locator("#new-game-title").inner_text() == catalog["home.new_game"]
        page.click("#options-box summary")
        assert catalog["opt.target.help"] in page.locator("#options").inner_text()
        assert RAW_KEY.search(page.locator("body").inner_text()) is None
    # remembered: a new page in the same browser keeps the choice, the table too
    choose_game(page, "classic")
    start(page, "computer")
    assert page.locator("html").get_attribute("lang") == "cs"
    assert RAW_KEY.search(page.locator("body").inner_text()) is None
    assert not [e for e in errors if "i18n" in e]
    context.close()


def test_phone_layout_has_no_horizontal_scroll_and_every_legal_card_can_be_tapped(
    server, chromium
) -> None:
    context = chromium.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    open_home(page, server.base_url)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    choose_game(page, "bela", players=3)
    start(page, "computer")
    tapped = 0
    for _ in range(200):
        state = wait_state(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        if state == "turn:play" and not page.locator("#controls [data-action=call]").count():
            cards = page.locator("#hand button.card[aria-disabled=false]")
            # each legal card shows a tap target of at least 40 x 40 px that is really itself
            hits = page.evaluate(
                """() => [...document.querySelectorAll('#hand button.card[aria-disabled=false]')]
                  .map(el => {
                    const r = el.getBoundingClientRect();
                    const mine = (x, y) => { const h = document.elementFromPoint(x, y); return !!h && el.contains(h); };
                    let best = 0, run = 0, bestX = 0;
                    for (let x = r.left + 1; x < r.right; x += 1) {
                      run = mine(x, r.top + 12) ? run + 1 : 0;
                      if (run > best) { best = run; bestX = x - run / 2; }
                    }
                    let h = 0;
                    for (let y = r.top + 1; y < r.bottom; y += 1) if (mine(bestX, y)) h += 1;
                    return {card: el.dataset.card, w: best, h};
                  })"""
            )
            assert hits and all(h["w"] >= 40 and h["h"] >= 40 for h in hits), hits
            if tapped == 0:
                screenshot(page, "bela3-phone-en")
            cards.first.tap()
            tapped += 1
            if tapped >= 3:
                break
            continue
        take_turn(page, state)
    assert tapped >= 3
    context.close()
