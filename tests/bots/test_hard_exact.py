"""The hard bot's exact middle game (the arena's ``hard-v2``): the solver's card-play scores
turned into the deal's recorded points, and the level's decisions."""

from __future__ import annotations

import itertools
import random

import pytest

from app.bots import ARENA_LEVELS, LEVELS, choose_action, dds
from app.bots.arena import run
from app.bots.hard import dds_values
from app.bots.score import Scorer
from app.bots.sim import legal_now, play_card
from app.engine import Phase, seat_view
from app.engine.cards import card_list

from .helpers import random_chooser, states

TWO_SIDES = [("classic", 4), ("coinche", 4), ("bulgarian", 4), ("bela", 2), ("bela", 4)]


def best_line(pos: dds.Position, first: int) -> tuple[list[int], list[int]]:
    """Play ``first``, then every seat the card the solver finds best for its own party, to
    the end of the deal on the bots' simulator: the points and tricks won per seat."""
    d = pos.deal.copy()
    t = pos.table
    play_card(d, first, t)
    while d.tricks_left:
        p = dds.Position(d, t, pos.extra, pos.scale)
        seat = p.seat
        legal = card_list(legal_now(d, t))
        sol = dds.solve_position(p, t.side_of[seat], moves=legal)
        play_card(d, sol.best, t)
    return d.won, d.tricks


@pytest.mark.parametrize(("variant", "players"), TWO_SIDES, ids=[f"{v}-{n}p" for v, n in TWO_SIDES])
def test_the_solvers_scores_become_what_best_play_scores(variant: str, players: int) -> None:
    """For every legal card, ``dds_values`` is exactly the recorded-points value the deal's
    scoring gives when that card is played and everyone then plays the solver's best card to
    the end: capots, failed contracts and Bulgarian's doubled no-trump points included."""
    checked = 0
    for state in itertools.islice(states(variant, players, 7, random_chooser), 0, 4000, 13):
        if state.phase is not Phase.PLAY or len(state.tricks) < 3 or state.contract is None:
            continue
        pos = dds.position_of(state)
        t = pos.table
        seat = pos.seat
        side = t.side_of[seat]
        legal = card_list(legal_now(pos.deal, t))
        sol = dds.solve_position(pos, side, moves=legal)
        scorer = Scorer(
            variant, state.contract, t.side_of, t.total_tricks, (0,) * 2, (0,) * 2, extra=(0, 0)
        )
        values = dds_values(sol, pos.deal, t, scorer, side, pos.extra, pos.scale, legal)
        for c, v in zip(legal, values, strict=True):
            won, tricks = best_line(pos, c)
            assert v == pytest.approx(scorer.value(won, tricks, side)), (variant, c)
        checked += 1
        if checked >= 12:
            break
    assert checked >= 12


def test_hard_v2_is_an_arena_level_not_a_table_level() -> None:
    assert "hard-v2" in ARENA_LEVELS and "hard-v2" not in LEVELS


@pytest.mark.parametrize(("variant", "players"), [("classic", 4), ("bela", 2), ("duel", 2)])
def test_hard_v2_plays_legal_cards_and_the_same_ones_from_the_same_seed(
    variant: str, players: int
) -> None:
    seen = 0
    for state in itertools.islice(states(variant, players, 3, random_chooser), 0, 2000, 11):
        if state.phase is not Phase.PLAY or not 1 <= len(state.tricks) <= 4:
            continue
        view = seat_view(state, state.to_act)
        if len(view["legal"]) < 2:
            continue
        one = choose_action(view, "hard-v2", random.Random(5), budget_ms=40)
        two = choose_action(view, "hard-v2", random.Random(5), budget_ms=40)
        assert one in view["legal"] and one == two
        seen += 1
        if seen >= 6:
            break
    assert seen >= 6


def test_the_arena_fields_hard_v2_against_hard() -> None:
    report = run("classic", 4, {}, "hard-v2", "hard", deals=1, seed=3, budget_ms=30)
    assert set(report["decision_cpu_ms"]) == {"hard-v2", "hard"}
    assert report["deals"] == 1


def test_hard_v1_decides_as_hard_without_the_taken_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """The arena's ``hard-v1`` is the reference for reading ``taken``: in a view where another
    seat took the turn-up, it makes hard's decision on that view with ``taken`` removed."""
    from app.bots import hard

    # only the work units count, not a loaded machine's clock
    monkeypatch.setattr(hard, "MIN_DEADLINE_S", 3600.0)
    monkeypatch.setattr(hard, "MAX_DEADLINE_S", 3600.0)
    assert "hard-v1" in ARENA_LEVELS and "hard-v1" not in LEVELS
    checked = 0
    for state in itertools.islice(states("classic", 4, 21, random_chooser), 0, 3000, 7):
        if state.phase is not Phase.PLAY:
            continue
        view = seat_view(state, state.to_act)
        taken = view.get("taken")
        if not taken or taken["seat"] == state.to_act or len(view["legal"]) < 2:
            continue
        blind = {**view, "taken": None}
        v1 = choose_action(view, "hard-v1", random.Random(9), budget_ms=20)
        assert v1 == choose_action(blind, "hard", random.Random(9), budget_ms=20)
        checked += 1
        if checked == 4:
            break
    assert checked == 4
