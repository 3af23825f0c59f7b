"""The browser asks a variant's traits, never its name (docs/protocol.md, "Traits").

A JS module may use the variant's name only to display or translate it: as part of a message
key (``t(`variant.${v.variant}`)``), a rules template's id or the rules page's address. It never
compares it, so a variant that differs by a trait needs no change to the client.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.engine import VARIANTS

STATIC = Path(__file__).resolve().parents[2] / "static"
JS = STATIC / "js"
# a variant's id as a string literal: "duel", 'bela', `classic` (the views carry ids, never
# aliases; "belote" is also a word of the game)
NAMES = "|".join(map(re.escape, sorted(VARIANTS)))
LITERAL = re.compile(r"""(["'`])(""" + NAMES + r""")\1""")
# a comparison with a field named variant, on either side
COMPARED = re.compile(
    r"\bvariant\b\s*(?:\)\s*)?(?:===|!==|==|!=)|(?:===|!==|==|!=)\s*[\w.()]*\bvariant\b(?![\"'`])"
)
COMMENT = re.compile(r"^\s*(?://|/?\*)")


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """The lines of ``path`` that are code (comment lines and trailing // comments dropped)."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if COMMENT.match(line):
            continue
        out.append((number, re.sub(r"\s//\s.*$", "", line)))
    return out


def _modules() -> list[Path]:
    return sorted(JS.glob("*.js"))


def test_the_client_has_modules_to_check() -> None:
    assert len(_modules()) > 20
    assert {"table-trick.js", "table-dialogs.js", "help.js"} <= {p.name for p in _modules()}


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.name)
def test_no_module_compares_a_variant_name(path: Path) -> None:
    found = [
        f"{path.name}:{n}: {line.strip()}"
        for n, line in _code_lines(path)
        if LITERAL.search(line) or COMPARED.search(line)
    ]
    assert not found, "ask the view's traits instead of the variant's name:\n" + "\n".join(found)


def test_no_stylesheet_selects_a_variant_by_name() -> None:
    """The layout follows the traits too: ``data-piles`` (table.js), not ``data-variant``."""
    for path in sorted(STATIC.glob("css/*.css")):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\[data-variant\s*[~|^$*]?=", text), path.name
    assert '[data-piles="yes"]' in (STATIC / "css" / "app.css").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "line",
    [
        'if (v.variant === "duel") x();',
        "const a = v.variant !== 'bela';",
        "if (table.variant == `coinche`) y();",
        'const word = { duel: 1 }["duel"];',
        "if (name === view().variant) z();",
    ],
)
def test_the_check_finds_a_comparison(line: str) -> None:
    assert LITERAL.search(line) or COMPARED.search(line)


@pytest.mark.parametrize(
    "line",
    [
        "t(`variant.${v.variant}`)",
        'if (e.target.name === "variant" || e.target.name === "players") onVariantChange();',
        "const tpl = document.getElementById(`help-rules-${v.variant}`);",
        "if (v.traits.deal_is_game) showAwards();",
    ],
)
def test_the_check_lets_words_and_traits_through(line: str) -> None:
    assert not (LITERAL.search(line) or COMPARED.search(line))
