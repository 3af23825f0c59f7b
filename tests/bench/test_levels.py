"""The arena's levels (bench/levels.py): the product's registry holds the levels people play;
the experimental hard levels are styles of the hard search that the arena names, resolves and
hands to its worker processes."""

from __future__ import annotations

import itertools
import random

import pytest

import app.bots
from app.bots import LEVELS, HardStyle, hard
from app.engine import Phase, seat_view
from bench.arena import run
from bench.levels import ARENA_LEVELS, EXPERIMENTAL, choose_action
from tests.bots.helpers import random_chooser, states


def play_views(variant: str, players: int, count: int) -> list[dict]:
    views = []
    for state in itertools.islice(states(variant, players, 4, random_chooser), 0, 3000, 7):
        if state.phase is Phase.PLAY:
            view = seat_view(state, state.to_act)
            if len(view["legal"]) >= 2:
                views.append(view)
        if len(views) >= count:
            break
    assert len(views) == count
    return views


def test_the_product_knows_only_the_levels_people_play() -> None:
    assert LEVELS == ("easy", "medium", "hard")
    assert not hasattr(app.bots, "HARD_LEVELS") and not hasattr(app.bots, "ARENA_LEVELS")
    assert ARENA_LEVELS[: len(LEVELS)] == LEVELS and not set(EXPERIMENTAL) & set(LEVELS)
    view = play_views("classic", 4, 1)[0]
    with pytest.raises(ValueError, match="unknown level 'hard-v2'; one of easy, medium, hard$"):
        app.bots.choose_action(view, "hard-v2", random.Random(1))
    with pytest.raises(ValueError, match="a style goes with the hard level"):
        app.bots.choose_action(view, "medium", random.Random(1), style=HardStyle())
    with pytest.raises(ValueError, match="unknown level 'hard-v9'; one of easy, .*hard-v2"):
        choose_action(view, "hard-v9", random.Random(1))


@pytest.mark.parametrize("level", ["hard-v1", "hard-reads", "hard-model"])
def test_an_experimental_level_is_hard_with_its_style(
    level: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hard, "WALL_DEADLINE", False)  # each decision a function of its inputs
    for view in play_views("classic", 4, 3):
        style = EXPERIMENTAL[level]
        mine = choose_action(view, level, random.Random(7), budget_ms=10)
        theirs = app.bots.choose_action(view, "hard", random.Random(7), budget_ms=10, style=style)
        assert mine == theirs and mine in view["legal"]
    for view in play_views("bela", 2, 2):  # the product levels go through unchanged
        for product_level in LEVELS:
            assert choose_action(view, product_level, random.Random(3), budget_ms=10) == (
                app.bots.choose_action(view, product_level, random.Random(3), budget_ms=10)
            )


def test_the_arena_workers_play_an_experimental_level() -> None:
    """The arena's worker processes (spawned) get level names and resolve them in bench."""
    args = ("duel", 2, {}, "hard-n0", "medium", 2)
    one = run(*args, seed=4, workers=1, budget_ms=10, deadline=False)
    two = run(*args, seed=4, workers=2, budget_ms=10, deadline=False)
    assert set(two["decision_cpu_ms"]) == {"hard-n0", "medium"}
    assert (one["mean_diff"], one["contracts"]) == (two["mean_diff"], two["contracts"])
