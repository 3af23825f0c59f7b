"""Experience points (RULES.md §9.2, decision D-20), computed from a game's record.

| event                                                            | XP |
|------------------------------------------------------------------|----|
| finish a match (played to the end)                               | 15 |
| win the match                                                    | 25 (in addition) |
| win a deal (own side made its contract or defeated the other's)  | 2 per deal |
| win a trick (the player's own card won it)                       | 1 per trick |

A player who left before the end gets nothing for that match (docs/players.md says what
"left" means). ``duel`` has no match: each played deal is a game (RULES.md §14), so each
played duel deal is finished, won and rewarded on its own.

Everything here is pure: a record (or a state) in, numbers out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.engine import DealResult, Phase, State
from app.engine.record import Step, replay
from app.engine.variants import VARIANTS, get_rules
from app.engine.variants.base import Rules
from app.players.ratings import family_of, match_share

FINISH_XP = 15
WIN_XP = 25
DEAL_XP = 2
TRICK_XP = 1

MADE, FAILED = "made", "failed"


@dataclass(frozen=True)
class SeatResult:
    """What one seat did in one finished match (or one duel game)."""

    won: bool
    deals_won: int
    tricks_won: int


@dataclass(frozen=True)
class Outcome:
    """A finished match, or one played ``duel`` deal (``part`` = its deal number; 0 otherwise)."""

    part: int
    variant: str
    players: int
    sides: tuple[int, ...]  # side of each seat
    scores: tuple[int, ...]  # final totals per side (duel: the deal's recorded points)
    winner: int | None  # winning side
    ranks: tuple[int, ...]  # per side, 0 = best (ties share a rank)
    seats: tuple[SeatResult, ...]
    # how much of a full match it was, the weight of its rating (ratings.match_share)
    share: float = 1.0


@dataclass(frozen=True)
class XpAward:
    finish: int = 0
    win: int = 0
    deals: int = 0
    tricks: int = 0
    left: bool = False

    @property
    def total(self) -> int:
        return self.finish + self.win + self.deals + self.tricks

    def as_json(self) -> dict[str, Any]:
        return {
            "finish": self.finish,
            "win": self.win,
            "deals": self.deals,
            "tricks": self.tricks,
            "total": self.total,
            "left": self.left,
        }


def xp_for(result: SeatResult, *, left: bool = False) -> XpAward:
    """The XP one seat earns for a finished match; nothing when it left before the end."""
    if left:
        return XpAward(left=True)
    return XpAward(
        finish=FINISH_XP,
        win=WIN_XP if result.won else 0,
        deals=DEAL_XP * result.deals_won,
        tricks=TRICK_XP * result.tricks_won,
    )


def deal_winning_sides(result: DealResult, sides: int) -> set[int]:
    """Sides that won a deal: the takers when they made it, every defender when it failed.

    A litige, hanging points, a thrown-in deal and the eight-card belot (no contract played)
    give the deal to nobody.
    """
    if result.thrown_in or result.score is None or result.taker_side is None:
        return set()
    if result.score.outcome == MADE:
        return {result.taker_side}
    if result.score.outcome == FAILED:
        return set(range(sides)) - {result.taker_side}
    return set()


def ranks_of(scores: Sequence[int], winner: int | None) -> tuple[int, ...]:
    """Competition ranks by score (highest first); the declared winner is always first."""
    order = sorted(set(scores), reverse=True)
    ranks = [order.index(s) for s in scores]
    if winner is not None:
        ranks = [0 if side == winner else r + 1 for side, r in enumerate(ranks)]
        # close the gap when the winner also had the best score
        low = min(r for side, r in enumerate(ranks) if side != winner) if len(ranks) > 1 else 1
        ranks = [r if side == winner else r - (low - 1) for side, r in enumerate(ranks)]
    return tuple(ranks)


def _seat_results(
    state: State,
    results: Sequence[DealResult],
    tricks: Sequence[Sequence[int]],
    won_side: int | None,
) -> tuple[SeatResult, ...]:
    rules = state.rules
    deals = [0] * rules.players
    for result in results:
        winners = deal_winning_sides(result, rules.sides)
        for seat in range(rules.players):
            if rules.side_of[seat] in winners:
                deals[seat] += 1
    trick_counts = [sum(t[seat] for t in tricks) for seat in range(rules.players)]
    return tuple(
        SeatResult(
            won=rules.side_of[seat] == won_side,
            deals_won=deals[seat],
            tricks_won=trick_counts[seat],
        )
        for seat in range(rules.players)
    )


def duel_outcome(state: State) -> Outcome | None:
    """The game just played in a ``duel`` table (``state`` at the end of the deal), or None.

    A thrown-in deal is not a game.
    """
    if not state.rules.deal_is_game or state.phase is not Phase.DEAL_OVER or not state.results:
        return None
    result = state.results[-1]
    if result.thrown_in or result.score is None:
        return None
    tricks = [0] * state.rules.players
    for trick in state.tricks:
        tricks[trick.winner] += 1
    winner = result.winner_side
    return Outcome(
        part=result.number,
        variant=state.rules.variant,
        players=state.rules.players,
        sides=tuple(state.rules.side_of),
        scores=tuple(result.score.recorded),
        winner=winner,
        ranks=tuple(0 if side == winner else 1 for side in range(state.rules.sides)),
        seats=_seat_results(state, [result], [tricks], winner),
    )


def match_outcome(state: State, tricks: Sequence[Sequence[int]]) -> Outcome | None:
    """A finished match (``state`` at MATCH_OVER), given the tricks won per seat in each deal."""
    if state.phase is not Phase.MATCH_OVER:
        return None
    scores = tuple(state.scores)
    return Outcome(
        part=0,
        variant=state.rules.variant,
        players=state.rules.players,
        sides=tuple(state.rules.side_of),
        scores=scores,
        winner=state.winner,
        ranks=ranks_of(scores, state.winner),
        seats=_seat_results(state, state.results, tricks, state.winner),
        share=match_share(scores, full_target(state.rules)),
    )


def full_target(rules: Rules) -> int | None:
    """The target of a full match of ``rules``' game: the variant's default for its number of
    players (classic 1000, bulgarian 151, bela 501/701/1001); None when each deal is a game."""
    if rules.deal_is_game:
        return None
    target = rules.default_options().get("target")
    return target if isinstance(target, int) else None


def full_targets(family: str) -> list[int]:
    """The targets of a full match in the games of ``family``, lowest first (empty: each deal
    is a game): what the ranking page names."""
    found: set[int] = set()
    for name, cls in VARIANTS.items():
        if family_of(name) != family:
            continue
        for players in cls.player_counts:
            target = full_target(get_rules(name, players))
            if target is not None:
                found.add(target)
    return sorted(found)


def outcomes(record: dict[str, Any]) -> list[Outcome]:
    """Every finished match or duel game in a ``belote-record/1`` (replayed by the engine).

    Raises the engine's ``RecordSchemaError`` / ``RecordRuleError`` for an invalid record.
    """
    tricks: list[list[int]] = []
    found: list[Outcome] = []

    def on_step(step: Step) -> None:
        while len(tricks) <= step.deal:
            tricks.append([0] * step.state.rules.players)
        for event in step.events:
            if event.type == "trick_won":
                tricks[step.deal][int(event.data["seat"])] += 1
        if step.state.rules.deal_is_game:
            outcome = duel_outcome(step.state)
            if outcome is not None:
                found.append(outcome)

    state = replay(record, on_step)
    outcome = match_outcome(state, tricks)
    if outcome is not None:
        found.append(outcome)
    return found
