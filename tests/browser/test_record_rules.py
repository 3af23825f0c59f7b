"""RULES.md 1.1 at the table: the bela-2p seven exchange (§5.4, §12, §14) is offered from the
end of the bidding to the first card: to the leader with his first card, to the dealer out of
turn while the computer leads; it is made with a button, declined by simply playing (or
letting the leader play), and nothing is written for a decline; a reserve left at the match's end is shown as discarded (§14, D-8).

The deals are fixed: the game is created through the page, the server stopped, the game's rows
rewritten in the database and the server started again, which replays the stored record; the
page then plays on (or shows) that record.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from app.engine.cards import format_card
from tests.engine.helpers import deal

from .driver import choose_game, legal_cards, open_home, start, take_turn, wait_ready, wait_state

pytestmark = pytest.mark.browser

HOLDER_SIX = ["7H", "JH", "9H", "AS", "TS", "AC"]  # the trump seven and the hearts to take
HOLDER_TALON = ["KD", "7D", "TC", "JS"]  # no combination to declare, no belote pair
OTHER_SIX = ["8C", "9C", "8D", "9D", "7S", "8S"]  # nothing to bid with
OTHER_TALON = ["QD", "JD", "9S", "7C"]


def _db(server: Any) -> sqlite3.Connection:
    url = make_url(server.database_url)
    assert url.get_backend_name() == "sqlite"
    return sqlite3.connect(str(url.database))


def _fix_deck(server: Any, game_id: str, holder: str) -> int:
    """Give the human seat the trump seven (proposal AH) in the game's first deal, the human
    leading (``holder`` "leader") or dealing ("dealer"); returns the human seat."""
    with _db(server) as db:
        (human,) = db.execute(
            "SELECT seat FROM seats WHERE game_id = ? AND kind = 'human'", (game_id,)
        ).fetchone()
        dealer = human if holder == "dealer" else 1 - human
        wanted = {
            ("hand", human): HOLDER_SIX,
            ("talon", human): HOLDER_TALON,
            ("hand", 1 - human): OTHER_SIX,
            ("talon", 1 - human): OTHER_TALON,
            ("up",): ["AH"],
        }
        deck = [format_card(c) for c in deal("bela", wanted, dealer=dealer, players=2).deck]
        db.execute(
            "UPDATE deals SET deck = ?, dealer = ? WHERE game_id = ? AND number = 0",
            (json.dumps(deck), dealer, game_id),
        )
        db.execute("DELETE FROM actions WHERE game_id = ?", (game_id,))
    return int(human)


def _actions(server: Any, game_id: str) -> list[dict[str, Any]]:
    with _db(server) as db:
        rows = db.execute(
            "SELECT seat, action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
        ).fetchall()
    return [{"seat": seat, **json.loads(action)} for seat, action in rows]


def _view(page: Any) -> dict[str, Any]:
    return page.evaluate("(() => window.atoutTable.state.view)()")


def _to_the_exchange(chromium: Any, server: Any, holder: str) -> tuple[Any, str, int]:
    """A game against the computer on the fixed deck, up to the human's first card."""
    context = chromium.new_context(viewport={"width": 1366, "height": 768})
    # the human plays his forced cards himself: the computer leads 8D to the dealer, whose KD
    # must beat it, and the server would play that only card for him before the test looks
    context.add_init_script("localStorage.setItem('atout.autoPlay', '0')")
    page = context.new_page()
    open_home(page, server.base_url)
    choose_game(page, "bela", players=2)
    start(page, "computer")
    game_id = page.url.rstrip("/").split("/")[-1]
    server.stop()
    human = _fix_deck(server, game_id, holder)
    server.start()
    page.reload()
    wait_ready(page)
    assert wait_state(page) == "turn:bidding"
    take_turn(page, "turn:bidding")  # the proposal's suit: hearts
    if holder == "leader":
        assert wait_state(page) == "turn:play"
    else:  # out of turn: the button comes while the computer thinks about its lead
        page.wait_for_selector("#controls button[data-action=exchange]")
    return page, game_id, human


@pytest.mark.parametrize(
    "holder,choice",
    [("leader", "exchange"), ("leader", "decline"), ("dealer", "exchange"), ("dealer", "decline")],
)
def test_the_seven_exchange_is_offered_before_the_first_card(
    server, chromium, holder, choice
) -> None:
    page, game_id, human = _to_the_exchange(chromium, server, holder)
    view = _view(page)
    assert view["phase"] == "play" and view["trick"] == []
    # the leader is offered it with his first card; the dealer out of turn, before the lead
    assert view["to_act"] == (human if holder == "leader" else 1 - human)
    assert {"type": "exchange", "card": "7H"} in view["legal"]
    assert not any(a["type"] == "pass" for a in view["legal"])
    controls = page.locator("#controls")
    assert controls.locator("button[data-action=exchange]").is_visible()
    assert controls.locator("button[data-action=pass]").count() == 0
    assert page.locator("#deck-spot[data-drop=exchange]").count() == 1
    assert page.locator("#hand button.card.exchangeable[data-card='7H']").count() == 1
    if holder == "dealer":
        # the turn line names the leader; the hint says the offer ends with his first card
        assert page.locator("#table-app").get_attribute("data-my-turn") == "no"
        assert "Computer" in controls.locator(".exchange-hint").inner_text()
        assert legal_cards(page).count() == 0
    if choice == "exchange":
        controls.locator("button[data-action=exchange]").click()
        page.wait_for_function(
            "() => { const v = window.atoutTable.state.view;"
            " return v.upcard === '7H' && v.hand.includes('AH'); }"
        )
        assert "7H" not in _view(page)["hand"]
        assert controls.locator("button[data-action=exchange]").count() == 0
        written = [a["type"] for a in _actions(server, game_id)]
        assert written.count("exchange") == 1
        assert "play" not in written[: written.index("exchange")]  # before the first card
        assert _actions(server, game_id)[written.index("exchange")]["seat"] == human
    else:
        before = len(_actions(server, game_id))
        if holder == "dealer":  # he lets the computer lead: the offer is gone then
            page.wait_for_function(
                "() => document.getElementById('table-app').dataset.myTurn === 'yes'",
                timeout=20_000,
            )
            assert len(_view(page)["trick"]) == 1
            assert controls.locator("button[data-action=exchange]").count() == 0
            assert not any(a["type"] == "exchange" for a in _view(page)["legal"])
        declare = controls.locator("button[data-action=skip-declare]")
        if declare.count():
            declare.click()  # no declaration: straight to the card
        legal_cards(page).first.click()
        page.wait_for_function("() => window.atoutTable.state.view.hand.length === 9")
        assert controls.locator("button[data-action=exchange]").count() == 0
        view = _view(page)
        assert view["upcard"] == "AH" and view["exchanged"] is None
        written = [a for a in _actions(server, game_id)[before:] if a["seat"] == human]
        assert [a["type"] for a in written][:1] == ["play"]
        assert all(a["type"] != "exchange" for a in _actions(server, game_id))
    # never a pass once trump is named
    actions = _actions(server, game_id)
    first_bid = next(i for i, a in enumerate(actions) if a["type"] == "bid")
    assert all(a["type"] != "pass" for a in actions[first_bid:])


# ----------------------------------------------------------------------------- the reserve

LANGS = ("en", "fr", "bg", "hr", "ro", "ru", "cs")
EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"


def _store_record(server: Any, game_id: str, record: dict[str, Any]) -> None:
    """Make ``record`` (one deal) the game's rows."""
    (only,) = record["deals"]
    with _db(server) as db:
        db.execute(
            "UPDATE games SET options = ? WHERE id = ?", (json.dumps(record["options"]), game_id)
        )
        db.execute(
            "UPDATE deals SET deck = ?, dealer = ? WHERE game_id = ? AND number = 0",
            (json.dumps(only["deck"]), only["dealer"], game_id),
        )
        db.execute("DELETE FROM actions WHERE game_id = ?", (game_id,))
        for seq, action in enumerate(only["actions"]):
            body = {k: v for k, v in action.items() if k != "seat"}
            db.execute(
                "INSERT INTO actions (game_id, seq, deal_number, seat, action) VALUES (?, ?, 0, ?, ?)",
                (game_id, seq, action["seat"], json.dumps(body)),
            )


def test_a_reserve_left_at_the_end_is_shown_as_discarded(server, chromium) -> None:
    # worked example C9: a litige leaves 71 points in the reserve; as a one-deal match, it ends
    record = json.loads((EXAMPLES / "C9.json").read_text())
    record["options"] = {"target": "one_deal"}
    context = chromium.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    open_home(page, server.base_url)
    choose_game(page, "classic")
    start(page, "computer")
    game_id = page.url.rstrip("/").split("/")[-1]
    server.stop()
    _store_record(server, game_id, record)
    server.start()
    for lang in LANGS:
        context.add_cookies([{"name": "atout_lang", "value": lang, "url": server.base_url}])
        page.reload()
        wait_ready(page)
        assert wait_state(page) == "match"
        view = _view(page)
        assert view["phase"] == "match_over" and view["reserve"] == 0
        assert view["reserve_discarded"] == 71
        line = page.locator("#match-summary .reserve-discarded")
        catalog = json.loads(page.locator("#i18n").text_content())
        word = catalog["term.litige.classic"]
        expected = catalog["score.reserve_discarded"].replace("{word}", word).replace("{n}", "71")
        assert line.inner_text() == expected, lang
