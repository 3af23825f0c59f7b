"""The table's layout, measured: every variant and player count, in bidding and in play, on a
phone held both ways, a tablet and a desktop.

One browser and one page per game: the game is driven (against the computer) to the player's
turn in each phase, then the viewport is resized through the four sizes and the page measured
with getBoundingClientRect. What is checked, at every size:

- nothing scrolls horizontally;
- the seat labels, the bid history, the turned card, the controls (whose turn it is and the
  action buttons), the trick and the hand (the duel's piles) are on screen without scrolling
  and do not overlap one another;
- every card that may be played is on screen and shows a tap target of at least 40 x 40 px
  that is really itself (document.elementFromPoint);
- no seat name is cut: the player's 24-character name is shown whole.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import errors_of, screenshot
from .driver import choose_game, open_home, start, take_turn, wait_state

pytestmark = pytest.mark.browser

SIZES = ((390, 844), (844, 390), (768, 1024), (1366, 768))
# The longest name the home page accepts (24 characters), as wide as a real one gets.
LONG_NAME = "Wilhelmina Mackenzie-Dow"
assert len(LONG_NAME) == 24

# (id, variant, players, options)
GAMES = (
    ("classic", "classic", None, None),
    ("classic-no-declarations", "classic", None, {"declarations": False}),
    ("coinche", "coinche", None, None),
    ("bulgarian", "bulgarian", None, None),
    ("bela2", "bela", 2, None),
    ("bela3", "bela", 3, None),
    ("bela4", "bela", 4, None),
    ("duel", "duel", None, None),
)

# The screenshots of docs/screenshots/ these tests write (ATOUT_SCREENSHOTS=1): game, phase, size.
SHOTS = {
    ("coinche", "bidding", (390, 844)): "layout-coinche-bidding-390x844",
    ("classic", "play", (844, 390)): "layout-classic-play-844x390",
    ("bela3", "bidding", (844, 390)): "layout-bela3-bidding-844x390",
    ("duel", "play", (390, 844)): "layout-duel-play-390x844",
    ("bela2", "play", (768, 1024)): "layout-bela2-play-768x1024",
    ("bulgarian", "play", (1366, 768)): "layout-bulgarian-play-1366x768",
}

# Waits for the animations and transitions that move or resize something; those that only paint
# (the pulse of the seat to act: opacity, a glow: box-shadow) change no box that is measured.
SETTLE_JS = """() => {
  const PAINT = new Set(['offset', 'computedOffset', 'easing', 'composite',
                         'opacity', 'boxShadow', 'filter', 'color', 'backgroundColor']);
  const moves = (a) => a.effect.getKeyframes().some((k) => Object.keys(k).some((p) => !PAINT.has(p)));
  return Promise.all(document.getAnimations()
    .filter((a) => a.effect && a.effect.getComputedTiming().iterations !== Infinity && moves(a))
    .map((a) => a.finished.catch(() => null)));
}"""

MEASURE_JS = """() => {
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const rect = (el) => {
    if (!el) return null;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return null;
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
  };
  const union = (els) => {
    const rs = els.map(rect).filter(Boolean);
    if (!rs.length) return null;
    return {
      left: Math.min(...rs.map(r => r.left)), top: Math.min(...rs.map(r => r.top)),
      right: Math.max(...rs.map(r => r.right)), bottom: Math.max(...rs.map(r => r.bottom)),
    };
  };
  const parts = {};
  for (const seat of document.querySelectorAll('#seats .seat')) parts['seat ' + seat.dataset.seat] = rect(seat);
  const bidding = document.getElementById('bidding');
  if (!bidding.hidden) parts['bid history'] = rect(bidding);
  parts['turned card'] = rect(document.querySelector('#deck-spot .deck-stack'));
  parts['controls'] = union([...document.querySelectorAll('#controls .turn-line, #controls .action-row > *')]);
  parts['trick'] = rect(document.getElementById('trick'));
  const hand = document.getElementById('hand');
  if (!hand.hidden) parts['hand'] = union([...hand.querySelectorAll('.card')]);
  for (const id of ['piles-top', 'piles-bottom']) {
    const el = document.getElementById(id);
    if (!el.hidden) parts[id] = rect(el);
  }
  for (const k of Object.keys(parts)) if (!parts[k]) delete parts[k];
  const felt = rect(document.getElementById('felt'));
  // seat names shown whole: no ellipsis, nothing clipped
  const names = [...document.querySelectorAll('#seats .seat-name')].map(el => ({
    seat: el.closest('.seat').dataset.seat,
    text: el.textContent,
    clipped: el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1,
  }));
  // each playable card: on screen, and a tap target of 40 x 40 px that is really itself
  const cards = [...document.querySelectorAll(
    '#hand button.card[aria-disabled=false], #piles-bottom button.card[aria-disabled=false]'
  )].map(el => {
    const r = el.getBoundingClientRect();
    const mine = (x, y) => { const h = document.elementFromPoint(x, y); return !!h && el.contains(h); };
    let best = 0, run = 0, bestX = 0, y0 = r.top + Math.min(12, r.height / 3);
    for (let x = Math.max(0, r.left + 1); x < Math.min(vw, r.right); x += 1) {
      run = mine(x, y0) ? run + 1 : 0;
      if (run > best) { best = run; bestX = x - run / 2; }
    }
    let h = 0;
    for (let y = Math.max(0, r.top + 1); y < Math.min(vh, r.bottom); y += 1) if (mine(bestX, y)) h += 1;
    return {card: el.dataset.card, w: best, h,
            inside: r.left >= 0 && r.top >= 0 && r.right <= vw + 0.5 && r.bottom <= vh + 0.5};
  });
  return {
    vw, vh, parts, felt, names, cards,
    scrollWidth: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
  };
}"""


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    slack = 0.5
    return (
        a["left"] < b["right"] - slack
        and b["left"] < a["right"] - slack
        and a["top"] < b["bottom"] - slack
        and b["top"] < a["bottom"] - slack
    )


FRAMES_JS = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def settled_measure(page: Any) -> dict[str, Any]:
    """The page measured once its layout holds still: animations that end have ended, and two
    measurements two frames apart agree (on a loaded machine a resize's re-render may land
    after the first measurement)."""
    page.evaluate(SETTLE_JS)
    m = page.evaluate(MEASURE_JS)
    for _ in range(50):
        page.evaluate(FRAMES_JS)
        page.evaluate(SETTLE_JS)
        again = page.evaluate(MEASURE_JS)
        if again == m:
            return m
        m = again
    raise AssertionError("the layout never held still")


def layout_problems(m: dict[str, Any]) -> list[str]:
    """Everything wrong with one measurement, in words (empty: the layout is right)."""
    problems: list[str] = []
    vw, vh = m["vw"], m["vh"]
    if m["scrollWidth"] > vw:
        problems.append(f"scrolls horizontally: {m['scrollWidth']} > {vw}")
    parts = m["parts"]
    for name, r in parts.items():
        if r["left"] < -0.5 or r["top"] < -0.5 or r["right"] > vw + 0.5 or r["bottom"] > vh + 0.5:
            problems.append(f"{name} is not on screen: {r}")
        felt = m["felt"]
        if (
            name.startswith("seat")
            and felt
            and (
                r["left"] < felt["left"] - 0.5
                or r["right"] > felt["right"] + 0.5
                or r["top"] < felt["top"] - 0.5
                or r["bottom"] > felt["bottom"] + 0.5
            )
        ):
            problems.append(f"{name} is cut by the edge of the table: {r} not in {felt}")
    names = list(parts)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if overlaps(parts[a], parts[b]):
                problems.append(f"{a} overlaps {b}: {parts[a]} / {parts[b]}")
    for seat in m["names"]:
        if seat["clipped"]:
            problems.append(f"the name of seat {seat['seat']} is cut: {seat['text']!r}")
    for card in m["cards"]:
        if not card["inside"]:
            problems.append(f"playable card {card['card']} is not fully on screen")
        if card["w"] < 40 or card["h"] < 40:
            problems.append(f"playable card {card['card']} has a {card['w']}x{card['h']} target")
    return problems


def measure_all_sizes(page: Any, game: str, phase: str) -> list[str]:
    problems = []
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        # the hand is laid out again on resize; let that settle, and cards that are flying in
        # or turning over land (animations that end: not the pulse of the seat to act)
        page.wait_for_timeout(120)
        m = settled_measure(page)
        problems += [f"{game} {phase} {width}x{height}: {p}" for p in layout_problems(m)]
        name = SHOTS.get((game, phase, (width, height)))
        if name:
            screenshot(page, name)
    return problems


def set_name(page: Any, base_url: str) -> None:
    # the home page asks who this browser is first (and may be given its cookie then)
    with page.expect_response("**/api/me"):
        open_home(page, base_url)
    page.fill("#name-input", LONG_NAME)
    with page.expect_response("**/api/me/name"):
        page.click("#name-form button[type=submit]")
    me = page.evaluate("fetch('/api/me', {credentials: 'same-origin'}).then(r => r.json())")
    assert me["name"] == LONG_NAME, me


@pytest.mark.parametrize(
    ("game", "variant", "players", "options"), GAMES, ids=[g[0] for g in GAMES]
)
def test_nothing_overlaps_in_bidding_and_in_play_at_every_size(
    server, chromium, game, variant, players, options
) -> None:
    context = chromium.new_context(viewport={"width": 1366, "height": 768}, has_touch=True)
    page = context.new_page()
    errors = errors_of(page, console=False)
    set_name(page, server.base_url)
    page.set_viewport_size({"width": 1366, "height": 768})
    open_home(page, server.base_url)
    choose_game(page, variant, players=players, options=options)
    start(page, "computer")
    measured: set[str] = set()
    problems: list[str] = []
    for _ in range(600):
        state = wait_state(page)
        if state == "match":
            break
        phase = state.split(":", 1)[1] if state.startswith("turn:") else None
        if phase and phase not in measured:
            if phase == "play":
                # the player's own name, whole, at the bottom of the table
                bottom = page.locator("#seats .seat.pos-bottom .seat-name").inner_text()
                assert LONG_NAME in bottom, bottom
            problems += measure_all_sizes(page, game, phase)
            page.set_viewport_size({"width": 1366, "height": 768})
            measured.add(phase)
        if state == "consent" and "deal_over" not in measured:
            # the duel: a new deal needs both players; the button is on screen at every size
            problems += measure_all_sizes(page, game, "deal_over")
            page.set_viewport_size({"width": 1366, "height": 768})
            measured.add("deal_over")
        if {"bidding", "play"} <= measured:
            break
        # "consent" included: the summary's Continue may already have agreed
        take_turn(page, state)
    assert {"bidding", "play"} <= measured, measured
    assert problems == [], "\n".join(problems)
    assert errors == []
    context.close()


# Seven declarations, as a hand with three combinations offers: every non-empty subset.
MORE_DECLARATIONS_JS = """() => {
  const v = window.atoutTable.state.view;
  const first = v.legal.find((a) => a.type === 'declare');
  const combo = first.combos[0];
  const longer = v.hand.filter((c) => !combo.includes(c)).slice(0, 4);
  const extra = [];
  for (let i = 0; i < 6; i++) extra.push({ type: 'declare', combos: [combo, longer] });
  v.legal.push(...extra);
  return v.legal.filter((a) => a.type === 'declare').length;
}"""


def test_many_declarations_stay_on_one_line_that_scrolls(server, chromium) -> None:
    """A hand that may call many declarations gets one chip each, on one line that scrolls
    sideways: the controls keep their height and the table its room, at every size."""
    context = chromium.new_context(viewport={"width": 1366, "height": 768}, has_touch=True)
    page = context.new_page()
    errors = errors_of(page, console=False)
    set_name(page, server.base_url)
    open_home(page, server.base_url)
    choose_game(page, "bela", players=3)
    start(page, "computer")
    # deal after deal (the test server's decks are seeded: a new game would deal the same one)
    # until the first card comes with a declaration to call
    for _ in range(1500):
        state = wait_state(page)
        if state == "turn:play" and page.locator("#controls .decl-chips").count():
            break
        if state == "match":
            raise AssertionError("no declaration to call in a whole match")
        take_turn(page, state)
    else:
        raise AssertionError("no declaration to call")
    # the view offers six more (seven or more: a hand may have had several to call);
    # picking a chip draws the controls again from it
    offered = page.evaluate(MORE_DECLARATIONS_JS)
    assert offered >= 7
    page.locator("#controls .decl-chips .chip-btn").first.click()
    chips = page.locator("#controls .decl-chips .chip-btn")
    assert chips.count() == offered
    problems: list[str] = []
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(120)
        problems += [f"{width}x{height}: {p}" for p in layout_problems(settled_measure(page))]
        tops = {round(box["y"]) for box in (chips.nth(i).bounding_box() for i in range(offered))}
        assert len(tops) == 1, (width, height, tops)  # one line
        if width == 390:
            screenshot(page, "declarations-phone")
    row = page.locator("#controls .decl-chips")
    assert row.evaluate("el => el.scrollWidth > el.clientWidth")  # it scrolls, nothing is cut
    chips.nth(offered - 1).scroll_into_view_if_needed()
    assert chips.nth(offered - 1).is_visible()
    assert problems == [], "\n".join(problems)
    assert errors == []
    context.close()
