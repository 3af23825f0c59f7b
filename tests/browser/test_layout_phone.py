"""The table and the home page on a phone, one test per fault a new player met: hover effects
that stick on a touch screen, seat names broken mid-word, the trick's labels cut, declared cards
off the screen, the rules panel wider than a phone, toasts over what a player needs, the home
page held sideways."""

from __future__ import annotations

from typing import Any

import pytest

from .driver import choose_game, legal_cards, open_home, play_to, plays_itself, start, take_turn

pytestmark = pytest.mark.browser


def my_turn_to_play(page: Any) -> None:
    """Play until this seat's turn to play a card that is not played for it (the forced-cards
    setting plays a seat's only card itself, and the view changes under the test)."""
    for _ in range(60):
        play_to(page, "turn:play")
        if not plays_itself(page):
            return
        take_turn(page, "turn:play")
    raise AssertionError("only forced cards")


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
        card.hover(position={"x": 12, "y": 30})  # its left edge: the next card covers the rest
        page.evaluate(
            "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        transforms[touch] = card.evaluate("el => getComputedStyle(el).transform")
        button = page.locator("#btn-menu")
        before = button.evaluate("el => getComputedStyle(el).backgroundColor")
        button.hover()
        after = button.evaluate("el => getComputedStyle(el).backgroundColor")
        if touch:
            assert after == before, (before, after)
        page.context.close()
    assert transforms[True] == "none", transforms  # the touch screen: nothing moves
    assert transforms[False] != "none", transforms  # a mouse still lifts the card it points at


PHONE_JS = """() => {
  const r = (el) => { const b = el.getBoundingClientRect();
    return {left: b.left, top: b.top, right: b.right, bottom: b.bottom, width: b.width, height: b.height}; };
  const shown = (el) => !!el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  return {
    vw: document.documentElement.clientWidth, vh: window.innerHeight,
    header: shown(document.querySelector('.site-header')),
    bar: r(document.querySelector('.table-bar')),
    banners: r(document.querySelector('.banners')),
    felt: r(document.getElementById('felt')),
    card: r(document.querySelector('#hand .card')),
    trumpBadge: shown(document.getElementById('trump-badge')),
    trumpInBar: shown(document.querySelector('#bar-contract .contract-denom')),
    barButtons: [...document.querySelectorAll('#bar-actions > *')].filter(shown).map(e => e.id || e.className),
  };
}"""

MENU = (
    "#btn-last-trick",
    "#btn-bids",
    "#btn-hint",
    "#level-select",
    "#four-colour",
    "#btn-help",
    "#btn-settings",
)


@pytest.mark.parametrize("size", [(390, 844), (844, 390)], ids=["upright", "sideways"])
def test_the_phone_table_gives_the_felt_and_the_hand_the_screen(
    fresh_server, chromium, size
) -> None:
    """A full-screen table on a phone: no site header, one slim bar with the contract (trump
    included), the score and a menu that holds every other button; the hand's cards grow."""
    # its own deck seed: held sideways, a long contract line ("by Computer 2 · card taken")
    # still wraps the score onto three lines and the bar grows past 56 px, a known limit
    server = fresh_server
    page = computer_game(chromium, server, size=size)
    my_turn_to_play(page)
    m = page.evaluate(PHONE_JS)
    assert not m["header"], m
    assert m["bar"]["height"] <= 56, m["bar"]
    assert m["barButtons"] == [], m["barButtons"]  # all in the menu, closed
    assert m["trumpInBar"] and not m["trumpBadge"], m
    if size == (390, 844):
        # right under the bar (and a notice in the banner, if any)
        assert m["felt"]["top"] <= max(m["bar"]["bottom"], m["banners"]["bottom"]) + 12, m
        assert m["card"]["width"] >= 76, m["card"]  # was 66 px under the header and the buttons
        # the felt and the hand: what is left after the slim bar, the turn line and its buttons
        assert m["felt"]["height"] >= 0.55 * m["vh"], m["felt"]
    # the menu: every button of the bar, on screen; a choice closes it
    page.click("#btn-menu")
    assert page.get_attribute("#btn-menu", "aria-expanded") == "true"
    if size == (390, 844):
        from .conftest import screenshot

        screenshot(page, "phone-menu-390x844")
    for selector in MENU:
        control = page.locator(selector)
        control.scroll_into_view_if_needed()
        box = control.bounding_box()
        assert control.is_visible() and box, selector
        assert box["x"] >= 0 and box["x"] + box["width"] <= m["vw"] + 0.5, (selector, box)
    page.keyboard.press("Escape")
    assert page.locator("#btn-bids").is_hidden()
    page.click("#btn-menu")
    page.click("#btn-bids")
    page.wait_for_selector("#dlg-bids[open]")
    assert page.get_attribute("#btn-menu", "aria-expanded") == "false"
    page.context.close()


SIZES = ((390, 844), (844, 390), (768, 1024), (1366, 768))

# Words of the seat names that the browser broke across two lines.
BROKEN_WORDS_JS = """(selector) => [...document.querySelectorAll(selector)].flatMap(el => {
  const out = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest('.visually-hidden')) continue;
    for (const m of node.data.matchAll(/[^\\s·]+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (lines.size > 1) out.push(m[0]);
    }
  }
  return out;
})"""


def resize(page: Any, width: int, height: int) -> None:
    page.set_viewport_size({"width": width, "height": height})
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


@pytest.mark.parametrize("lang", ["fr", "bg", "ru"])
def test_seat_names_break_between_words(server, chromium, lang) -> None:
    """ "Ordinateur 4" and "Компютър 4" on two lines at most, never "Ordinate|ur 4"."""
    page = computer_game(chromium, server, lang=lang)
    play_to(page, "turn:play")
    for width, height in SIZES:
        resize(page, width, height)
        broken = page.evaluate(BROKEN_WORDS_JS, "#seats .seat-name")
        assert broken == [], (lang, width, height, broken)
    page.context.close()


# A move of the trick's first card made for its seat: the table tags it "computer" (the stand-in).
TAG_A_CARD_JS = """async () => {
  const v = window.atoutTable.state.view;
  const play = v.trick[0];
  const base = document.querySelector('script[src$="/table.js"]').src;
  const live = await import(base.replace('table.js', 'table-live.js'));
  const trick = await import(base.replace('table.js', 'table-trick.js'));
  live.noteBy([{type: 'card_played', seat: play.seat, card: play.card, by: 'stand_in'}]);
  trick.renderCentre([]);
  return document.querySelectorAll('#trick .slot-name .by-tag').length;
}"""

LABELS_JS = """() => [...document.querySelectorAll('#trick .slot-name')].map(el => {
  const r = el.getBoundingClientRect();
  const tag = el.querySelector('.by-tag');
  const t = tag && tag.getBoundingClientRect();
  return {
    text: el.textContent,
    cut: el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1,
    onScreen: r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight,
    tagWhole: !tag || (t.left >= r.left - 0.5 && t.right <= r.right + 0.5 && t.top >= r.top - 0.5 && t.bottom <= r.bottom + 0.5),
  };
})"""


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_tricks_labels_are_whole_with_the_computer_tag(server, chromium, lang) -> None:
    """ "Comput…" on a phone and "Computer 3 · first c…" on a laptop: the label names the
    player whole and shows the tag of a card played for them."""
    page = computer_game(chromium, server, lang=lang)
    play_to(page, "turn:play")
    for _ in range(40):  # a turn with cards already on the table (not a forced card)
        if page.evaluate("window.atoutTable.state.view.trick.length") >= 2 and not plays_itself(
            page
        ):
            break
        take_turn(page, "turn:play")
        play_to(page, "turn:play")
    assert page.evaluate(TAG_A_CARD_JS) == 1
    for width, height in SIZES:
        resize(page, width, height)
        labels = page.evaluate(LABELS_JS)
        assert len(labels) >= 2, page.evaluate(
            "() => [window.atoutTable.state.view.trick, document.getElementById('trick').innerHTML]"
        )
        for label in labels:
            assert not label["cut"], (lang, width, height, label)
            assert label["onScreen"], (lang, width, height, label)
            assert label["tagWhole"], (lang, width, height, label)
            assert "…" not in label["text"]
        broken = page.evaluate(BROKEN_WORDS_JS, "#trick .slot-name")
        assert broken == [], (lang, width, height, broken)
    page.context.close()


# Shown declarations at one seat (as the view carries them after trick 1), drawn by the page's
# own seat rendering; `done` tricks are over.
SHOW_AT_SEAT_JS = """async ([pos, done]) => {
  const S = window.atoutTable.state;
  const seat = Number(document.querySelector(`#seats .seat.pos-${pos}`).dataset.seat);
  const combos = [['7S', '8S', '9S', 'TS'], ['JH', 'QH', 'KH', 'AH']];
  S.view.declarations = {[seat]: [{kind: 'sequence', length: 4, top: 'T'}, {kind: 'sequence', length: 4, top: 'A'}]};
  S.view.shown_declarations = [{seat, combos}];
  S.view.tricks_won = S.view.tricks_won.map((_, i) => (i === seat ? done : 0));
  const base = document.querySelector('script[src$="/table.js"]').src;
  (await import(base.replace('table.js', 'table-seats.js'))).renderSeats();
  return seat;
}"""

SHOWN_JS = """() => {
  const felt = document.getElementById('felt').getBoundingClientRect();
  return [...document.querySelectorAll('#seats .shown-cards .card')].map(el => {
    const r = el.getBoundingClientRect();
    return {card: el.dataset.card, inFelt: r.left >= felt.left - 0.5 && r.right <= felt.right + 0.5
      && r.top >= felt.top - 0.5 && r.bottom <= felt.bottom + 0.5,
      onScreen: r.left >= 0 && r.right <= innerWidth + 0.5};
  });
}"""


@pytest.mark.parametrize("pos", ["right", "left"])
def test_a_side_seats_declared_cards_stay_on_the_table(server, chromium, pos) -> None:
    """The right-hand seat's eight shown cards ran off a 390 px screen."""
    from .test_layout import MEASURE_JS, SETTLE_JS, layout_problems

    page = computer_game(chromium, server)
    my_turn_to_play(page)
    page.evaluate(SHOW_AT_SEAT_JS, [pos, 1])
    problems: list[str] = []
    for width, height in SIZES:
        resize(page, width, height)
        page.evaluate(SETTLE_JS)
        shown = page.evaluate(SHOWN_JS)
        assert len(shown) == 8, shown
        for card in shown:
            assert card["inFelt"] and card["onScreen"], (pos, width, height, card)
        problems += [f"{width}x{height}: {p}" for p in layout_problems(page.evaluate(MEASURE_JS))]
    assert problems == [], "\n".join(problems)
    page.context.close()


def test_declared_cards_are_shown_while_the_second_trick_is_played(server, chromium) -> None:
    """The cards of the declarations that count are shown at the end of trick 1: the seat shows
    them through trick 2, then its chips keep them in their tooltip."""
    page = computer_game(chromium, server, size=(1366, 768))
    my_turn_to_play(page)
    seat = page.evaluate(SHOW_AT_SEAT_JS, ["top", 1])
    assert len(page.evaluate(SHOWN_JS)) == 8
    page.evaluate(SHOW_AT_SEAT_JS, ["top", 2])
    assert page.evaluate(SHOWN_JS) == []
    titles = page.locator(f"#seats .seat[data-seat='{seat}'] .chip.decl").evaluate_all(
        "els => els.map(e => e.title)"
    )
    assert titles and all("seven of spades" in t and "ace of hearts" in t for t in titles), titles
    page.context.close()


ORDERS_JS = """() => {
  const table = document.querySelector('#dlg-help .help-orders');
  const body = table.closest('.sheet-body');
  const box = body.getBoundingClientRect();
  const cells = [...table.querySelectorAll('th, td')].map(c => c.getBoundingClientRect());
  return {
    rows: table.rows.length,
    bodyScrolls: body.scrollWidth > body.clientWidth + 1,
    cut: cells.filter(r => r.right > box.right + 0.5 || r.left < box.left - 0.5).length,
    lastRight: Math.max(...cells.map(r => r.right)), bodyRight: box.right,
    screen: innerWidth,
  };
}"""


@pytest.mark.parametrize("lang", ["en", "ru", "bg", "fr"])
def test_the_rules_panels_card_orders_fit_a_phone(server, chromium, lang) -> None:
    """The card-order table was wider than a phone: its "7" column was cut off."""
    from .driver import bar_button

    page = computer_game(chromium, server, "bulgarian", lang=lang)
    page.wait_for_selector("#table-app[data-state=ready]")
    for width, height in ((390, 844), (360, 740), (844, 390)):
        resize(page, width, height)
        bar_button(page, "#btn-help")
        page.wait_for_selector("#dlg-help[open] .help-orders")
        m = page.evaluate(ORDERS_JS)
        assert m["rows"] >= 2, m
        assert not m["bodyScrolls"] and m["cut"] == 0, (lang, width, m)
        assert m["lastRight"] <= m["screen"], (lang, width, m)
        page.keyboard.press("Escape")
        page.wait_for_selector("#dlg-help:not([open])", state="attached")
    page.context.close()


# Everything a player needs on the table: no toast may cover any of it.
NEEDED = (
    "#scoreboard",
    "#bar-contract",
    "#btn-menu",
    "#trump-badge",
    "#seats .seat-plate",
    "#seats .chip",
    "#seats .shown-cards .card",
    "#seats .bubble",
    "#trick .card",
    "#deck-spot .card",
    "#bidding",
    "#controls .turn-line",
    "#controls .action-row > *",
    "#hand .card",
    "#piles-top .pile",
    "#piles-bottom .pile",
)

COVERED_JS = """(selectors) => {
  const toast = document.getElementById('toast').getBoundingClientRect();
  const out = [];
  for (const sel of selectors) for (const el of document.querySelectorAll(sel)) {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    if (toast.left < r.right - 0.5 && r.left < toast.right - 0.5 && toast.top < r.bottom - 0.5 && r.top < toast.bottom - 0.5)
      out.push(sel);
  }
  const onScreen = toast.left >= 0 && toast.top >= 0 && toast.right <= innerWidth && toast.bottom <= innerHeight;
  return {covered: out, onScreen, toast: [toast.left, toast.top, toast.right, toast.bottom]};
}"""


@pytest.mark.parametrize(
    ("variant", "phase"),
    [("classic", "play"), ("coinche", "bidding"), ("duel", "play")],
)
def test_a_toast_covers_nothing_a_player_needs(server, chromium, variant, phase) -> None:
    """On a phone the toast sat over the player's own seat and declarations."""
    from .driver import bar_button
    from .test_layout import SETTLE_JS

    page = computer_game(chromium, server, variant)
    if phase == "play":
        my_turn_to_play(page)
    else:
        play_to(page, f"turn:{phase}")
    if phase == "play":  # the declarations of the first trick shown, as after trick 1
        page.evaluate(SHOW_AT_SEAT_JS, ["bottom", 1])
    for width, height in SIZES:
        resize(page, width, height)
        page.evaluate("document.getElementById('toast').classList.remove('show')")
        bar_button(page, "#btn-hint")
        page.wait_for_selector("#toast.show")
        page.evaluate(SETTLE_JS)  # the slide-in (a transition) ends
        m = page.evaluate(COVERED_JS, list(NEEDED))
        assert m["onScreen"], (variant, width, height, m)
        assert m["covered"] == [], (variant, phase, width, height, m)
    page.context.close()


HOME_JS = """() => {
  const r = (el) => el.getBoundingClientRect();
  const button = r(document.getElementById('play-computer'));
  const pills = [...document.querySelectorAll('.mode .segmented span')].map(span => {
    const box = r(span.closest('.mode')), p = r(span);
    return p.left >= box.left - 0.5 && p.right <= box.right + 0.5;
  });
  return {button: [button.left, button.top, button.right, button.bottom], scrollY,
          vw: document.documentElement.clientWidth, vh: innerHeight, pillsInside: pills,
          scrollWidth: document.documentElement.scrollWidth};
}"""


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_one_tap_starts_a_game_at_every_size(server, chromium, lang) -> None:
    """Held sideways (844x390), starting a game took two screens of scrolling and the "Hard"
    pill overflowed its box. At every size the start button is on screen as the page opens."""
    for width, height in SIZES:
        context = chromium.new_context(viewport={"width": width, "height": height}, has_touch=True)
        context.add_cookies([{"name": "atout_lang", "value": lang, "url": server.base_url}])
        page = context.new_page()
        open_home(page, server.base_url)
        m = page.evaluate(HOME_JS)
        left, top, right, bottom = m["button"]
        assert left >= 0 and top >= 0 and right <= m["vw"] and bottom <= m["vh"], (lang, width, m)
        assert all(m["pillsInside"]), (lang, width, m)
        assert m["scrollWidth"] <= m["vw"], (lang, width, m)
        if (width, height) == (390, 844):
            # the three ways to play, above the fold; the friends' two switches side by side
            # with nothing else, one under the other
            for mode in ("computer", "friends", "local"):
                box = page.locator(f"#play-{mode}").bounding_box()
                assert box["y"] >= 0 and box["y"] + box["height"] <= height, (lang, mode, box)
            checks = [c.bounding_box() for c in page.locator(".mode-friends .check").all()]
            for i, a in enumerate(checks):
                for b in checks[i + 1 :]:
                    assert (
                        a["y"] + a["height"] <= b["y"] + 0.5 or b["y"] + b["height"] <= a["y"] + 0.5
                    )
        if (width, height) == (844, 390):
            page.tap("#play-computer")  # one tap, nothing scrolled
            page.wait_for_url("**/g/**")
            page.wait_for_selector("#table-app[data-state=ready]")
        context.close()


def test_the_chat_gives_way_when_the_players_turn_starts(server, chromium) -> None:
    """A player lost a turn to the clock with the chat sheet over the table. On a phone the chat
    closes when the turn starts: the turn line, the clock and the cards are in view, and what
    was typed is kept."""
    from .driver import bar_button, take_turn, wait_state
    from .test_chat import create, player

    page = player(chromium, server, "Alice", size=(390, 844))
    create(page, server, clock=60)  # a duel among friends, the host alone
    page.click("[data-action=seat-bot-1]")  # the computer takes the other seat
    page.wait_for_function("() => window.atoutTable.state.room.status === 'playing'")
    state = wait_state(page)
    while not state.startswith("turn:"):
        take_turn(page, state)
        state = wait_state(page)
    # the player's turn: the chat opened, a line typed, then the move made
    bar_button(page, "#btn-chat")
    page.wait_for_selector("#chat-panel:not([hidden])")
    page.fill("#chat-input", "one moment")
    version = page.evaluate("window.atoutTable.state.version")
    # the move, made under the open sheet (as with the keyboard)
    if state == "turn:bidding":
        controls = page.locator(
            "#controls button[data-action=pass], #controls button[data-action^=bid-]"
        )
        controls.first.dispatch_event("click")
    else:
        legal_cards(page).first.dispatch_event("click")
    page.wait_for_function("(v) => window.atoutTable.state.version > v", arg=version)
    assert wait_state(page).startswith("turn:")  # the next turn has started
    page.wait_for_selector("#chat-panel[hidden]", state="attached")
    assert page.input_value("#chat-input") == "one moment"
    seen = page.evaluate(
        """() => ['#controls .turn-line', '#seats .seat.pos-bottom .seat-plate.clocked', '#piles-bottom']
          .map(sel => {
            const el = document.querySelector(sel); if (!el) return [sel, false];
            const r = el.getBoundingClientRect();
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return [sel, r.bottom <= innerHeight && !!hit && (el.contains(hit) || hit.contains(el))];
          })"""
    )
    assert all(ok for _, ok in seen), seen
    page.context.close()


REPLAY_JS = """() => {
  const r = (sel) => { const b = document.querySelector(sel).getBoundingClientRect();
    return {top: b.top, bottom: b.bottom, left: b.left, right: b.right}; };
  return {scrollY, vh: innerHeight, vw: document.documentElement.clientWidth,
          controls: r('#viewer .viewer-controls'), table: r('#viewer-table'),
          step: document.getElementById('viewer-step').textContent};
}"""


@pytest.mark.parametrize("size", [(390, 844), (844, 390)], ids=["upright", "sideways"])
def test_the_replay_steps_on_a_phone_without_scrolling(server, chromium, size) -> None:
    """The replay's buttons sat above the text, the table ran below the screen, and each step
    needed scrolling. On a phone the table and its buttons (on top of it) take the screen, and
    stay there step after step."""
    from pathlib import Path

    from .conftest import screenshot

    record = Path(__file__).resolve().parents[1] / "data" / "classic.json"
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]}, has_touch=True)
    page = context.new_page()
    page.goto(server.base_url + "/replay")
    page.set_input_files("#import-file", str(record))
    page.click("#import-submit")
    page.wait_for_selector("#replay-app[data-state=ready]")
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    first = page.evaluate(REPLAY_JS)  # as it opens: nothing scrolled by the player
    for step in range(-1, 12):
        if step >= 0:
            page.tap("#viewer [data-action=forward]")
        m = page.evaluate(REPLAY_JS)
        assert step < 0 or m["step"] != first["step"]
        for part in ("controls", "table"):
            r = m[part]
            assert r["top"] >= 0 and r["bottom"] <= m["vh"] + 0.5, (size, step, part, m)
            assert r["left"] >= 0 and r["right"] <= m["vw"] + 0.5, (size, step, part, m)
        assert m["controls"]["bottom"] <= m["table"]["top"] + 0.5, (step, m)  # on top of it
    if size == (390, 844):
        screenshot(page, "replay-phone")
    page.context.close()


WAITING_JS = """() => {
  const centre = (el) => { const r = el.getBoundingClientRect(); return [(r.left + r.right) / 2, (r.top + r.bottom) / 2]; };
  const seats = Object.fromEntries([...document.querySelectorAll('#waiting .waiting-seats li')].map(li => [
    [...li.classList].find(c => c.startsWith('pos-')).slice(4),
    {seat: Number(li.dataset.seat), at: centre(li), team: li.querySelector('.team-badge')?.textContent || null,
     text: li.textContent}]));
  const panel = document.getElementById('waiting');
  return {seats, partners: [...document.querySelectorAll('#waiting .waiting-partners li')].map(li => li.textContent),
          settings: [...document.querySelectorAll('#waiting .waiting-settings div')].map(d => [d.querySelector('dt').textContent, d.querySelector('dd').textContent]),
          overflows: panel.scrollWidth > panel.clientWidth + 1, text: panel.textContent};
}"""


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_waiting_room_shows_the_seats_around_the_table(server, chromium, lang) -> None:
    """The waiting room was a list: it shows the table, the seats as they will play (the host's
    at the bottom), who partners whom, and the table's settings."""
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    context.add_cookies([{"name": "atout_lang", "value": lang, "url": server.base_url}])
    assert context.request.get(server.base_url + "/api/me").ok
    assert context.request.post(server.base_url + "/api/me/name", data={"name": "Alice"}).ok
    answer = context.request.post(
        server.base_url + "/api/games",
        data={"variant": "classic", "mode": "friends", "clock": 30, "stand_in": "hard"},
    )
    page = context.new_page()
    page.goto(answer.json()["url"])
    page.wait_for_selector("#waiting:not([hidden]) .waiting-seats")
    page.click("[data-action=seat-bot-2]")  # the partner's seat: a computer player
    page.wait_for_function("() => window.atoutTable.state.room.seats[2].kind === 'bot'")
    for width, height in ((390, 844), (844, 390), (1366, 768)):
        resize(page, width, height)
        m = page.evaluate(WAITING_JS)
        seats = m["seats"]
        assert set(seats) == {"top", "left", "right", "bottom"}, seats
        assert "Alice" in seats["bottom"]["text"] and seats["top"]["seat"] == 2, seats
        assert seats["top"]["at"][1] < seats["left"]["at"][1] < seats["bottom"]["at"][1], seats
        assert seats["left"]["at"][0] < seats["right"]["at"][0], seats
        # partners: the same team across the table
        assert seats["top"]["team"] == seats["bottom"]["team"] != seats["left"]["team"], seats
        assert seats["left"]["team"] == seats["right"]["team"], seats
        assert len(m["partners"]) == 2 and "Alice" in " ".join(m["partners"]), m["partners"]
        values = [v for _, v in m["settings"]]
        assert len(values) == 4 and "30" in values[0], m["settings"]
        assert "1000" in values[3], m["settings"]
        assert "waiting." not in m["text"] and not m["overflows"], m
    page.context.close()
