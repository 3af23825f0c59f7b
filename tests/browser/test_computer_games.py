"""Whole games against the computer, played by clicking only (Chromium against a real server)."""

from __future__ import annotations

import json
import re

import pytest

from app.web.i18n import LOCALES_DIR

from .conftest import errors_of, screenshot
from .driver import choose_game, deals_scored, open_home, start, take_turn, wait_state

pytestmark = pytest.mark.browser


HAND_JS = """() => {
  const legal = window.atoutTable.state.view.legal.filter(a => a.type === 'play').map(a => a.card);
  const els = [...document.querySelectorAll('#hand button.card[aria-disabled=false]')];
  return {legal, enabled: els.map(e => e.dataset.card),
          label: els.length ? els[0].getAttribute('aria-label') : null};
}"""


def test_a_whole_classic_match_by_clicking_only(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors = errors_of(page)
    open_home(page, server.base_url)
    choose_game(page, "classic", options={"target": "one_deal"})
    start(page, "computer")
    assert page.get_attribute("#table-app", "data-variant") == "classic"
    # the human sits at the bottom; the next seat in turn order sits on the right (§0.4)
    me = page.evaluate("window.atoutTable.state.held[0]")
    assert page.locator(f".seat.pos-bottom[data-seat='{me}']").count() == 1
    assert page.locator(f".seat.pos-right[data-seat='{(me + 1) % 4}']").count() == 1
    assert page.locator(f".seat.pos-top[data-seat='{(me + 2) % 4}']").count() == 1
    log: list[str] = []
    shot = False
    for _ in range(400):
        state = wait_state(page)
        if state == "match":
            break
        if state == "turn:play":
            # the turned card the taker took stays shown next to the contract
            taken = page.evaluate("window.atoutTable.state.view.taken")
            assert taken is not None
            took = page.locator("#bar-contract .contract-took")
            assert took.count() == 1
            assert took.locator(f"svg.s-{taken['card'][1]}").count() == 1
        if state == "turn:play" and not shot and page.locator("#trick .slot").count() >= 2:
            screenshot(page, "classic-en")
            shot = True
        if state == "turn:play":
            # only legal cards are enabled, and they are exactly the view's legal plays
            # (read at one moment: a forced card, the only legal one, is played by the server
            # after a short pause, and the bots play on, so a later read may find none enabled)
            hand = page.evaluate(HAND_JS)
            assert sorted(hand["enabled"]) == sorted(set(hand["legal"]))
            if hand["enabled"]:
                assert "playable" in (hand["label"] or "")
        take_turn(page, state, log=log)
    else:
        raise AssertionError(f"the match did not end: {log[-20:]}")
    assert "play" in log
    dialog = page.locator("#dlg-match")
    assert dialog.is_visible()
    assert dialog.locator("[data-action=rematch]").is_enabled()
    assert deals_scored(page) == 1
    # the score sheet lists the deal with its contract and the match total
    dialog.locator("[data-action=sheet]").click()
    sheet = page.locator("#score-sheet")
    assert sheet.locator("tbody tr").count() >= 1
    assert sheet.locator("tfoot").count() == 1
    assert errors == []
    context.close()


def play_until(page, done, *, bid: str = "take", limit: int = 900) -> list[str]:  # type: ignore[no-untyped-def]
    log: list[str] = []
    for _ in range(limit):
        if done(log):
            return log
        state = wait_state(page)
        if state == "match":
            return log
        take_turn(page, state, bid=bid, log=log)
    raise AssertionError(f"not done after {limit} steps: {log[-30:]}")


def one_deal_done(page, log, *, need: tuple[str, ...]) -> bool:  # type: ignore[no-untyped-def]
    """At least one deal scored, and every action of ``need`` made, and not inside a deal."""
    return (
        all(n in log for n in need)
        and deals_scored(page) >= 1
        and bool(log)
        and log[-1] in ("deal-summary", "continue")
    )


@pytest.mark.parametrize(
    ("variant", "players", "options", "need", "language"),
    [
        ("bulgarian", None, {}, ("declare",), "bg"),
        ("coinche", None, {"auto_declare": False, "target": 5000}, ("declare",), "fr"),
        ("bela", 3, {}, ("declare", "discard"), "hr"),
    ],
)
def test_a_deal_with_manual_declarations(
    fresh_server, chromium, variant, players, options, need, language
) -> None:
    # the seeded server deals every new game the same decks: whether the human ever holds a
    # declaration depends on the seed, and this test's own seed gives one
    server = fresh_server
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors = errors_of(page)
    open_home(page, server.base_url)
    choose_game(page, variant, players=players, options=options)
    start(page, "computer")
    shots: set[str] = set()

    def done(log: list[str]) -> bool:
        if "declare" in log and "declared" not in shots:
            # the announcement is shown at the seat, to everyone
            page.wait_for_selector(".seat.pos-bottom .chip.decl")
            shots.add("declared")
        return one_deal_done(page, log, need=need)

    # The deck is shuffled by the server: a match can end before the human ever holds a
    # declarable hand. Then start a fresh game, a bounded number of times.
    for _ in range(6):
        log = play_until(page, done)
        if all(n in log for n in need):
            break
        open_home(page, server.base_url)
        choose_game(page, variant, players=players, options=options)
        start(page, "computer")
    assert all(n in log for n in need), log
    assert errors == []
    # the same table in the player's language, for the docs
    context.add_cookies([{"name": "atout_lang", "value": language, "url": server.base_url}])
    page.reload()
    state = wait_state(page)
    while state != "turn:play" and state != "match":
        take_turn(page, state)
        state = wait_state(page)
        if state == "turn:play" and page.locator("#trick .slot").count() < 1:
            take_turn(page, state)
            state = wait_state(page)
    catalog = json.loads((LOCALES_DIR / f"{language}.json").read_text(encoding="utf-8"))
    assert page.locator("html").get_attribute("lang") == language
    assert catalog[f"variant.{variant}"] in page.locator("#bar-variant").inner_text()
    screenshot(page, f"{variant}{players or ''}-{language}")
    assert (
        re.search(r"\b(prompt|seat|table|bid)\.[a-z_]+", page.locator("body").inner_text()) is None
    )
    context.close()
