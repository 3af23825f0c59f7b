"""A tournament's boards and what is computed from them, as plain data in and out, so that
the heavy parts (the datum table's bots, the solver) run in the bots' worker processes.

* ``draw_boards``: B boards (deck and dealer) drawn from the event's seed;
* ``house_version``: the house players' level with a fingerprint of the bots' code, stored
  with the event, so that every entrant meets the same computer players;
* ``play_datum``: a table of four (three, two) house players plays a board;
* ``table_result``: a finished board's contract, score, net result (for the matchpoints) and
  the double-dummy par of the contract played (app/bots/dds.py).
"""

from __future__ import annotations

import hashlib
import random
from functools import cache
from pathlib import Path
from typing import Any

from app.bots import choose_action, dds
from app.engine import (
    Phase,
    action_from_json,
    action_to_json,
    apply,
    current_player,
    new_match,
    seat_view,
)
from app.engine.cards import format_card, parse_card
from app.engine.record import replayed_states
from app.engine.variants.base import contract_json
from app.tournaments.scoring import net_score

ENTRANT_SEAT = 0  # every entrant plays seat 0 of every board (docs/tournaments.md)


def direction(players: int) -> str:
    """The entrant's direction: North-South in the 2x2 variants (seat 0 South, its partner
    North), South (seat 0) with three or two players."""
    return "NS" if players == 4 else "S"


def draw_boards(seed: str, boards: int, players: int) -> list[dict[str, Any]]:
    """``boards`` boards from ``seed``: each a shuffled deck and a dealer, board k from its own
    generator (``seed:k``), so a board never depends on how many follow it."""
    out = []
    for k in range(1, boards + 1):
        rng = random.Random(f"{seed}:{k}")
        cards = list(range(32))
        rng.shuffle(cards)
        out.append(
            {"number": k, "dealer": rng.randrange(players), "deck": [format_card(c) for c in cards]}
        )
    return out


@cache
def code_fingerprint() -> str:
    """12 hex digits of SHA-256 over the bots' source files: it changes whenever their code
    does."""
    digest = hashlib.sha256()
    folder = Path(__file__).resolve().parent.parent / "bots"
    for path in sorted(folder.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def house_version(level: str) -> str:
    """The house players' version: ``<level>@<fingerprint of the bots' code>``."""
    return f"{level}@{code_fingerprint()}"


def play_datum(
    variant: str,
    players: int,
    options: dict[str, Any],
    dealer: int,
    deck: list[str],
    level: str,
    seed: str,
) -> list[dict[str, Any]]:
    """The datum table: house players at every seat play the board; its actions in order
    (``{"seat", ...action}``, RULES.md §12). Each seat's generator comes from ``seed``, so the
    datum of a board is the same every time it is computed (with the same bots' code)."""
    state = new_match(
        variant, players, options, first_dealer=dealer, deck=[parse_card(c) for c in deck]
    )
    rngs = [random.Random(f"{seed}:seat{s}") for s in range(players)]
    actions: list[dict[str, Any]] = []
    while state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER):
        seat = current_player(state)
        assert seat is not None
        chosen = choose_action(seat_view(state, seat), level, rngs[seat])
        action = action_from_json(chosen)
        state, _ = apply(state, action, seat)
        actions.append({"seat": seat, **action_to_json(action)})
    return actions


def table_result(record: dict[str, Any], seat: int = ENTRANT_SEAT) -> dict[str, Any] | None:
    """A table's result on its board (its record's first deal), as seen from ``seat``; None
    while the deal is not over.

    ``scores``: the deal's recorded score per side; ``net``: the seat's side's score minus the
    others' average (what the matchpoints compare); ``contract`` and ``outcome``; ``par``: the
    double-dummy card play of the contract played, from its first card (the taker's party's
    card points and the other party's, last trick and capot bonus included); ``by``: how many
    of the seat's actions its stand-in played; ``acted`` and ``stood_in``: per seat, how many
    actions its own player made and how many its stand-in played (a live Swiss side is absent
    on a board when a human seat of it made none of its actions)."""
    first_card = None
    final = None
    by = 0
    players = int(record.get("players") or 4)
    acted = [0] * players  # per seat: the actions its own player (or bot) made
    stood_in = [0] * players  # per seat: the actions its stand-in played
    for step, state in replayed_states(record):
        if step is not None and step.deal > 0:
            break
        if step is not None and step.seat == seat and step.by == "stand_in":
            by += 1
        if step is not None and 0 <= step.seat < players:
            if step.by is None:
                acted[step.seat] += 1
            elif step.by == "stand_in":
                stood_in[step.seat] += 1
        if (
            first_card is None
            and state.phase is Phase.PLAY
            and not state.tricks
            and not state.trick
        ):
            first_card = state
        if state.results:
            final = state
            break
    if final is None:
        return None
    rules = final.rules
    result = final.results[0]
    own = rules.side_of[seat]
    out: dict[str, Any] = {
        "thrown_in": result.thrown_in,
        "own_side": own,
        "by": by,
        "acted": acted,
        "stood_in": stood_in,
    }
    if result.thrown_in or result.score is None:
        scores = [0] * rules.sides
        out.update(contract=None, outcome="thrown_in", taker_side=None, par=None)
    else:
        assert result.contract is not None
        scores = list(result.score.recorded)
        out.update(
            contract=contract_json(result.contract),
            outcome=result.score.outcome,
            taker_side=result.taker_side,
            card_points=list(result.score.card_points),
            par=_par(first_card, result.taker_side) if first_card is not None else None,
        )
    out["scores"] = scores
    out["net"] = net_score(scores, own)
    return out


def _par(state: Any, taker_side: int | None) -> dict[str, int] | None:
    """The double-dummy card play of the contract in ``state`` (at its first card)."""
    if taker_side is None:
        return None
    try:
        solution = dds.solve_position(dds.position_of(state), taker_side)
    except ValueError:
        return None
    taker, other = solution.scores[solution.best]
    return {"taker": taker, "defence": other}
