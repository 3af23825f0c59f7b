"""Claiming the last tricks in the browser (RULES.md §15): "Claim the rest" appears only when
the seat's view proves the claim, one tap claims, and the server plays the deal out."""

from __future__ import annotations

import json
import random

import pytest

from .conftest import errors_of, screenshot
from .driver import choose_game, open_home, start, take_turn, wait_state

pytestmark = pytest.mark.browser

CLAIM = "#controls button[data-action=claim]"


def test_a_player_claims_with_the_button_and_the_deal_finishes(server, chromium) -> None:
    """A local classic game (every seat on this device, so every lead is the player's): the
    turns are taken until the table offers the claim; its button (key R) claims, the claimer's
    cards are shown, and the rest of the deal is played out without another tap."""
    context = chromium.new_context(viewport={"width": 1366, "height": 768})
    context.add_init_script("localStorage.setItem('atout.autoPlay', '0')")
    page = context.new_page()
    errors = errors_of(page, console=False)
    open_home(page, server.base_url)
    choose_game(page, "classic")
    start(page, "local")
    claimed = False
    for _ in range(600):
        state = wait_state(page)
        if state == "pass":
            page.click("#pass-ready")
            page.wait_for_function("() => document.getElementById('pass-screen').hidden")
            continue
        if state == "turn:play" and page.locator(CLAIM).count():
            button = page.locator(CLAIM)
            assert button.get_attribute("aria-keyshortcuts") == "R"
            assert page.evaluate("window.atoutTable.state.view.can_claim") is True
            screenshot(page, "claim-offered")
            deal = page.evaluate("window.atoutTable.state.view.deal_number")
            button.click()
            claimed = True
            break
        if state == "turn:play":
            # the button is there exactly when the view says a claim is possible
            assert page.evaluate("window.atoutTable.state.view.can_claim") is False
        take_turn(page, state)
    assert claimed, "no claim was offered"
    # the deal is played out by the server, as plays marked "claim", and its summary opens
    page.wait_for_function(
        "(d) => { const v = window.atoutTable.state.view;"
        " return v.deal_number > d || v.phase === 'deal_over' || v.phase === 'match_over'; }",
        arg=deal,
        timeout=30_000,
    )
    assert wait_state(page) in ("deal", "match")  # its summary opens
    # every card of the play-out came marked "claim" (the trick's slots and the log say so)
    marks = page.evaluate("window.atoutTable.moves.filter(m => m.by === 'claim').length")
    assert marks >= 4 and marks % 4 == 0, marks
    assert errors == []
    context.close()


def claimed_record() -> tuple[dict, list[int]]:
    """A classic deal (seeded random cards) played until the seat to lead may claim, then
    played out by RULES.md §15 with every card marked "claim": the record, and the indices of
    its claim actions."""
    from app.engine import Phase, apply, legal_actions, new_match
    from app.engine.claims import can_claim, claim, claim_action
    from app.engine.record import dump

    for seed in range(100):
        rng = random.Random(seed)
        state = new_match("classic", seed=seed)
        while state.phase is not Phase.DEAL_OVER and not (
            state.phase is Phase.PLAY
            and not state.trick
            and len(state.tricks) < 7
            and can_claim(state, state.to_act)
        ):
            state, _ = apply(state, rng.choice(legal_actions(state)))
        if state.phase is Phase.DEAL_OVER:
            continue
        start = len(state.actions)
        state, _ = claim(state, state.to_act)
        while state.phase is Phase.PLAY:
            state, _ = apply(state, claim_action(state))
        indices = list(range(start, len(state.logs[-1].actions)))
        return dump(state, by={(0, i): "claim" for i in indices}), indices
    raise AssertionError("no claim with two tricks to go in 100 deals")


def test_the_replay_marks_the_cards_played_out_after_a_claim(server, chromium, tmp_path) -> None:
    record, indices = claimed_record()
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    context = chromium.new_context(viewport={"width": 1100, "height": 800})
    page = context.new_page()
    errors = errors_of(page, console=False)
    page.goto(server.base_url + "/replay")
    page.set_input_files("#import-file", str(path))
    page.click("#import-submit")
    page.wait_for_selector("#replay-app[data-state=ready]")
    tags: list[list[str]] = []
    for _ in range(indices[-1] + 1):
        page.click("#viewer [data-action=forward]")
        tags.append(
            page.locator("#viewer-says .by-tag").evaluate_all("els => els.map(e => e.dataset.by)")
        )
    # step n shows action n - 1: every claimed card is tagged "claim", and nothing before
    assert all(tags[i] == ["claim"] for i in indices), tags
    assert all(t == [] for i, t in enumerate(tags) if i not in indices), tags
    trick = page.locator("#viewer-table .v-trick .slot .by-tag").evaluate_all(
        "els => els.map(e => e.dataset.by)"
    )
    assert trick and set(trick) == {"claim"}
    assert errors == []
    context.close()
