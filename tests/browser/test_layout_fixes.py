"""Smaller layout faults, one test each: the score sheet's total row, toasts over the score, a
bid bubble over the turned card, the duel's "New deal" button, and the home page on a phone
(the three ways to play above the fold)."""

from __future__ import annotations

from typing import Any

import pytest

from .driver import bar_button, choose_game, open_home, play_to, start, take_turn, wait_state
from .test_layout import SIZES, overlaps

pytestmark = pytest.mark.browser

RECT_JS = """(sel) => [...document.querySelectorAll(sel)].map(el => {
  const r = el.getBoundingClientRect();
  return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height};
}).filter(r => r.width > 0 && r.height > 0)"""


def rects(page: Any, selector: str) -> list[dict[str, float]]:
    return list(page.evaluate(RECT_JS, selector))


def on_screen(page: Any, r: dict[str, float]) -> bool:
    vw = page.evaluate("document.documentElement.clientWidth")
    vh = page.evaluate("window.innerHeight")
    return (
        r["left"] >= -0.5
        and r["top"] >= -0.5
        and r["right"] <= vw + 0.5
        and r["bottom"] <= vh + 0.5
    )


def play_to_the_end(page: Any, *, limit: int = 600) -> None:
    for _ in range(limit):
        state = wait_state(page)
        if state == "match":
            return
        take_turn(page, state)
    raise AssertionError("the match did not end")


def test_the_score_sheets_total_row_lines_up_with_its_columns(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    open_home(page, server.base_url)
    choose_game(page, "classic", options={"target": "one_deal"})
    start(page, "computer")
    play_to_the_end(page)
    page.locator("#dlg-match [data-action=sheet]").click()
    page.wait_for_selector("#dlg-scores[open] .score-sheet tfoot")
    for width, height in ((390, 844), (1366, 768)):
        page.set_viewport_size({"width": width, "height": height})
        cells = page.evaluate(
            """() => {
              const sheet = document.querySelector('#score-sheet .score-sheet');
              const right = (el) => el.getBoundingClientRect().right;
              const body = [...sheet.querySelectorAll('tbody tr:not(.thrown)')].pop();
              const sides = [...sheet.querySelectorAll('thead th')].length - 2;
              const col = (row, first) => [...row.children].slice(first).map(c => right(c.querySelector('b') || c));
              return {
                head: [...sheet.querySelectorAll('thead th')].slice(2).map(th => th.getBoundingClientRect().right),
                body: col(body, 2),
                total: col(sheet.querySelector('tfoot tr'), 1),
                sides,
              };
            }"""
        )
        assert len(cells["total"]) == cells["sides"] == len(cells["body"]) >= 2, cells
        for head, body, total in zip(cells["head"], cells["body"], cells["total"], strict=True):
            # each number ends where its column's head and the deals' numbers end
            assert abs(total - body) <= 1.5, cells
            assert abs(head - body) <= 12, cells  # the cell's padding at most
    context.close()


def test_a_toast_never_covers_the_score_the_buttons_or_the_hand(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    open_home(page, server.base_url)
    choose_game(page, "coinche")
    start(page, "computer")
    state = wait_state(page)
    while state != "turn:bidding":
        take_turn(page, state, bid="pass")
        state = wait_state(page)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("document.getElementById('toast').classList.remove('show')")
        bar_button(page, "#btn-hint")
        page.wait_for_selector("#toast.show")
        page.wait_for_timeout(300)  # the slide-in
        toast = rects(page, "#toast")[0]
        assert on_screen(page, toast), (width, height, toast)
        for what in (
            "#scoreboard",
            "#bar-contract",
            "#controls .turn-line",
            "#controls .action-row button",
            "#hand .card",
        ):
            for r in rects(page, what):
                assert not overlaps(toast, r), f"{width}x{height}: the toast covers {what}"
    context.close()


def test_a_bid_bubble_never_hides_the_turned_card(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    open_home(page, server.base_url)
    choose_game(page, "classic")
    start(page, "computer")
    checked = 0
    for _ in range(400):
        state = wait_state(page)
        if state == "turn:bidding" and page.locator("#seats .bubble").count():
            for width, height in SIZES:
                page.set_viewport_size({"width": width, "height": height})
                page.wait_for_timeout(60)
                card = rects(page, "#deck-spot .upcard")
                assert card, "no turned card in the bidding"
                for bubble in rects(page, "#seats .bubble"):
                    assert not overlaps(card[0], bubble), (width, height, card, bubble)
            checked += 1
            if checked >= 2:
                break
        # pass, so that the others speak before the player's next turn
        take_turn(page, state, bid="pass")
    assert checked >= 2
    context.close()


def test_the_duels_new_deal_button_is_whole_at_every_size(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 768, "height": 1024})
    page = context.new_page()
    open_home(page, server.base_url)
    choose_game(page, "duel")
    start(page, "computer")
    for _ in range(400):
        state = wait_state(page)
        if state in ("deal", "consent"):  # the controls offer "New deal" while the last trick
            break  # is still shown, before the summary opens: agree to nothing yet
        take_turn(page, state)
    else:
        raise AssertionError("the duel's deal did not end")
    page.wait_for_selector("#dlg-deal[open]")
    # the deal summary offers it first, then the controls under the table
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(60)
        dialog = rects(page, "#dlg-deal")[0]
        for button in rects(page, "#dlg-deal .dialog-actions .btn"):
            assert on_screen(page, button), (width, height, button)
            assert button["right"] <= dialog["right"] and button["bottom"] <= dialog["bottom"]
    page.locator("#dlg-deal [data-action=continue]").click()
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(60)
        button = rects(page, "#controls [data-action=next_deal]")
        assert button, "no New deal button"
        assert on_screen(page, button[0]), (width, height, button)
        hit = page.evaluate(
            """(r) => !!document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2)
                 ?.closest('[data-action=next_deal]')""",
            button[0],
        )
        assert hit, (width, height)
    context.close()


def one_line(page: Any, selector: str) -> tuple[float, float]:
    """The elements side by side on one line (none below another): that line's top and bottom."""
    found = rects(page, selector)
    assert found, selector
    tops = [r["top"] for r in found]
    assert max(tops) - min(tops) < max(r["height"] for r in found), (selector, found)
    return min(tops), max(r["bottom"] for r in found)


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_three_ways_to_play_are_above_the_fold(server, chromium, language) -> None:
    for width, height in ((390, 844), (1366, 768)):
        context = chromium.new_context(viewport={"width": width, "height": height})
        context.add_cookies([{"name": "atout_lang", "value": language, "url": server.base_url}])
        page = context.new_page()
        open_home(page, server.base_url)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        for mode in ("computer", "friends", "local"):
            box = rects(page, f"#play-{mode}")[0]
            assert on_screen(page, box), (language, width, mode, box)
        # the header's links side by side, not stacked: one line on a wide screen; on a phone
        # (since the nav gained "Tournaments") the brand and the language on the first line,
        # the nav's links together on a second one right under it, and no third
        if width > 600:
            one_line(page, ".site-header a, .site-header select")
        else:
            first = one_line(page, ".site-header .brand, .site-header select")
            second = one_line(page, ".site-header .site-nav a")
            assert first[1] - 1 <= second[0] <= first[1] + 8, (language, first, second)
            header = rects(page, ".site-header")[0]
            assert header["bottom"] <= second[1] + 12, (language, header, second)
        # one tap: the default game starts against the computer
        if width == 390:
            page.click("#play-computer")
            page.wait_for_url("**/g/**")
            page.wait_for_selector("#table-app[data-state=ready]")
        context.close()


def test_a_three_player_deal_summary_fits_a_phone(server, chromium) -> None:
    """Bela for three at 390 px: the breakdown's four columns ("Computer 2" and "Computer 3"
    among them) fit the dialog; nothing is cut at its right edge."""
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    open_home(page, server.base_url)
    choose_game(page, "bela", players=3)
    start(page, "computer")
    for _ in range(400):
        state = wait_state(page)
        if state == "deal":
            break
        take_turn(page, state)
    else:
        raise AssertionError("the deal did not end")
    table = rects(page, "#dlg-deal .result-table")[0]
    dialog = rects(page, "#dlg-deal")[0]
    assert table["right"] <= dialog["right"], (table, dialog)
    cut = page.evaluate(
        "() => [...document.querySelectorAll('#dlg-deal .result-scroll')]"
        ".map((e) => e.scrollWidth - e.clientWidth)"
    )
    assert cut and max(cut) <= 0, cut
    headers = page.locator("#dlg-deal .result-table thead th[scope=col]").all_inner_texts()
    assert [h.replace("\n", " ") for h in headers] == ["You", "Computer 2", "Computer 3"]
    context.close()


# The page's own seat rendering, called again after the test gives the view shown declarations
# (the module is the page's: an ES module is loaded once per URL).
SHOW_DECLARATIONS_JS = """async (seats) => {
  const S = window.atoutTable.state;
  const cards = S.view.hand.slice(0, 4);
  // the widest bottom plate: you dealt and you took
  S.view.dealer = 0;
  S.view.contract = {...S.view.contract, taker: 0};
  S.view.declarations = Object.fromEntries(seats.map((s) => [s, [{kind: 'sequence', length: 4, top: 'K'}]]));
  S.view.shown_declarations = seats.map((seat) => ({seat, combos: [cards]}));
  const src = document.querySelector('script[src$="/table.js"]').src;
  const seatsModule = await import(src.replace('table.js', 'table-seats.js'));
  seatsModule.renderSeats();
  return document.querySelectorAll('#seats .shown-cards').length;
}"""


@pytest.mark.parametrize("seats", [(0,), (0, 1, 3)], ids=["bottom", "bottom-and-sides"])
def test_shown_declarations_leave_every_seat_its_room(server, chromium, seats) -> None:
    """On a phone held sideways the felt is short: a row of shown declaration cards at the
    bottom seat once pushed the left seat's plate into it (a 4-card tierce after trick 1), a
    side seat's own shown cards pushed it into the bottom seat, and a bottom seat that dealt and
    took wrapped its shown cards onto a second row, up into the left seat."""
    from .test_layout import MEASURE_JS, SETTLE_JS, layout_problems

    context = chromium.new_context(viewport={"width": 844, "height": 390}, has_touch=True)
    page = context.new_page()
    open_home(page, server.base_url)
    choose_game(page, "classic")
    start(page, "computer")
    play_to(page, "turn:play")
    assert page.evaluate(SHOW_DECLARATIONS_JS, list(seats)) == len(seats)
    problems: list[str] = []
    for width, height in (*SIZES, (740, 360), (915, 412)):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(120)
        page.evaluate(SETTLE_JS)
        problems += [f"{width}x{height}: {p}" for p in layout_problems(page.evaluate(MEASURE_JS))]
    assert problems == []
    context.close()


HINT_JS = "() => { const h = document.querySelector('#trick .trick-hint'); return h && getComputedStyle(h).visibility; }"


def test_the_next_leads_hint_waits_under_a_finished_trick(server, chromium) -> None:
    # On a phone the hint ("Your lead") sat half under the finished trick's cards while that
    # trick stayed on show; it now shows once the trick flies to its winner.
    ctx = chromium.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    open_home(page, server.base_url)
    choose_game(page, "classic")
    start(page, "computer")
    for _ in range(300):
        state = wait_state(page)
        if state == "turn:play" and page.evaluate(HINT_JS):
            break
        take_turn(page, state)
    else:
        pytest.fail("never this seat's lead")
    # the trick before, if any, flies to its winner; then the hint shows
    page.wait_for_function("() => !document.querySelector('#trick-done .slot')")
    assert page.evaluate(HINT_JS) == "visible"
    # a finished trick on show over the empty trick (as collectTrick lays it out)
    page.evaluate(
        """() => { const done = document.getElementById('trick-done');
        const slot = document.createElement('div'); slot.className = 'slot pos-top';
        done.replaceChildren(slot); }"""
    )
    assert page.evaluate(HINT_JS) == "hidden"
    page.evaluate("() => document.getElementById('trick-done').classList.add('collect')")
    assert page.evaluate(HINT_JS) == "visible"
    ctx.close()
