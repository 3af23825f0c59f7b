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
    """How a style of the hard search differs from ``hard`` (docs/bots.md, "Levels"); the
    arena's experimental levels are such styles (bench/levels.py).

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


# The hard level people play. The arena's experimental hard levels (bench/levels.py) are other
# styles of the same search, passed to ``choose_action`` as ``style``.
HARD = HardStyle()


def choose_action(
    view: dict[str, Any],
    level: str,
    rng: random.Random,
    *,
    budget_ms: float | None = None,
    style: HardStyle | None = None,
) -> dict[str, Any]:
    """The action the bot of ``level`` (one of ``LEVELS``) takes in ``view`` (a seat view where
    it is to act).

    ``budget_ms`` sets the hard bot's thinking budget (default ~120 ms of work on one core);
    the other levels ignore it.  ``style``: another style of the hard search than ``HARD``
    (the arena's experimental levels); only with ``hard``.
    """
    if style is not None and level != "hard":
        raise ValueError(f"a style goes with the hard level, not {level!r}")
    legal = view.get("legal") or []
    if not legal:
        raise ValueError("the bot is not to act in this view")
    if len(legal) == 1:
        return dict(legal[0])
    if level == "easy":
        from .easy import choose
    elif level == "medium":
        from .medium import choose
    elif level == "hard":
        from .hard import choose as hard_choose

        style = HARD if style is None else style
        if style.blind_to_taken and view.get("taken"):
            view = {**view, "taken": None}
        action = hard_choose(view, rng, budget_ms=budget_ms, style=style)
        return _checked(action, legal)
    else:
        raise ValueError(f"unknown level {level!r}; one of {', '.join(LEVELS)}")
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
