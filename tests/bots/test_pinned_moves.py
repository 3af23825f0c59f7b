"""The bots' moves pinned over seeded deals: a refactoring of app/bots must not change them.

Each level plays two whole deals of every variant at every seat, from a seeded generator (the
hard level with a small budget and no wall-clock deadline, so that only its work units count:
a loaded machine does not cut a search short). The digest of the actions taken is compared with the one recorded when the moves
were last meant to change; a change of play makes this test fail, on purpose: re-record the
digests then (``python -m tests.bots.test_pinned_moves``) and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from typing import Any

import pytest

from app.bots import LEVELS, choose_action
from app.engine import Phase, action_from_json, apply, new_match, next_to_move, seat_view

from .helpers import CONFIGS, IDS

HARD_BUDGET_MS = 15.0
SEED = 20261201

PINNED: dict[str, str] = {  # actions taken:digest
    "classic-4p-easy": "45:1dd383a41f433a11",
    "classic-4p-medium": "71:6085e1ad7c9e2aa8",
    "classic-4p-hard": "67:2f18f12580b7be77",
    "coinche-4p-easy": "75:50c617cff9e7050c",
    "coinche-4p-medium": "80:aff57cc34bba9cd1",
    "coinche-4p-hard": "77:3768eb5477b6cad2",
    "bulgarian-4p-easy": "80:cead54e6033da19d",
    "bulgarian-4p-medium": "78:ed1f8d1b09cb94f4",
    "bulgarian-4p-hard": "82:8c04e4cf6d3468ad",
    "bela-2p-easy": "49:b1a3baf040a20911",
    "bela-2p-medium": "49:e5c38bdbabc7820c",
    "bela-2p-hard": "46:72c18dc8143d88b8",
    "bela-3p-easy": "68:33ce2111e544f0b7",
    "bela-3p-medium": "69:2cf288c2e7fcf641",
    "bela-3p-hard": "65:e92c39354d1bf75c",
    "bela-4p-easy": "71:873edd97fd66531c",
    "bela-4p-medium": "73:ec13dbf6e6f5e9b6",
    "bela-4p-hard": "69:233dc98b1e362529",
    "duel-2p-easy": "39:6db613ef35e74322",
    "duel-2p-medium": "68:e57293f7ec42b7a8",
    "duel-2p-hard": "70:34e7bb919fc3faa3",
}


def moves(variant: str, players: int, level: str, deals: int = 2) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for number in range(deals):
        rng = random.Random(f"{SEED}-{variant}-{players}-{level}-{number}")
        state = new_match(variant, players, {}, rng=rng)
        while state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER):
            seat = next_to_move(state)
            assert seat is not None
            view = seat_view(state, seat)
            action = choose_action(view, level, rng, budget_ms=HARD_BUDGET_MS)
            out.append({"seat": seat, **action})
            state, _ = apply(state, action_from_json(action), seat)
    return out


@pytest.fixture(autouse=True)
def no_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    no_wall_clock(monkeypatch.setattr)


def no_wall_clock(setattr_: Any) -> None:
    from app.bots import hard

    setattr_(hard, "MIN_DEADLINE_S", 3600.0)
    setattr_(hard, "MAX_DEADLINE_S", 3600.0)


def digest(actions: list[dict[str, Any]]) -> str:
    text = json.dumps(actions, sort_keys=True, separators=(",", ":"))
    return f"{len(actions)}:{hashlib.sha256(text.encode()).hexdigest()[:16]}"


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_the_same_seed_gives_the_same_moves(variant: str, players: int, level: str) -> None:
    key = f"{variant}-{players}p-{level}"
    assert digest(moves(variant, players, level)) == PINNED[key]


if __name__ == "__main__":
    no_wall_clock(lambda obj, name, value: object.__setattr__(obj, name, value))
    for (variant, players), name in zip(CONFIGS, IDS, strict=True):
        for level in LEVELS:
            print(f'    "{name}-{level}": "{digest(moves(variant, players, level))}",')
    sys.exit(0)
