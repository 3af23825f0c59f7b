"""One shared property suite over seeded random games of every variant (STYLE.md §10).

For every variant and player count, with options on and off, it checks at every step:
all 32 cards are accounted for, there is a legal action until the match ends, no view or
event shows a card RULES.md §13 hides; and at every deal's end: trick points add up,
recorded scores follow the deal scores; and finally replay(record(game)) reproduces the game.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from app.engine import (
    Phase,
    State,
    apply,
    is_over,
    legal_actions,
    new_match,
    seat_view,
    spectator_view,
    start_deal,
)
from app.engine.cards import FULL_DECK, cards_of, format_card
from app.engine.record import dump, replay
from app.engine.views import _common_view, seat_fields

CONFIGS = [
    ("classic", 4, {}),
    ("classic", 4, {"declarations": False, "undertrump_required": False, "target": 501}),
    ("classic", 4, {"bidding_mode": "free", "target": 501}),
    ("classic", 4, {"auto_declare": False, "auto_belote": False, "target": "one_deal"}),
    ("coinche", 4, {"target": 501}),
    ("coinche", 4, {"allow_sa_ta": True, "declarations": False, "target": 501}),
    ("coinche", 4, {"auto_declare": False, "auto_belote": False, "target": "one_deal"}),
    ("bulgarian", 4, {}),
    ("bulgarian", 4, {"auto_declare": True, "auto_belote": False}),
    ("bela", 2, {}),
    ("bela", 2, {"seven_exchange": False, "auto_declare": True, "auto_belote": True}),
    ("bela", 3, {}),
    ("bela", 3, {"tie_rule": "hang", "declarations": False}),
    ("bela", 4, {}),
    ("bela", 4, {"tie_rule": "hang", "eight_card_belot": True}),
    ("duel", 2, {}),
]
SEEDS = range(4)
CARD_RE = re.compile(r"\b[789TJQKA][CDHS]\b")


def ids(cfg: tuple[str, int, dict[str, Any]]) -> str:
    v, p, o = cfg
    return f"{v}{p}-" + ("-".join(f"{k}={o[k]}" for k in sorted(o)) or "default")


def accounted(state: State) -> None:
    """Every card is in exactly one place."""
    places = list(state.hands) + list(state.talons)
    places += [state.middle, state.out_of_play, state.discard]
    places.append(sum(1 << c for _, c in state.trick))
    for t in state.tricks:
        places.append(sum(1 << c for _, c in t.plays))
    places.append(sum(1 << c for c in state.stock))
    for pile in state.piles:
        places.append(sum(1 << c for c in pile if c >= 0))
    seen = 0
    for p in places:
        seen |= p
    if state.upcard >= 0 and not (seen >> state.upcard) & 1:  # on the table, in no hand
        places.append(1 << state.upcard)
    total = 0
    for p in places:
        assert total & p == 0, "a card is in two places"
        total |= p
    assert total == FULL_DECK, "a card is missing"


def hidden_from(state: State, seat: int | None) -> set[str]:
    """Cards that ``seat`` (None: a spectator) must not see now (§13)."""
    hidden = 0
    for s, hand in enumerate(state.hands):
        if s != seat and state.rules.variant != "duel":  # duel: face-up cards are open
            hidden |= hand
    for t in state.talons:
        hidden |= t
    hidden |= state.middle | (state.out_of_play & ~(1 << state.upcard if state.upcard >= 0 else 0))
    if state.contract is None or state.contract.taker != seat:
        hidden |= state.discard
    hidden |= sum(1 << c for c in state.stock)
    for pile in state.piles:
        hidden |= sum(1 << c for c in pile if c >= 0)
    # declared cards shown after trick 1 to everyone (§1.2) are public
    if state.tricks and state.rules.comparison == "unified":
        side, _ = state.rules.declaration_sides(state)
        for s, combos in enumerate(state.announced):
            if side is not None and state.rules.side_of[s] == side:
                for c in combos:
                    hidden &= ~c.mask
    # the classic turn-up / bela proposal taken into a hand was seen by everyone
    for log_card in _public_upcards(state):
        hidden &= ~(1 << log_card)
    return {format_card(c) for c in cards_of(hidden)}


def _public_upcards(state: State) -> list[int]:
    if state.rules.variant == "classic" and state.rules.options["bidding_mode"] == "turn_up":
        return [state.deck[20]]
    if state.rules.variant == "bela" and state.rules.players == 2:
        return [state.deck[12], state.upcard]
    return []


def shown_cards(obj: Any) -> set[str]:
    return set(CARD_RE.findall(json.dumps(obj)))


def check_views(
    state: State, events: list[Any], keys: dict[int | None, set[str]] | None = None
) -> None:
    """No hidden card in any view or event; with ``keys`` (kept for a whole match), each
    role's view has the same fields all game long (the server sends only changed fields)."""
    n = state.rules.players
    for seat in [*range(n), None]:
        view = spectator_view(state) if seat is None else seat_view(state, seat)
        if keys is not None:
            assert set(view) == keys.setdefault(seat, set(view)), (seat, state.phase)
        if seat is None:
            assert "hand" not in view and "legal" not in view
        view = {k: v for k, v in view.items() if k != "results"}  # finished deals are public
        visible_events = [e.to_json() for e in events if e.is_for(seat)]
        leaked = (shown_cards(view) | shown_cards(visible_events)) & hidden_from(state, seat)
        if view["phase"] not in ("deal_over", "match_over"):
            assert not leaked, f"seat {seat} sees {leaked}"


def check_incremental_view(before: State, state: State) -> None:
    """The common view made from the previous state's view (reusing its unchanged fields) is
    the view made from scratch."""
    spectator_view(before)  # cached on ``before``, as a server has it
    assert spectator_view(state, previous=before) == _common_view(state)
    for seat in range(state.rules.players):
        previous = (before, seat_fields(before, seat))
        assert seat_fields(state, seat, previous) == seat_fields(state, seat)


def check_deal_end(state: State, previous_scores: tuple[int, ...]) -> None:
    result = state.results[-1]
    if result.thrown_in:
        assert state.scores == previous_scores
        return
    if result.score is None:  # eight-card belot ended the match
        return
    score = result.score
    contract = result.contract
    assert contract is not None
    total = sum(score.card_points)
    variant = state.rules.variant
    if score.capot_side is not None:
        base = total - 90
    else:
        base = total
    if variant == "bulgarian" and contract.denom == "NT":
        assert base == 260
    elif variant == "bulgarian" and contract.denom == "AT":
        assert base == 258
    elif variant == "bela" and state.rules.players == 2:
        in_play = FULL_DECK & ~state.out_of_play & ~(1 << state.upcard)
        table = state.rules.points(contract)
        assert base == sum(table[c] for c in cards_of(in_play)) + 10
    else:
        assert base == 162
    if score.capot_side is not None and base == 162:
        assert total == 252
    if variant == "duel":
        assert sum(state.scores) == sum(previous_scores) + 1
    else:
        expected = tuple(a + b for a, b in zip(previous_scores, score.recorded, strict=True))
        assert state.scores == expected


def play_match(variant: str, players: int, options: dict[str, Any], seed: int) -> State:
    rng = random.Random(seed)
    state = new_match(variant, players, options, rng=rng)
    played = 0
    keys: dict[int | None, set[str]] = {}
    accounted(state)
    while not is_over(state):
        if state.phase is Phase.DEAL_OVER:
            played += 1
            if played >= 12 or (variant == "duel" and played >= 3):
                break
            before = state
            state, events = start_deal(state, rng)
            accounted(state)
            check_incremental_view(before, state)
            check_views(state, events, keys)
            continue
        actions = legal_actions(state)
        assert actions, f"no legal action in {state.phase}"
        scores = state.scores
        before = state
        state, events = apply(state, rng.choice(actions))
        accounted(state)
        check_incremental_view(before, state)
        check_views(state, events, keys)
        if state.phase in (Phase.DEAL_OVER, Phase.MATCH_OVER) and state.results:
            check_deal_end(state, scores)
    return state


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("cfg", CONFIGS, ids=ids)
def test_random_games_keep_every_invariant(cfg, seed):
    variant, players, options = cfg
    state = play_match(variant, players, options, seed)
    record = dump(state)
    again = replay(json.loads(json.dumps(record)))
    assert again.scores == state.scores
    assert again.results == state.results
    assert again.phase == state.phase and again.winner == state.winner
    assert dump(again) == record


def test_matches_end_at_their_target():
    for seed in range(3):
        state = play_match("classic", 4, {"target": 501}, seed)
        if is_over(state):
            assert max(state.scores) >= 501
            assert state.scores[state.winner] == max(state.scores)
