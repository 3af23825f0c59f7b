"""The pages of the player side in the seven languages: no raw key, the language's own texts."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from app.web.i18n import LANGUAGES, LOCALES_DIR

pytestmark = pytest.mark.db

ENGLISH = json.loads((LOCALES_DIR / "en.json").read_text(encoding="utf-8"))
PREFIXES = {key.split(".")[0] for key in ENGLISH}
RAW_KEY = re.compile(r"\b[a-z_]+\.[a-z_0-9]+(\.[a-z_0-9]+)*\b")
PAGES = {
    "/profile": ["profile.title", "transfer.title", "history.title", "xp.title", "family.bela"],
    "/ranking/classic": [
        "ranking.rank",
        "ranking.rating",
        "family.duel",
        "ranking.empty",
        "ranking.what",
    ],
    "/replay": ["replay.import_label", "replay.import_go"],
    "/replay/AAAAAAAAAAAAAAAAAAAAAA": ["replay.prev_deal", "replay.next_trick", "table.bids"],
}


@pytest.fixture
def client(migrated_database_url: str) -> Iterator[TestClient]:
    settings = Settings(_env_file=None, database_url=migrated_database_url)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def visible_text(html: str) -> str:
    text = re.sub(r"<script.*?</script>|<style.*?</style>|<[^>]+>", " ", html, flags=re.S)
    return re.sub(r"&#3[49];|&quot;|&amp;", "'", text)


def test_every_page_of_the_player_side_is_translated(client: TestClient) -> None:
    for language in LANGUAGES:
        catalog = json.loads((LOCALES_DIR / f"{language}.json").read_text(encoding="utf-8"))
        client.cookies.set("atout_lang", language)
        for path, keys in PAGES.items():
            page = client.get(path)
            assert page.status_code == 200, (language, path)
            assert f'<html lang="{language}">' in page.text
            text = visible_text(page.text)
            raw = [
                m.group(0) for m in RAW_KEY.finditer(text) if m.group(0).split(".")[0] in PREFIXES
            ]
            assert raw == [], f"{language} {path}: {raw}"
            shown = html.unescape(page.text)  # texts and attributes (titles, labels)
            for key in keys:
                assert catalog[key] in shown, (language, path, key)
        # the header links to the profile and the ranking on every page
        home = client.get("/")
        assert f">{catalog['nav.profile']}<" in home.text and 'href="/ranking"' in home.text


def fill(text: str, **values: object) -> str:
    for name, value in values.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def test_the_ranking_explains_its_numbers_in_one_line_each(client: TestClient) -> None:
    """What the number is, where a newcomer starts, where the computer levels stand, why a
    short match moves it less: with the family's figures, in every language."""
    shown = {
        "classic": (1430, 1500, 1546, "1000"),
        "bulgarian": (1409, 1500, 1552, "151"),
        "bela": (1458, 1500, 1553, "501 / 701 / 1001"),
        "duel": (1433, 1500, 1571, None),
    }
    for language in LANGUAGES:
        catalog = json.loads((LOCALES_DIR / f"{language}.json").read_text(encoding="utf-8"))
        client.cookies.set("atout_lang", language)
        for family, (easy, medium, hard, target) in shown.items():
            page = html.unescape(client.get(f"/ranking/{family}").text)
            notes = page.split('id="rating-notes"', 1)[1].split("</ul>", 1)[0]
            lines = [fill(catalog["ranking.what"])]
            lines.append(fill(catalog["ranking.newcomer"], rating=easy))
            lines.append(fill(catalog["ranking.levels"], easy=easy, medium=medium, hard=hard))
            if target is None:
                lines.append(catalog["ranking.share_duel"])
            else:
                lines.append(fill(catalog["ranking.share"], target=target))
            for line in lines:
                assert f"<li>{line}</li>" in notes, (language, family, line)
            assert notes.count("<li>") == 5


def test_the_profile_of_a_new_browser(client: TestClient) -> None:
    page = client.get("/profile")
    assert 'id="profile-level" data-level="1"' in page.text
    assert 'id="profile-xp" data-xp="0"' in page.text
    assert 'id="history-empty"' in page.text
    profile = client.get("/api/me/profile").json()
    assert profile["progress"] == {
        "xp": 0,
        "level": 1,
        "level_xp": 0,
        "next_xp": 15,
        "to_next": 15,
        "percent": 0,
    }
    assert profile["ratings"] == {"classic": None, "bulgarian": None, "bela": None, "duel": None}
    assert client.get("/ranking").status_code == 200  # redirected to the first family
    assert client.get("/api/games/nope-nope-nope/replay").status_code == 404
