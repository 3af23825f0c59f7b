"""Every level, every variant and player count: at least 10,000 decisions each, never an
illegal action.  A quarter of all actions are random legal ones, to reach odd positions
(strange bids, unusual contracts) the bots would not reach among themselves; variant
options change from deal to deal.  The hard level's runs are in test_legality_hard.py, a module
of their own so that a parallel run gives them a worker of their own."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.bots import choose_action
from app.engine import Phase, action_from_json, apply, new_match, next_to_move, seat_view

from .helpers import CONFIGS, IDS

DECISIONS = 10_000
HARD_BUDGET_MS = 0.2  # a tiny search: one world per decision

OPTIONS: dict[str, list[dict[str, Any]]] = {
    "classic": [
        {},
        {"bidding_mode": "free"},
        {"declarations": False},
        {"undertrump_required": False},
    ],
    "coinche": [{}, {"allow_sa_ta": True}, {"auto_declare": False, "auto_belote": False}],
    "bulgarian": [{}, {"auto_declare": True}],
    "bela": [{}, {"tie_rule": "hang"}, {"auto_declare": True, "auto_belote": True}],
    "duel": [{}],
}


def play_decisions(variant: str, players: int, level: str, seed: int) -> int:
    rng = random.Random(seed)
    decided = 0
    deals = 0
    while decided < DECISIONS:
        options = OPTIONS[variant][deals % len(OPTIONS[variant])]
        deals += 1
        state = new_match(variant, players, options, rng=rng)
        while state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER):
            seat = next_to_move(state)
            view = seat_view(state, seat)
            if rng.random() < 0.25:
                action = rng.choice(view["legal"])
            else:
                kw = {"budget_ms": HARD_BUDGET_MS} if level == "hard" else {}
                action = choose_action(view, level, rng, **kw)
                assert action in view["legal"], (variant, level, action)
                if len(view["legal"]) > 1:
                    decided += 1
            state, _ = apply(state, action_from_json(action), seat)
    return decided


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
@pytest.mark.parametrize("level", ["easy", "medium"])
def test_no_illegal_action(variant: str, players: int, level: str) -> None:
    assert play_decisions(variant, players, level, seed=1) >= DECISIONS
