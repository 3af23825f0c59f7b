"""Helpers for the bot tests: play games to interesting positions through the engine."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from app.bots import choose_action
from app.engine import Phase, State, action_from_json, apply, new_match, next_to_move, seat_view
from app.engine.cards import parse_card

CONFIGS: list[tuple[str, int]] = [
    ("classic", 4),
    ("coinche", 4),
    ("bulgarian", 4),
    ("bela", 2),
    ("bela", 3),
    ("bela", 4),
    ("duel", 2),
]
IDS = [f"{v}-{n}p" for v, n in CONFIGS]


def states(
    variant: str,
    players: int,
    seed: int,
    chooser: Callable[[dict[str, Any], random.Random], dict[str, Any]] | None = None,
    options: dict[str, Any] | None = None,
) -> Iterator[State]:
    """Every state of deals played by ``chooser`` (default: the medium bot; ``random_chooser``
    is much faster for scanning many positions), forever."""
    rng = random.Random(seed)
    if chooser is None:

        def chooser(view: dict[str, Any], r: random.Random) -> dict[str, Any]:
            return choose_action(view, "medium", r)

    while True:
        state = new_match(variant, players, options or {}, rng=rng)
        while state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER):
            yield state
            seat = next_to_move(state)
            assert seat is not None
            action = chooser(seat_view(state, seat), rng)
            state, _ = apply(state, action_from_json(action), seat)


def card(text: str) -> int:
    return parse_card(text)


def deck_for(hands: dict[int, list[str]], order: list[int]) -> list[int]:
    """A deck whose deck positions ``order[i]`` hold ``hands``' cards, the rest shuffled
    deterministically into the remaining positions."""
    deck: list[int | None] = [None] * 32
    used = set()
    for seat, cards in hands.items():
        _ = seat
        for pos, text in zip(order, cards, strict=False):
            deck[pos] = parse_card(text)
            used.add(parse_card(text))
        order = order[len(cards) :]
    rest = [c for c in range(32) if c not in used]
    random.Random(0).shuffle(rest)
    out = []
    for x in deck:
        out.append(rest.pop() if x is None else x)
    return out


def random_chooser(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    return dict(rng.choice(view["legal"]))
