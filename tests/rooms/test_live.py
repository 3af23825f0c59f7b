"""Live tables in an in-process room (app/rooms/live.py): the restart grace of the clock, when a
table pauses, what the stand-in's consent needs, and which event carries ``by``."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from app.engine import Play, action_to_json, apply, current_player, legal_actions, new_match
from app.rooms.live import decisions
from app.rooms.room import _mark_events
from tests.rooms.harness import FakeListener, act, attach, make_room, services

NOW = 1_800_000_000.0  # the rooms' clock in these tests (seconds)


async def started(clock: Any = "none", **values: Any) -> tuple[Any, list[FakeListener]]:
    """A friends classic table of four browsers, its first deal dealt, everyone connected."""
    room = make_room("classic", service=services(**values))
    room.settings["clock"] = clock
    room.live.now = lambda: NOW
    listeners = [attach(room, 1)]
    for identity in (2, 3, 4):
        await room.join(identity, f"P{identity}")
        listeners.append(attach(room, identity))
    assert room.status == "playing"
    return room, listeners


async def test_after_a_restart_each_running_clock_gets_ten_seconds_more() -> None:
    room, _ = await started(30)
    to_act = current_player(room.state)
    assert room.live.deadlines == {to_act: int(NOW * 1000) + 30_000}
    ahead = int(NOW * 1000) + 12_345
    await room.restore_clock({"version": room.version, "deadlines": {str(to_act): ahead}})
    assert room.live.deadlines == {to_act: ahead + 10_000}
    # a deadline already past when the room comes back: the grace counts from now
    past = int(NOW * 1000) - 50_000
    await room.restore_clock({"version": room.version, "deadlines": {str(to_act): past}})
    assert room.live.deadlines == {to_act: int(NOW * 1000) + 10_000}
    room.stop_clock()


async def test_a_seat_never_loses_to_time_the_server_was_unreachable() -> None:
    """The player to act had 13 s left when the server was killed; it came back 10 s later
    (and the browsers some seconds after that). The seat gets at least its 13 s plus the
    grace, counted from the restore, not from the kill."""
    room, _ = await started(30)
    to_act = current_player(room.state)
    written = int(NOW * 1000) - 27_000  # the clock was written 27 s ago: 30 s then
    killed_at = written + 17_000  # 13 s left at the kill; 10 s down since
    stored = {
        "version": room.version,
        "deadlines": {str(to_act): written + 30_000},
        "seconds": 30.0,
        "at": written,
    }
    assert stored["deadlines"][str(to_act)] - killed_at == 13_000
    await room.restore_clock(stored)
    deadline = room.live.deadlines[to_act]
    assert deadline - int(NOW * 1000) >= 13_000 + 10_000
    assert deadline == int(NOW * 1000) + 30_000 + 10_000  # what was left when it was written
    # the room sends the server's own clock with the deadlines
    info = room.room_json(1)
    assert info["now"] == int(NOW * 1000)
    assert info["seats"][to_act]["deadline"] == deadline
    room.stop_clock()


async def test_a_restored_clock_is_written_back_with_when_it_was_written() -> None:
    room, _ = await started(30)
    to_act = current_player(room.state)
    works: list[Any] = room.services.writer.works
    before = len(works)
    await room.restore_clock(
        {"version": room.version, "deadlines": {str(to_act): 1}, "seconds": 30.0, "at": 0}
    )
    assert len(works) == before + 1
    assert room.clock_row(room.live.deadlines, room.version)["at"] == int(NOW * 1000)
    room.stop_clock()


async def test_a_clock_that_is_stored_for_another_version_starts_again() -> None:
    room, _ = await started(15)
    to_act = current_player(room.state)
    await room.restore_clock({"version": room.version - 1, "deadlines": {str(to_act): 1}})
    assert room.live.deadlines == {to_act: int(NOW * 1000) + 15_000 + 10_000}
    room.stop_clock()


async def test_a_friends_table_pauses_for_an_away_seat_unless_a_clock_or_the_stand_in() -> None:
    room, listeners = await started()
    room.detach(listeners[2])
    assert room.is_paused()
    room.seats[2].stand_in = "away"  # the stand-in plays it now: the table goes on
    assert room.stand_in_active(2) and not room.is_paused()
    room.attach(listeners[2])  # the player is back: the stand-in stops at once
    assert not room.stand_in_active(2) and not room.is_paused()
    room.seats[2].stand_in = "left"  # a player who left: the stand-in plays, connected or not
    assert room.stand_in_active(2)

    clocked, listeners = await started(60)
    clocked.detach(listeners[1])
    assert not clocked.is_paused()  # its clock runs
    clocked.stop_clock()


async def test_the_room_sends_the_seats_live_fields_and_the_settings() -> None:
    room, listeners = await started(30, clock_seconds=2.5)
    room.detach(listeners[3])
    info = room.room_json(1)
    assert info["settings"] == {
        "clock": 30,
        "stand_in": "medium",
        "away_seconds": 120,
        "chat": True,
        "spectator_chat": False,
        "board": None,
    }
    assert info["clock_seconds"] == 2.5  # the test-only length replaces the chosen one
    to_act = current_player(room.state)
    seats = info["seats"]
    assert seats[to_act]["deadline"] == int(NOW * 1000) + 2_500
    assert seats[3]["away_since"] == int(NOW * 1000) and seats[0]["away_since"] is None
    assert [s["stand_in"] for s in seats] == [None] * 4
    room.stop_clock()


def _first_card_with_a_declaration() -> tuple[Any, Any, int]:
    """A classic first card whose automatic declaration comes before the card's event."""
    for seed in range(200):
        state = new_match("classic", seed=seed)
        while state.phase.value == "bidding":  # the first bid that is not a pass
            legal = legal_actions(state)
            state, _ = apply(state, next((a for a in legal if type(a).__name__ == "Bid"), legal[0]))
        while state.phase.value == "play":
            seat = current_player(state)
            action = legal_actions(state)[0]
            _, events = apply(state, action, seat)
            if events[0].type != "card_played":
                return state, action, seat
            state, _ = apply(state, action, seat)
            if len(state.tricks) >= 1:
                break
    raise AssertionError("no declaration in 200 deals")


def test_only_the_action_s_own_event_carries_by() -> None:
    state, action, seat = _first_card_with_a_declaration()
    assert isinstance(action, Play)
    _, events = apply(state, action, seat)
    marked = _mark_events(events, "auto", action, seat)
    assert [e.type for e in marked] == [e.type for e in events]
    assert marked[0].type != "card_played" and "by" not in marked[0].data
    assert [e.data.get("by") for e in marked if e.type == "card_played"] == ["auto"]
    assert all("by" not in e.data for e in events)  # the engine's events are left as they were


async def test_a_stand_in_whose_turn_was_taken_hands_over_to_the_next_seat() -> None:
    """The stand-in thinks for a seat whose player then acts himself: the stand-in's answer is
    dropped, and the next seat (a bot) still plays (it used to wait for good)."""
    with ThreadPoolExecutor(max_workers=1) as executor:
        room = make_room(
            "classic", kinds=["human", "bot", "human", "bot"], service=services(executor=executor)
        )
        listeners = [attach(room, 1)]
        await room.join(2, "P2")
        listeners.append(attach(room, 2))
        rng = random.Random(1)
        for i in range(200):  # to seat 0's turn
            await wait_for(lambda: current_player(room.state) in (0, 2))
            if current_player(room.state) == 0:
                break
            action = action_to_json(rng.choice(legal_actions(room.state)))
            await act(room, listeners[1], f"p{i}", room.version, action)
        think = room.think

        async def slow(view: Any, level: str) -> Any:
            await asyncio.sleep(0.3)
            return await think(view, level)

        room.think = slow  # type: ignore[method-assign]
        room.seats[0].stand_in = "left"
        room.schedule_bots()  # the stand-in starts thinking for seat 0
        await asyncio.sleep(0.05)
        version = room.version
        await act(room, listeners[0], "mine", version, action_to_json(legal_actions(room.state)[0]))
        assert room.version == version + 1 and room.seats[0].stand_in is None
        assert current_player(room.state) in (1, 3)  # a bot is next
        room.think = think  # type: ignore[method-assign]
        await wait_for(lambda: current_player(room.state) not in (1, 3), timeout=5)
        assert room.version > version + 1
        assert not room.by  # the stand-in's late answer was dropped
        await room.close()


async def wait_for(predicate: Any, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.01)


async def test_no_clock_runs_while_a_claim_is_played_out() -> None:
    """A claim's play-out is the server's: no seat has a decision, so no clock starts."""
    room, _ = await started(30)
    state = room.state
    table = (room.status, room.seats, room.mode, room.board, ())
    assert decisions(state, set(), *table) == [current_player(state)]
    claimed = state.copy()
    claimed.claimer = current_player(state)
    assert decisions(claimed, set(), *table) == []
    assert room.plan_clock(claimed) == {}
    room.stop_clock()
