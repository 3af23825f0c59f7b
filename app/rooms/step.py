"""The plan of one game step: what an action changes, decided before anything is written.

``plan_step`` reads the table (a ``StepTable``: the room's game, version and counters, and the
answers of its parts) and one action, checks the action, and returns a ``StepPlan``: the
action's row, the next deal when it is dealt at once, the scores and status, the decision
clocks, the seats the stand-in gives back, the seats handed to their heirs, the award and the
``by`` marking (RULES.md §12), and the one transaction that writes them all. It changes
nothing: the room commits the plan (``Room.execute``: store, apply, acknowledge, publish).

The one thing planning consumes is randomness: the next deal is drawn from the deck generator
the table passes in (``StepTable.deal``), as the engine's ``start_deal`` takes its ``rng``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from app.engine import (
    Action,
    Bid,
    Declare,
    Discard,
    Double,
    Event,
    Exchange,
    IllegalAction,
    InvalidAction,
    Pass,
    Phase,
    Play,
    Redouble,
    State,
    action_to_json,
    apply,
    current_player,
    out_of_turn_actions,
)
from app.engine.claims import mark_claim
from app.persistence import repository as repo
from app.rooms.errors import CommandError
from app.rooms.model import Seat, Status, deck_strings, then

_ENGINE_ACTIONS = (Pass, Bid, Double, Redouble, Declare, Exchange, Discard, Play)

ByKey = tuple[int, int]  # (deal index, action index) of an action in the record


class WireAction(Protocol):
    """An action as a client sent it, already parsed (app/web/messages.py): the engine's
    action is made from it once, when the room comes to apply it."""

    def to_engine(self) -> Action:
        """The engine's action; ``InvalidAction`` if it is malformed."""


@dataclass(frozen=True)
class StepTable:
    """What the plan of a step reads of the room, as values and as its parts' answers."""

    game_id: str
    state: State | None
    status: Status
    version: int
    seq: int  # actions stored
    deals: int  # deals stored
    paused: bool  # waiting for every player to be connected (seating.py)
    board: bool  # a tournament board: the game ends with its one deal
    by: Mapping[ByKey, str]  # who played the actions so far for their seats
    # consents.py: whether the next deal is dealt in the step that ends this one
    deals_at_once: Callable[[State], bool]
    # the next deal of a finished one, from the room's deck generator (engine.start_deal)
    deal: Callable[[State], tuple[State, list[Event]]]
    # live.py: the decision clocks a state starts, and games.clock for them at a version
    clock: Callable[[State], dict[int, int]]
    stored_clock: Callable[[dict[int, int], int], dict[str, Any] | None]
    # live.py: the seat rows an action of a seat rewrites (the stand-in gives it back)
    cleared_seats: Callable[[int, str | None], list[repo.SeatRow]]
    # public.py: the seats the end of a deal gives to their heirs, and the work storing them
    hand_over: Callable[[State], tuple[list[Seat], Any] | None]
    # the awards service: the work of a match's (or a duel game's) XP and ratings, or None
    award: Callable[[State, Mapping[ByKey, str]], Awaitable[Any]] | None = None


@dataclass(frozen=True)
class StepPlan:
    """One step, decided: what to write in one transaction and what to apply once it is."""

    seat: int
    action: Action  # the engine's action
    by: str | None  # who played it for the seat (RULES.md §12); None: its own player
    by_key: ByKey  # where the action goes in the record, for ``by``
    state: State  # after the action
    events: list[Event]  # the action's events, ``by`` marked
    row: repo.ActionRow
    next_deal: tuple[State, list[Event]] | None  # dealt in the same step
    deal_rows: list[repo.DealRow]
    finished: bool  # the game ends (a match over, a tournament board's deal played)
    deadlines: dict[int, int]  # the decision clocks the step starts (seat -> epoch ms)
    clock: dict[str, Any] | None  # games.clock as stored with the step (None: no clock)
    cleared: list[repo.SeatRow]  # seats the stand-in gives back to their player
    handed: tuple[list[Seat], Any] | None  # seats handed to their heirs, and that work
    award: Any  # the award's work, written in the same transaction, or None
    work: Any  # the whole transaction


async def plan_step(
    table: StepTable,
    seat: int,
    action: WireAction | Action,
    version: int,
    client_id: str | None,
    by: str | None = None,
) -> StepPlan:
    """Check ``seat``'s action against the table and plan its step; ``CommandError`` if it is
    refused (in the order: not started, match over, stale version, paused, deal over, claimed,
    malformed, not this seat's turn, against the rules). ``by`` (RULES.md §12): who plays the
    action for a human seat, the seat's ``stand_in``, the server (``auto``, forced play) or a
    ``claim`` found valid; None for the seat's own player, whose action takes the seat back
    from the stand-in."""
    state = table.state
    if table.status == Status.WAITING or state is None:
        raise CommandError("not_allowed", "the game has not started: waiting for players")
    if state.phase is Phase.MATCH_OVER:
        raise CommandError("game_over", "the match is over")
    if version != table.version:
        raise CommandError(
            "stale_version", f"you are at version {version}, the game is at {table.version}"
        )
    if table.paused:
        raise CommandError("paused", "waiting for every player to be connected")
    to_act = current_player(state)
    if to_act is None:
        raise CommandError("not_allowed", "the deal is over")
    claimed: list[Event] = []
    if state.claimer >= 0 and by != "claim":
        raise CommandError("claimed", "the rest of the deal is being played out after a claim")
    if by == "claim" and state.claimer < 0:
        # a claim ``Room.execute_claim`` found valid: made together with its first card
        state, claimed = mark_claim(state, seat)
    try:
        if not isinstance(action, _ENGINE_ACTIONS):
            action = action.to_engine()
        # out of turn, only what the engine offers then (the bela-2p seven exchange)
        if to_act != seat and action not in out_of_turn_actions(state, seat):
            raise CommandError("not_your_turn", f"seat {to_act} is to act")
        new_state, events = apply(state, action, seat)
    except InvalidAction as exc:
        raise CommandError("invalid_action", str(exc)) from None
    except IllegalAction as exc:
        # the rule as data too, when the engine gives one (``IllegalAction.reason``)
        raise CommandError("illegal_action", str(exc), exc.reason) from None

    action_json = action_to_json(action)
    if by is not None:
        action_json["by"] = by
        events = claimed + mark_events(events, by, action, seat)
    row = repo.ActionRow(table.seq, table.deals - 1, seat, action_json, client_id)
    by_key = (len(state.logs), len(state.actions))
    next_deal: tuple[State, list[Event]] | None = None
    deal_rows: list[repo.DealRow] = []
    values: dict[str, Any] = {}
    handed = table.hand_over(new_state)  # heirs take open seats now
    if new_state.phase is Phase.DEAL_OVER:
        values["scores"] = list(new_state.scores)
        if table.board:  # a tournament board ends with its one deal
            values["status"] = Status.FINISHED.value
        elif table.deals_at_once(new_state):
            next_deal = table.deal(new_state)
            deal_rows.append(
                repo.DealRow(table.deals, next_deal[0].dealer, deck_strings(next_deal[0]))
            )
    elif new_state.phase is Phase.MATCH_OVER:
        values["scores"] = list(new_state.scores)
        values["status"] = Status.FINISHED.value
    finished = "status" in values
    # the decision clocks the step starts, stored with it (live.py)
    after, version_after = (
        (next_deal[0], table.version + 2) if next_deal else (new_state, table.version + 1)
    )
    deadlines = table.clock(after) if not finished else {}
    clock = table.stored_clock(deadlines, version_after)
    if clock is not None:
        values["clock"] = clock
    work: Any = repo.record_step(table.game_id, [row], deal_rows, **values)
    cleared = table.cleared_seats(seat, by)
    if cleared:  # the player acts: the stand-in gives the seat back, in the same transaction
        work = then(repo.save_seats(table.game_id, cleared), work)
    if handed is not None:
        work = then(handed[1], work)
    # a match (or a duel game) ends: XP and ratings are written in the same transaction
    by_map = {**table.by, by_key: by} if by is not None else table.by
    award = await table.award(new_state, by_map) if table.award is not None else None
    if award is not None:
        work = then(work, award)
    return StepPlan(
        seat=seat,
        action=action,
        by=by,
        by_key=by_key,
        state=new_state,
        events=events,
        row=row,
        next_deal=next_deal,
        deal_rows=deal_rows,
        finished=finished,
        deadlines=deadlines,
        clock=clock,
        cleared=cleared,
        handed=handed,
        award=award,
        work=work,
    )


def mark_events(events: list[Event], by: str, action: Action, seat: int) -> list[Event]:
    """The events of an action played for ``seat``, its own event marked with ``by``: the
    ``card_played`` of a card, else the first (``bid``, ``declared``, ``exchanged``,
    ``exchange_declined``, ``discarded``)."""
    index = 0
    if isinstance(action, Play):
        index = next((i for i, e in enumerate(events) if e.type == "card_played"), 0)
    if not events:
        return events
    marked = list(events)
    e = marked[index]
    marked[index] = Event(e.type, {**e.data, "by": by}, e.to)
    return marked
