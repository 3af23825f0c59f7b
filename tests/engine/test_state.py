"""The State's fields are declared once (the annotations of ``State``) and given their values
in one place (``State.match_fields`` and ``State.deal_fields``): the two agree."""

from __future__ import annotations

import inspect

import pytest

from app.engine import get_rules, new_match
from app.engine.state import State

VARIANTS = [("classic", 4), ("coinche", 4), ("bulgarian", 4), ("bela", 2), ("bela", 3)]
VARIANTS += [("bela", 4), ("duel", 2)]


def test_the_declared_fields_are_the_match_and_deal_fields() -> None:
    declared = set(inspect.get_annotations(State))
    rules = get_rules("classic", 4)
    match = set(State.match_fields(rules, 0))
    deal = set(State.deal_fields(4))
    assert not match & deal, f"set twice: {sorted(match & deal)}"
    assert match | deal == declared, (
        f"declared but never set: {sorted(declared - match - deal)}; "
        f"set but not declared: {sorted(match | deal - declared)}"
    )


@pytest.mark.parametrize(("variant", "players"), VARIANTS)
def test_a_new_match_holds_exactly_the_declared_fields(variant: str, players: int) -> None:
    state = new_match(variant, players, seed=7)
    assert set(vars(state)) == set(inspect.get_annotations(State))
    assert state.rules.deal_fields == State.deal_fields(players)
