"""What a new player met on a third try, in Chromium against a real server: plurals, the end of
a match reopened, the rematch that exists, toasts over dialogs, the home page's games, leaving,
import errors, timeouts and the frictions of the table."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from app.web.i18n import LOCALES_DIR

from .driver import choose_game, open_home

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
