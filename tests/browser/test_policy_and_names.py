"""The Content-Security-Policy holds in Chromium while a whole game is played, and display names
carrying HTML or script are shown as text on every page that shows them."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from .driver import choose_game, open_home, start, take_turn, wait_ready, wait_state

pytestmark = pytest.mark.browser

# Names of at most 24 characters that would run z() if a page inserted them as HTML.
IMG_NAME = "<img src=x onerror=z()>"
SCRIPT_NAME = "<script>z()</script>&lt;"

# Installed before any script of each page: counts policy violations and payload runs.
GUARD_JS = """
window.__violations = [];
window.__ran = 0;
window.z = () => { window.__ran += 1; };
document.addEventListener('securitypolicyviolation', (e) => {
  window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""

INJECTED_JS = """() => document.querySelectorAll(
  'main img[src="x"], main script:not([src]):not([type="application/json"]), .table-app img[src="x"]'
).length"""


class Guard:
    """Collects, over every page a context opens: policy violations (the DOM event and the
    console's report), page errors, and runs of the payload."""

    def __init__(self, context: Any) -> None:
        self.console: list[str] = []
        self.errors: list[str] = []
        context.add_init_script(GUARD_JS)
        context.on("page", self.watch)

    def watch(self, page: Any) -> None:
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def _console(self, msg: Any) -> None:
        if "Content Security Policy" in msg.text or "Content-Security-Policy" in msg.text:
            self.console.append(msg.text)

    def check(self, page: Any) -> None:
        assert page.evaluate("window.__violations") == [], page.url
        assert page.evaluate("window.__ran") == 0, page.url
        assert page.evaluate(INJECTED_JS) == 0, page.url
        assert self.console == [], self.console
        assert self.errors == [], self.errors


def shows_as_text(page: Any, name: str, where: str) -> None:
    page.wait_for_function(
        "([sel, name]) => [...document.querySelectorAll(sel)].some(e => e.textContent.includes(name))",
        arg=[where, name],
    )


def set_name(page: Any, base_url: str, name: str) -> None:
    open_home(page, base_url)
    page.fill("#name-input", name)
    with page.expect_response("**/api/me/name"):
        page.locator("#name-form").evaluate("f => f.requestSubmit()")


def test_a_whole_game_and_every_page_of_a_player_raise_no_policy_violation(
    server, chromium
) -> None:
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    guard = Guard(context)
    page = context.new_page()
    set_name(page, server.base_url, IMG_NAME)
    guard.check(page)
    choose_game(page, "classic", options={"target": "one_deal"})
    start(page, "computer")
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    shows_as_text(page, IMG_NAME, "#table-app .seat")
    guard.check(page)
    for _ in range(400):
        state = wait_state(page)
        if state == "match":
            break
        take_turn(page, state)
    else:
        raise AssertionError("the match did not end")
    # the match's end shows what this browser earned, its level bar drawn without inline style
    # attached, not visible: a bar at 0% (a level just reached) has no width to be seen
    page.wait_for_selector("#dlg-match[open] .xp-bar span", state="attached")
    width = page.locator("#dlg-match .xp-bar span").evaluate("e => e.style.width")
    assert width.endswith("%")
    guard.check(page)

    page.goto(f"{server.base_url}/profile")
    shows_as_text(page, IMG_NAME, ".profile-name")
    assert page.locator(".xp-bar span").evaluate("e => e.style.width").endswith("%")
    guard.check(page)

    page.goto(f"{server.base_url}/replay/{game_id}")
    shows_as_text(page, IMG_NAME, ".seat-name")
    guard.check(page)

    # three rated matches put a player in the ranking
    db = server.database_url.split("///", 1)[1]
    with sqlite3.connect(db) as conn:
        (identity_id,) = conn.execute(
            "SELECT id FROM identities WHERE display_name = ?", (IMG_NAME,)
        ).fetchone()
        conn.execute("DELETE FROM player_ratings WHERE identity_id = ?", (identity_id,))
        conn.execute(
            "INSERT INTO player_ratings (identity_id, family, mu, sigma, games, wins, updated_at)"
            " VALUES (?, 'classic', 30.0, 3.0, 3, 2, CURRENT_TIMESTAMP)",
            (identity_id,),
        )
    page.goto(f"{server.base_url}/ranking/classic")
    shows_as_text(page, IMG_NAME, "main table td")
    guard.check(page)

    page.goto(f"{server.base_url}/rules/classic")
    guard.check(page)
    context.close()


def test_names_with_markup_are_text_in_the_waiting_room_and_for_a_spectator(
    server, chromium
) -> None:
    host_ctx = chromium.new_context(viewport={"width": 1100, "height": 800})
    host_guard = Guard(host_ctx)
    host = host_ctx.new_page()
    set_name(host, server.base_url, SCRIPT_NAME)
    choose_game(host, "classic")
    start(host, "friends")
    link = host.locator("#invite-link").input_value()
    host.click("#invite-go")
    wait_ready(host)
    assert host.locator("#waiting").is_visible()
    shows_as_text(host, SCRIPT_NAME, "#waiting")

    guest_ctx = chromium.new_context(viewport={"width": 1100, "height": 800})
    guest_guard = Guard(guest_ctx)
    guest = guest_ctx.new_page()
    set_name(guest, server.base_url, IMG_NAME)
    guest.goto(link)
    wait_ready(guest)
    for page in (host, guest):
        shows_as_text(page, SCRIPT_NAME, "#waiting")
        shows_as_text(page, IMG_NAME, "#waiting")
    host_guard.check(host)
    guest_guard.check(guest)

    # two more players fill the table: the game starts and the seats show the names
    others = []
    for _ in range(2):
        ctx = chromium.new_context(viewport={"width": 1100, "height": 800})
        other = ctx.new_page()
        other.goto(link)
        wait_ready(other)
        others.append(ctx)
    for page in (host, guest):
        page.wait_for_function(
            "() => window.atoutTable.state.view && window.atoutTable.state.view.phase"
        )
        shows_as_text(page, SCRIPT_NAME, "#table-app .seat")
        shows_as_text(page, IMG_NAME, "#table-app .seat")
    watcher_ctx = chromium.new_context()
    watcher_guard = Guard(watcher_ctx)
    watcher = watcher_ctx.new_page()
    watcher.goto(link)
    wait_ready(watcher)
    assert watcher.evaluate("window.atoutTable.state.role") == "spectator"
    shows_as_text(watcher, SCRIPT_NAME, "#table-app .seat")
    shows_as_text(watcher, IMG_NAME, "#table-app .seat")
    for guard, page in ((host_guard, host), (guest_guard, guest), (watcher_guard, watcher)):
        guard.check(page)
    for ctx in (host_ctx, guest_ctx, watcher_ctx, *others):
        ctx.close()
