"""What a new player met on a third try, in Chromium against a real server: plurals, the end of
a match reopened, the rematch that exists, toasts over dialogs, the home page's games, leaving,
import errors, timeouts and the frictions of the table."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from app.web.i18n import LOCALES_DIR

from .conftest import errors_of, in_language
from .driver import (
    choose_game,
    open_home,
    play_to,
    start,
    take_turn,
    wait_ready,
    wait_state,
)
from .test_live_tables import friends_table

pytestmark = pytest.mark.browser


def catalog(language: str) -> dict[str, str]:
    return dict(json.loads((LOCALES_DIR / f"{language}.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    ("language", "wanted"),
    [("ru", "501 очко"), ("hr", "501 bod"), ("ro", "501 puncte"), ("cs", "501 bodů")],
)
def test_play_to_counts_its_points_with_the_language_plural(
    server, chromium, language, wanted
) -> None:
    context = in_language(chromium, server, language)
    page = context.new_page()
    errors = errors_of(page)
    open_home(page, server.base_url)
    choose_game(page, "classic")
    page.click("#options-box summary")
    labels = page.locator("#opt-target option").all_inner_texts()
    assert wanted in labels, labels
    # every count is the catalog's form for the page's Intl.PluralRules category of its number
    cat = catalog(language)
    for label in labels:
        match = re.match(r"^(\d+) ", label)
        if not match:
            continue
        n = int(match[1])
        category = page.evaluate(f"new Intl.PluralRules({language!r}).select({n})")
        form = cat.get(f"count.points.{category}", cat["count.points.other"])
        assert label == form.replace("{n}", str(n))
    assert errors == []
    context.close()


DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize(
    ("language", "wanted"),
    [
        ("fr", "Donne 1, coup 3\u00a0: Joueur 4 joue dame de trèfle, qui n'est pas dans sa main."),
        ("cs", "Rozdání 1, tah 3: Hráč 4 hraje: křížová dáma, ale tu kartu v ruce nemá."),
        ("en", "Deal 1, move 3: Player 4 plays queen of clubs, which is not in that hand."),
    ],
)
def test_a_broken_record_is_explained_in_the_page_language(
    server, chromium, tmp_path, language, wanted
) -> None:
    record = json.loads((DATA / "classic.json").read_text(encoding="utf-8"))
    actions = record["deals"][0]["actions"]
    assert actions[2] == {"seat": 3, "type": "play", "card": "AS"}
    actions[2]["card"] = "QC"  # seat 0's card
    # the server sends the engine's error as data: deal and action from 0, the rule's code
    answer = chromium_request(server, record)
    assert answer["error"]["record"] == {
        "deal": 0,
        "action": 2,
        "rule": "seat 3: not in hand: QC",
        "code": "illegal",
        "seat": 3,
        "type": "play",
        "reason": {"code": "not_in_hand", "card": "QC"},
    }
    context = in_language(chromium, server, language)
    page = context.new_page()
    errors = errors_of(page)
    page.goto(server.url("/replay"))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    page.set_input_files("#import-file", str(bad))
    page.click("#import-submit")
    page.wait_for_selector("#replay-app[data-state=error]")
    lines = page.inner_text("#replay-error").splitlines()
    assert lines == [catalog(language)["replay.invalid_record"], wanted]
    assert [e for e in errors if "status of 422" not in e] == []
    context.close()


def chromium_request(server: Any, record: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        server.url("/api/replay"),
        data=json.dumps(record).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        urllib.request.urlopen(request, timeout=20)
    except urllib.error.HTTPError as exc:
        assert exc.code == 422
        return dict(json.loads(exc.read()))
    raise AssertionError("the broken record was accepted")


def test_leaving_the_table_is_confirmed_on_the_home_page(live_server, chromium) -> None:
    server = live_server()
    pages, contexts, _ = friends_table(chromium, server, players=4)
    leaver = pages[1]
    leaver.click("#btn-leave")
    leaver.click("#leave-go")
    leaver.wait_for_url(server.url("/"))
    toast = leaver.locator("#toast")
    toast.wait_for(state="visible")
    assert toast.inner_text() == catalog("en")["leave.done"]
    # said once: a reload does not say it again
    leaver.reload()
    leaver.wait_for_selector("#options-box")
    assert leaver.locator("#toast").inner_text() == ""
    for context in contexts:
        context.close()


def test_your_games_lists_the_table_just_created(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    errors = errors_of(page)
    open_home(page, server.base_url)
    page.wait_for_selector("#games-empty:not([hidden])")
    choose_game(page, "classic")
    start(page, "friends")
    group = page.locator("#games .game-group[data-mode=friends] .game-line")
    group.first.wait_for()
    assert group.count() == 1
    assert page.locator("#games-empty").is_hidden()
    assert errors == []
    context.close()


def play_match(page: Any, limit: int = 400) -> None:
    for _ in range(limit):
        state = wait_state(page)
        if state == "match":
            return
        take_turn(page, state)
    raise AssertionError("the match did not end")


def test_an_old_match_leads_to_its_rematch_and_toasts_show_over_dialogs(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    errors = errors_of(page)
    open_home(page, server.base_url)
    choose_game(page, "classic", options={"target": "one_deal"})
    start(page, "computer")
    old_url = page.url
    play_match(page)
    dialog = page.locator("#dlg-match")
    # the XP lines: one colon at most ("Tricks won: 3  +3", never "Tricks won: 3: +3")
    dialog.locator("#xp-box li").first.wait_for()
    for line in dialog.locator("#xp-box li").all_inner_texts():
        assert line.count(":") <= 1, line
    # a toast said while the dialog is open is drawn inside it, over the backdrop
    page.evaluate("import('/static/js/common.js').then((m) => m.toast('over the dialog'))")
    toast = page.locator("#dlg-match #toast")
    toast.wait_for(state="visible")
    assert toast.inner_text() == "over the dialog"
    box = toast.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 768
    dialog.locator("[data-action=rematch]").click()
    page.wait_for_url(lambda url: url != old_url and "/g/" in url)
    new_url = page.url
    wait_ready(page)
    # the old match, reopened: its rematch exists, the way on is to go there
    page.goto(old_url)
    wait_state(page)
    go = page.locator("#dlg-match [data-action=rematch]")
    assert go.evaluate("el => el.tagName") == "A"
    assert go.inner_text() == catalog("en")["match.to_rematch"]
    go.click()
    page.wait_for_url(new_url)
    assert errors == []
    context.close()


def test_a_spectator_who_reloads_sees_who_played_for_a_seat(server, chromium) -> None:
    host_ctx = chromium.new_context(viewport={"width": 1366, "height": 768})
    host = host_ctx.new_page()
    open_home(host, server.base_url)
    game = host.evaluate(
        """() => fetch('/api/games', { method: 'POST', headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ variant: 'classic', mode: 'friends', seats: [
            { kind: 'human' }, { kind: 'bot' }, { kind: 'bot' }, { kind: 'bot' }] }) })
          .then(r => r.json())"""
    )
    url = game["url"] if game["url"].startswith("http") else server.url(game["url"])
    host.goto(url)
    wait_ready(host)
    auto_tag = "#last-trick .by-tag.by-auto"
    # play until the last trick holds a card the server played for the host ("auto": forced)
    for _ in range(600):
        state = wait_state(host)
        if state == "turn:play" and host.locator("#btn-last-trick:not([disabled])").count():
            host.click("#btn-last-trick")
            found = host.locator(auto_tag).count() > 0
            host.keyboard.press("Escape")
            host.wait_for_selector("#dlg-last", state="hidden")
            if found:
                break
        take_turn(host, state)
    else:
        raise AssertionError("no card was played for the host")
    seat = int(host.evaluate("window.atoutTable.state.held[0]"))
    played = host.evaluate(
        "(seat) => window.atoutTable.moves.filter(m => m.by === 'auto' && m.seat === seat)"
        ".map(m => m.card)",
        seat,
    )
    # a spectator opens (or reloads) the table now: the tag is there as the players see it
    watcher_ctx = chromium.new_context(viewport={"width": 1366, "height": 768})
    watcher = watcher_ctx.new_page()
    errors = errors_of(watcher)
    watcher.goto(url)
    wait_ready(watcher)
    assert watcher.evaluate("window.atoutTable.state.role") == "spectator"
    known = watcher.evaluate(
        """([seat, cards]) => import('/static/js/table-live.js')
             .then((m) => cards.map((c) => m.playedBy(seat, c)))""",
        [seat, played],
    )
    assert "auto" in known
    watcher.click("#btn-last-trick")
    watcher.wait_for_selector(auto_tag)
    assert errors == []
    host_ctx.close()
    watcher_ctx.close()


# Counts the moments "New deal" is offered before the deal's summary was ever open.
EARLY_NEXT_DEAL = """
window.__earlyNextDeal = 0;
let summarySeen = false;
new MutationObserver(() => {
  const app = document.getElementById('table-app');
  const dlg = document.getElementById('dlg-deal');
  if (!app || !dlg) return;
  if (dlg.open) summarySeen = true;
  if (app.dataset.phase !== 'deal_over') summarySeen = false;
  if (document.querySelector('#controls [data-action=next_deal]') && !summarySeen) {
    window.__earlyNextDeal += 1;
  }
}).observe(document, { subtree: true, childList: true, attributes: true });
"""


def test_the_duel_summary_comes_before_new_deal(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 1366, "height": 768})
    context.add_init_script(EARLY_NEXT_DEAL)
    page = context.new_page()
    errors = errors_of(page)
    open_home(page, server.base_url)
    choose_game(page, "duel")
    start(page, "computer")
    for _ in range(200):
        state = wait_state(page)
        if state == "deal":
            break
        take_turn(page, state)
    else:
        raise AssertionError("no deal summary")
    assert page.evaluate("window.__earlyNextDeal") == 0
    # the summary holds the way on ("New deal"), and the next deal follows it
    page.locator("#dlg-deal [data-action=next_deal]").click()
    page.wait_for_function("() => window.atoutTable.state.view.phase !== 'deal_over'")
    assert not page.locator("#dlg-deal").evaluate("d => d.open")
    assert page.evaluate("window.__earlyNextDeal") == 0
    assert errors == []
    context.close()


@pytest.mark.parametrize(
    ("language", "cases"),
    [
        ("en", {0.96: "1 point", 1.04: "1 point", 71.84: "71.8 points", 1.25: "1.3 points"}),
        ("ru", {0.96: "1 очко", 21.04: "21 очко", 4.96: "5 очков"}),
        ("cs", {0.96: "1 bod", 2.04: "2 body"}),
    ],
)
def test_analysis_plurals_follow_the_number_shown(server, chromium, language, cases) -> None:
    context = in_language(chromium, server, language)
    page = context.new_page()
    page.goto(server.url("/replay"))
    shown = page.evaluate(
        """(ns) => import('/static/js/replay-analysis.js')
             .then((m) => ns.map((n) => m.pointsText(n)))""",
        list(cases),
    )
    assert shown == list(cases.values())
    context.close()


def test_the_analysis_summary_says_what_the_bidding_cost(server, chromium) -> None:
    # "You: 0 costly cards, 0 points" right above a bid that cost 71.8 points
    context = chromium.new_context()
    page = context.new_page()
    page.goto(server.url("/replay"))
    line = page.evaluate(
        """() => import('/static/js/replay-analysis.js').then((m) => m.seatSummary(
             { costly_cards: 0, cost: 0, bid_cost: 71.84 }, { person: 'you', name: '' }))"""
    )
    assert line == "You: 0 costly cards, 0 points. Your bidding cost 71.8 points on average."
    quiet = page.evaluate(
        """() => import('/static/js/replay-analysis.js').then((m) => m.seatSummary(
             { costly_cards: 1, cost: 6, bid_cost: 0 }, { person: 'player', name: 'Ana' }))"""
    )
    assert quiet == "Ana: 1 costly card, 6 points."
    context.close()


def test_the_hand_is_in_full_colour_during_the_auction(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    open_home(page, server.base_url)
    choose_game(page, "classic")
    start(page, "computer")
    play_to(page, "turn:bidding")
    cards = page.locator("#hand button.card")
    assert cards.count() >= 5
    assert page.locator("#hand button.card.dimmed").count() == 0
    filters = cards.evaluate_all(
        "els => els.map(e => getComputedStyle(e.querySelector('svg')).filter)"
    )
    assert not [f for f in filters if "brightness" in f or "saturate" in f], filters
    context.close()


@pytest.mark.parametrize("variant", ["coinche", "classic", "bulgarian"])
def test_the_auction_gives_the_focus_to_pass(server, chromium, variant) -> None:
    # a stray Enter must not commit a coinche or a surcoinche: the safe call has the focus
    context = chromium.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    open_home(page, server.base_url)
    choose_game(page, variant)
    start(page, "computer")
    for _ in range(3):
        play_to(page, "turn:bidding")
        if page.locator("#controls button[data-action=pass]").count():
            page.wait_for_function(
                "() => document.activeElement && document.activeElement.dataset.action === 'pass'"
            )
            break
        take_turn(page, "turn:bidding")
    else:
        raise AssertionError("no turn with Pass")
    context.close()


@pytest.mark.parametrize("size", [(390, 844), (1366, 768)])
def test_the_friends_table_settings_come_before_create_a_table(server, chromium, size) -> None:
    width, height = size
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    open_home(page, server.base_url)
    settings = page.locator("#table-options")
    create = page.locator("#play-friends")
    # in the friends card, before its button: in the document and on the screen
    assert settings.evaluate("(el) => el.closest('.mode-friends') !== null")
    assert settings.evaluate(
        "(el) => !!(el.compareDocumentPosition(document.getElementById('play-friends'))"
        " & Node.DOCUMENT_POSITION_FOLLOWING)"
    )
    page.click("#table-options summary")
    page.select_option("#table-clock", "30")
    top = settings.bounding_box()
    button = create.bounding_box()
    assert top is not None and button is not None and top["y"] < button["y"]
    # nothing of the settings sticks out of its card
    card = page.locator(".mode-friends").bounding_box()
    box = settings.bounding_box()
    assert card is not None and box is not None
    assert box["x"] >= card["x"] - 1 and box["x"] + box["width"] <= card["x"] + card["width"] + 1
    context.close()


def test_your_games_continue_at_the_top_and_abandon_a_computer_game(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    errors = errors_of(page)
    open_home(page, server.base_url)
    choose_game(page, "classic")
    start(page, "computer")
    game_url = page.url
    open_home(page, server.base_url)
    # the running game's Continue is on the first screen of a phone
    resume = page.locator("#resume-go")
    resume.wait_for(state="visible")
    box = resume.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 844
    assert resume.inner_text() == catalog("en")["home.resume"]
    resume.click()
    page.wait_for_url(game_url)
    wait_ready(page)
    # a friends table lists no "Abandon" (it is left at the table)
    open_home(page, server.base_url)
    choose_game(page, "classic")
    start(page, "friends")
    friends = page.locator("#games .game-group[data-mode=friends] .game-line")
    friends.first.wait_for()
    assert friends.locator("[data-action=abandon]").count() == 0
    status = page.evaluate(
        """(id) => fetch(`/api/games/${id}/abandon`, { method: 'POST' }).then((r) => r.status)""",
        page.locator("#games .game-group[data-mode=friends] .game-line").get_attribute(
            "data-game-id"
        ),
    )
    assert status == 403
    # the computer game: abandoned after a confirmation, it leaves "Your games"
    line = page.locator("#games .game-group[data-mode=computer] .game-line")
    assert line.count() == 1
    page.once("dialog", lambda dialog: dialog.accept())
    line.locator("[data-action=abandon]").click()
    page.wait_for_selector("#games .game-group[data-mode=computer]", state="detached")
    games = page.evaluate("() => fetch('/api/me').then((r) => r.json()).then((m) => m.games)")
    assert [g["mode"] for g in games] == ["friends"]
    assert page.locator("#toast").inner_text() == catalog("en")["home.abandoned"]
    assert [e for e in errors if "status of 403" not in e] == []
    context.close()


# Every text the page's toast shows, in order (a toast lasts a moment only).
RECORD_TOASTS = """
window.__toasts = [];
new MutationObserver(() => {
  const el = document.getElementById('toast');
  if (el && el.textContent && window.__toasts[window.__toasts.length - 1] !== el.textContent) {
    window.__toasts.push(el.textContent);
  }
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


@pytest.mark.parametrize("size", [(390, 844), (1366, 768)])
def test_the_level_badge_is_explained_on_tap_and_hover(server, chromium, size) -> None:
    width, height = size
    context = chromium.new_context(
        viewport={"width": width, "height": height}, has_touch=width < 600
    )
    context.add_init_script(RECORD_TOASTS)
    page = context.new_page()
    open_home(page, server.base_url)
    choose_game(page, "classic")
    start(page, "computer")
    badge = page.locator(".seat .lvl-badge").first
    badge.wait_for()
    wanted = catalog("en")["level.explain"].replace("{n}", badge.inner_text())
    assert badge.get_attribute("title") == wanted  # the hover
    if width < 600:
        badge.tap()
    else:
        badge.click()
    # said in the toast, which the computers' news (a contract, a declaration) may replace at
    # once when one of them took before the player's turn: read the toasts shown
    page.wait_for_function("(text) => window.__toasts.includes(text)", arg=wanted, timeout=10_000)
    context.close()


def test_a_local_game_shows_the_names_its_players_typed(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    errors = errors_of(page)
    open_home(page, server.base_url)
    choose_game(page, "bela", players=3)
    page.click("#local-names summary")
    assert page.locator(".local-name:visible").count() == 3  # as many as the game seats
    page.fill("#local-name-0", "Ana")
    page.fill("#local-name-1", "Boris")
    page.fill("#local-name-2", "  ")  # left empty: the default name
    page.click("#play-local")
    page.wait_for_url("**/g/**")
    wait_ready(page)
    seats = page.evaluate("window.atoutTable.state.room.seats.map((s) => s.name)")
    assert seats[:2] == ["Ana", "Boris"]
    assert seats[2] != "  "
    page.wait_for_function(
        "() => [...document.querySelectorAll('.seat')].some((s) => s.textContent.includes('Boris'))"
        " || document.getElementById('pass-screen').textContent.includes('Boris')"
        " || document.getElementById('pass-screen').textContent.includes('Ana')"
    )
    # names are for games on one device only
    status = page.evaluate(
        """() => fetch('/api/games', { method: 'POST', headers: { 'Content-Type': 'application/json' },
             body: JSON.stringify({ variant: 'classic', mode: 'computer', names: ['X'] }) })
             .then((r) => r.status)"""
    )
    assert status == 400
    assert [e for e in errors if "status of 400" not in e] == []
    context.close()


def test_forced_cards_are_explained_once_with_a_way_off(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    context.add_init_script(RECORD_TOASTS)
    page = context.new_page()
    errors = errors_of(page)
    open_home(page, server.base_url)
    choose_game(page, "classic")
    start(page, "computer")
    notice = page.locator("#auto-notice")
    # play until the server plays a card for the player (forced cards are on by default)
    for _ in range(600):
        if notice.count():
            break
        state = wait_state(page)
        if state == "match":
            break
        take_turn(page, state)
    notice.wait_for(state="visible")
    assert notice.inner_text().startswith(catalog("en")["auto.explain"])
    notice.locator("[data-action=auto-off]").click()
    assert notice.count() == 0
    assert page.evaluate("localStorage.getItem('atout.autoPlay')") == "0"
    # said in a toast, which a computer's declaration may replace at once: read the toasts shown
    page.wait_for_function(
        "(text) => window.__toasts.includes(text)",
        arg=catalog("en")["auto.turned_off"],
        timeout=10_000,
    )
    # said once: the next forced card is the player's own to play, with no notice
    page.reload()
    wait_ready(page)
    assert page.locator("#auto-notice").count() == 0
    assert errors == []
    context.close()


def test_a_timeout_says_what_the_computer_did(live_server, chromium) -> None:
    server = live_server({"ATOUT_CLOCK_SECONDS": "2"})
    host_ctx = chromium.new_context(viewport={"width": 390, "height": 844})
    host_ctx.add_init_script(RECORD_TOASTS)
    host = host_ctx.new_page()
    open_home(host, server.base_url)
    game = host.evaluate(
        """() => fetch('/api/games', { method: 'POST', headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ variant: 'classic', mode: 'friends', clock: 15, seats: [
            { kind: 'human' }, { kind: 'bot' }, { kind: 'bot' }, { kind: 'bot' }] }) })
          .then(r => r.json())"""
    )
    url = game["url"] if game["url"].startswith("http") else server.url(game["url"])
    host.goto(url)
    wait_ready(host)
    watcher_ctx = chromium.new_context(viewport={"width": 1366, "height": 768})
    watcher_ctx.add_init_script(RECORD_TOASTS)
    watcher = watcher_ctx.new_page()
    watcher.goto(url)
    wait_ready(watcher)
    en = catalog("en")
    name = host.evaluate("window.atoutTable.state.room.seats[0].name") or "Player 1"

    def pattern(*keys: str) -> str:
        texts = [re.escape(en[k]).replace(re.escape("{name}"), re.escape(name)) for k in keys]
        return "^(" + "|".join(t.replace(re.escape("{card}"), ".+") for t in texts) + ")$"

    # the host does nothing: the clock runs out on his decision, the computer makes it
    mine = pattern("timeout.bid.you", "timeout.card.you")
    theirs = pattern("timeout.bid.player", "timeout.card.player")
    seen = "(p) => window.__toasts.some((t) => new RegExp(p).test(t))"
    host.wait_for_function(seen, arg=mine, timeout=30_000)
    # the table is told too, in the third person
    watcher.wait_for_function(seen, arg=theirs, timeout=30_000)
    assert not watcher.evaluate(seen, mine)
    host_ctx.close()
    watcher_ctx.close()
