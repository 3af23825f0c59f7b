"""Wording a native speaker would write, checked on the catalogs (app/web/locales/*.json) and on
the scripts that put them together (static/js)."""

from __future__ import annotations

import json
import re

import pytest

from app.web.i18n import LOCALES_DIR
from app.web.paths import STATIC_DIR

RANKS = {"7": "seven", "8": "eight", "9": "nine", "T": "ten"}
RANKS |= {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}
SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def catalog(language: str) -> dict[str, str]:
    return json.loads((LOCALES_DIR / f"{language}.json").read_text(encoding="utf-8"))


def script(name: str) -> str:
    return (STATIC_DIR / "js" / name).read_text(encoding="utf-8")


def card_name(cat: dict[str, str], card: str) -> str:
    """static/js/cards.js cardName: the suit word agrees with the rank where the catalog says."""
    rank, suit = RANKS[card[0]], f"suit.{SUITS[card[1]]}.of"
    suit_word = cat.get(f"{suit}.{rank}", cat[suit])
    return cat["card.name"].replace("{rank}", cat[f"rank.{rank}"]).replace("{suit}", suit_word)


def test_card_names_use_the_suit_word_that_agrees_with_the_rank() -> None:
    # cards.js looks the agreeing form up first
    assert "${suit}.${rank}" in script("cards.js")
    cs = catalog("cs")
    assert card_name(cs, "JD") == "kárový kluk"
    assert card_name(cs, "KS") == "pikový král"
    assert card_name(cs, "JH") == "srdcový kluk"
    assert card_name(cs, "AC") == "křížové eso"
    assert card_name(cs, "QD") == "kárová dáma"
    assert card_name(cs, "7S") == "piková sedmička"
    # masculine ranks never take the feminine "-ová", neuter ones never "-ý"
    for suit in SUITS:
        for rank in "JK":
            assert card_name(cs, rank + suit).split()[0].endswith("ý")
        assert card_name(cs, "A" + suit).split()[0].endswith("é")
        for rank in "789TQ":
            assert card_name(cs, rank + suit).split()[0].endswith("á")
    # the belote button names the card in the nominative, after the verb's own words
    assert cs["play.without_call"].endswith(": {card}")


def test_bulgarian_calls_a_trick_a_hand_never_a_bribe() -> None:
    # "взятка" is a trick in Russian, a bribe in Bulgarian: the Bulgarian pages say "ръка"
    bg = catalog("bg")
    assert [key for key, text in bg.items() if "взятк" in text.lower()] == []
    assert "ръка" in bg["settings.auto_play_help"]


def test_romanian_speaks_to_the_player_one_way_and_names_a_deal_one_way() -> None:
    ro = catalog("ro")
    # ("vă" may be a plural "you": "will not seat you together")
    formal = re.compile(r"\b(dvs|dumneavoastră|vedeți|apăsați|alegeți|jucați)\b", re.I)
    assert [key for key, text in ro.items() if formal.search(text)] == []
    # a deal is a "manșă" everywhere ("împărțirea", the dealing itself, is another word)
    assert [key for key, text in ro.items() if re.search("împărțe(al|l)", text.lower())] == []
    assert ro["analysis.summary.you"].startswith("Tu:")


def test_french_puts_a_space_before_its_colons_and_the_scripts_ask_the_catalog() -> None:
    fr = catalog("fr")
    for key, text in fr.items():
        for match in re.finditer(r"(?<=.)[:;!?](?=\s|$)", text):
            assert text[match.start() - 1] in " \u00a0\u202f", f"fr: {key}: {text!r}"
    assert fr["punct.colon"] == "{label}\u00a0:"
    # a label joined to what follows by a colon written in the script would be English
    # typography in every language ("Partie: Nous 112"): the scripts use colon() instead
    for path in sorted((STATIC_DIR / "js").glob("*.js")):
        code = "\n".join(
            line
            for line in path.read_text(encoding="utf-8").splitlines()
            if not line.lstrip().startswith(("//", "*", "/*"))
        )
        assert re.findall(r"\)\}: ", code) == [], path.name


def test_xp_lines_have_one_colon_at_most() -> None:
    # "Tricks won: 3: +3": a line's label may hold a colon of its own, so the points are set
    # apart by the layout, never by another colon
    dialogs = script("table-dialogs.js")
    assert "${escapeHTML(label)}</span> <b>+${xp}</b>" in dialogs
    for language in ("en", "fr", "bg", "hr", "ro", "ru", "cs"):
        for key in ("xp.deals_n", "xp.tricks_n"):
            assert catalog(language)[key].count(":") <= 1


CONTRACT_KEYS = ("table.contract", "sheet.contract")


def test_words_a_native_speaker_would_write() -> None:
    hr, cs, bg = catalog("hr"), catalog("cs"), catalog("bg")
    ro, ru, en = catalog("ro"), catalog("ru"), catalog("en")
    # Croatian: a replay is not "Repeat!", the contract has one name, 32 is "sve 32 karte"
    assert hr["history.replay"] != "Ponovi"
    assert {hr[k] for k in CONTRACT_KEYS} == {"Adut"}
    assert hr["analysis.contract.you"].startswith("Adut")
    assert "Podijeli se svih" not in hr["rules.duel.deal"]
    # Czech: the contract is the "hra", the taker is not "Berucí", a deal is a "rozdání"
    assert not [k for k, v in cs.items() if re.search(r"závaz|berucí", v, re.I)]
    assert {cs[k] for k in CONTRACT_KEYS} == {"Hra"}
    assert "kol" not in cs["xp.deal"] and "kol" not in cs["xp.deals_n"]
    # Bulgarian: players say "игра", never "договор"; the local game's button
    assert not [k for k, v in bg.items() if "договор" in v.lower()]
    assert {bg[k] for k in CONTRACT_KEYS} == {"Игра"}
    assert bg["mode.local.start"] != "Започни местна игра"
    # Romanian: "Limbă", a dealer badge a player reads, the emote, belot
    assert ro["lang.label"] == "Limbă"
    assert ro["seat.dealer_short"] != "Î"
    assert ro["chat.emote.thumbs_up"] != "Degetul mare"
    assert not [k for k, v in ro.items() if "belote și rebelote" in v]
    # Russian: the duel has one name
    assert not [k for k, v in ru.items() if "белоте с другом" in v]
    # English: no capital inside the title
    assert not en["rules.title"].startswith("Rules of")


@pytest.mark.parametrize("language", ["en", "fr", "bg", "hr", "ro", "ru", "cs"])
def test_the_keyboard_help_explains_the_english_letters(language: str) -> None:
    # the keys are the same letters on every page (C D H S N A P X): the help says what they are
    text = catalog(language)["help.keys_text"]
    for letter_and_suit in ("C ♣", "D ♦", "H ♥", "S ♠"):
        assert letter_and_suit in text
    for letter in ("N ", "A ", "P ", "X "):
        assert letter in text
    keys = script("keys.js")
    assert 'SUIT_KEYS = { C: "C", D: "D", H: "H", S: "S", NT: "N", AT: "A" }' in keys
    assert 'pass: "P"' in keys and 'double: "X"' in keys
