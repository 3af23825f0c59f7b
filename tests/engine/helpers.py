"""Small drivers for engine tests."""

from __future__ import annotations

import random
from typing import Any

from app.engine import Phase, State, action_from_json, apply, legal_actions, new_match
from app.engine.actions import action_to_json
from app.engine.cards import parse_card

from .dealing import build_deck, destinations


def do(state: State, *actions: dict[str, Any]) -> State:
    """Apply JSON actions in order (by whoever is to act)."""
    for a in actions:
        state, _ = apply(state, action_from_json(a))
    return state


def play(*cards: str) -> list[dict[str, Any]]:
    return [{"type": "play", "card": c} for c in cards]


def passes(k: int) -> list[dict[str, Any]]:
    return [{"type": "pass"}] * k


def legal_json(state: State) -> list[dict[str, Any]]:
    return [action_to_json(a) for a in legal_actions(state)]


def legal_cards(state: State) -> set[str]:
    return {a["card"] for a in legal_json(state) if a["type"] == "play"}


def deal(
    variant: str,
    hands: dict[Any, list[str]],
    *,
    dealer: int,
    players: int = 4,
    options: dict[str, Any] | None = None,
    taker: int | None = None,
    free: bool = False,
) -> State:
    """A match whose first deal gives the wanted cards (keys as dealing.destinations)."""
    dests = destinations(variant, dealer, players, taker=taker, free=free)
    wanted = {(k if isinstance(k, tuple) else ("hand", k)): v for k, v in hands.items()}
    deck = build_deck(dests, wanted)
    return new_match(variant, players, options or {}, first_dealer=dealer, deck=deck)


def finish_randomly(state: State, seed: int = 0) -> State:
    """Play the current deal to its end with random legal actions."""
    rng = random.Random(seed)
    while state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER):
        state, _ = apply(state, rng.choice(legal_actions(state)))
    return state


def card(text: str) -> int:
    return parse_card(text)
