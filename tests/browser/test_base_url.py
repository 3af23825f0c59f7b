"""Links follow the address the server is really reached at when ATOUT_PUBLIC_BASE_URL is not
set: a server on a port other than 8000, reached as 127.0.0.1 or as localhost."""

from __future__ import annotations

import pytest

from .driver import choose_game, open_home, start

pytestmark = pytest.mark.browser


@pytest.fixture
def unconfigured_server(live_server):  # type: ignore[no-untyped-def]
    server = live_server(start=False)
    del server.env["ATOUT_PUBLIC_BASE_URL"]  # as after `ATOUT_PORT=8741 make run`
    assert server.port != 8000
    return server.start()


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_play_against_the_computer_lands_on_a_table_of_this_server(
    unconfigured_server, chromium, host: str
) -> None:
    base = f"http://{host}:{unconfigured_server.port}"
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        open_home(page, base)
        choose_game(page, "classic")
        start(page, "computer")  # waits for /g/... and a table ready (its WebSocket open)
        assert page.url.startswith(base + "/g/"), page.url
        assert page.locator("#hand button.card").count() > 0
    finally:
        context.close()


def test_the_invite_link_of_a_friends_table_follows_the_server(
    unconfigured_server, chromium
) -> None:
    base = f"http://localhost:{unconfigured_server.port}"
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        open_home(page, base)
        choose_game(page, "classic")
        start(page, "friends")
        link = page.input_value("#invite-link")
        assert link.startswith(base + "/g/"), link
        page.click("#invite-go")
        page.wait_for_selector("#table-app[data-state=ready]")
        assert page.url == link
        # the table's own invite link (from the room the WebSocket sent) is this server's too
        assert page.input_value("#waiting-link") == link
    finally:
        context.close()
