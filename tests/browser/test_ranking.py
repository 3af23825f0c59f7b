"""The ranking page in real Chromium, on a phone and a laptop: the players and the computer
levels on one scale, and the four lines that explain the numbers, without sideways scrolling."""

from __future__ import annotations

import sqlite3

import pytest

from .conftest import errors_of, screenshot

pytestmark = pytest.mark.browser

PLAYERS = [  # name, mu, sigma, games: ratings 1607, 1513, 1488, 1358
    ("Mirela", 29.28, 3.1, 24),
    ("Jean-Baptiste", 25.52, 5.2, 6),
    ("Petko", 24.52, 6.0, 3),
    ("Ana", 19.32, 6.5, 4),
]


def seed(database_url: str) -> None:
    with sqlite3.connect(database_url.split("///", 1)[1]) as conn:
        for n, (name, mu, sigma, games) in enumerate(PLAYERS):
            conn.execute(
                "INSERT INTO identities (token_hash, display_name) VALUES (?, ?)",
                (f"{n}".ljust(64, "r"), name),
            )
            (identity_id,) = conn.execute(
                "SELECT id FROM identities WHERE display_name = ?", (name,)
            ).fetchone()
            conn.execute(
                "INSERT INTO player_ratings (identity_id, family, mu, sigma, games, wins,"
                " updated_at) VALUES (?, 'classic', ?, ?, ?, ?, CURRENT_TIMESTAMP)",
                (identity_id, mu, sigma, games, games // 2),
            )


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1366, 768)])
def test_the_ranking_explains_its_numbers_on_a_phone_and_a_laptop(
    fresh_server, chromium, width: int, height: int
) -> None:
    server = fresh_server  # the players written in are the whole ranking
    seed(server.database_url)
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors = errors_of(page)
    for language in ("ru", "en"):  # a long language first, then the one shown in the docs
        context.add_cookies([{"name": "atout_lang", "value": language, "url": server.base_url}])
        page.goto(server.url("/ranking/classic"))
        notes = page.locator("#rating-notes li")
        assert notes.count() == 5
        assert all(notes.nth(i).is_visible() for i in range(5))
        # players and computer levels in one list, highest first
        ratings = [
            int(t) for t in page.locator(".ranking-table tbody td:nth-child(4)").all_inner_texts()
        ]
        assert ratings == sorted(ratings, reverse=True)
        assert ratings == [1607, 1546, 1513, 1500, 1488, 1430, 1358]
        assert page.locator("tr.anchor").count() == 3
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= width, (language, wide)
    assert "1430" in notes.nth(1).inner_text() and "1546" in notes.nth(2).inner_text()
    screenshot(page, f"ranking-en-{width}")
    assert errors == []
    context.close()
