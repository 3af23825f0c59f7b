"""The installable app in Chromium: a valid manifest, a service worker that controls the page
after a reload, an offline page when the server is gone, and nothing but the static shell in
the worker's cache (no API answer, no table page) after a game was played."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import errors_of
from .driver import choose_game, open_home, play_to, start, take_turn, wait_state

pytestmark = pytest.mark.browser

CACHED_URLS = """async () => {
  const urls = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) urls.push(new URL(request.url).pathname);
  }
  return urls;
}"""


def controlled(page: Any) -> bool:
    return bool(page.evaluate("!!navigator.serviceWorker.controller"))


def test_the_app_installs_works_offline_and_never_caches_the_game(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 1100, "height": 800})
    page = context.new_page()
    errors = errors_of(page, console=False)
    try:
        open_home(page, server.base_url)
        # the manifest: Chromium reads it without an error, as the page links it
        cdp = context.new_cdp_session(page)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["url"].endswith("/manifest.webmanifest")
        assert manifest["errors"] == [], manifest["errors"]
        assert '"display": "standalone"' in manifest["data"].replace('":"', '": "')
        # the worker: registered on the first visit, in control after a reload
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        page.reload()
        page.wait_for_function("() => !!navigator.serviceWorker.controller")
        assert controlled(page)
        scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
        assert scope == server.base_url + "/"
        # what Chromium checks before it offers to install; a Playwright context is a private
        # window, which alone never installs anything
        installability = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        assert [e for e in installability if e["errorId"] != "in-incognito"] == [], installability

        # a game against the computer, with the API and the table's socket
        choose_game(page, "classic")
        start(page, "computer")
        assert controlled(page)
        play_to(page, "turn:play")
        game_url = page.url
        urls = page.evaluate(CACHED_URLS)
        assert "/offline" in urls and "/static/css/app.css" in urls
        assert [u for u in urls if u != "/offline" and not u.startswith("/static/")] == []

        # the server is gone: a page is the offline page, the game is not there to read
        server.kill()
        page.goto(game_url)
        page.wait_for_selector("#offline")
        assert "cannot be reached" in page.inner_text("#offline")
        assert page.locator("#table-app").count() == 0
        page.goto(server.base_url + "/profile")
        page.wait_for_selector("#offline")
        assert errors == []
    finally:
        context.close()


def test_the_notifications_switch_on_the_profile_and_at_the_table(server, chromium) -> None:
    """The switch is on the profile page and in the table's settings. Chromium has no push
    service in a private window (a Playwright context): turning it on says so and leaves it
    off; tests/web/test_push.py sends real pushes to a fake push service."""
    context = chromium.new_context(viewport={"width": 1100, "height": 800})
    context.grant_permissions(["notifications"])
    page = context.new_page()
    try:
        page.goto(server.base_url + "/profile")
        switch = page.locator("#profile-push")
        switch.wait_for()
        assert not switch.is_checked() and switch.is_enabled()
        switch.click()
        page.wait_for_function(
            "() => document.getElementById('toast').textContent.includes('Notifications')"
        )
        assert not switch.is_checked()
        open_home(page, server.base_url)
        choose_game(page, "classic")
        start(page, "computer")
        page.click("#btn-settings")
        assert page.locator("#dlg-settings #setting-push").is_visible()
        assert not page.locator("#setting-push").is_checked()
    finally:
        context.close()


def test_a_hidden_table_page_gets_a_push_when_its_turn_comes(live_server, chromium) -> None:
    """The table page says it is hidden (its visibility emulated: a headless page is always
    visible), the player's turn comes back after the computers played: the fake push service
    on 127.0.0.1 gets the notification, which the test decrypts. The subscription is the one a
    browser's push manager would make (Chromium has no push service in a private window), given
    with the page's own cookie."""
    from tests.web.test_push import PushService, Subscription

    service = PushService()
    server = live_server(env={"ATOUT_PUSH_INSECURE_ENDPOINTS": "1"})
    context = chromium.new_context(viewport={"width": 1100, "height": 800})
    page = context.new_page()
    try:
        open_home(page, server.base_url)
        choose_game(page, "classic")
        start(page, "computer")
        sub = Subscription(service, "browser")
        status = page.evaluate(
            """async (body) => (await fetch('/api/push/subscribe', {method: 'POST',
                 headers: {'content-type': 'application/json'}, body: JSON.stringify(body)})).status""",
            sub.json(),
        )
        assert status == 200
        state = play_to_turn(page)
        page.evaluate(
            """() => { Object.defineProperty(document, 'visibilityState',
                         {value: 'hidden', configurable: true});
                       document.dispatchEvent(new Event('visibilitychange')); }"""
        )
        take_turn(page, state)
        # (no ATOUT_VAPID_CONTACT: the contact is a mailto: at the server's host)
        with service.changed:
            assert service.changed.wait_for(lambda: len(service.received) >= 1, 30)
        message = sub.read(service.received[0][2])
        assert message["kind"] == "turn" and message["title"] == "Your turn"
        assert message["url"] == page.url.split("?")[0]
    finally:
        context.close()
        service.stop()


def play_to_turn(page: Any) -> str:
    """Play until the page asks for a bid or a card (a deal's end agreed to on the way)."""
    for _ in range(50):
        state = wait_state(page)
        if state.startswith("turn:"):
            return state
        take_turn(page, state)
    raise AssertionError("no turn came")
