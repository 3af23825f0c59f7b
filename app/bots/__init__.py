"""Computer players. A bot sees exactly a seat view (RULES.md §13), never the full state.

``choose_action(view, level, rng)`` returns one of ``view["legal"]`` (an action in the JSON form
of RULES.md §12).  It is a pure function of its inputs (and, for ``hard``, of its work budget),
so it can run in a worker process.  See docs/bots.md.
"""

from __future__ import annotations

import random
from typing import Any

LEVELS = ("easy", "medium", "hard")
# The levels the arena may also field (docs/bots.md, "Levels"): ``hard-v2`` is the hard bot with
# the exact solver of the whole card play in the middle of the deal, measured against hard before
# it replaces it; ``hard-v1`` is the hard bot as it was before it read the taken card (the view's
# ``taken``), kept as the reference of that change; ``hard-reads`` weighs its worlds by how well
# the others' cards so far fit them.  Level -> whether the hard bot uses that solver.
HARD_LEVELS = {"hard": False, "hard-v2": True, "hard-v1": False, "hard-reads": False}
# Levels that weigh their worlds by the play so far (``hard.play_likelihood``).
READS_PLAY = frozenset({"hard-reads"})
# Levels that decide as if the view did not say which face-up card a seat took.
BLIND_TO_TAKEN = frozenset({"hard-v1"})
ARENA_LEVELS = (*LEVELS, "hard-v2", "hard-v1", "hard-reads")


def choose_action(
    view: dict[str, Any],
    level: str,
    rng: random.Random,
    *,
    budget_ms: float | None = None,
) -> dict[str, Any]:
    """The action the bot of ``level`` takes in ``view`` (a seat view where it is to act).

    ``budget_ms`` sets the hard bot's thinking budget (default ~120 ms of work on one core);
    the other levels ignore it.
    """
    legal = view.get("legal") or []
    if not legal:
        raise ValueError("the bot is not to act in this view")
    if len(legal) == 1:
        return dict(legal[0])
    if level == "easy":
        from .easy import choose
    elif level == "medium":
        from .medium import choose
    elif level in HARD_LEVELS:
        from .hard import choose as hard_choose

        if level in BLIND_TO_TAKEN and view.get("taken"):
            view = {**view, "taken": None}
        action = hard_choose(
            view,
            rng,
            budget_ms=budget_ms,
            exact_middle=HARD_LEVELS[level],
            reads_play=level in READS_PLAY,
        )
        return _checked(action, legal)
    else:
        raise ValueError(f"unknown level {level!r}; one of {', '.join(ARENA_LEVELS)}")
    return _checked(choose(view, rng), legal)


def warm_up() -> None:
    """Import every level's code (and the valuation tables) ahead of the first decision.

    Meant for worker-process initializers: a fresh process otherwise pays ~70 ms of imports
    inside its first decision.
    """
    from . import easy, hard, medium, simbid, valuation_coefs  # noqa: F401


def _checked(action: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Return ``action`` if it is one of ``legal``; a bot bug must never reach the engine."""
    for a in legal:
        if a == action:
            return dict(a)
    raise AssertionError(f"bot chose an action that is not legal: {action!r}")
