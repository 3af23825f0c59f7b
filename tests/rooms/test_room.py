"""A Room in process (tests/rooms/harness.py): no server, recording listeners, a fake writer.

What the server-level tests check through sockets, checked here at the room's own interface:
joining and seats, stale versions, repeated ids, consents, bots, resume, and refused commands
that leave the room as it was.
"""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from app.engine import Phase, action_to_json, current_player, legal_actions
from app.rooms import CommandError, Status
from app.rooms.messages import validate_outgoing
from tests.rooms.harness import FakeListener, FakeWriter, act, attach, make_room, services


async def started(variant: str = "classic", **kw: Any) -> tuple[Any, list[FakeListener]]:
    """A friends room whose every seat is taken (identity = seat + 1) and connected."""
    room = make_room(variant, **kw)
    listeners = [attach(room, 1)]
    for identity in range(2, room.players + 1):
        await room.join(identity, f"P{identity}")
        listeners.append(attach(room, identity))
    assert room.status is Status.PLAYING
    for listener in listeners:
        listener.new()
    return room, listeners


def holder(listeners: list[FakeListener], seat: int) -> FakeListener:
    return next(x for x in listeners if seat in x.seats)


async def play_one(room: Any, listeners: list[FakeListener], rng: random.Random, tag: str) -> None:
    """A random legal action of the seat to act; at a deal's end, everyone's Continue."""
    if room.consent_kind() == "next_deal":
        for listener in listeners:
            await room.consent(listener, "next_deal", None)
        return
    seat = current_player(room.state)
    assert seat is not None
    action = action_to_json(rng.choice(legal_actions(room.state)))
    await act(room, holder(listeners, seat), tag, room.version, action)


def snapshot(room: Any) -> tuple[Any, ...]:
    return (room.version, room.seq, room.deals, room.state, room.status, dict(room.client_ids))


# ----------------------------------------------------------------- joining and seats


async def test_guests_take_the_free_seats_in_order_and_the_last_one_starts_the_match() -> None:
    room = make_room("classic")
    host = attach(room, 1)
    assert host.new()[0]["type"] == "state" and room.state is None and room.version == 0
    first = await room.join(2, "Ann")
    assert (first.role, first.seats) == ("seat", (1,))
    again = await room.join(2, "Ann")  # a browser reclaims its seat
    assert (again.role, again.seats) == ("seat", (1,))
    await room.join(3, "Bob")
    assert room.status is Status.WAITING
    room_msgs = [m for m in host.new() if m["type"] == "room"]
    assert [s["taken"] for s in room_msgs[-1]["room"]["seats"]] == [True, True, True, False]
    await room.join(4, "Cy")
    assert room.status is Status.PLAYING and room.version == 1 and room.deals == 1
    types = [m["type"] for m in host.new()]
    assert types[-1] == "update" and "room" in types
    late = await room.join(5, "Late")
    assert (late.role, late.seats) == ("spectator", ())


async def test_a_full_table_without_spectators_says_full() -> None:
    room = make_room("duel", spectators=False)
    await room.join(2, "Ann")
    assert (await room.join(3, "Bob")).role == "full"


async def test_the_host_swaps_seats_before_the_first_deal_only() -> None:
    room = make_room("classic")
    host = attach(room, 1)
    await room.join(2, "Ann")
    guest = attach(room, 2)
    assert guest.seats == (1,)
    info = await room.swap_seats(1, [(1, 2)])
    assert [s["name"] for s in info["seats"]] == ["Host", None, "Ann", None]
    assert guest.seats == (2,) and guest.new()[-2]["type"] == "state"  # its seats followed
    with pytest.raises(CommandError) as refused:
        await room.swap_seats(2, [(0, 1)])
    assert refused.value.code == "not_host"
    before = [s.copy() for s in room.seats]
    with pytest.raises(CommandError) as bad:
        await room.swap_seats(1, [(0, 1), (0, 9)])
    assert bad.value.code == "bad_message" and room.seats == before  # nothing half-done
    host.new()
    await room.join(3, "Bob")
    await room.join(4, "Cy")
    with pytest.raises(CommandError) as late:
        await room.swap_seats(1, [(0, 1)])
    assert late.value.code == "not_allowed"


async def test_presence_pauses_a_friends_table_and_refuses_actions() -> None:
    room, listeners = await started("classic")
    gone = listeners[2]
    room.detach(gone)
    assert room.is_paused()
    assert listeners[0].new()[-1]["room"]["paused"] is True
    seat = current_player(room.state)
    actor = holder(listeners, seat)
    if actor is gone:
        actor = listeners[0]
    before = snapshot(room)
    await act(room, actor, "p1", room.version, {"type": "pass"})
    assert actor.new()[-1]["code"] in ("paused", "not_your_turn")
    assert snapshot(room) == before
    room.attach(gone)
    assert not room.is_paused()


# ----------------------------------------------------------------- actions


async def test_a_stale_version_is_refused_with_a_fresh_state() -> None:
    room, listeners = await started("classic")
    rng = random.Random(1)
    await play_one(room, listeners, rng, "a1")
    seat = current_player(room.state)
    actor = holder(listeners, seat)
    actor.new()
    before = snapshot(room)
    await act(room, actor, "a2", room.version - 1, {"type": "pass"})
    error, state = actor.new()
    assert error == {
        "type": "error",
        "code": "stale_version",
        "message": f"you are at version {room.version - 1}, the game is at {room.version}",
        "id": "a2",
    }
    assert state["type"] == "state" and state["version"] == room.version
    assert snapshot(room) == before


async def test_a_repeated_id_is_applied_once_and_acknowledged_again() -> None:
    room, listeners = await started("coinche")
    seat = current_player(room.state)
    actor = holder(listeners, seat)
    v = room.version
    await act(room, actor, "same", v, {"type": "pass"})
    ack, update = actor.new()
    assert ack == {"type": "ack", "id": "same", "version": v + 1} and update["version"] == v + 1
    before = snapshot(room)
    await act(room, actor, "same", v, {"type": "pass"})
    assert actor.new() == [ack]  # the same ack, nothing applied
    assert snapshot(room) == before


async def test_refused_actions_leave_the_room_unchanged() -> None:
    room, listeners = await started("classic")
    seat = current_player(room.state)
    actor, other = holder(listeners, seat), holder(listeners, (seat + 1) % 4)
    spectator = attach(room, 77)
    for listener in listeners + [spectator]:
        listener.new()
    before = snapshot(room)
    cases = [
        (spectator, {"type": "pass"}, "spectator"),
        (other, {"type": "pass"}, "not_your_turn"),
        (actor, {"type": "play", "card": "ZZ"}, "invalid_action"),
        (actor, {"type": "bid", "contract": "H", "value": 85}, "invalid_action"),
        (actor, {"type": "double"}, "illegal_action"),
    ]
    for i, (listener, action, code) in enumerate(cases):
        await act(room, listener, f"e{i}", room.version, action)
        got = listener.new()
        assert [m["type"] for m in got] == ["error"] and got[0]["code"] == code, got
        assert got[0]["id"] == f"e{i}"
    await act(room, actor, "e9", room.version, {"type": "pass"}, seat=(seat + 2) % 4)
    assert actor.new()[0]["code"] == "not_your_seat"
    assert snapshot(room) == before
    assert all(not x.new() for x in listeners if x is not actor)  # nobody else heard a thing


async def test_a_failed_write_answers_server_error_and_changes_nothing() -> None:
    writer = FakeWriter()
    room, listeners = await started("classic", service=services(writer))
    seat = current_player(room.state)
    actor = holder(listeners, seat)
    before = snapshot(room)
    writer.fail = True
    await act(room, actor, "w1", room.version, {"type": "pass"})
    assert actor.new()[0]["code"] == "server_error"
    assert snapshot(room) == before
    writer.fail = False
    await act(room, actor, "w1", room.version, {"type": "pass"})  # sent again: now applied
    assert actor.new()[0]["type"] == "ack" and room.version == before[0] + 1


async def test_a_local_device_acts_for_the_seat_to_act() -> None:
    room = make_room("bela", 3, mode="local")
    device = attach(room, 1)
    assert device.seats == (0, 1, 2)
    await room.join(1, None)  # every human seat is the device's: the match is started by hand
    assert room.status is Status.WAITING
    room.status = Status.PLAYING
    from app.engine import new_match

    room.publish(new_match("bela", 3, room.options, rng=room.rng), [])
    device.new()
    for i in range(6):
        seat = current_player(room.state)
        action = action_to_json(random.Random(i).choice(legal_actions(room.state)))
        await act(room, device, f"l{i}", room.version, action)
        ack, update = device.new()
        assert ack["type"] == "ack" and set(update["views"]) == {"0", "1", "2"}, seat


# ----------------------------------------------------------------- resume


async def test_resume_replays_the_missed_updates_or_sends_a_state() -> None:
    room, listeners = await started("bela", players=4)
    rng = random.Random(3)
    watcher = listeners[1]
    mark = room.version
    seen = len(watcher.texts)
    for i in range(5):
        await play_one(room, listeners, rng, f"r{i}")
    sent = [t for t in watcher.texts[seen:] if '"type":"update"' in t]
    watcher.new()
    room.resume(watcher, mark)
    assert watcher.texts[-len(sent) :] == sent and len(watcher.new()) == len(sent)
    room.resume(watcher, room.version)
    assert watcher.new() == []
    room.resume(watcher, room.version + 3)
    assert [m["type"] for m in watcher.new()] == ["state"]
    # a connection that was never sent a state (the updates went to its seats' texts)
    late = FakeListener(watcher.identity_id, watcher.seats)
    room.resume(late, 0)  # from the very start: the first deal's update is still buffered
    assert [m["type"] for m in late.new()] == ["update"] * room.version
    for i in range(70):
        await play_one(room, listeners, rng, f"m{i}")
    room.resume(late, mark)  # no longer buffered (64 versions are kept)
    assert [m["type"] for m in late.new()] == ["state"]


async def test_a_resume_behind_the_state_a_new_socket_got_sends_nothing() -> None:
    """A reconnecting client sends ``resume`` with its old version as its socket opens,
    while the server sends that socket a whole state: the updates between the two are not
    sent again (docs/protocol.md, "Reconnecting")."""
    room, listeners = await started("classic")
    rng = random.Random(4)
    old = room.version
    for i in range(6):
        await play_one(room, listeners, rng, f"s{i}")
    again = attach(room, listeners[2].identity_id)  # a new socket: a whole state first
    assert [m["type"] for m in again.new()] == ["state"]
    await play_one(room, listeners, rng, "after")  # one live update on the new socket
    again.new()
    room.resume(again, old)
    assert again.new() == []
    await play_one(room, listeners, rng, "later")
    again.new()
    room.resume(again, room.version - 1)  # a gap after the state is still served
    assert [m["type"] for m in again.new()] == ["update"]


# ----------------------------------------------------------------- consents


async def play_until(room: Any, listeners: list[FakeListener], rng: random.Random, done) -> None:
    for i in range(2000):
        if done():
            return
        await play_one(room, listeners, rng, f"u{i}")
    raise AssertionError("never reached")


async def test_a_played_duel_deal_waits_for_both_consents() -> None:
    room, (host, guest) = await started("duel")
    spectator = attach(room, 9)
    rng = random.Random(5)
    await play_until(
        room,
        [host, guest],
        rng,
        lambda: room.state.phase is Phase.DEAL_OVER and room.consent_kind() == "next_deal",
    )
    deals = room.deals
    for x in (host, guest, spectator):
        x.new()
    await room.consent(spectator, "next_deal", "s")
    assert spectator.new()[0]["code"] == "spectator"
    await room.consent(host, "rematch", "k")
    assert host.new()[0] == {
        "type": "error",
        "code": "not_allowed",
        "message": "no rematch to agree to now",
        "id": "k",
    }
    await room.consent(host, "next_deal", "c1")
    ack, room_msg = host.new()
    assert ack["type"] == "ack" and room_msg["room"]["consent"]["agreed"] == [0]
    assert room.deals == deals and guest.new()[-1]["room"]["consent"]["needed"] == [0, 1]
    await act(room, host, "early", room.version, {"type": "pass"})
    assert host.new()[0]["code"] == "not_allowed"  # the deal is over
    await room.consent(guest, "next_deal", "c2")
    assert room.deals == deals + 1 and room.state.phase is not Phase.DEAL_OVER
    assert room.consent_kind() is None
    assert "update" in [m["type"] for m in guest.new()]


async def test_the_rematch_needs_everyone_then_names_the_new_game() -> None:
    room, listeners = await started("classic", options={"target": "one_deal"})
    rng = random.Random(8)
    await play_until(room, listeners, rng, lambda: room.state.phase is Phase.MATCH_OVER)
    assert room.status is Status.FINISHED and room.consent_kind() == "rematch"
    for listener in listeners[:-1]:
        await room.consent(listener, "rematch", None)
    assert room.rematch_id is None
    for x in listeners:
        x.new()
    await room.consent(listeners[-1], "rematch", None)
    assert room.rematch_id == "room-classic-rematch"
    msgs = listeners[0].new()
    assert msgs[0] == {
        "type": "rematch",
        "game_id": "room-classic-rematch",
        "url": "http://atout.test/g/room-classic-rematch",
    }
    assert msgs[1]["room"]["rematch"]["game_id"] == "room-classic-rematch"
    await act(room, listeners[0], "z", room.version, {"type": "pass"})
    assert listeners[0].new()[0]["code"] == "game_over"


# ----------------------------------------------------------------- bots


async def wait_for(predicate, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.01)


async def test_bots_act_until_the_human_is_to_act_and_only_while_someone_is_connected() -> None:
    with ThreadPoolExecutor(max_workers=1) as executor:
        room = make_room(
            "classic",
            mode="computer",
            kinds=["human", "bot", "bot", "bot"],
            service=services(executor=executor),
        )
        await room.join(1, "Host")  # seat 0 is the host's already: the match starts now
        room.status = Status.PLAYING
        from app.engine import new_match

        state = new_match("classic", None, room.options, rng=room.rng)
        room.publish(state, [])
        await asyncio.sleep(0.05)
        assert room.version == 1  # nobody connected: bots wait
        human = attach(room, 1)
        rng = random.Random(4)
        for i in range(12):
            await wait_for(lambda: current_player(room.state) in (0, None))
            if room.state.phase is not Phase.BIDDING and room.state.phase is not Phase.PLAY:
                break
            await act(
                room,
                human,
                f"h{i}",
                room.version,
                action_to_json(rng.choice(legal_actions(room.state))),
            )
        assert room.seq >= 12
        await room.set_level(human, "hard", "lv")
        assert human.last("ack")["id"] == "lv" and {s.level for s in room.seats[1:]} == {"hard"}
        await room.close()
        assert human.closed == (1012, "room closed")


async def test_hints_are_for_computer_games_on_your_turn() -> None:
    room, listeners = await started("classic")
    await room.hint(listeners[0], "h1")
    assert listeners[0].new()[0]["code"] == "not_allowed"
    await room.set_level(listeners[0], "hard", "l1")
    assert listeners[0].new()[0]["code"] == "not_allowed"


# ----------------------------------------------------------------- the typed protocol


SHORT = {"target": 501}


@pytest.mark.parametrize(
    ("variant", "players", "options"),
    [
        ("classic", None, SHORT),
        ("coinche", None, SHORT),
        ("bulgarian", None, {}),
        ("bela", 2, SHORT),
        ("bela", 3, SHORT),
        ("bela", 4, SHORT),
        ("duel", None, {}),
    ],
)
async def test_every_message_of_a_whole_match_is_one_of_the_typed_set(
    variant: str, players: int | None, options: dict[str, Any]
) -> None:
    """Every text every listener (each seat, a spectator) receives over a whole match, with
    refusals, consents and the rematch, validates against app/rooms/messages.py's models."""
    room, listeners = await started(variant, players=players, options=options)
    spectator = attach(room, 99)
    rng = random.Random(11)
    endless = variant == "duel"  # each duel deal is a game of its own: no match to end
    for i in range(3000):
        state = room.state
        if state.phase is Phase.MATCH_OVER or (endless and room.deals > 3):
            break
        if room.consent_kind() == "next_deal":
            for listener in listeners:
                await room.consent(listener, "next_deal", f"n{i}")
            continue
        if i % 50 == 7:
            await act(room, spectator, f"x{i}", room.version, {"type": "pass"})
            await act(room, listeners[0], f"s{i}", room.version - 1, {"type": "pass"})
        await play_one(room, listeners, rng, f"c{i}")
    assert endless or room.state.phase is Phase.MATCH_OVER
    for listener in listeners:
        await room.consent(listener, "rematch", "again")
    await room.hint(listeners[0], "h")
    types: set[str] = set()
    events: set[str] = set()
    for listener in [*listeners, spectator]:
        for text in listener.texts:
            model = validate_outgoing(text)
            types.add(model.type)  # type: ignore[attr-defined]
            events.update(e.type for e in getattr(model, "events", []))
    assert types == {"state", "update", "ack", "error", "room"} | (
        set() if endless else {"rematch"}
    )
    assert {"deal_started", "card_played", "trick_won", "deal_scored"} <= events
    assert endless or "match_over" in events


# ----------------------------------------------------------------- the deal's end: "Continue"


async def to_deal_summary(room: Any, listeners: list[FakeListener], rng: random.Random) -> None:
    """Random play until a played deal is over (a thrown-in deal is dealt on at once)."""
    for i in range(500):
        if room.state.phase is Phase.DEAL_OVER:
            return
        seat = current_player(room.state)
        action = action_to_json(rng.choice(legal_actions(room.state)))
        await act(room, holder(listeners, seat), f"d{i}", room.version, action)
    raise AssertionError("no deal ended")


async def test_a_friends_deal_waits_for_every_connected_continue_or_the_countdown() -> None:
    import time

    room, listeners = await started("classic", service=services(next_deal_seconds=0.4))
    rng = random.Random(21)
    await to_deal_summary(room, listeners, rng)
    deals, version = room.deals, room.version
    info = listeners[0].last("room")["room"]
    assert info["consent"] == {"kind": "next_deal", "agreed": [], "needed": [0, 1, 2, 3]}
    waiting = info["next_deal"]
    assert waiting["waiting_for"] == [0, 1, 2, 3]
    assert 0 < waiting["deadline"] - time.time() * 1000 <= 400
    assert listeners[1].last("room")["room"]["next_deal"] == waiting  # everyone sees it
    room.detach(listeners[3])  # away: not waited for
    assert room.room_json(1)["next_deal"]["waiting_for"] == [0, 1, 2]
    for listener in listeners[:2]:
        await room.consent(listener, "next_deal", None)
    assert room.room_json(1)["next_deal"]["waiting_for"] == [2]
    assert room.deals == deals and room.version == version  # nothing dealt yet
    await room.consent(listeners[2], "next_deal", None)  # the last connected one
    assert room.deals == deals + 1 and room.version == version + 1
    assert room.room_json(1)["next_deal"] is None
    await asyncio.sleep(0.5)  # the countdown was called off: no second deal
    assert room.deals == deals + 1
    room.attach(listeners[3])
    # the next deal's end: three press Continue, the fourth leaves the table: dealt at once
    await to_deal_summary(room, listeners, rng)
    deals = room.deals
    for listener in listeners[1:]:
        await room.consent(listener, "next_deal", None)
    assert room.deals == deals
    room.detach(listeners[0])
    await wait_for(lambda: room.deals == deals + 1, timeout=0.3)
    room.attach(listeners[0])
    # the next deal's end: nobody presses Continue; the countdown deals
    await to_deal_summary(room, listeners, rng)
    deals = room.deals
    await asyncio.sleep(0.2)
    assert room.deals == deals
    await wait_for(lambda: room.deals == deals + 1, timeout=2.0)
    assert room.state.phase is not Phase.DEAL_OVER
    assert listeners[0].last("room")["room"]["next_deal"] is None


async def test_a_computer_deal_waits_for_the_players_continue_and_bots_wait_too() -> None:
    with ThreadPoolExecutor(max_workers=1) as executor:
        room = make_room(
            "classic",
            mode="computer",
            kinds=["human", "bot", "bot", "bot"],
            service=services(executor=executor, next_deal_seconds=0.1),
        )
        room.status = Status.PLAYING
        from app.engine import new_match

        room.publish(new_match("classic", None, room.options, rng=room.rng), [])
        human = attach(room, 1)
        rng = random.Random(2)
        for i in range(400):
            await wait_for(
                lambda: current_player(room.state) == 0 or room.consent_kind() == "next_deal"
            )
            if room.consent_kind() == "next_deal":
                break
            action = action_to_json(rng.choice(legal_actions(room.state)))
            await act(room, human, f"h{i}", room.version, action)
        else:
            raise AssertionError("no deal ended")
        version, deals = room.version, room.deals
        await asyncio.sleep(0.3)  # no countdown here, and no bot bids behind the summary
        assert (room.version, room.deals) == (version, deals)
        assert room.room_json(1)["next_deal"] == {"waiting_for": [0], "deadline": None}
        await room.consent(human, "next_deal", "go")
        assert human.last("ack")["id"] == "go"
        assert room.deals == deals + 1 and room.version > version
        await room.close()


async def test_a_local_device_continues_for_all_its_seats_at_once() -> None:
    room = make_room("bela", 3, mode="local")
    device = attach(room, 1)
    room.status = Status.PLAYING
    from app.engine import new_match

    room.publish(new_match("bela", 3, room.options, rng=room.rng), [])
    await to_deal_summary(room, [device], random.Random(7))
    deals = room.deals
    assert room.room_json(1)["next_deal"] == {"waiting_for": [0, 1, 2], "deadline": None}
    await room.consent(device, "next_deal", None)
    assert room.deals == deals + 1


async def test_a_played_duel_deal_has_no_countdown() -> None:
    room, listeners = await started("duel", service=services(next_deal_seconds=0.05))
    await to_deal_summary(room, listeners, random.Random(5))
    if room.consent_kind() != "next_deal":  # thrown in: dealt on, play the next one
        await to_deal_summary(room, listeners, random.Random(6))
    deals = room.deals
    assert room.room_json(1)["next_deal"] == {"waiting_for": [0, 1], "deadline": None}
    room.detach(listeners[1])
    await asyncio.sleep(0.2)
    assert room.deals == deals
    assert room.room_json(1)["next_deal"]["waiting_for"] == [0, 1]  # the away guest too


# ----------------------------------------------------------------- the waiting room's seats


async def test_the_host_fills_free_seats_with_computer_players_and_the_last_one_starts() -> None:
    room = make_room("classic")
    host = attach(room, 1)
    await room.join(2, "Ann")
    guest = attach(room, 2)
    for x in (host, guest):
        x.new()
    await room.set_seat(guest, 2, "bot", "hard", "g")
    assert guest.new()[0]["code"] == "not_host"
    await room.set_seat(host, 1, "bot", "hard", "taken")
    assert host.new()[0] == {
        "type": "error",
        "code": "not_allowed",
        "message": "seat 1 is taken",
        "id": "taken",
    }
    await room.set_seat(host, 3, "human", None, "nobot")
    assert host.new()[0]["code"] == "not_allowed"
    await room.set_seat(host, 2, "bot", "hard", "b2")
    ack, info = host.new()
    assert ack == {"type": "ack", "id": "b2", "version": 0}
    assert info["room"]["seats"][2] | {"xp_level": None} == {
        "seat": 2,
        "kind": "bot",
        "name": None,
        "level": "hard",
        "taken": True,
        "connected": True,
        "you": False,
        "xp_level": None,
        "deadline": None,
        "stand_in": None,
        "away_since": None,
        "stand_in_votes": [],
        "open": False,
        "heir": None,
    }
    assert guest.new()[-1]["room"]["seats"][2]["kind"] == "bot"
    await room.set_seat(host, 2, "human", None, None)  # changed his mind
    assert room.seats[2].kind == "human" and room.seats[2].level is None
    await room.set_seat(host, 2, "bot", "easy", None)
    assert room.status is Status.WAITING
    await room.set_seat(host, 3, "bot", None, None)  # the last free seat: the match starts
    assert room.status is Status.PLAYING and room.version == 1
    assert [s.kind for s in room.seats] == ["human", "human", "bot", "bot"]
    assert [s.level for s in room.seats] == [None, None, "easy", "medium"]
    assert guest.last("update")["version"] == 1
    await room.set_seat(host, 3, "human", None, "late")
    assert host.new()[-1]["code"] == "not_allowed"


async def test_a_guest_moves_to_a_free_seat_in_the_waiting_room() -> None:
    room = make_room("coinche")
    host = attach(room, 1)
    await room.join(2, "Ann")
    guest = attach(room, 2)
    assert guest.seats == (1,)
    guest.new()
    await room.take_seat(guest, 2, "ignored", "t1")
    ack, state, _room = guest.new()  # acknowledged, then its new seat's state, then the room
    assert ack == {"type": "ack", "id": "t1", "version": 0}
    assert state["type"] == "state" and state["seats_you_hold"] == [2]
    assert guest.seats == (2,) and room.seats_of(2) == (2,)
    assert (room.seats[1].identity_id, room.seats[2].name) == (None, "Ann")  # name kept
    await room.take_seat(guest, 0, None, "t2")
    assert guest.new()[-1] == {
        "type": "error",
        "code": "not_allowed",
        "message": "seat 0 is not free",
        "id": "t2",
    }
    await room.set_seat(host, 3, "bot", "easy", None)
    await room.take_seat(guest, 3, None, "t3")
    assert guest.new()[-1]["message"] == "seat 3 is not free"
    before = [s.copy() for s in room.seats]
    await room.take_seat(guest, 7, None, "t4")
    assert guest.new()[-1]["code"] == "bad_message" and room.seats == before
    await room.set_seat(host, 3, "human", None, None)
    await room.join(3, "Bob")
    bob = attach(room, 3)
    assert bob.seats == (1,)
    await room.take_seat(bob, 3, None, None)
    assert bob.seats == (3,) and room.status is Status.WAITING
    await room.join(4, "Cy")  # the last free seat: the match starts
    assert room.seats_of(4) == (1,) and room.status is Status.PLAYING
    await room.take_seat(guest, 1, None, "t5")
    assert guest.new()[-1]["code"] == "not_allowed"


async def test_seats_are_chosen_in_friends_games_only() -> None:
    room = make_room("classic", mode="computer", kinds=["human", "bot", "bot", "bot"])
    host = attach(room, 1)
    host.new()
    await room.set_seat(host, 1, "human", None, None)
    await room.take_seat(host, 1, None, None)
    assert [m["code"] for m in host.new()] == ["not_allowed", "not_allowed"]


async def test_an_illegal_action_error_carries_the_engines_reason(monkeypatch) -> None:
    from app.engine import IllegalAction
    from app.rooms import step  # the step's plan applies the action (step.py)

    def refuse(state: Any, action: Any, seat: int) -> Any:
        exc = IllegalAction("play: you must follow ♥")
        exc.reason = {"code": "must_follow", "suit": "H"}  # type: ignore[attr-defined]
        raise exc

    room, listeners = await started("classic")
    actor = holder(listeners, current_player(room.state))
    before = snapshot(room)
    monkeypatch.setattr(step, "apply", refuse)
    await act(room, actor, "i1", room.version, {"type": "pass"})
    error = actor.new()[0]
    assert error == {
        "type": "error",
        "code": "illegal_action",
        "message": "play: you must follow ♥",
        "id": "i1",
        "reason": {"code": "must_follow", "suit": "H"},
    }
    validate_outgoing(actor.texts[-1])
    assert snapshot(room) == before


async def test_an_illegal_card_is_refused_with_the_rule_as_data() -> None:
    from app.engine import seat_view

    room, listeners = await started("classic")
    rng = random.Random(31)
    for i in range(300):
        state = room.state
        seat = current_player(state)
        if state.phase is Phase.PLAY and seat is not None:
            view = seat_view(state, seat)
            legal = {a["card"] for a in view["legal"] if a["type"] == "play"}
            illegal = [c for c in view["hand"] if c not in legal]
            if illegal:
                break
        await play_one(room, listeners, rng, f"p{i}")
    else:
        raise AssertionError("no illegal card met")
    actor = holder(listeners, seat)
    actor.new()
    before = snapshot(room)
    await act(room, actor, "bad", room.version, {"type": "play", "card": illegal[0]})
    (error,) = actor.new()
    assert error["code"] == "illegal_action" and error["id"] == "bad"
    assert isinstance(error["reason"], dict) and error["reason"]["code"], error
    validate_outgoing(actor.texts[-1])
    assert snapshot(room) == before
