"""docs/RULES.md is the rules authority's copy that a clone carries (the code cites it as
RULES.md): it must equal the team's shared RULES.md whenever that file is beside the checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COPY = ROOT / "docs" / "RULES.md"
SHARED = ROOT.parent / "shared" / "RULES.md"


def test_rules_copy_is_present() -> None:
    assert COPY.is_file(), "docs/RULES.md is missing"
    assert COPY.read_text(encoding="utf-8").strip()


@pytest.mark.skipif(not SHARED.is_file(), reason="no ../shared/RULES.md beside the checkout")
def test_rules_copy_equals_the_shared_rules() -> None:
    assert COPY.read_bytes() == SHARED.read_bytes(), (
        "docs/RULES.md differs from ../shared/RULES.md: copy the shared file over it"
    )
