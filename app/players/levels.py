"""The level curve: total experience points (XP) -> level. The only place it is defined.

Reaching level ``L`` takes ``5 * (L*L - 1)`` XP in total, so the step from level ``L`` to
``L + 1`` costs ``10 * L + 5`` XP: 15, 25, 35, 45, ... each step ten points further than the
last. Finishing any match earns at least 15 XP (RULES.md §9.2), so a player's first finished
match always reaches level 2. docs/players.md prints the table (``level_table``); a test
keeps the two identical.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import isqrt

FIRST_LEVEL = 1


def xp_for_level(level: int) -> int:
    """Total XP at which ``level`` is reached (level 1 at 0 XP)."""
    if level < FIRST_LEVEL:
        raise ValueError("levels start at 1")
    return 5 * (level * level - 1)


def step_after(level: int) -> int:
    """XP needed to go from ``level`` to ``level + 1``."""
    return xp_for_level(level + 1) - xp_for_level(level)


def level_for(xp: int) -> int:
    """The level of a player with ``xp`` total experience points (no upper limit)."""
    if xp < 0:
        raise ValueError("XP cannot be negative")
    level = isqrt(xp // 5 + 1)
    # isqrt gives the exact answer; the loops only guard the formula against a later edit
    while xp_for_level(level + 1) <= xp:
        level += 1
    while level > FIRST_LEVEL and xp_for_level(level) > xp:
        level -= 1
    return level


@dataclass(frozen=True)
class LevelProgress:
    xp: int  # total XP
    level: int
    level_xp: int  # total XP at which this level was reached
    next_xp: int  # total XP at which the next level is reached
    to_next: int  # XP still needed for the next level
    percent: int  # 0..99: how far along this level

    def as_json(self) -> dict[str, int]:
        return {
            "xp": self.xp,
            "level": self.level,
            "level_xp": self.level_xp,
            "next_xp": self.next_xp,
            "to_next": self.to_next,
            "percent": self.percent,
        }


def progress(xp: int) -> LevelProgress:
    level = level_for(xp)
    start, end = xp_for_level(level), xp_for_level(level + 1)
    return LevelProgress(
        xp=xp,
        level=level,
        level_xp=start,
        next_xp=end,
        to_next=end - xp,
        percent=(100 * (xp - start)) // (end - start),
    )


def level_table(last: int = 30) -> list[tuple[int, int, int]]:
    """``(level, total XP to reach it, XP to the next level)`` for levels 1..``last``."""
    return [(lv, xp_for_level(lv), step_after(lv)) for lv in range(FIRST_LEVEL, last + 1)]
