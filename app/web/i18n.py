"""Translations: one JSON catalog per language in ``app/web/locales/``, English the reference.

Every string a player can see lives in a catalog, rules pages included. Keys are dotted
(``home.title``); values may hold ``{name}`` placeholders. The language comes from the
``atout_lang`` cookie (set by the switcher), else from ``Accept-Language``, else English.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

LOCALES_DIR = Path(__file__).resolve().parent / "locales"
DEFAULT_LANGUAGE = "en"
LANGUAGE_COOKIE = "atout_lang"

# Code -> the language's own name, in the order the switcher lists them.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "fr": "Français",
    "bg": "Български",
    "hr": "Hrvatski",
    "ro": "Română",
    "ru": "Русский",
    "cs": "Čeština",
}


@cache
def catalog(language: str) -> dict[str, str]:
    """The flat ``key -> text`` catalog of ``language`` (English for an unknown code)."""
    if language not in LANGUAGES:
        language = DEFAULT_LANGUAGE
    with (LOCALES_DIR / f"{language}.json").open(encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return {key: str(value) for key, value in data.items()}


def translate(language: str, key: str, **params: Any) -> str:
    """The text of ``key`` in ``language`` with ``{placeholders}`` filled in.

    A missing key falls back to English, then to the key itself (a test guarantees that every
    catalog has every key, so the fallbacks never show in practice).
    """
    text = catalog(language).get(key) or catalog(DEFAULT_LANGUAGE).get(key) or key
    for name, value in params.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def parse_accept_language(header: str | None) -> list[str]:
    """Language codes from an ``Accept-Language`` header, best first (q-values honoured)."""
    if not header:
        return []
    weighted: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")):
        piece = part.strip()
        if not piece:
            continue
        code, _, params = piece.partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if quality > 0:
            weighted.append((-quality, index, code.strip().lower()))
    return [code for _, _, code in sorted(weighted)]


def negotiate(cookie: str | None, accept_language: str | None) -> str:
    """The language for a request: the remembered choice, else the browser's, else English."""
    if cookie in LANGUAGES:
        return str(cookie)
    for code in parse_accept_language(accept_language):
        base = code.split("-")[0]
        if base in LANGUAGES:
            return base
    return DEFAULT_LANGUAGE
