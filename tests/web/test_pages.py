"""HTML pages and translations: catalogs complete in every language, pages render, page weight."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.engine import VARIANTS, get_rules
from app.main import create_app
from app.settings import Settings
from app.web.i18n import LANGUAGES, LOCALES_DIR, negotiate, parse_accept_language, translate
from app.web.pages import option_schema
from app.web.paths import STATIC_DIR, TEMPLATES_DIR

ENGLISH = json.loads((LOCALES_DIR / "en.json").read_text(encoding="utf-8"))
PLACEHOLDER = re.compile(r"\{[a-z_]+\}")
# Texts that may be the same as English in another language (names, numbers, loan words).
SAME_AS_ENGLISH_OK = re.compile(
    r"^(rank\.short\.[0-9JQKA]|seat\.dealer_short|term\.capot\.bela|term\.belote\.bela"
    r"|belote\.(belote|rebelote)\.(bela|classic|coinche|duel)|term\.belote\.(classic|coinche|duel)"
    r"|bid\.(double|redouble)\.(coinche|bulgarian)|term\.capot\.(classic|coinche|bulgarian)"
    r"|term\.litige\.(classic|coinche)|bid\.capot|variant\.bela\.desc"
    r"|result\.deal_n|sheet\.contract|table\.contract|denom\.(NT|AT)|invite\.share"
    r"|home\.options|variant\.coinche|table\.title|result\.total|seat\.partner"
    r"|term\.belote\.bulgarian|belote\.(belote|rebelote)\.bulgarian|count\.points\.(one|other)|result\.rounding\.side"
    r"|chat\.(button|spectator|phrase\.bravo)|live\.away\.minutes|live\.by\.auto|analysis\.summary\.player"
    r"|push\.title|table\.menu|swiss\.(table|tables|badge))$"
)
# A key shown raw would look like this ("home.title", "opt.target.help").
RAW_KEY = re.compile(r"\b[a-z_]+\.[a-z_0-9]+(\.[a-z_0-9]+)*\b")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(_env_file=None, database_url=f"sqlite+aiosqlite:///{tmp_path / 'a.db'}")
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def catalog_of(language: str) -> dict[str, str]:
    return json.loads((LOCALES_DIR / f"{language}.json").read_text(encoding="utf-8"))


# A count's text per plural category (static/js/i18n.js tn(), Intl.PluralRules): English has
# "one" and "other"; other languages add the categories they need ("few", "many").
PLURAL = re.compile(r"^(?P<base>.+)\.(zero|one|two|few|many|other)$")
# A suit word that agrees with the rank it names (static/js/cards.js cardName): Czech
# "kárový kluk" but "kárová dáma" gives `suit.diamonds.of.jack` beside `suit.diamonds.of`.
AGREEMENT = re.compile(r"^(?P<base>suit\.[a-z]+\.of)\.(seven|eight|nine|ten|jack|queen|king|ace)$")


def base_of(key: str) -> str | None:
    """The English key a plural category or an agreement form English lacks stands for."""
    if match := PLURAL.match(key):
        return f"{match['base']}.other"
    if match := AGREEMENT.match(key):
        return match["base"]
    return None


def english_of(key: str) -> str:
    """The English text a key translates: a plural category English lacks uses "other"."""
    if key in ENGLISH:
        return str(ENGLISH[key])
    base = base_of(key)
    assert base is not None and base in ENGLISH, f"{key} is not in English"
    return str(ENGLISH[base])


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != "en"])
def test_every_catalog_has_exactly_the_keys_of_english(language: str) -> None:
    other = catalog_of(language)
    assert sorted(set(ENGLISH) - set(other)) == [], "missing"
    extra = set(other) - set(ENGLISH)
    not_plural = [k for k in extra if not ((base := base_of(k)) and base in ENGLISH)]
    assert sorted(not_plural) == [], "not in English"


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_translations_are_complete_and_keep_their_placeholders(language: str) -> None:
    other = catalog_of(language)
    for key, text in other.items():
        assert isinstance(text, str) and text.strip(), f"{language}: {key} is empty"
        assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(english_of(key))), (
            f"{language}: {key} placeholders differ from English"
        )
        words = PLACEHOLDER.sub("", english_of(key))
        if language != "en" and len(words) > 3 and not SAME_AS_ENGLISH_OK.match(key):
            assert text != english_of(key), f"{language}: {key} is not translated"


def _literal_keys() -> set[str]:
    """Keys written literally in templates and scripts: t('a.b'), t("a.b"), t(`a.b`)."""
    found: set[str] = set()
    pattern = re.compile(r"""\bt\(\s*['"`]([a-z_0-9]+(?:\.[A-Za-z_0-9]+)+)['"`]""")
    for path in [*TEMPLATES_DIR.glob("*.html"), *(STATIC_DIR / "js").glob("*.js")]:
        found.update(pattern.findall(path.read_text(encoding="utf-8")))
    return found


def test_every_key_used_by_the_pages_exists() -> None:
    assert sorted(_literal_keys() - set(ENGLISH)) == []


def test_variant_specific_keys_exist_for_every_variant() -> None:
    for variant in VARIANTS:
        for prefix in (
            "variant",
            "rules.h",
            "term.litige",
            "term.capot",
            "term.belote",
            "bid.pass",
        ):
            key = f"{prefix}.{variant}" if prefix != "rules.h" else f"rules.{variant}.intro"
            assert key in ENGLISH, key


def test_language_comes_from_the_cookie_then_accept_language() -> None:
    assert parse_accept_language("fr-CH, fr;q=0.9, en;q=0.8, *;q=0.5") == ["fr-ch", "fr", "en", "*"]
    assert parse_accept_language("en;q=0.1, bg") == ["bg", "en"]
    assert negotiate(None, "ru-RU,ru;q=0.9") == "ru"
    assert negotiate("hr", "ru-RU,ru;q=0.9") == "hr"
    assert negotiate("xx", "de-DE, cs;q=0.5") == "cs"
    assert negotiate(None, None) == "en"
    assert translate("fr", "nope.missing") == "nope.missing"
    assert translate("en", "count.points.other", n=501) == "501 points"


def test_home_is_served_in_the_browser_language_and_the_remembered_one(client: TestClient) -> None:
    page = client.get("/", headers={"Accept-Language": "bg-BG,bg;q=0.9,en;q=0.5"})
    assert page.status_code == 200
    assert page.headers["content-language"] == "bg"
    assert '<html lang="bg">' in page.text
    assert catalog_of("bg")["home.new_game"] in page.text
    client.cookies.set("atout_lang", "cs")
    page = client.get("/", headers={"Accept-Language": "bg"})
    assert page.headers["content-language"] == "cs"
    assert catalog_of("cs")["home.new_game"] in page.text


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_pages_show_no_raw_key(client: TestClient, language: str) -> None:
    client.cookies.set("atout_lang", language)
    for path in ["/", *(f"/rules/{v}" for v in VARIANTS)]:
        page = client.get(path)
        assert page.status_code == 200, path
        text = re.sub(r"<script.*?</script>|<style.*?</style>|<[^>]+>", " ", page.text, flags=re.S)
        raw = [m.group(0) for m in RAW_KEY.finditer(text) if m.group(0).split(".")[0] in _PREFIXES]
        assert raw == [], f"{language} {path}: {raw}"


_PREFIXES = {key.split(".")[0] for key in ENGLISH}


def test_rules_pages_exist_for_every_variant_and_only_those(client: TestClient) -> None:
    for variant in VARIANTS:
        page = client.get(f"/rules/{variant}")
        assert page.status_code == 200
        assert ENGLISH[f"rules.{variant}.intro"] in page.text
    assert client.get("/rules/poker").status_code == 404


def test_the_form_offers_exactly_the_options_of_each_variant() -> None:
    schema = option_schema()
    assert set(schema) == set(VARIANTS)
    assert schema["bela"]["players"] == [2, 3, 4]
    for variant, info in schema.items():
        for players, options in info["by_players"].items():
            rules = get_rules(variant, int(players))
            defaults = rules.default_options()
            for option in options:
                assert option["name"] not in rules.fixed
                assert option["default"] == defaults[option["name"]]
                # every option is valid for the engine, at its default and at each choice,
                # with the other options the form requires for showing it
                for value in option.get("choices", [True, False]):
                    get_rules(
                        variant, int(players), {**option.get("when", {}), option["name"]: value}
                    )
    names = {
        v: {o["name"] for o in schema[v]["by_players"][str(VARIANTS[v].player_counts[-1])]}
        for v in schema
    }
    assert "seven_exchange" in {o["name"] for o in schema["bela"]["by_players"]["2"]}
    assert "seven_exchange" not in names["bela"]
    assert names["duel"] == set()
    assert "undertrump_required" not in names["bulgarian"]  # fixed by the variant
    assert "valat_can_end_without_bonus" in names["bulgarian"]
    assert "bidding_mode" in names["classic"] and "tie_rule" in names["bela"]
    for variant in schema:
        for options in schema[variant]["by_players"].values():
            for option in options:
                assert f"opt.{option['name']}.label" in ENGLISH
                assert f"opt.{option['name']}.help" in ENGLISH


def _assets(html: str) -> list[str]:
    refs = re.findall(r'(?:href|src)="(?:https?://[^/"]+)?(/static/[^"]+)"', html)
    # modules import each other: follow the imports
    return refs


def _module_imports(path: str, client: TestClient) -> list[str]:
    text = client.get(path).text
    return ["/static/js/" + name for name in re.findall(r'from "\./([a-z0-9_-]+\.js)"', text)]


def measure_first_load(client: TestClient, path: str) -> int:
    """Bytes on the wire (gzip) for a page and everything it loads."""
    page = client.get(path, headers={"Accept-Encoding": "gzip"})
    total = page.num_bytes_downloaded
    seen: set[str] = set()
    queue = _assets(page.text)
    while queue:
        asset = queue.pop()
        if asset in seen:
            continue
        seen.add(asset)
        response = client.get(asset, headers={"Accept-Encoding": "gzip"})
        assert response.status_code == 200, asset
        total += response.num_bytes_downloaded
        if asset.endswith(".js"):
            queue.extend(_module_imports(asset, client))
    return total


def test_first_load_stays_under_200_kb_compressed(client: TestClient) -> None:
    home = measure_first_load(client, "/")
    rules = measure_first_load(client, "/rules/classic")
    assert home > 10_000  # the stylesheet and the scripts were counted
    assert home < 200_000, home
    assert rules < 200_000, rules
    # the table page: its HTML is only served for a game, its assets are what matters:
    # the stylesheet, table.js and every module it imports
    table_assets = {"/static/css/app.css"}
    queue = ["/static/js/table.js", "/static/js/common.js"]
    while queue:
        asset = queue.pop()
        if asset not in table_assets:
            table_assets.add(asset)
            queue.extend(_module_imports(asset, client))
    assert "/static/js/table-state.js" in table_assets
    assets = sum(
        client.get(p, headers={"Accept-Encoding": "gzip"}).num_bytes_downloaded
        for p in sorted(table_assets)
    )
    assert assets + home < 200_000
    print(f"first load, gzip: home {home} B, rules {rules} B, table assets {assets} B")


def test_static_files_are_compressed(client: TestClient) -> None:
    response = client.get("/static/js/table.js", headers={"Accept-Encoding": "gzip"})
    assert response.headers.get("content-encoding") == "gzip"
