"""A decision clock never runs while the server cannot be reached (docs/protocol.md, "The
clock"): the browser shows it stopped and its hand not playable while the connection is down,
and after the server comes back, the time the server gives (at least what was left, plus the
grace)."""

from __future__ import annotations

from typing import Any

from .test_live_tables import close_all, friends_table


def secs(page: Any, seat: int) -> int:
    return int(page.locator(f"#seats .seat[data-seat='{seat}'] .clock-secs").inner_text())


def test_the_clock_stops_while_the_server_is_down_and_resumes_with_its_time(
    live_server, chromium
) -> None:
    server = live_server()
    pages, contexts, _ = friends_table(
        chromium, server, players=2, body={"variant": "duel", "clock": 30}
    )
    try:
        seat = int(pages[0].evaluate("window.atoutTable.state.view.to_act"))
        page = pages[seat]
        running = f"#seats .seat[data-seat='{seat}'][data-clock=running] .clock-secs"
        page.wait_for_selector(running)
        deadline = page.evaluate(f"window.atoutTable.state.room.seats[{seat}].deadline")
        # the other player leaves first: the room is loaded again by this page's reconnection,
        # and the room message it then gets is from that moment
        pages[1 - seat].close()

        server.kill()
        page.wait_for_selector("#table-app:not([data-net='open'])", state="attached")
        before = secs(page, seat)
        cards = page.locator("#hand .card")
        if cards.count():
            events = cards.first.evaluate("el => getComputedStyle(el).pointerEvents")
            assert events == "none", "the hand looks playable while the server is away"
        # the ring ticks every 200 ms: after 2.5 s of the page's own time it would have lost
        # two seconds; it has not moved
        t0 = page.evaluate("Date.now()")
        page.wait_for_function("(t0) => Date.now() > t0 + 2500", arg=t0)
        assert secs(page, seat) == before

        server.start()
        page.wait_for_selector("#table-app[data-net='open']", state="attached", timeout=30_000)
        page.wait_for_function(
            "([seat, old]) => window.atoutTable.state.room.seats[seat].deadline !== old",
            arg=[seat, deadline],
            timeout=15_000,
        )
        # the server gave at least the time the clock had when it went away (more than
        # before - 1 s), plus the 10 s grace, counted from when the room came back; 1 s spare
        granted = page.evaluate(
            "(seat) => { const room = window.atoutTable.state.room;"
            " return room.seats[seat].deadline - room.now; }",
            seat,
        )
        assert granted >= (before + 8) * 1000, (before, granted)
        # and the page shows that time running again (read in the page, whatever the delay)
        page.wait_for_function(  # a function: an expression would be eval'd, which the CSP forbids
            """([sel, seat]) => {
                const S = window.atoutTable.state;
                const left = (S.room.seats[seat].deadline - (Date.now() + S.skew)) / 1000;
                const shown = Number(document.querySelector(sel)?.textContent);
                return S.pausedAt === null && Math.abs(shown - Math.ceil(left)) <= 1;
            }""",
            arg=[running, seat],
            timeout=5_000,
        )
    finally:
        close_all(contexts)
