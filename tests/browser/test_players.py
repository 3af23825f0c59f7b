"""The player side in real Chromium: a short match earns XP and a level, the match-end screen
says so, the profile lists the game, its replay steps through the tricks, its record downloads
and imports back into the same viewer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.engine.record import replay

from .conftest import errors_of, screenshot
from .driver import choose_game, open_home, start, take_turn, wait_state

pytestmark = pytest.mark.browser


def test_a_short_match_earns_xp_then_replay_download_and_import(
    server, chromium, tmp_path: Path
) -> None:
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    errors = errors_of(page)

    # a new browser: level 1, no XP
    page.goto(server.url("/profile"))
    assert page.get_attribute("#profile-level", "data-level") == "1"
    assert page.get_attribute("#profile-xp", "data-xp") == "0"
    assert page.locator("#history-empty").is_visible()

    # a one-deal match against the computer, played by clicking
    open_home(page, server.base_url)
    choose_game(page, "classic", options={"target": "one_deal"})
    start(page, "computer")
    me = page.evaluate("window.atoutTable.state.held[0]")
    badge = page.locator(f".seat[data-seat='{me}'] .lvl-badge")
    assert badge.inner_text() == "1"
    for _ in range(400):
        state = wait_state(page)
        if state == "match":
            break
        take_turn(page, state)
    else:
        raise AssertionError("the match did not end")

    # the match-end screen: what was earned, and how far the next level is
    box = page.locator("#dlg-match #xp-box")
    box.wait_for(timeout=15_000)
    earned = int(box.get_attribute("data-xp") or 0)
    level = int(box.get_attribute("data-level") or 0)
    assert earned >= 15 and level >= 2  # the first finished match always reaches level 2
    assert box.locator(".level-up").is_visible()
    assert box.locator(".xp-bar").count() == 1
    screenshot(page, "match-end-xp-en")
    page.wait_for_function(
        f"() => document.querySelector(\".seat[data-seat='{me}'] .lvl-badge\").textContent === '{level}'"
    )

    # the profile shows the new XP and level, and the game in the history
    page.goto(server.url("/profile"))
    assert page.get_attribute("#profile-level", "data-level") == str(level)
    assert page.get_attribute("#profile-xp", "data-xp") == str(earned)
    screenshot(page, "profile-en")
    game = page.locator("#history li.game-line").first
    game_id = game.get_attribute("data-game")
    assert game_id

    # the replay: step forward to the first trick's winner, and back
    game.locator("[data-action=replay]").click()
    page.wait_for_selector("#replay-app[data-state=ready]")
    viewer = page.locator("#viewer")
    assert viewer.get_attribute("data-step") == "0"
    page.click("#viewer [data-action=forward]")
    assert viewer.get_attribute("data-step") == "1"
    page.click("#viewer [data-action=back]")
    assert viewer.get_attribute("data-step") == "0"
    page.click("#viewer [data-action=next-trick]")
    page.wait_for_selector("#viewer .v-trick .slot[data-winner=yes]")
    step = int(viewer.get_attribute("data-step") or 0)
    assert step > 4  # the bids and four cards at least
    assert page.locator("#viewer .v-trick .slot").count() == 4
    assert page.locator("#trick-winner").is_visible()
    screenshot(page, "replay-en")
    page.click("#viewer [data-action=forward]")
    assert int(viewer.get_attribute("data-step") or 0) == step + 1
    assert page.locator("#viewer .v-trick .slot[data-winner=yes]").count() == 0
    page.click("#viewer [data-action=back]")
    assert page.locator("#viewer .v-trick .slot[data-winner=yes]").count() == 1
    # the end of the deal shows every score line
    for _ in range(12):
        if page.locator("#viewer-result .result-table").count():
            break
        page.click("#viewer [data-action=next-trick]")
    page.wait_for_selector("#viewer-result .result-table tr.recorded")

    # download the record: a valid belote-record/1 of the finished match
    with page.expect_download() as download_info:
        page.click("#replay-download")
    path = tmp_path / "record.json"
    download_info.value.save_as(path)
    record = json.loads(path.read_text())
    assert record["format"] == "belote-record/1" and record["meta"]["game_id"] == game_id
    assert replay(record).winner is not None

    # import it back into the same viewer
    page.goto(server.url("/replay"))
    page.set_input_files("#import-file", str(path))
    page.click("#import-submit")
    page.wait_for_selector("#replay-app[data-state=ready]")
    assert page.evaluate("window.atoutReplay.state.data.deals.length") == len(record["deals"])
    # the computer seats stay computers (not "Player 2/3/4")
    names = page.locator("#viewer .v-seat .seat-name").all_inner_texts()
    assert sorted(n for n in names if n.startswith("Computer ")) == [
        f"Computer {s + 1}" for s in range(4) if s != me
    ], names
    page.click("#viewer [data-action=next-trick]")
    page.wait_for_selector("#viewer .v-trick .slot[data-winner=yes]")

    assert errors == []

    # an invalid file gets the engine's one-line reason
    bad = json.loads(json.dumps(record))
    actions = bad["deals"][0]["actions"]
    actions[-1], actions[-2] = actions[-2], actions[-1]
    bad_path = tmp_path / "bad.json"
    bad_path.write_text(json.dumps(bad))
    page.set_input_files("#import-file", str(bad_path))
    page.click("#import-submit")
    page.wait_for_selector("#replay-app[data-state=error]")
    # worded in the page's language, deals and moves counted from 1 (the engine's deal 0,
    # action len - 2): the swapped card is played out of turn
    detail = page.locator("#replay-error .error-detail")
    assert detail.get_attribute("data-fault") == "not_to_act"
    assert detail.inner_text().startswith(f"Deal 1, move {len(actions) - 1}: ")
    assert [e for e in errors if "422" not in e] == []  # the browser logs the refused upload
    context.close()
