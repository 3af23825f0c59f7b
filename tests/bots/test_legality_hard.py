"""The hard level never plays an illegal action either: the runs of test_legality.py (at least
10,000 decisions for every variant and player count, a quarter of the actions random legal
ones), with a tiny search budget."""

from __future__ import annotations

import pytest

from .helpers import CONFIGS, IDS
from .test_legality import DECISIONS, play_decisions


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_no_illegal_action_hard(variant: str, players: int) -> None:
    assert play_decisions(variant, players, "hard", seed=2) >= DECISIONS
