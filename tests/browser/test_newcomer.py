"""What a new player met on a third try, in Chromium against a real server: plurals, the end of
a match reopened, the rematch that exists, toasts over dialogs, the home page's games, leaving,
import errors, timeouts and the frictions of the table."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from app.web.i18n import LOCALES_DIR

from .driver import choose_game, open_home, start
from .test_live_tables import friends_table

pytestmark = pytest.mark.browser


def catalog(language: str) -> dict[str, str]:
    return dict(json.loads((LOCALES_DIR / f"{language}.json").read_text(encoding="utf-8")))


def in_language(chromium: Any, server: Any, language: str, **kwargs: Any) -> Any:
    context = chromium.new_context(**kwargs)
    context.add_cookies([{"name": "atout_lang", "value": language, "url": server.base_url}])
    return context


def errors_of(page: Any) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
    return errors


@pytest.mark.parametrize(
    ("language", "wanted"),
    [("ru", "501 очко"), ("hr", "501 bod"), ("ro", "501 puncte"), ("cs", "501 bodů")],
)
def test_play_to_counts_its_points_with_the_language_plural(
    server, chromium, language, wanted
) -> None:
    context = in_language(chromium, server, language)
    page = context.new_page()
    errors = errors_of(page)
    open_home(page, server.base_url)
    choose_game(page, "classic")
    page.click("#options-box summary")
    labels = page.locator("#opt-target option").all_inner_texts()
    assert wanted in labels, labels
    # every count is the catalog's form for the page's Intl.PluralRules category of its number
    cat = catalog(language)
    for label in labels:
        match = re.match(r"^(\d+) ", label)
        if not match:
            continue
        n = int(match[1])
        category = page.evaluate(f"new Intl.PluralRules({language!r}).select({n})")
        form = cat.get(f"count.points.{category}", cat["count.points.other"])
        assert label == form.replace("{n}", str(n))
    assert errors == []
    context.close()


DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize(
    ("language", "wanted"),
    [
        ("fr", "Donne 1, coup 3\u00a0: Joueur 4 joue dame de trèfle, qui n'est pas dans sa main."),
        ("cs", "Rozdání 1, tah 3: Hráč 4 hraje: křížová dáma, ale tu kartu v ruce nemá."),
        ("en", "Deal 1, move 3: Player 4 plays queen of clubs, which is not in that hand."),
    ],
)
def test_a_broken_record_is_explained_in_the_page_language(
    server, chromium, tmp_path, language, wanted
) -> None:
    record = json.loads((DATA / "classic.json").read_text(encoding="utf-8"))
    actions = record["deals"][0]["actions"]
    assert actions[2] == {"seat": 3, "type": "play", "card": "AS"}
    actions[2]["card"] = "QC"  # seat 0's card
    # the server sends the engine's error as data: deal and action from 0, the rule's code
    answer = chromium_request(server, record)
    assert answer["error"]["record"] == {
        "deal": 0,
        "action": 2,
        "rule": "seat 3: not in hand: QC",
        "code": "illegal",
        "seat": 3,
        "type": "play",
        "reason": {"code": "not_in_hand", "card": "QC"},
    }
    context = in_language(chromium, server, language)
    page = context.new_page()
    errors = errors_of(page)
    page.goto(server.url("/replay"))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    page.set_input_files("#import-file", str(bad))
    page.click("#import-submit")
    page.wait_for_selector("#replay-app[data-state=error]")
    lines = page.inner_text("#replay-error").splitlines()
    assert lines == [catalog(language)["replay.invalid_record"], wanted]
    assert [e for e in errors if "status of 422" not in e] == []
    context.close()


def chromium_request(server: Any, record: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        server.url("/api/replay"),
        data=json.dumps(record).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        urllib.request.urlopen(request, timeout=20)
    except urllib.error.HTTPError as exc:
        assert exc.code == 422
        return dict(json.loads(exc.read()))
    raise AssertionError("the broken record was accepted")


def test_leaving_the_table_is_confirmed_on_the_home_page(live_server, chromium) -> None:
    server = live_server()
    pages, contexts, _ = friends_table(chromium, server, players=4)
    leaver = pages[1]
    leaver.click("#btn-leave")
    leaver.click("#leave-go")
    leaver.wait_for_url(server.url("/"))
    toast = leaver.locator("#toast")
    toast.wait_for(state="visible")
    assert toast.inner_text() == catalog("en")["leave.done"]
    # said once: a reload does not say it again
    leaver.reload()
    leaver.wait_for_selector("#options-box")
    assert leaver.locator("#toast").inner_text() == ""
    for context in contexts:
        context.close()


def test_your_games_lists_the_table_just_created(server, chromium) -> None:
    context = chromium.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    errors = errors_of(page)
    open_home(page, server.base_url)
    page.wait_for_selector("#games-empty:not([hidden])")
    choose_game(page, "classic")
    start(page, "friends")
    group = page.locator("#games .game-group[data-mode=friends] .game-line")
    group.first.wait_for()
    assert group.count() == 1
    assert page.locator("#games-empty").is_hidden()
    assert errors == []
    context.close()
