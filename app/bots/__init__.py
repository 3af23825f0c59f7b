"""Computer players. A bot sees exactly a seat view (RULES.md §13), never the full state.

``choose_action(view, level, rng)`` returns one of ``view["legal"]`` (an action in the JSON form
of RULES.md §12).  It is a pure function of its inputs, so it can run in a worker process.
"""

from __future__ import annotations

import random
from typing import Any

LEVELS = ("easy", "medium", "hard")


def choose_action(view: dict[str, Any], level: str, rng: random.Random) -> dict[str, Any]:
    """The action the bot of ``level`` takes in ``view`` (a seat view where it is to act)."""
    legal = view["legal"]
    if not legal:
        raise ValueError("the bot is not to act in this view")
    return dict(rng.choice(legal))
