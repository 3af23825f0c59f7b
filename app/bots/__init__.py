"""Computer players. A bot sees exactly a seat view (RULES.md §13), never the full state.

``choose_action(view, level, rng)`` returns one of ``view["legal"]`` (an action in the JSON form
of RULES.md §12).  It is a pure function of its inputs (and, for ``hard``, of its work budget),
so it can run in a worker process.  See docs/bots.md.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

LEVELS = ("easy", "medium", "hard")


@dataclass(frozen=True, slots=True)
class HardStyle:
    """How a hard level differs from ``hard`` (docs/bots.md, "Levels").

    ``exact_middle``: the exact solver of the whole card play values each world's cards in the
    middle of the deal, not playouts.  ``reads_play``: worlds weigh by how well the others'
    cards so far fit them (``hard.play_likelihood``).  ``blind_to_taken``: decide as if the
    view did not say which face-up card a seat took.  ``bid_margin``: the bidding's margin
    over the medium bid, per variant, where it differs from ``simbid.MARGIN``.
    ``rollout_noise``: the share of random cards in the playouts of the card play and the
    bidding, where it differs from ``sim.NOISE``.  ``model_mix``: in the card play of the
    4-player variants, the share of the decision given to worlds weighted by the learned model
    of the hidden cards (``beliefs``), the rest to the worlds weighed alike (0: no model)."""

    exact_middle: bool = False
    reads_play: bool = False
    blind_to_taken: bool = False
    bid_margin: tuple[tuple[str, float], ...] = ()
    rollout_noise: float | None = None
    model_mix: float = 0.0


# The levels the arena may also field besides ``LEVELS``, each measured against hard before it
# may replace it: ``hard-v2`` with the exact middle game; ``hard-v1``, the hard bot as it was
# before it read the taken card (the view's ``taken``), kept as the reference of that change;
# ``hard-reads``, reading the play; ``hard-bid0``, leaving the medium bid in classic and coinche
# whenever the simulations favour another action by one standard error; ``hard-n0``, playouts
# with no random cards; ``hard-model``, worlds of the card play weighted half by the learned
# model of the hidden cards; ``hard-v3``, the hard bot without that model (today's hard).
HARD_LEVELS = {
    "hard": HardStyle(),
    "hard-v2": HardStyle(exact_middle=True),
    "hard-v1": HardStyle(blind_to_taken=True),
    "hard-reads": HardStyle(reads_play=True),
    "hard-bid0": HardStyle(bid_margin=(("classic", 0.0), ("coinche", 0.0))),
    "hard-n0": HardStyle(rollout_noise=0.0),
    "hard-model": HardStyle(model_mix=0.5),
    "hard-v3": HardStyle(),
}
ARENA_LEVELS = (*LEVELS, *(lv for lv in HARD_LEVELS if lv not in LEVELS))


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

        style = HARD_LEVELS[level]
        if style.blind_to_taken and view.get("taken"):
            view = {**view, "taken": None}
        action = hard_choose(view, rng, budget_ms=budget_ms, style=style)
        return _checked(action, legal)
    else:
        raise ValueError(f"unknown level {level!r}; one of {', '.join(ARENA_LEVELS)}")
    return _checked(choose(view, rng), legal)


def warm_up() -> None:
    """Import every level's code (and the valuation tables) ahead of the first decision.

    Meant for worker-process initializers: a fresh process otherwise pays ~70 ms of imports
    inside its first decision.
    """
    from . import beliefs, easy, hard, medium, simbid, valuation_coefs  # noqa: F401

    beliefs.load()  # numpy and the model of the hidden cards


def _checked(action: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Return ``action`` if it is one of ``legal``; a bot bug must never reach the engine."""
    for a in legal:
        if a == action:
            return dict(a)
    raise AssertionError(f"bot chose an action that is not legal: {action!r}")
