"""Public tables in Chromium: strangers meet through "Play with people", computers give way.

Two browsers that do not know each other press "Play with people" on the home page and meet at
one public table; it starts with computer players in the free seats (a short
ATOUT_PUBLIC_FILL_SECONDS) and the two play a deal. A third browser, on the home page, sees the
table in the lobby, presses "Sit here" on a computer's seat while the deal is played, and has
the seat at the end of the deal. A fourth only watches the lobby: it sees every change live.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import errors_of, screenshot
from .driver import open_home, wait_ready
from .test_live_tables import close_all, play_until

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1100, "height": 800}

ENV = {
    # the table waits a little for strangers, then computers take the free seats: long enough
    # for the second stranger to arrive on a loaded machine (opening the home page and pressing
    # "Play with people" took over 4 s there), short enough not to hold the test long
    "ATOUT_PUBLIC_FILL_SECONDS": "12",
    # a short clock: a slow turn never holds the test for 30 s
    "ATOUT_CLOCK_SECONDS": "20",
    "ATOUT_NEXT_DEAL_SECONDS": "1",
}

# the lobby as the page draws it: {game: [seat kinds]} and which seats offer "Sit here"
LOBBY_JS = """() => Object.fromEntries([...document.querySelectorAll('#lobby-tables > li')].map(
  (li) => [li.dataset.game, {
    seats: [...li.querySelectorAll('.lobby-seat')].map((s) =>
      s.className.replace(/.*lobby-seat-/, '')),
    sit: [...li.querySelectorAll('button[data-seat]')].map((b) => Number(b.dataset.seat)),
    text: li.textContent,
  }]))"""


def lobby(page: Any) -> dict[str, Any]:
    return dict(page.evaluate(LOBBY_JS))


def wait_lobby(page: Any, game: str | None, js_condition: str, timeout: int = 20_000) -> None:
    """Wait until the lobby drawn on ``page`` meets ``js_condition`` (``t``: the table's
    entry as LOBBY_JS gives it, or undefined)."""
    page.wait_for_function(
        f"([game]) => {{ const all = ({LOBBY_JS})(); const t = all[game]; return {js_condition}; }}",
        arg=[game],
        timeout=timeout,
    )


def game_of(page: Any) -> str:
    return str(page.url.rstrip("/").split("/g/")[1].split("?")[0].split("/")[0])


def seated(page: Any) -> list[int]:
    return list(page.evaluate("window.atoutTable.state.held || []"))


def deals_scored(page: Any) -> int:
    return int(
        page.evaluate(
            "(() => { const v = window.atoutTable.state.view;"
            " return v ? v.results.filter(r => !r.thrown_in).length : 0; })()"
        )
    )


def seat_kinds(page: Any) -> list[str]:
    return list(page.evaluate("window.atoutTable.state.room.seats.map(s => s.kind)"))


def test_strangers_meet_through_play_with_people_and_a_third_takes_a_computer_seat(
    live_server, chromium
) -> None:
    server = live_server(env=ENV)
    contexts = [chromium.new_context(viewport=VIEWPORT) for _ in range(4)]
    first, second, third, watcher = (ctx.new_page() for ctx in contexts)
    errors: list[str] = []
    for page in (first, second, third, watcher):
        errors_of(page, console=False, into=errors)
    try:
        # the fourth browser only watches the lobby
        open_home(watcher, server.base_url)
        watcher.wait_for_selector("#lobby[data-live=true]")
        assert lobby(watcher) == {}

        # the first stranger: no table yet, so "Play with people" opens a public one
        open_home(first, server.base_url)
        first.select_option("#quick-variant", "classic")
        first.click("#quick-play")
        first.wait_for_url("**/g/**")
        wait_ready(first)
        game = game_of(first)
        wait_lobby(watcher, game, "t && t.seats.filter(k => k === 'human').length === 1")

        # the second stranger lands at the same table, not a new one
        open_home(second, server.base_url)
        second.select_option("#quick-variant", "classic")
        second.click("#quick-play")
        second.wait_for_url(f"**/g/{game}**")
        wait_ready(second)
        wait_lobby(watcher, game, "t && t.seats.filter(k => k === 'human').length === 2")

        # nobody else comes: computers take the free seats and the match starts
        for page in (first, second):
            page.wait_for_function(
                "() => { const s = window.atoutTable.state;"
                " return s.view && s.room.seats.filter(x => x.kind === 'bot').length === 2; }",
                timeout=30_000,
            )
        assert sorted(seated(first) + seated(second)) == sorted(
            i for i, kind in enumerate(seat_kinds(first)) if kind == "human"
        )
        # the lobby shows a table in play whose computer seats give way
        wait_lobby(
            watcher,
            game,
            "t && t.seats.filter(k => k === 'computer').length === 2 && t.sit.length === 2",
        )
        watcher.locator("#lobby").scroll_into_view_if_needed()
        screenshot(watcher, "lobby")

        # a third browser sees it in its lobby and asks for a computer's seat mid-deal
        open_home(third, server.base_url)
        wait_lobby(third, game, "t && t.sit.length === 2")
        computer_seats = lobby(third)[game]["sit"]
        third.click(f"#lobby-tables > li[data-game='{game}'] button[data-seat]")
        third.wait_for_url(f"**/g/{game}**")
        wait_ready(third)
        # the heir watches until the deal ends: no seat yet
        assert seated(third) == []
        assert deals_scored(first) == 0
        # the watcher's lobby loses that "Sit here" at once
        wait_lobby(watcher, game, "t && t.sit.length === 1")

        # the two strangers play the deal (the computers play theirs)
        play_until([first, second], lambda: seated(third) != [], seconds=180)
        taken = seated(third)
        assert len(taken) == 1 and taken[0] in computer_seats
        assert deals_scored(first) >= 1
        assert seat_kinds(first)[taken[0]] == "human"
        third.wait_for_function("() => window.atoutTable.state.view !== null")

        # the next deal: all three play theirs; one computer seat is left in the lobby
        wait_lobby(
            watcher,
            game,
            "t && t.sit.length === 1 && t.seats.filter(k => k === 'computer').length === 1",
        )
        start = deals_scored(first)
        play_until([first, second, third], lambda: deals_scored(first) > start, seconds=180)
        assert errors == []
    finally:
        close_all(contexts)


def test_the_host_lists_a_waiting_table_from_its_waiting_room(live_server, chromium) -> None:
    server = live_server(env={"ATOUT_PUBLIC_FILL_SECONDS": "600"})
    host_ctx, guest_ctx, home_ctx = (chromium.new_context(viewport=VIEWPORT) for _ in range(3))
    host, guest, home = host_ctx.new_page(), guest_ctx.new_page(), home_ctx.new_page()
    try:
        open_home(home, server.base_url)
        home.wait_for_selector("#lobby[data-live=true]")
        open_home(host, server.base_url)
        game = host.evaluate(
            """async () => {
                 const r = await fetch('/api/games', {method: 'POST', credentials: 'same-origin',
                   headers: {'content-type': 'application/json'},
                   body: JSON.stringify({variant: 'classic', mode: 'friends'})});
                 return await r.json();
               }"""
        )
        host.goto(server.url(game["url"]) if game["url"].startswith("/") else game["url"])
        wait_ready(host)
        switch = host.locator("#waiting-public")
        assert not switch.is_checked()
        # the host lists it: the lobby shows it at once
        switch.check()
        wait_lobby(home, game["game_id"], "t && t.sit.length === 3")
        host.wait_for_function("() => window.atoutTable.state.room.public === true")
        assert host.locator("#waiting-public").is_checked()
        # a guest sees it is listed, and has no switch
        guest.goto(host.url)
        wait_ready(guest)
        guest.wait_for_selector("#waiting .public-row p")
        assert guest.locator("#waiting-public").count() == 0
        for size, page in (((1366, 768), host), ((390, 844), guest)):
            page.set_viewport_size({"width": size[0], "height": size[1]})
            screenshot(page, f"public-switch-{size[0]}")
        # taken off again: gone from the lobby
        host.locator("#waiting-public").uncheck()
        wait_lobby(home, game["game_id"], "t === undefined")
        host.wait_for_function("() => window.atoutTable.state.room.public === false")
    finally:
        close_all([host_ctx, guest_ctx, home_ctx])
