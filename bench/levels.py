"""The arena's levels: the product's (``app.bots.LEVELS``: easy, medium, hard) and the
experimental hard levels, each another style of the hard search (``app.bots.HardStyle``)
measured against hard before it may replace it (docs/bots.md, "Levels").

The product knows only the levels people play; a name of this table reaches the bots as the
hard level with its style (``choose_action``). The arena's worker processes get level names and
resolve them here, in the worker.
"""

from __future__ import annotations

import random
from typing import Any

from app import bots
from app.bots import LEVELS, HardStyle

# ``hard-v2`` with the exact middle game; ``hard-v1``, the hard bot as it was before it read the
# taken card (the view's ``taken``), kept as the reference of that change; ``hard-reads``,
# reading the play; ``hard-bid0``, leaving the medium bid in classic and coinche whenever the
# simulations favour another action by one standard error; ``hard-n0``, playouts with no random
# cards; ``hard-model``, worlds of the card play weighted half by the learned model of the
# hidden cards; ``hard-v3``, the hard bot without that model (today's hard).
EXPERIMENTAL: dict[str, HardStyle] = {
    "hard-v2": HardStyle(exact_middle=True),
    "hard-v1": HardStyle(blind_to_taken=True),
    "hard-reads": HardStyle(reads_play=True),
    "hard-bid0": HardStyle(bid_margin=(("classic", 0.0), ("coinche", 0.0))),
    "hard-n0": HardStyle(rollout_noise=0.0),
    "hard-model": HardStyle(model_mix=0.5),
    "hard-v3": HardStyle(),
}
ARENA_LEVELS = (*LEVELS, *EXPERIMENTAL)


def choose_action(
    view: dict[str, Any],
    level: str,
    rng: random.Random,
    *,
    budget_ms: float | None = None,
) -> dict[str, Any]:
    """``app.bots.choose_action`` for a level of ``ARENA_LEVELS``."""
    style = EXPERIMENTAL.get(level)
    if style is not None:
        return bots.choose_action(view, "hard", rng, budget_ms=budget_ms, style=style)
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; one of {', '.join(ARENA_LEVELS)}")
    return bots.choose_action(view, level, rng, budget_ms=budget_ms)
