"""The game connection's reconnect delays (static/js/net.js, docs/protocol.md's close codes):
4001 comes back at once, 4002 about every second however often it repeats (a lease running
out after a failover), any other close with the growing backoff."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

DELAYS = """async (code) => {
  const { Connection } = await import("/static/js/net.js");
  const delays = [];
  window.setTimeout = (fn, delay) => { delays.push(delay); return delays.length; };
  class FakeSocket {
    constructor() { FakeSocket.last = this; this.listeners = {}; }
    addEventListener(type, fn) { this.listeners[type] = fn; }
    close() {}
  }
  FakeSocket.OPEN = 1;
  window.WebSocket = FakeSocket;
  const conn = new Connection("g", { onMessage() {}, onStatus() {}, version: () => null });
  for (let i = 0; i < 8; i++) {
    conn.connect();  // the scheduled retry
    FakeSocket.last.listeners.close({ code });
  }
  return delays;
}"""


def _delays(server, chromium, code: int) -> list[float]:  # type: ignore[no-untyped-def]
    context = chromium.new_context()
    page = context.new_page()
    try:
        page.goto(server.base_url + "/")
        return list(page.evaluate(DELAYS, code))
    finally:
        context.close()


def test_served_elsewhere_retries_about_every_second(server, chromium) -> None:  # type: ignore[no-untyped-def]
    delays = _delays(server, chromium, 4002)
    assert len(delays) == 8
    assert all(250 <= d <= 1000 for d in delays), delays


def test_moved_comes_back_at_once_and_other_closes_back_off(server, chromium) -> None:  # type: ignore[no-untyped-def]
    moved = _delays(server, chromium, 4001)
    assert all(d <= 500 for d in moved), moved
    lost = _delays(server, chromium, 1006)
    assert lost[-1] >= 4000 and lost[-1] <= 10_000, lost  # grown to the 8 s cap
    assert lost[0] <= 500
