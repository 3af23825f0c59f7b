"""The table chat in Chromium: HTML and script payloads shown as text, quick phrases in each
reader's language, the unread badge, history after a reload, muting a seat (per browser), the
host's switches, spectators, and the panel's layout on a phone and a desktop."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import screenshot
from .driver import bar_button, wait_ready
from .test_layout import MEASURE_JS, overlaps

pytestmark = pytest.mark.browser

PAYLOADS = (
    '<img src=x onerror="window.__xss = 1">',
    "<script>window.__xss = 2</script>",
    '"><svg onload="window.__xss = 3"></svg>',
)


def player(chromium: Any, server: Any, name: str, *, lang: str | None = None, size=(1100, 800)):  # type: ignore[no-untyped-def]
    """A browser of its own (its own cookie) with a name, on no page yet."""
    ctx = chromium.new_context(viewport={"width": size[0], "height": size[1]})
    if lang:
        ctx.add_cookies([{"name": "atout_lang", "value": lang, "url": server.base_url}])
    # the identity first (its cookie), then its name: one request after the other
    assert ctx.request.get(server.base_url + "/api/me").ok
    assert ctx.request.post(server.base_url + "/api/me/name", data={"name": name}).ok
    return ctx.new_page()


def create(page: Any, server: Any, **body: Any) -> str:
    answer = page.context.request.post(
        server.base_url + "/api/games",
        data={"variant": "duel", "mode": "friends", **body},
    )
    assert answer.status == 201, answer.text()
    url = str(answer.json()["url"])
    page.goto(url)
    wait_ready(page)
    return url


def table(
    chromium: Any, server: Any, guest_lang: str | None = None, **body: Any
) -> tuple[Any, Any, str]:
    host = player(chromium, server, "Alice")
    url = create(host, server, **body)
    guest = player(chromium, server, "Bob", lang=guest_lang)
    guest.goto(url)
    wait_ready(guest)
    for page in (host, guest):
        page.wait_for_function("() => window.atoutTable.state.room.status === 'playing'")
    return host, guest, url


def open_chat(page: Any) -> None:
    if page.locator("#chat-panel").is_hidden():
        bar_button(page, "#btn-chat")
    page.wait_for_selector("#chat-panel:not([hidden])")


def write(page: Any, text: str) -> None:
    open_chat(page)
    page.fill("#chat-input", text)
    page.press("#chat-input", "Enter")
    page.wait_for_function("() => document.getElementById('chat-input').value === ''")


def lines(page: Any) -> list[tuple[str, str]]:
    """(who, text) of each line shown, as the page's text (never its HTML)."""
    return [
        tuple(x)
        for x in page.locator("#chat-log .chat-line").evaluate_all(
            "els => els.map(e => [e.querySelector('.chat-who').textContent,"
            " e.querySelector('.chat-text').textContent])"
        )
    ]


def wait_lines(page: Any, n: int) -> None:
    page.wait_for_function(
        f"() => document.querySelectorAll('#chat-log .chat-line').length === {n}"
    )


def test_payloads_show_as_text_history_survives_a_reload_and_mute_hides_a_seat(
    server, chromium
) -> None:
    host, guest, url = table(chromium, server, guest_lang="fr")
    assert guest.locator("#btn-chat").is_visible()
    for text in PAYLOADS:
        write(host, text)
    # the guest's badge counts what came while the panel was closed
    guest.wait_for_function("() => document.getElementById('chat-badge').textContent === '3'")
    assert guest.locator("#chat-badge").is_visible()
    open_chat(guest)
    wait_lines(guest, 3)
    assert guest.locator("#chat-badge").is_hidden()
    assert lines(guest) == [("Alice", p) for p in PAYLOADS]
    assert lines(host) == [("You", p) for p in PAYLOADS]
    for page in (host, guest):
        # nothing was made of the payloads but text: no element, no script run
        assert page.locator("#chat-log img, #chat-log script, #chat-log svg").count() == 0
        assert page.evaluate("window.__xss") is None
    # a quick phrase and an emote: each reader sees the phrase in its own language
    guest.click("#chat-panel [data-phrase=well_played]")
    guest.click("#chat-panel [data-emote=thumbs_up]")
    wait_lines(host, 5)
    assert lines(host)[3:] == [("Bob", "Well played"), ("Bob", "👍")]
    wait_lines(guest, 5)
    assert lines(guest)[3] == ("Vous", "Bien joué")

    # history after a reload
    guest.reload()
    wait_ready(guest)
    open_chat(guest)
    wait_lines(guest, 5)
    assert lines(guest)[0] == ("Alice", PAYLOADS[0])
    assert guest.evaluate("window.__xss") is None

    # the guest mutes the host's seat: the host's lines go, new ones neither show nor count
    guest.click("#chat-mute summary")
    box = guest.locator("#chat-mute-list input[data-mute='0']")
    assert guest.locator("#chat-mute-list label").first.text_content().strip() == "Alice"
    box.check()
    wait_lines(guest, 2)
    assert [who for who, _ in lines(guest)] == ["Vous", "Vous"]
    guest.click("#chat-close")
    write(host, "can you hear me?")
    wait_lines(host, 6)
    guest.wait_for_timeout(400)
    assert guest.locator("#chat-badge").is_hidden()
    # remembered by this browser: still muted after a reload; the host sees everything
    guest.reload()
    wait_ready(guest)
    open_chat(guest)
    wait_lines(guest, 2)
    assert lines(host)[-1] == ("You", "can you hear me?")
    guest.click("#chat-mute summary")
    guest.locator("#chat-mute-list input[data-mute='0']").uncheck()
    wait_lines(guest, 6)
    assert lines(guest)[-1] == ("Alice", "can you hear me?")


def test_the_hosts_switches_and_spectators(server, chromium) -> None:
    host, guest, url = table(chromium, server)
    watcher = player(chromium, server, "Carol")
    watcher.goto(url)
    wait_ready(watcher)
    assert watcher.evaluate("window.atoutTable.state.role") == "spectator"
    write(host, "welcome, Carol")
    open_chat(watcher)
    wait_lines(watcher, 1)
    assert lines(watcher) == [("Alice", "welcome, Carol")]
    # spectators read, they do not write
    assert watcher.locator("#chat-write").is_hidden()
    assert watcher.locator("#chat-note").text_content() == (
        "Spectators can read the chat but not write in it."
    )
    # only the host has the switches
    open_chat(guest)
    assert guest.locator("#chat-host").is_hidden()
    assert host.locator("#chat-host").is_visible()
    host.click("#chat-host summary")
    host.check("#chat-spectators")
    watcher.wait_for_selector("#chat-write:not([hidden])")
    write(watcher, "thanks!")
    wait_lines(guest, 2)
    assert lines(guest)[-1] == ("Carol", "thanks!")
    # the host turns chat off: no one may write, the log goes
    host.uncheck("#chat-on")
    for page in (guest, watcher):
        page.wait_for_selector("#chat-write[hidden]", state="attached")
        assert page.locator("#chat-note").text_content() == "The host turned chat off."
        assert page.locator("#chat-log").is_hidden()
    assert host.locator("#chat-spectators").is_disabled()
    # and on again: the history is back for everyone
    host.check("#chat-on")
    for page in (host, guest, watcher):
        page.wait_for_selector("#chat-write:not([hidden])")
        wait_lines(page, 2)
    assert lines(watcher) == [("Alice", "welcome, Carol"), ("Carol", "thanks!")]


def test_computer_games_have_no_chat_button(server, chromium) -> None:
    page = player(chromium, server, "Solo")
    create(page, server, mode="computer", level="easy")
    assert page.locator("#btn-chat").is_hidden()
    assert page.locator("#chat-panel").is_hidden()


SIZES = ((390, 844), (844, 390), (768, 1024), (1366, 768))

BAR_JS = """() => [...document.querySelectorAll('.table-bar .bar-actions > *, .table-bar .scoreboard,'
  + ' .table-bar .bar-game, .table-bar .menu-btn')].filter(e => e.getClientRects().length && !e.hidden).map(e => {
    const r = e.getBoundingClientRect();
    return {id: e.id || e.className, left: r.left, top: r.top, right: r.right, bottom: r.bottom};
  })"""

PANEL_JS = """() => {
  const r = (el) => { const b = el.getBoundingClientRect();
    return {left: b.left, top: b.top, right: b.right, bottom: b.bottom}; };
  const p = document.getElementById('chat-panel');
  return {panel: r(p), input: r(document.getElementById('chat-input')),
          send: r(document.getElementById('chat-send')),
          close: r(document.getElementById('chat-close')),
          // the rows of quick phrases and emotes (on a short screen each scrolls sideways)
          phrases: [...p.querySelectorAll('.chat-phrases, .chat-emotes')].map(r),
          log: r(document.getElementById('chat-log')),
          vw: document.documentElement.clientWidth, vh: window.innerHeight};
}"""


def inside(r: dict[str, float], vw: float, vh: float) -> bool:
    return (
        r["left"] >= -0.5
        and r["top"] >= -0.5
        and r["right"] <= vw + 0.5
        and r["bottom"] <= vh + 0.5
    )


def test_the_chat_button_and_panel_fit_on_a_phone_and_a_desktop(server, chromium) -> None:
    host, guest, _ = table(chromium, server)
    for width, height in SIZES:
        host.set_viewport_size({"width": width, "height": height})
        write(guest, f"{width} x {height}: a line long enough to wrap on a narrow phone, " * 2)
        host.wait_for_function("() => document.getElementById('chat-badge').textContent === '1'")
        host.wait_for_timeout(150)
        # closed: the button and its badge sit in the bar, on screen, over nothing
        m = host.evaluate(MEASURE_JS)
        assert m["scrollWidth"] <= m["vw"] + 1, (width, height)
        bar = host.evaluate(BAR_JS)
        # a phone: the chat button is in the bar's menu, whose button shows that a line came
        phone = host.locator("#btn-menu").is_visible()
        chat = next(b for b in bar if b["id"] == ("btn-menu" if phone else "btn-chat"))
        if phone:
            dot = "getComputedStyle(document.getElementById('btn-menu'), '::after').content"
            assert host.evaluate(dot) not in ("none", "normal"), (width, height)
        assert inside(chat, m["vw"], m["vh"]), (width, height, chat)
        for other in bar:
            if other is not chat:
                assert not overlaps(chat, other), (width, height, other)
        for name, part in m["parts"].items():
            assert not overlaps(chat, part), (width, height, name)
        if phone:
            host.click("#btn-menu")
        badge = host.locator("#chat-badge").bounding_box()
        assert badge and badge["x"] >= 0 and badge["y"] >= 0, (width, height)
        # open: everything of the panel on screen; on a wide screen it covers nothing
        bar_button(host, "#btn-chat")
        host.wait_for_selector("#chat-panel:not([hidden])")
        host.wait_for_timeout(150)
        p = host.evaluate(PANEL_JS)
        for key in ("panel", "input", "send", "close"):
            assert inside(p[key], p["vw"], p["vh"]), (width, height, key, p[key])
        for r in p["phrases"]:
            assert inside(r, p["vw"], p["vh"]), (width, height, r)
        # the log keeps room for a few lines
        assert p["log"]["bottom"] - p["log"]["top"] >= 48, (width, height, p["log"])
        if width >= 1000 and height > 560:
            m = host.evaluate(MEASURE_JS)
            assert m["scrollWidth"] <= m["vw"] + 1
            for name, part in m["parts"].items():
                assert not overlaps(p["panel"], part), (width, height, name)
            assert not overlaps(p["panel"], m["felt"]), (width, height)
        if (width, height) in ((390, 844), (1366, 768)):
            screenshot(host, f"chat-open-{width}x{height}")
        host.click("#chat-close")
        host.wait_for_selector("#chat-panel[hidden]", state="attached")
