"""A computer player's answer is read with the grammar of a human's ``action`` message
(``app.rooms.actions.parse_action``), not the record reader: over seeded games of every
variant, every entry of a seat view's ``legal`` (what a bot answers) becomes the same engine
action either way, and an answer that is not an action is refused."""

from __future__ import annotations

import random

import pytest

from app.engine import Phase, action_from_json, apply, legal_actions, new_match, seat_view
from app.engine.game import next_to_move, start_deal
from app.rooms.actions import parse_action

VARIANTS = [
    ("classic", None, {}),
    ("coinche", None, {}),
    ("bulgarian", None, {}),
    ("bela", 4, {}),
    ("bela", 3, {}),
    ("bela", 2, {}),
    ("duel", None, {}),
]


@pytest.mark.parametrize(("variant", "players", "options"), VARIANTS)
def test_every_legal_entry_parses_to_the_engines_action(
    variant: str, players: int | None, options: dict[str, object]
) -> None:
    rng = random.Random(f"bot-answers-{variant}-{players}")
    state = new_match(variant, players, options, rng=rng)
    checked = 0
    for _ in range(400):
        if state.phase == Phase.MATCH_OVER:
            break
        if state.phase == Phase.DEAL_OVER:
            state, _ = start_deal(state, rng)
            continue
        seat = next_to_move(state)
        if seat is not None:
            for entry in seat_view(state, seat)["legal"]:
                assert parse_action(entry) == action_from_json(entry), entry
                checked += 1
        state, _ = apply(state, rng.choice(legal_actions(state)))
    assert checked > 100


@pytest.mark.parametrize(
    "answer",
    [
        {"type": "play"},
        {"type": "play", "card": "1H"},
        {"type": "bid", "value": 85, "denom": "H"},
        {"type": "fold"},
        {"type": "play", "card": "TH", "extra": 1},
        "TH",
    ],
)
def test_an_answer_that_is_not_an_action_is_refused(answer: object) -> None:
    with pytest.raises(ValueError):
        parse_action(answer)
