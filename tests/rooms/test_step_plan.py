"""The plan of a game step (app/rooms/step.py), without a Room: a table made of values and of
stand-ins for its parts' answers. The plan checks the action and decides what to write; it
changes nothing of what it reads."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import pytest

from app.engine import (
    Phase,
    Play,
    State,
    action_to_json,
    apply,
    current_player,
    legal_actions,
    new_match,
    start_deal,
)
from app.engine.claims import can_claim, claim_action
from app.engine.claims import claim as check_claim
from app.persistence import repository as repo
from app.rooms.errors import CommandError
from app.rooms.model import Status, deck_strings
from app.rooms.step import StepTable, plan_step

GAME = "g-plan"
DEADLINE = 1_800_000_030_000  # every decision clock of these tables runs out then (ms)


def walk(seed: int, stop: Callable[[State], bool], variant: str = "classic") -> State:
    """Seeded random legal actions from a new match until ``stop`` holds (bids made when a bid
    may be, so that deals are played rather than thrown in)."""
    rng = random.Random(seed)
    state = new_match(variant, seed=seed)
    for _ in range(5000):
        if stop(state):
            return state
        if state.phase is Phase.DEAL_OVER:
            state, _ = start_deal(state, rng)
            continue
        actions = legal_actions(state)
        bids = [a for a in actions if type(a).__name__ == "Bid"]
        action = rng.choice(bids if bids and state.phase is Phase.BIDDING else actions)
        state, _ = apply(state, action)
    raise AssertionError("the condition never came")


def ends_deal_with_next_card(state: State) -> bool:
    if state.phase is not Phase.PLAY or state.claimer >= 0:
        return False
    after, _ = apply(state, legal_actions(state)[0])
    return after.phase in (Phase.DEAL_OVER, Phase.MATCH_OVER)


def snap(state: State) -> tuple[Any, ...]:
    """What a state is, to compare two (states compare by identity)."""
    fields = ("phase", "scores", "dealer", "hands", "trick", "tricks", "points", "actions")
    return (*(getattr(state, f) for f in fields), state.claimer, len(state.logs))


def shown(events: list[Any]) -> list[tuple[Any, ...]]:
    return [(e.type, e.data, e.to) for e in events]


class Calls:
    """What the plan asked the table's parts, in order."""

    def __init__(self) -> None:
        self.log: list[tuple[str, Any]] = []


def table(
    state: State,
    calls: Calls,
    *,
    version: int = 7,
    deals_at_once: bool = False,
    board: bool = False,
    paused: bool = False,
    cleared: list[repo.SeatRow] | None = None,
    by: Mapping[tuple[int, int], str] | None = None,
    award: Any = None,
    clock: bool = True,
) -> StepTable:
    deck = random.Random(99)

    def deal(s: State) -> Any:
        calls.log.append(("deal", s.phase))
        return start_deal(s, deck)

    def plan_clock(s: State) -> dict[int, int]:
        calls.log.append(("clock", s.phase))
        seat = current_player(s)
        return {} if seat is None else {seat: DEADLINE}

    def stored(deadlines: dict[int, int], at_version: int) -> dict[str, Any] | None:
        calls.log.append(("stored", at_version))
        if not clock:
            return None
        return {"version": at_version, "deadlines": {str(k): v for k, v in deadlines.items()}}

    def cleared_seats(seat: int, who: str | None) -> list[repo.SeatRow]:
        calls.log.append(("cleared", (seat, who)))
        return list(cleared or [])

    async def prepare(s: State, by_map: Mapping[tuple[int, int], str]) -> Any:
        calls.log.append(("award", dict(by_map)))
        return award if s.phase in (Phase.MATCH_OVER, Phase.DEAL_OVER) else None

    return StepTable(
        game_id=GAME,
        state=state,
        status=Status.PLAYING,
        version=version,
        seq=41,
        deals=len(state.logs) + 1,
        paused=paused,
        board=board,
        by=dict(by or {}),
        deals_at_once=lambda s: deals_at_once,
        deal=deal,
        clock=plan_clock,
        stored_clock=stored,
        cleared_seats=cleared_seats,
        hand_over=lambda s: None,
        award=prepare,
    )


async def test_a_normal_card_writes_its_row_and_starts_the_next_clock() -> None:
    state = walk(1, lambda s: s.phase is Phase.PLAY and len(s.actions) > 6)
    seat = current_player(state)
    assert seat is not None
    card = legal_actions(state)[0]
    calls = Calls()
    t = table(state, calls)
    before = snap(state)

    plan = await plan_step(t, seat, card, 7, "c1")

    after, events = apply(state, card)
    assert snap(plan.state) == snap(after)
    assert shown(plan.events) == shown(events)  # no ``by``: nothing marked
    assert plan.row == repo.ActionRow(41, len(state.logs), seat, action_to_json(card), "c1")
    assert plan.by is None and plan.by_key == (len(state.logs), len(state.actions))
    assert plan.next_deal is None and plan.deal_rows == [] and not plan.finished
    nxt = current_player(after)
    assert plan.deadlines == {nxt: DEADLINE}
    assert plan.clock == {"version": 8, "deadlines": {str(nxt): DEADLINE}}
    assert plan.cleared == [] and plan.handed is None and plan.award is None
    assert plan.work == repo.record_step(GAME, [plan.row], [], clock=plan.clock)
    # the parts were asked in the order the room always asked them
    assert [name for name, _ in calls.log] == ["clock", "stored", "cleared", "award"]
    assert calls.log[2] == ("cleared", (seat, None))
    # it read and changed nothing
    assert snap(state) == before and t.by == {}


async def test_the_last_card_of_a_deal_scores_it_and_deals_the_next_at_once() -> None:
    state = walk(2, ends_deal_with_next_card)
    seat = current_player(state)
    assert seat is not None
    card = legal_actions(state)[0]
    after, _ = apply(state, card)
    assert after.phase is Phase.DEAL_OVER  # a match of classic goes on past one deal
    calls = Calls()
    t = table(state, calls, deals_at_once=True)

    plan = await plan_step(t, seat, card, 7, None)

    assert snap(plan.state) == snap(after) and not plan.finished
    assert plan.next_deal is not None
    dealt, _ = plan.next_deal
    assert dealt.phase is Phase.BIDDING and len(dealt.logs) == len(after.logs)
    assert plan.deal_rows == [repo.DealRow(t.deals, dealt.dealer, deck_strings(dealt))]
    # the clock is planned for the new deal, at the version after both steps
    assert ("clock", Phase.BIDDING) in calls.log and ("stored", 9) in calls.log
    assert plan.work == repo.record_step(
        GAME, [plan.row], plan.deal_rows, scores=list(after.scores), clock=plan.clock
    )
    assert calls.log[0] == ("deal", Phase.DEAL_OVER)

    # without dealing at once: scores only, and the clock of the deal's end
    calls = Calls()
    plan = await plan_step(table(state, calls, clock=False), seat, card, 7, None)
    assert plan.next_deal is None and plan.deal_rows == [] and plan.clock is None
    assert plan.work == repo.record_step(GAME, [plan.row], [], scores=list(after.scores))
    assert ("stored", 8) in calls.log and not any(n == "deal" for n, _ in calls.log)

    # a tournament board ends with its deal: finished, no next deal and no clock to plan
    calls = Calls()
    plan = await plan_step(table(state, calls, board=True, award="xp"), seat, card, 7, None)
    assert plan.finished and plan.next_deal is None and plan.deadlines == {}
    assert not any(n in ("deal", "clock") for n, _ in calls.log)
    assert plan.award == "xp" and plan.work != repo.record_step(GAME, [plan.row])


async def test_a_stand_in_move_is_marked_and_keeps_the_seat_with_the_stand_in() -> None:
    state = walk(3, lambda s: s.phase is Phase.PLAY and len(s.actions) > 3)
    seat = current_player(state)
    assert seat is not None
    card = legal_actions(state)[0]
    assert isinstance(card, Play)
    calls = Calls()
    earlier = {(0, 2): "auto"}
    t = table(state, calls, by=earlier)

    plan = await plan_step(t, seat, card, 7, None, by="stand_in")

    assert plan.row.action == {**action_to_json(card), "by": "stand_in"}
    played = [e for e in plan.events if e.type == "card_played"]
    assert played and played[0].data["by"] == "stand_in"
    assert plan.by == "stand_in" and calls.log[-2] == ("cleared", (seat, "stand_in"))
    # the award reads who played every action, this one included; the table's map is intact
    assert calls.log[-1] == ("award", {**earlier, plan.by_key: "stand_in"})
    assert t.by == earlier

    # the seat's own player acts: the stand-in gives the seat back in the same transaction
    row = repo.SeatRow(seat, "human", 5, None, "Ana", stand_in=None)
    plan = await plan_step(table(state, Calls(), cleared=[row]), seat, card, 7, None)
    assert plan.cleared == [row]
    assert plan.work != repo.record_step(GAME, [plan.row], [], clock=plan.clock)


async def test_a_claim_is_shown_with_its_first_card() -> None:
    state = walk(
        4,
        lambda s: (
            s.phase is Phase.PLAY
            and current_player(s) is not None
            and can_claim(s, current_player(s) or 0)
        ),
    )
    seat = current_player(state)
    assert seat is not None
    claimed, _ = check_claim(state, seat)
    first = claim_action(claimed)

    plan = await plan_step(table(state, Calls()), seat, first, 7, "c9", by="claim")

    assert plan.events[0].type == "claimed"
    assert plan.state.claimer == seat
    assert plan.row.action == {**action_to_json(first), "by": "claim"}
    assert state.claimer < 0  # the table's state is untouched

    # once the claim is made, only the play-out moves: a player's own card is refused
    with pytest.raises(CommandError) as refused:
        await plan_step(table(plan.state, Calls()), seat, first, 7, None)
    assert refused.value.code == "claimed"


@pytest.mark.parametrize(
    ("change", "version", "code"),
    [
        ({"status": Status.WAITING}, 7, "not_allowed"),
        ({}, 6, "stale_version"),
        ({"paused": True}, 7, "paused"),
    ],
)
async def test_a_refused_step_plans_nothing(
    change: dict[str, Any], version: int, code: str
) -> None:
    state = walk(5, lambda s: s.phase is Phase.PLAY)
    seat = current_player(state)
    assert seat is not None
    calls = Calls()
    t = replace(table(state, calls), **change)
    with pytest.raises(CommandError) as refused:
        await plan_step(t, seat, legal_actions(state)[0], version, None)
    assert refused.value.code == code and calls.log == []


async def test_a_card_out_of_turn_and_an_illegal_card_are_refused() -> None:
    state = walk(6, lambda s: s.phase is Phase.PLAY and len(s.actions) > 1)
    seat = current_player(state)
    assert seat is not None
    other = (seat + 1) % 4
    with pytest.raises(CommandError) as refused:
        await plan_step(table(state, Calls()), other, legal_actions(state)[0], 7, None)
    assert refused.value.code == "not_your_turn"
