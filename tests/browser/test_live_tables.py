"""Live tables in Chromium: four friends at a table, one closes the tab, the table plays on.

Through the clock (a short ATOUT_CLOCK_SECONDS) and through the others' "Let the computer play
for X" (a short away time); the player reopens the link and has the seat back. Also the clock's
ring turning red, the forced-card setting, leaving with its dialog, and the replay's marks.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from app.web.i18n import LOCALES_DIR

from .conftest import errors_of, screenshot
from .driver import STATE_JS, choose_game, open_home, take_turn, wait_ready
from .test_layout import MEASURE_JS, SETTLE_JS, SIZES, layout_problems, overlaps

pytestmark = pytest.mark.browser

DATA = Path(__file__).resolve().parents[1] / "data"
EN = json.loads((LOCALES_DIR / "en.json").read_text(encoding="utf-8"))
VIEWPORT = {"width": 1100, "height": 800}
# what a page may do now, without waiting (STATE_JS, called at once)
STATE_NOW = f"({STATE_JS})()"


# sound on, and the clock's alarm (sound.js: square-wave beeps) counted
COUNT_ALARMS = """
(() => {
  localStorage.setItem('atout.sound', '1');
  window.__alarms = 0;
  const proto = OscillatorNode.prototype;
  const desc = Object.getOwnPropertyDescriptor(proto, 'type');
  Object.defineProperty(proto, 'type', {
    get() { return desc.get.call(this); },
    set(value) { if (value === 'square') window.__alarms += 1; desc.set.call(this, value); },
  });
})();
"""


def friends_table(
    chromium: Any,
    server: Any,
    players: int = 4,
    body: dict[str, Any] | None = None,
    init_script: str | None = None,
) -> tuple[list[Any], list[Any], str]:
    """A classic friends table with ``players`` browsers seated (each its own context): the
    host creates it through the home page (``body``: more of POST /api/games), the guests open
    the invitation link. Returns the pages by seat, their contexts and the link."""
    host_ctx = chromium.new_context(viewport=VIEWPORT)
    if init_script:
        host_ctx.add_init_script(init_script)
    host = host_ctx.new_page()
    open_home(host, server.base_url)
    game = host.evaluate(
        """async (body) => {
             const r = await fetch('/api/games', {method: 'POST', credentials: 'same-origin',
               headers: {'content-type': 'application/json'}, body: JSON.stringify(body)});
             return await r.json();
           }""",
        {"variant": "classic", "mode": "friends", **(body or {})},
    )
    link = server.url(game["url"]) if game["url"].startswith("/") else game["url"]
    pages, contexts = [host], [host_ctx]
    host.goto(link)
    wait_ready(host)
    for _ in range(players - 1):
        ctx = chromium.new_context(viewport=VIEWPORT)
        if init_script:
            ctx.add_init_script(init_script)
        page = ctx.new_page()
        page.goto(link)
        wait_ready(page)
        pages.append(page)
        contexts.append(ctx)
    for page in pages:
        page.wait_for_function("() => window.atoutTable.state.view !== null", timeout=15_000)
    by_seat: list[Any] = [None] * players
    for page in pages:
        by_seat[my_seat(page)] = page
    ctx_by_seat = [page.context for page in by_seat]
    return by_seat, ctx_by_seat, link


def my_seat(page: Any) -> int:
    return int(page.evaluate("window.atoutTable.state.held[0]"))


def to_act(page: Any) -> int | None:
    value = page.evaluate("window.atoutTable.state.view && window.atoutTable.state.view.to_act")
    return None if value is None else int(value)


def act_if_asked(page: Any) -> bool:
    """Do what the page asks of its player now, if anything; a race with the server (the
    stand-in or the clock was faster) is not an error."""
    try:
        state = page.evaluate(STATE_NOW)
        if not state or state == "match":
            return False
        take_turn(page, state)
        return True
    except PlaywrightError:
        return False


def play_until(pages: list[Any], until: Callable[[], bool], seconds: float = 90) -> None:
    """Every page in ``pages`` plays its own turns until ``until()``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if until():
            return
        for page in pages:
            act_if_asked(page)
        pages[0].wait_for_timeout(40)
    where = pages[0].evaluate(
        "(() => { const s = window.atoutTable.state; return {phase: s.view && s.view.phase,"
        " to_act: s.view && s.view.to_act, paused: s.room.paused, seats: s.room.seats,"
        " moves: window.atoutTable.moves.slice(-8)}; })()"
    )
    raise AssertionError(f"the table did not get there in time: {where}")


def by_events(page: Any, seat: int, by: str) -> list[dict[str, Any]]:
    events = page.evaluate("window.atoutTable.moves")
    return [e for e in events if e.get("seat") == seat and e.get("by") == by]


def own_moves(page: Any, seat: int) -> list[dict[str, Any]]:
    """The moves of ``seat`` its player made (no ``by``) that ``page`` saw."""
    events = page.evaluate("window.atoutTable.moves")
    return [e for e in events if e.get("seat") == seat and e.get("by") is None]


def seat_room(page: Any, seat: int) -> dict[str, Any]:
    return dict(page.evaluate(f"window.atoutTable.state.room.seats[{seat}]"))


NOTICE_JS = """() => {
  const el = document.getElementById('live-notice');
  if (!el || el.hidden) return null;
  const r = el.getBoundingClientRect();
  return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
}"""


# the screenshots of docs/screenshots/ these tests write (ATOUT_SCREENSHOTS=1): what, size
SHOTS = {"clock": (1366, 768), "vote": (390, 844), "stand-in": (844, 390), "back": (390, 844)}


def live_layout_problems(page: Any, what: str) -> list[str]:
    """The table's layout measured at every size (test_layout.py), with the live notice: on
    screen and clear of every other part. The viewport is put back afterwards."""
    problems: list[str] = []
    before = page.viewport_size
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(120)
        page.evaluate(SETTLE_JS)
        m = page.evaluate(MEASURE_JS)
        found = layout_problems(m)
        if page.locator("#seats .seat:is(.pos-left, .pos-right) .shown-cards").count():
            # a side seat's shown declaration (its cards, after the first trick) can reach
            # into the bottom row on a short screen, with or without the live parts: a
            # layout problem of its own, not of this test's
            found = [p for p in found if not (p.startswith("seat ") and " overlaps seat " in p)]
        notice = page.evaluate(NOTICE_JS)
        if notice:
            if notice["right"] > m["vw"] + 0.5 or notice["bottom"] > m["vh"] + 0.5:
                found.append(f"the live notice is not on screen: {notice}")
            for name, r in m["parts"].items():
                if overlaps(notice, r):
                    found.append(f"the live notice overlaps {name}")
        problems += [f"{what} {width}x{height}: {p}" for p in found]
        if SHOTS.get(what) == (width, height):
            screenshot(page, f"live-{what}-{width}x{height}")
    page.set_viewport_size(before)
    return problems


def close_all(contexts: list[Any]) -> None:
    for ctx in contexts:
        with contextlib.suppress(Exception):
            ctx.close()


def test_a_tab_closed_at_a_table_with_a_clock_the_stand_in_plays_then_the_seat_comes_back(
    live_server, chromium
) -> None:
    """The done-when test, through the clock: four browsers, one tab closed, the clock runs out
    on that seat and its stand-in plays; every seat sees the ring and the move; the player
    reopens the link and plays its own next turn."""
    server = live_server({"ATOUT_CLOCK_SECONDS": "8"})
    pages, contexts, link = friends_table(
        chromium, server, body={"clock": 15}, init_script=COUNT_ALARMS
    )
    for page in pages:
        page.set_default_timeout(4_000)
    errors = [errors_of(p, console=False) for p in pages]
    # the ring is on the seat to act, for everyone, and red in its last 5 s
    first = to_act(pages[0])
    assert first is not None
    ring = f"#seats .seat[data-seat='{first}'][data-clock=running] .clock-ring"
    for page in pages:
        page.wait_for_selector(ring, state="attached")
    pages[0].wait_for_selector(f"#seats .seat[data-seat='{first}'].clock-low", timeout=8_000)
    secs = int(pages[0].locator(f"#seats .seat[data-seat='{first}'] .clock-secs").inner_text())
    assert 0 <= secs <= 5
    # its player hears the alarm (sound on); a player whose clock has not run does not
    pages[first].wait_for_function("() => window.__alarms > 0", timeout=3_000)
    assert pages[(first + 2) % 4].evaluate("window.__alarms") == 0
    # the ring moves nothing: the table's layout holds at every size
    assert live_layout_problems(pages[first], "clock") == []
    # the player to act lets the clock run out: the stand-in bids for them, everyone sees it
    for page in pages:
        page.wait_for_function(
            "(seat) => window.atoutTable.moves.some(e => e.seat === seat && e.by === 'stand_in')",
            arg=first,
            timeout=15_000,
        )
    bubble_tag = f"#seats .seat[data-seat='{first}'] .bubble .by-tag[data-by=stand_in]"
    for page in pages:
        # the bid's bubble says the computer made it (unless that bid ended the bidding)
        if page.evaluate("window.atoutTable.state.view.phase") == "bidding":
            assert page.locator(bubble_tag).count() == 1
    # the next decision's clock starts whole: green, then red (a bid that took the contract
    # leaves the same seat to lead, with a new clock)
    gone = to_act(pages[0])
    assert gone is not None
    fresh = f"#seats .seat[data-seat='{gone}'][data-clock=running]"
    pages[0].wait_for_selector(f"{fresh}:not(.clock-low) .clock-ring", state="attached")
    pages[0].wait_for_selector(f"{fresh}.clock-low .clock-ring", state="attached", timeout=8_000)
    # a player closes the tab: the table keeps playing through that seat's clock
    gone_ctx = contexts[gone]
    pages[gone].close()
    playing = [p for s, p in enumerate(pages) if s != gone]
    before = len(by_events(playing[0], gone, "stand_in"))
    play_until(
        playing, lambda: len(by_events(playing[0], gone, "stand_in")) >= before + 2, seconds=120
    )
    assert not playing[0].evaluate("window.atoutTable.state.room.paused")
    # the player comes back through the link (same browser) and plays its own next turn
    back = gone_ctx.new_page()
    back.set_default_timeout(4_000)
    back_errors = errors_of(back, console=False)
    back.goto(link)
    wait_ready(back)
    assert my_seat(back) == gone
    pages[gone] = back

    def own_move() -> bool:
        act_if_asked(back)
        return bool(own_moves(back, gone))

    play_until(playing, own_move, seconds=120)
    # from its return on, no move of that seat was the stand-in's
    assert by_events(back, gone, "stand_in") == []
    assert all(e == [] for e in errors) and back_errors == []
    close_all(contexts)


def test_a_tab_closed_without_a_clock_the_others_let_the_computer_play_then_i_am_back(
    live_server, chromium
) -> None:
    """The done-when test, through the others' consent: no clock, a short away time; the table
    waits, then each other player agrees, the stand-in plays, the player comes back."""
    server = live_server()
    pages, contexts, link = friends_table(chromium, server, body={"away_seconds": 5})
    for page in pages:
        page.set_default_timeout(4_000)
    gone = 2
    gone_ctx = contexts[gone]
    pages[gone].close()
    playing = [p for s, p in enumerate(pages) if s != gone]
    name = playing[0].evaluate(
        f"(() => {{ const s = window.atoutTable.state.room.seats[{gone}]; return s.name; }})()"
    )
    # after the away time, every other player is offered the vote
    vote = f"#live-notice [data-action=stand-in-{gone}]"
    for page in playing:
        page.wait_for_selector(vote, timeout=20_000)
    label = playing[0].locator(vote).inner_text()
    assert label.startswith(EN["live.vote.button"].split("{name}")[0])
    if name:
        assert name in label
    assert live_layout_problems(playing[0], "vote") == []
    # each agrees in turn; the votes are shown to the others
    for i, page in enumerate(playing):
        page.click(vote)
        if i < len(playing) - 1:  # the last vote hands the seat over: no more vote then
            page.wait_for_selector(f"{vote}[disabled]")
            playing[-1].wait_for_function(
                "([seat, n]) => (window.atoutTable.state.room.seats[seat].stand_in_votes || [])"
                ".length >= n",
                arg=[gone, i + 1],
            )
            assert playing[-1].locator("#live-notice .live-votes").count() == 1
    # the computer holds the seat: everyone sees its badge, and the table plays on
    badge = f"#seats .seat[data-seat='{gone}'] .badge.stand-in"
    for page in playing:
        page.wait_for_selector(badge)
        assert page.locator(badge).inner_text() == EN["live.stand_in.badge"]
    assert seat_room(playing[0], gone)["stand_in"] == "away"
    play_until(playing, lambda: len(by_events(playing[0], gone, "stand_in")) >= 2, seconds=120)
    assert live_layout_problems(playing[0], "stand-in") == []
    # back through the link: "The computer is playing for you" and "I'm back"
    back = gone_ctx.new_page()
    back.set_default_timeout(4_000)
    back.goto(link)
    wait_ready(back)
    back.wait_for_selector("#live-notice [data-action=back]")
    assert EN["live.back.text"] in back.locator("#live-notice").inner_text()
    assert live_layout_problems(back, "back") == []
    # while the player is connected the stand-in does not play that seat
    seen = len(by_events(playing[0], gone, "stand_in"))
    back.click("#live-notice [data-action=back]")
    back.wait_for_selector("#live-notice [data-action=back]", state="detached")
    for page in playing:
        page.wait_for_selector(badge, state="detached")
    assert seat_room(back, gone)["stand_in"] is None
    pages[gone] = back

    def own_move() -> bool:
        act_if_asked(back)
        return bool(own_moves(back, gone))

    play_until(playing, own_move, seconds=120)
    assert len(by_events(playing[0], gone, "stand_in")) == seen
    close_all(contexts)


def test_leaving_asks_first_then_the_computer_plays_the_seat(live_server, chromium) -> None:
    server = live_server()
    pages, contexts, link = friends_table(chromium, server, players=4)
    leaver = pages[1]
    leaver.click("#btn-leave")
    dialog = leaver.locator("#dlg-leave")
    assert dialog.is_visible()
    text = dialog.inner_text()
    assert EN["leave.confirm"] in text and EN["leave.come_back"] in text
    screenshot(leaver, "live-leave-dialog")
    # "Stay" keeps the seat
    dialog.locator("button.primary").click()
    assert not dialog.is_visible()
    leaver.click("#btn-leave")
    leaver.click("#leave-go")
    leaver.wait_for_url(server.url("/"))
    badge = "#seats .seat[data-seat='1'] .badge.stand-in"
    pages[0].wait_for_selector(badge)
    assert seat_room(pages[0], 1)["stand_in"] == "left"
    close_all(contexts)


def single_card_turn(page: Any) -> bool:
    return bool(
        page.evaluate(
            "(() => { const s = window.atoutTable.state; const v = s.view;"
            " return !!v && v.phase === 'play' && v.legal.length === 1"
            " && v.legal[0].type === 'play' && v.to_act === s.held[0]; })()"
        )
    )


@pytest.mark.parametrize("auto_play", [True, False], ids=["on", "off"])
def test_forced_cards_play_themselves_only_with_the_setting_on(
    live_server, chromium, auto_play
) -> None:
    """The last trick of a deal gives one card to play: the server plays it when the setting
    is on ("auto" under it), and waits for the player when it is off."""
    server = live_server()
    context = chromium.new_context(viewport=VIEWPORT)
    if not auto_play:
        context.add_init_script("localStorage.setItem('atout.autoPlay', '0')")
    page = context.new_page()
    errors = errors_of(page, console=False)
    open_home(page, server.base_url)
    choose_game(page, "classic")
    page.click("#play-computer")
    page.wait_for_url("**/g/**")
    wait_ready(page)
    page.click("#btn-settings")
    assert page.locator("#setting-auto").is_checked() is auto_play
    page.keyboard.press("Escape")
    seat = my_seat(page)
    # play on until the server has played a forced card for us (on), or a turn with a single
    # card waits for us (off); the deal's last trick always gives one. Time-bound, not
    # count-bound, and never acting on a single card while the setting is on.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if auto_play and by_events(page, seat, "auto"):
            break
        if single_card_turn(page):
            if not auto_play:
                break
        else:
            state = page.evaluate(STATE_NOW)
            if state and (state.startswith("turn:") or state in ("deal", "consent")):
                with contextlib.suppress(PlaywrightError):
                    take_turn(page, state)
        page.wait_for_timeout(30)
    else:
        raise AssertionError("no forced card played for us" if auto_play else "no single card")
    if auto_play:
        # what the server plays for the player, marked "auto", is only ever a card
        assert {e["type"] for e in by_events(page, seat, "auto")} == {"card_played"}
    else:
        page.wait_for_timeout(2_500)  # the server would have played it by now
        assert single_card_turn(page)
        assert by_events(page, seat, "auto") == []
    assert errors == []
    context.close()


def test_the_replay_marks_the_moves_of_the_stand_in_and_the_forced_cards(
    server, chromium, tmp_path
) -> None:
    """A record whose actions carry ``by`` (RULES.md §12): the viewer tags those moves, in
    what happened and on the trick, and no other."""
    record = json.loads((DATA / "classic.json").read_text(encoding="utf-8"))
    actions = record["deals"][0]["actions"]
    plays = [i for i, a in enumerate(actions) if a["type"] == "play"]
    actions[0]["by"] = "stand_in"  # the bid
    actions[plays[1]]["by"] = "stand_in"
    actions[plays[2]]["by"] = "auto"
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    context = chromium.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = errors_of(page, console=False)
    page.goto(server.url("/replay"))
    page.set_input_files("#import-file", str(path))
    page.click("#import-submit")
    page.wait_for_selector("#replay-app[data-state=ready]")
    forward = "#viewer [data-action=forward]"
    tags: list[list[str]] = []
    trick_tags: list[list[str]] = []
    for _ in range(plays[2] + 1):
        page.click(forward)
        tags.append(
            page.locator("#viewer-says .by-tag").evaluate_all("els => els.map(e => e.dataset.by)")
        )
        trick_tags.append(
            page.locator("#viewer-table .v-trick .slot .by-tag").evaluate_all(
                "els => els.map(e => e.dataset.by)"
            )
        )
    # step n shows action n - 1
    assert tags[0] == ["stand_in"]
    assert tags[plays[1]] == ["stand_in"] and tags[plays[2]] == ["auto"]
    assert all(t == [] for i, t in enumerate(tags) if i not in (0, plays[1], plays[2])), tags
    assert page.locator("#viewer-says .by-tag").inner_text() == EN["live.by.auto"]
    assert sorted(trick_tags[plays[2]]) == ["auto", "stand_in"]
    screenshot(page, "replay-by")
    assert errors == []
    context.close()


def test_the_home_form_sets_the_clock_the_stand_in_and_the_away_time(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    errors = errors_of(page, console=False)
    open_home(page, server.base_url)
    choose_game(page, "classic")
    page.click("#table-options summary")
    page.select_option("#table-clock", "30")
    page.select_option("#table-stand-in", "hard")
    page.select_option("#table-away", "60")
    with page.expect_request("**/api/games") as request:
        page.click("#play-friends")
    body = request.value.post_data_json
    assert (body["clock"], body["stand_in"], body["away_seconds"]) == (30, "hard", 60)
    page.wait_for_selector("#invite:not([hidden])")
    page.click("#invite-go")
    wait_ready(page)
    settings = page.evaluate("window.atoutTable.state.room.settings")
    assert (settings["clock"], settings["stand_in"], settings["away_seconds"]) == (30, "hard", 60)
    # the defaults are not sent: a table without a clock
    open_home(page, server.base_url)
    with page.expect_request("**/api/games") as request:
        page.click("#play-friends")
    body = request.value.post_data_json
    assert not {"clock", "stand_in", "away_seconds"} & set(body)
    assert errors == []
    context.close()
