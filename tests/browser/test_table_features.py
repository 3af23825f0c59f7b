"""What players expect at the table: play again, why a card may not be played, the trump on the
felt, tap twice to play, sound, the rules panel, keyboard play, and the waiting room's seats.

Each test plays through the page as a person does (tests/browser/driver.py); the few that call a
module directly (reasons.js, trump.js) check words or drawings a game cannot be steered into.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .conftest import errors_of, screenshot
from .driver import (
    bar_button,
    card_turn,
    choose_game,
    open_home,
    plays_itself,
    start,
    take_turn,
    wait_state,
)

pytestmark = pytest.mark.browser

LANGS = ("en", "fr", "bg", "hr", "ro", "ru", "cs")
RAW_KEY = re.compile(r"\b(?:illegal|help|settings|trump|confirm|seat|opt|rules|home)\.[a-z_.]+\b")


def new_page(chromium: Any, server: Any, *, lang: str = "en", **options: Any) -> Any:
    options.setdefault("viewport", {"width": 1366, "height": 768})
    context = chromium.new_context(**options)
    context.add_cookies([{"name": "atout_lang", "value": lang, "url": server.base_url}])
    page = context.new_page()
    page.errors = errors_of(page, console=False)  # type: ignore[attr-defined]
    return page


def catalog(page: Any) -> dict[str, str]:
    return json.loads(page.locator("#i18n").text_content())


def table_state(page: Any, expr: str) -> Any:
    return page.evaluate(f"(() => {{ const S = window.atoutTable.state; return {expr}; }})()")


def version(page: Any) -> int:
    return int(table_state(page, "S.version"))


def in_first_screen(page: Any, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return bool(box) and box["y"] >= 0 and box["y"] + box["height"] <= size["height"]


# ----------------------------------------------------------------------------- play again


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)])
def test_play_again_repeats_the_last_settings(server, chromium, size) -> None:
    width, height = size
    page = new_page(chromium, server, viewport={"width": width, "height": height})
    open_home(page, server.base_url)
    assert page.locator("#play-again").is_hidden()  # nothing played yet in this browser
    choose_game(page, "coinche", options={"target": 2000, "declarations": False})
    page.check("input[name=level][value=hard]", force=True)
    start(page, "computer")
    first = page.url
    room = table_state(page, "S.room")
    assert (room["variant"], room["level"], room["options"]["target"]) == ("coinche", "hard", 2000)

    open_home(page, server.base_url)
    button = page.locator("#play-again-btn")
    assert button.is_visible() and in_first_screen(page, "#play-again-btn")
    desc = page.locator("#play-again-desc").inner_text()
    cat = catalog(page)
    assert cat["variant.coinche"] in desc and cat["level.hard"] in desc
    button.click()
    page.wait_for_url(lambda url: "/g/" in url and url != first)
    page.wait_for_selector("#table-app[data-state=ready]")
    again = table_state(page, "S.room")
    assert again["game_id"] != room["game_id"]
    assert again["mode"] == "computer" and again["variant"] == "coinche"
    assert again["level"] == "hard"
    assert again["options"]["target"] == 2000 and again["options"]["declarations"] is False
    assert page.errors == []
    page.context.close()


def test_play_again_for_friends_opens_a_new_invitation(server, chromium) -> None:
    page = new_page(chromium, server)
    open_home(page, server.base_url)
    choose_game(page, "bela", players=3)
    start(page, "friends")
    link = page.locator("#invite-link").input_value()
    page.reload()
    page.wait_for_selector("#play-again:not([hidden])")
    page.click("#play-again-btn")
    page.wait_for_selector("#invite:not([hidden])")
    second = page.locator("#invite-link").input_value()
    assert second != link and "/g/" in second
    page.goto(second)
    page.wait_for_selector("#table-app[data-waiting=yes]")
    room = table_state(page, "S.room")
    assert (room["mode"], room["variant"], room["players"]) == ("friends", "bela", 3)
    page.context.close()


# ----------------------------------------------------------------------------- illegal cards


def rule_sentences(cat: dict[str, str]) -> list[str]:
    """The start of each rule's sentence, before its first placeholder."""
    codes = ("must_follow", "must_overtake", "must_trump", "must_overtrump", "must_undertrump")
    return [cat[f"illegal.{code}"].split("{")[0].strip() for code in codes]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_tapping_an_illegal_card_says_which_rule_forbids_it(server, chromium, lang) -> None:
    page = new_page(chromium, server, lang=lang)
    # a refused tap changes nothing: not even a forced card played for the player meanwhile
    page.context.add_init_script("localStorage.setItem('atout.autoPlay', '0')")
    open_home(page, server.base_url)
    choose_game(page, "classic")
    start(page, "computer")
    cat = catalog(page)
    starts = rule_sentences(cat)
    explained: list[str] = []
    for _ in range(300):
        state = wait_state(page)
        if len(explained) >= 2 or state == "match":
            break
        if state == "turn:play" and not page.locator("#controls [data-action=call]").count():
            refused = page.locator("#hand button.card[aria-disabled=true]")
            if refused.count():
                card = refused.first.get_attribute("data-card")
                before = version(page)
                page.evaluate("document.getElementById('toast').textContent = ''")
                refused.first.click(force=True)  # a player can tap a dimmed card
                page.wait_for_function("() => document.getElementById('toast').textContent !== ''")
                text = page.locator("#toast").text_content()
                assert any(text.startswith(s) for s in starts), (text, starts)
                assert text != cat["illegal.generic"] and "{" not in text
                assert RAW_KEY.search(text) is None
                if cat["illegal.must_follow"].split("{")[0].strip() in text:
                    led = table_state(page, "S.view.trick[0].card[1]")
                    assert {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}[led] in text
                # nothing changed: same version, the card still in the hand, still our turn
                assert version(page) == before
                assert page.locator(f"#hand .card[data-card='{card}']").count() == 1
                assert wait_state(page) == "turn:play"
                explained.append(text)
                if len(explained) == 1 and lang == "fr":
                    screenshot(page, "illegal-card-fr")
        take_turn(page, state)
    assert explained, "no deal of this test gave an illegal card to tap"
    assert page.errors == []
    page.context.close()


def test_every_reason_reads_as_a_sentence_in_every_language(server, chromium) -> None:
    for lang in LANGS:
        page = new_page(chromium, server, lang=lang)
        page.goto(server.base_url + "/rules/classic")
        out = page.evaluate(
            """async () => {
              const m = await import('/static/js/reasons.js');
              const say = (reason, led = null) => m.illegalText({ reason }, { ledSuit: led });
              return {
                // the engine's reasons: card is the refused one, legal what may be played
                follow: say({ code: 'must_follow', suit: 'H', card: '7S', legal: ['8H', 'KH'] }),
                followLed: say({ code: 'must_follow' }, 'D'),
                overtake: say({ code: 'must_overtake', suit: 'S', over: 'KS', card: '8S', legal: ['AS', 'TS'] }),
                trump: say({ code: 'must_trump', suit: 'C', card: 'AH' }),
                overtrump: say({ code: 'must_overtrump', suit: 'S', over: '9S', card: '7S', legal: ['JS'] }),
                undertrump: say({ code: 'must_undertrump', suit: 'C', card: 'AH', legal: ['7C'] }),
                fromMessage: m.illegalText({ message: 'must overtrump: holds JS' }),
                unknown: say({ code: 'no_such_rule' }),
                unknownWithMessage: m.illegalText({ reason: { code: 'no_such_rule' }, message: 'must overtrump: holds JS' }),
                absent: m.illegalText({ message: 'not in hand: 7H' }),
                jack: m.cardLabel('JS'),
              };
            }"""
        )
        cat = catalog(page)
        generic = cat["illegal.generic"]
        sentences = [out[k] for k in ("follow", "overtake", "trump", "overtrump", "undertrump")]
        assert len(set(sentences)) == 5, (lang, sentences)
        for text in sentences + [out["followLed"]]:
            assert text != generic and "{" not in text and RAW_KEY.search(text) is None, (
                lang,
                text,
            )
        assert "♥" in out["follow"] and "♦" in out["followLed"]
        assert (
            "♠" in out["overtake"] and out["jack"] in out["overtrump"] and out["jack"].endswith("♠")
        )
        assert "7♠" not in out["overtrump"] and "♥" not in out["trump"]  # never the refused card
        assert out["fromMessage"] == out["overtrump"]  # the engine's message, read without reason
        assert out["unknownWithMessage"] == out["overtrump"]
        assert out["unknown"] == generic and out["absent"] == generic
        page.context.close()


# ----------------------------------------------------------------------------- trump on the felt


def play_to_phase(page: Any, phase: str, limit: int = 60) -> None:
    for _ in range(limit):
        if page.get_attribute("#table-app", "data-phase") == phase:
            return
        take_turn(page, wait_state(page))
    raise AssertionError(f"never reached {phase}")


@pytest.mark.parametrize(
    ("variant", "size"),
    [("coinche", (390, 844)), ("bulgarian", (768, 1024)), ("duel", (1366, 768))],
)
def test_trump_is_on_the_felt_with_contract_and_taker(server, chromium, variant, size) -> None:
    width, height = size
    page = new_page(chromium, server, viewport={"width": width, "height": height})
    open_home(page, server.base_url)
    choose_game(page, variant)
    start(page, "computer")
    assert page.locator("#trump-badge").is_hidden() or table_state(page, "S.view.contract")
    play_to_phase(page, "play")
    contract = table_state(page, "S.view.contract")
    badge = page.locator("#trump-badge")
    assert badge.get_attribute("data-denom") == contract["denom"]
    if page.locator("#btn-menu").is_visible():
        # a phone: the felt is the cards'; the trump is in the slim bar, large
        assert badge.is_hidden()
        mark = page.evaluate(
            "document.querySelector('#bar-contract .contract-denom > *').getBoundingClientRect().height"
        )
        assert mark >= 18, mark
        text = page.locator("#bar-contract").inner_text()
        label = page.locator("#bar-contract").text_content()
    else:
        assert badge.is_visible()
        felt = page.locator("#felt").bounding_box()
        box = badge.bounding_box()
        assert felt["x"] <= box["x"] and box["x"] + box["width"] <= felt["x"] + felt["width"]
        assert felt["y"] <= box["y"] and box["y"] + box["height"] <= felt["y"] + felt["height"]
        # measured in one step: a view arriving meanwhile may draw the badge anew
        mark = page.evaluate(
            "document.querySelector('#trump-badge .trump-mark').getBoundingClientRect().height"
        )
        assert mark >= 36, mark  # readable on a tablet
        text = badge.inner_text()
        label = badge.get_attribute("aria-label")
    taker = table_state(page, "S.view.contract.taker")
    name = page.evaluate(
        f"document.querySelector(\"#seats .seat[data-seat='{taker}'] .seat-name\").lastChild.textContent"
    )
    cat = catalog(page)
    mine = taker in table_state(page, "S.held")
    by = cat["table.by.you"] if mine else cat["table.by.player"].replace("{name}", name)
    assert by.lower() in text.lower()
    if "value" in contract:
        value = (
            catalog(page)["bid.capot"] if contract["value"] == "capot" else str(contract["value"])
        )
        assert value.lower() in text.lower()
    if badge.is_visible():
        assert catalog(page)["trump.label"] in label
    if variant == "coinche":
        screenshot(page, "trump-coinche-phone-en")
    assert page.errors == []
    page.context.close()


def test_trump_badge_names_coinche_and_contra(server, chromium) -> None:
    for lang in ("fr", "bg"):
        page = new_page(chromium, server, lang=lang)
        page.goto(server.base_url + "/rules/classic")
        texts = page.evaluate(
            """async () => {
              const { renderTrumpBadge } = await import('/static/js/trump.js');
              const out = {};
              for (const [variant, m] of [['coinche', 2], ['coinche', 4], ['bulgarian', 2], ['bulgarian', 4]]) {
                const el = document.createElement('div');
                const contract = { denom: 'H', taker: 1, multiplier: m };
                if (variant === 'coinche') contract.value = 110;
                renderTrumpBadge(el, { variant, contract }, (s) => ({ person: 'player', name: 'Seat ' + s }));
                out[variant + m] = el.textContent;
              }
              const none = document.createElement('div');
              renderTrumpBadge(none, { variant: 'coinche', contract: null }, (s) => ({ person: 'you', name: '' }));
              out.none = none.hidden;
              return out;
            }"""
        )
        cat = catalog(page)
        assert cat["bid.double.coinche"] + " ×2" in texts["coinche2"] and "110" in texts["coinche2"]
        assert cat["bid.redouble.coinche"] + " ×4" in texts["coinche4"]
        assert cat["bid.double.bulgarian"] + " ×2" in texts["bulgarian2"]
        assert cat["bid.redouble.bulgarian"] + " ×4" in texts["bulgarian4"]
        assert all("Seat 1" in texts[k] for k in ("coinche2", "bulgarian4"))
        assert texts["none"] is True
        page.context.close()


# ----------------------------------------------------------------------------- tap twice


def play_turn_with_taps(page: Any) -> None:
    """Play on to a turn where the seat chooses its card: a forced card is played by the server
    (after 0.1 s on a test server), which a tap would race."""
    for _ in range(60):
        state = wait_state(page)
        if state == "turn:play" and not page.locator("#controls [data-action=call]").count():
            turn = card_turn(page)
            if turn["cards"] and not turn["forced"]:
                return
        take_turn(page, state)
    raise AssertionError("no turn to play a card")


def test_tap_twice_is_on_by_default_on_touch_screens_and_remembered(server, chromium) -> None:
    page = new_page(
        chromium, server, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    open_home(page, server.base_url)
    choose_game(page, "classic", options={"target": "one_deal"})
    start(page, "computer")
    assert page.evaluate("matchMedia('(pointer: coarse)').matches")
    play_turn_with_taps(page)
    card = page.locator("#hand button.card[aria-disabled=false]").first
    name = card.get_attribute("data-card")
    before = version(page)
    card.tap()
    raised = page.locator(f"#hand .card[data-card='{name}']")
    assert "raised" in raised.get_attribute("class")
    assert page.locator("#controls .confirm-note").is_visible()
    page.wait_for_timeout(300)
    assert version(page) == before  # the first tap played nothing
    raised.tap()
    page.wait_for_function(f"() => !document.querySelector(\"#hand .card[data-card='{name}']\")")
    # switched off in the settings, remembered after a reload: one tap plays
    bar_button(page, "#btn-settings")
    toggle = page.locator("#setting-confirm")
    assert toggle.is_checked()
    toggle.uncheck()
    page.keyboard.press("Escape")
    page.reload()
    page.wait_for_selector("#table-app[data-state=ready]")
    play_turn_with_taps(page)
    card = page.locator("#hand button.card[aria-disabled=false]").first
    name = card.get_attribute("data-card")
    card.tap()
    page.wait_for_function(f"() => !document.querySelector(\"#hand .card[data-card='{name}']\")")
    bar_button(page, "#btn-settings")
    assert not page.locator("#setting-confirm").is_checked()
    assert page.errors == []
    page.context.close()


def test_tap_twice_on_the_duel_piles(server, chromium) -> None:
    page = new_page(
        chromium, server, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    open_home(page, server.base_url)
    choose_game(page, "duel")
    start(page, "computer")
    play_turn_with_taps(page)
    card = page.locator("#piles-bottom button.card[aria-disabled=false]").first
    name = card.get_attribute("data-card")
    before = version(page)
    card.tap()
    mine = page.locator(f"#piles-bottom .card[data-card='{name}']")
    assert "raised" in mine.get_attribute("class")
    assert version(page) == before
    mine.tap()
    page.wait_for_function(
        f"() => !document.querySelector(\"#piles-bottom .card[data-card='{name}']\")"
    )
    assert page.errors == []
    page.context.close()


def test_one_click_plays_with_a_mouse(server, chromium) -> None:
    page = new_page(chromium, server)
    open_home(page, server.base_url)
    choose_game(page, "classic", options={"target": "one_deal"})
    start(page, "computer")
    assert not page.evaluate("matchMedia('(pointer: coarse)').matches")
    play_turn_with_taps(page)
    card = page.locator("#hand button.card[aria-disabled=false]").first
    name = card.get_attribute("data-card")
    card.click()
    page.wait_for_function(f"() => !document.querySelector(\"#hand .card[data-card='{name}']\")")
    page.click("#btn-settings")
    assert not page.locator("#setting-confirm").is_checked()
    page.context.close()


# ----------------------------------------------------------------------------- sound

# Counts the Web Audio sources the page starts (oscillators and noise buffers).
COUNT_AUDIO = """
(() => {
  window.__sounds = 0;
  const Ctx = window.AudioContext;
  for (const name of ['createOscillator', 'createBufferSource']) {
    const original = Ctx.prototype[name];
    Ctx.prototype[name] = function (...args) { window.__sounds += 1; return original.apply(this, args); };
  }
})();
"""


def test_sound_is_off_by_default_then_generated_and_remembered(server, chromium) -> None:
    page = new_page(chromium, server)
    page.context.add_init_script(COUNT_AUDIO)
    open_home(page, server.base_url)
    choose_game(page, "classic")
    start(page, "computer")
    played = 0
    while played < 2:  # bids and cards are heard nowhere while sound is off
        state = wait_state(page)
        if state == "turn:play":
            played += 1
        take_turn(page, state)
    # the page waits for this seat again: no deal summary (a modal dialog) covers the bar; eight
    # turns, as before, ended the seeded deal with its last card played by itself
    assert wait_state(page).startswith("turn:")
    assert page.evaluate("window.__sounds") == 0
    page.click("#btn-settings")
    assert not page.locator("#setting-sound").is_checked()
    page.check("#setting-sound")
    page.wait_for_function("() => window.__sounds > 0")  # a sample of the turn sound
    page.keyboard.press("Escape")
    heard = page.evaluate("window.__sounds")
    played = 0
    for _ in range(60):
        state = wait_state(page)
        if state == "turn:play":
            played += 1
        take_turn(page, state)
        if played >= 2:
            break
    page.wait_for_function(f"() => window.__sounds > {heard}")
    page.reload()
    page.wait_for_selector("#table-app[data-state=ready]")
    assert page.locator("#setting-sound").is_checked()  # the settings dialog's box, closed
    assert page.evaluate("localStorage.getItem('atout.sound')") == "1"
    assert page.errors == []
    page.context.close()


# ----------------------------------------------------------------------------- rules panel


@pytest.mark.parametrize(
    ("variant", "players", "lang"),
    [("bulgarian", None, "bg"), ("bela", 3, "hr"), ("coinche", None, "fr"), ("duel", None, "cs")],
)
def test_help_panel_has_the_rules_options_and_card_orders(
    server, chromium, variant, players, lang
) -> None:
    page = new_page(chromium, server, lang=lang)
    page.goto(f"{server.base_url}/rules/{variant}")
    intro = page.locator(".rules .lead").inner_text().strip()
    play_rules = page.locator(".rules h2 + p").nth(2).inner_text().strip()
    open_home(page, server.base_url)
    choose_game(page, variant, players=players)
    start(page, "computer")
    cat = catalog(page)
    page.click("#btn-help")
    dialog = page.locator("#dlg-help")
    assert dialog.is_visible()
    text = dialog.inner_text()
    assert intro in text and play_rules in text
    assert cat["help.orders"] in text and cat["help.options"] in text
    # the card orders: trump and plain with their points, and no/all trumps where they exist
    orders = page.locator("#help-body .help-orders tr")
    kinds = [orders.nth(i).get_attribute("data-order") for i in range(orders.count())]
    contract = table_state(page, "S.view.contract")
    if contract is None or contract["denom"] in "CDHS":
        assert kinds[:2] == ["trump", "plain"]
        trump = page.locator("#help-body tr[data-order=trump] .help-rank").all_inner_texts()
        assert trump[0] == cat["rank.short.J"] and trump[1] == "9"
        points = page.locator("#help-body tr[data-order=trump] .help-points").all_inner_texts()
        assert points[:3] == ["20", "14", "11"]
    if variant == "bulgarian" and contract is None:
        assert "NT" in kinds and "AT" in kinds
    if variant in ("bela", "duel"):
        assert "NT" not in kinds
    # the options of this game, with their values
    rows = page.locator("#help-body .help-options tr")
    assert rows.count() >= 1
    names = [rows.nth(i).get_attribute("data-option") for i in range(rows.count())]
    assert "target" in names
    if variant == "bela":
        assert "seven_exchange" not in names  # only with two players
        assert "tie_rule" in names
    assert RAW_KEY.search(text) is None
    if variant == "bulgarian":
        screenshot(page, "rules-panel-bg")
    page.keyboard.press("Escape")
    assert not dialog.is_visible()
    assert page.errors == []
    page.context.close()


# ----------------------------------------------------------------------------- keyboard


def focused(page: Any) -> dict[str, Any]:
    return page.evaluate(
        """() => { const el = document.activeElement; return {
          inControls: !!el.closest('#controls'), inHand: !!el.closest('#hand'),
          card: el.dataset.card || null, action: el.dataset.action || null,
          usable: el.getAttribute('aria-disabled') !== 'true',
          keys: el.getAttribute('aria-keyshortcuts') }; }"""
    )


def test_keyboard_focus_follows_the_turn_and_every_action_has_a_key(server, chromium) -> None:
    page = new_page(chromium, server)
    open_home(page, server.base_url)
    choose_game(page, "classic")  # several deals if need be: a bot may take before our turn
    start(page, "computer")
    # every control of the bar shows its key
    for sel in ("#btn-bids", "#btn-help", "#btn-settings", "#scoreboard", "#btn-last-trick"):
        el = page.locator(sel)
        keys = el.get_attribute("aria-keyshortcuts")
        assert keys, sel
        assert "(" in el.get_attribute("title"), sel
    bid_done = play_done = False
    for _ in range(300):
        state = wait_state(page)
        # every visible action button carries a key shown in its tooltip
        for b in page.locator("#controls button:visible").all():
            assert b.get_attribute("aria-keyshortcuts"), b.get_attribute("data-action")
            assert re.search(r"\(.+\)$", b.get_attribute("title") or ""), b.get_attribute("title")
        if state == "turn:bidding" and not bid_done:
            where = focused(page)
            assert where["inControls"] and where["action"], where  # no Tab presses to bid
            before = version(page)
            page.keyboard.press("p")  # pass, by its key
            page.wait_for_function(f"() => window.atoutTable.state.version > {before}")
            bid_done = True
            continue
        if (
            state == "turn:play"
            and not page.locator("#controls [data-action=call]").count()
            and not plays_itself(page)  # a single card goes by itself: it may be gone already
        ):
            where = focused(page)
            assert where["inHand"] and where["card"] and where["usable"], where
            # a dialog opened on the turn, and the focused card drawn again meanwhile (as a
            # redraw does): closing the dialog gives the focus back to the hand, not the page
            page.keyboard.press("?")
            assert page.locator("#dlg-help").is_visible()
            page.evaluate(
                "(c) => { const el = document.querySelector(`#hand .card[data-card='${c}']`);"
                " el.replaceWith(el.cloneNode(true)); }",
                where["card"],
            )
            page.keyboard.press("Escape")
            page.wait_for_function(
                "() => !!document.activeElement.closest('#hand')", timeout=10_000
            )
            where = focused(page)
            assert where["inHand"] and where["card"] and where["usable"], where
            page.keyboard.press("Enter")
            page.wait_for_function(
                f"() => !document.querySelector(\"#hand .card[data-card='{where['card']}']\")"
            )
            play_done = True
            if bid_done:
                break
            continue
        take_turn(page, state)
    assert bid_done and play_done
    # the bar's keys: ? opens the rules, Escape closes; V opens the bids
    page.keyboard.press("?")
    assert page.locator("#dlg-help").is_visible()
    page.keyboard.press("Escape")
    page.keyboard.press("v")
    assert page.locator("#dlg-bids").is_visible()
    page.keyboard.press("Escape")
    # the settings by their key; inside, each setting has its own
    page.keyboard.press(",")
    assert page.locator("#dlg-settings").is_visible()
    for sel in ("#setting-sound", "#setting-confirm"):
        assert page.locator(sel).get_attribute("aria-keyshortcuts")
    page.keyboard.press("t")  # "tap twice to play", switched by its key
    assert page.locator("#setting-confirm").is_checked()
    assert page.evaluate("localStorage.getItem('atout.confirmCard')") == "1"
    page.keyboard.press("Escape")
    assert page.errors == []
    page.context.close()


def test_digit_keys_play_the_nth_card(server, chromium) -> None:
    page = new_page(chromium, server)
    open_home(page, server.base_url)
    choose_game(page, "coinche", options={"target": "one_deal"})
    start(page, "computer")
    play_turn_with_taps(page)
    cards = page.locator("#hand button.card")
    digits = [cards.nth(i).get_attribute("aria-keyshortcuts") for i in range(cards.count())]
    assert digits == [str(i + 1) for i in range(cards.count())]
    legal = page.locator("#hand button.card[aria-disabled=false]").first
    key = legal.get_attribute("aria-keyshortcuts")
    name = legal.get_attribute("data-card")
    assert f"({key})" in legal.get_attribute("title")
    page.keyboard.press(key)
    page.wait_for_function(f"() => !document.querySelector(\"#hand .card[data-card='{name}']\")")
    page.context.close()


# ----------------------------------------------------------------------------- friends tables


def frames_sent(page: Any) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    def on_socket(ws: Any) -> None:
        ws.on("framesent", lambda payload: sent.append(json.loads(payload)))

    page.on("websocket", on_socket)
    return sent


def wait_frame(page: Any, frames: list[dict[str, Any]], expected: dict[str, Any]) -> None:
    """Wait until the page has sent exactly the message ``expected`` over its socket."""
    for _ in range(50):
        if expected in frames:
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"{expected} not sent; sent: {frames}")


def test_waiting_room_offers_seats_to_guests_and_computer_players_to_the_host(
    server, chromium
) -> None:
    host = new_page(chromium, server)
    host_frames = frames_sent(host)
    open_home(host, server.base_url)
    choose_game(host, "classic")
    start(host, "friends")
    link = host.locator("#invite-link").input_value()
    host.goto(link)
    host.wait_for_selector("#table-app[data-waiting=yes]")

    guest = new_page(chromium, server, lang="fr")
    guest_frames = frames_sent(guest)
    guest.goto(link)
    guest.wait_for_selector("#table-app[data-waiting=yes]")
    guest.wait_for_function("() => window.atoutTable.state.room.seats.some(s => s.you)")
    # a guest: "Sit here" on each free seat, no computer players to add
    guest.wait_for_selector("#waiting [data-action^=take-seat-]")
    assert guest.locator("#waiting [data-action^=seat-bot-]").count() == 0
    cat = catalog(guest)
    take = guest.locator("#waiting [data-action^=take-seat-]").last
    assert take.inner_text() == cat["seat.take"]
    seat = int(take.get_attribute("data-action").rsplit("-", 1)[1])
    free = table_state(guest, "S.room.seats.filter(s => s.kind === 'human' && !s.taken)")
    assert seat in [s["seat"] for s in free]
    take.click()
    wait_frame(guest, guest_frames, {"type": "take_seat", "seat": seat})

    # the host: a level and "Add a computer player" on each free seat
    host.wait_for_selector("#waiting [data-action^=seat-bot-]")
    assert host.locator("#waiting [data-action^=take-seat-]").count() == 0
    add = host.locator("#waiting [data-action^=seat-bot-]").first
    bot_seat = int(add.get_attribute("data-action").rsplit("-", 1)[1])
    host.select_option(f"#seat-level-{bot_seat}", "hard")
    screenshot(host, "waiting-room-host")
    host.click(f"#waiting [data-action=seat-bot-{bot_seat}]")
    wait_frame(host, host_frames, {"type": "seat_bot", "seat": bot_seat, "level": "hard"})
    assert host.errors == [] and guest.errors == []
    guest.context.close()
    host.context.close()


def test_the_host_changes_or_removes_a_computer_player_in_the_waiting_room(
    server, chromium
) -> None:
    host = new_page(chromium, server)
    frames = frames_sent(host)
    open_home(host, server.base_url)
    game = host.evaluate(
        """() => fetch('/api/games', { method: 'POST', headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ variant: 'classic', mode: 'friends', seats: [
            { kind: 'human' }, { kind: 'bot', level: 'easy' }, { kind: 'human' }, { kind: 'human' }] }) })
          .then(r => r.json())"""
    )
    host.goto(game["url"])
    host.wait_for_selector("#table-app[data-waiting=yes]")
    level = host.locator("#seat-level-1")
    assert level.input_value() == "easy"
    assert host.locator("#waiting [data-action=free-seat-1]").get_attribute("aria-keyshortcuts")
    level.select_option("hard")
    wait_frame(host, frames, {"type": "seat_bot", "seat": 1, "level": "hard"})
    host.click("#waiting [data-action=free-seat-1]")
    wait_frame(host, frames, {"type": "free_seat", "seat": 1})
    assert host.errors == []
    host.context.close()
