"""The level curve (app/players/levels.py) and its published table (docs/players.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.players.levels import level_for, level_table, progress, step_after, xp_for_level

DOC = Path(__file__).resolve().parents[2] / "docs" / "players.md"


def test_level_one_starts_at_zero_and_the_first_match_reaches_level_two() -> None:
    assert xp_for_level(1) == 0
    assert level_for(0) == 1
    assert level_for(14) == 1
    assert level_for(15) == 2  # finishing any match earns at least 15 XP


def test_each_level_is_a_little_further_than_the_last() -> None:
    steps = [step_after(level) for level in range(1, 200)]
    assert steps[:4] == [15, 25, 35, 45]
    assert all(b - a == 10 for a, b in zip(steps, steps[1:], strict=False))


def test_level_for_is_the_inverse_of_xp_for_level() -> None:
    for xp in [*range(0, 5000), 10**6, 10**9 + 7]:
        level = level_for(xp)
        assert xp_for_level(level) <= xp < xp_for_level(level + 1), xp


def test_progress_says_how_far_the_next_level_is() -> None:
    p = progress(50)  # level 3 at 40, level 4 at 75
    assert (p.level, p.level_xp, p.next_xp, p.to_next) == (3, 40, 75, 25)
    assert p.percent == 28
    assert progress(0).as_json() == {
        "xp": 0,
        "level": 1,
        "level_xp": 0,
        "next_xp": 15,
        "to_next": 15,
        "percent": 0,
    }
    with pytest.raises(ValueError):
        level_for(-1)


def test_the_documented_table_is_the_curve() -> None:
    rows = re.findall(r"^\| (\d+) \| (\d+) \| (\d+) \|$", DOC.read_text(encoding="utf-8"), re.M)
    assert [tuple(int(x) for x in row) for row in rows] == level_table(30)
