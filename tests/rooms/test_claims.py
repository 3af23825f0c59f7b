"""Claims in a room (RULES.md §15, D-24), in process (tests/rooms/harness.py).

The ``claim`` command: a valid claim shows the claimer's cards to everyone and the room plays
the deal out as plays marked ``"by": "claim"`` in §15's order; a refused one changes nothing
and shows nothing; bots claim when they may; the record round-trips with its ``by``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson
import pytest

from app.engine import (
    Phase,
    action_to_json,
    current_player,
    legal_actions,
    new_match,
    seat_view,
)
from app.engine.cards import format_mask
from app.engine.claims import can_claim, claim_action, lead_order, mark_claim
from app.engine.record import dump, record_by, replay_by, replayed_states
from app.persistence import repository as repo
from app.persistence.db import create_engine_from_url, create_sessionmaker
from app.persistence.writer import CommitQueue
from app.rooms import GameSpec, RoomManager, Status
from app.rooms.messages import validate_outgoing
from tests.rooms.harness import FakeListener, act, attach, make_room, services, settings
from tests.schema import check_sent


async def wait_for(predicate: Any, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.01)


async def local_room(variant: str, players: int | None = None, seed: int = 1) -> Any:
    """A one-device room (identity 1 holds every seat), started, with its listener."""
    room = make_room(variant, players, mode="local", seed=seed)
    listener = attach(room, 1)
    await room.join(1, None)  # every seat is the device's: the match is started by hand
    room.status = Status.PLAYING
    room.publish(new_match(variant, players, room.options, rng=room.rng), [])
    room.deals = 1
    listener.new()
    return room, listener


async def play_to_a_claim(room: Any, listener: FakeListener, rng: random.Random) -> int:
    """Random legal moves until the seat to lead may claim; returns that seat."""
    for i in range(2000):
        state = room.state
        seat = current_player(state)
        if seat is not None and state.phase is Phase.PLAY and can_claim(state, seat):
            return seat
        if room.consent_kind() == "next_deal":
            await room.consent(listener, "next_deal", None)
            continue
        action = action_to_json(rng.choice(legal_actions(state)))
        await act(room, listener, f"r{i}", room.version, action, seat=seat)
    raise AssertionError("no claim came")


async def send_claim(room: Any, listener: FakeListener, msg_id: str, version: int) -> None:
    """A ``claim`` frame, parsed as app/web/ws.py parses it."""
    from app.web.messages import parse_incoming

    msg = parse_incoming(orjson.dumps({"type": "claim", "id": msg_id, "version": version}).decode())
    await room.claim(listener, msg.id, msg.version, msg.seat)


def _tricks(record: dict[str, Any], deal: int) -> list[int]:
    """The winners of the tricks of ``deal``, in order."""
    winners = []
    for step, _state in replayed_states(record):
        if step is not None and step.deal == deal:
            winners += [e.data["seat"] for e in step.events if e.type == "trick_won"]
    return winners


def claim_plays_follow_section_15(state_record: dict[str, Any], deal: int) -> None:
    """Replay the record: every action marked ``claim`` is the action §15 fixes."""
    before = None
    for step, state in replayed_states(state_record):
        if step is not None and step.deal == deal and step.by == "claim":
            assert before is not None
            prior = before if before.claimer >= 0 else mark_claim(before, step.seat)[0]
            expected = action_to_json(claim_action(prior))
            data = state_record["deals"][deal]["actions"][step.index]
            assert {k: v for k, v in data.items() if k not in ("seat", "by")} == expected
        before = state


async def test_a_valid_claim_shows_the_cards_and_the_room_plays_the_deal_out() -> None:
    room, listener = await local_room("classic", seed=3)
    spectator = attach(room, 99)
    seat = await play_to_a_claim(room, listener, random.Random(5))
    hand = format_mask(room.state.hands[seat])
    deal = len(room.state.logs)
    claimed_at = len(room.state.actions)
    listener.new()
    spectator.new()
    version = room.version
    await send_claim(room, listener, "c1", version)
    assert listener.new()[0] == {"type": "ack", "id": "c1", "version": version + 1}
    for who in (listener, spectator):
        updates = [m for m in who.messages if m["type"] == "update"]
        events = [e for m in updates for e in m["events"]]
        claimed = [e for e in events if e["type"] == "claimed"]
        assert claimed == [{"type": "claimed", "seat": seat, "cards": hand}]
    await wait_for(lambda: room.state.phase is not Phase.PLAY)
    record = dump(room.state, by=room.by)
    actions = record["deals"][deal]["actions"]
    assert all(a.get("by") == "claim" for a in actions[claimed_at:])
    assert len(actions) - claimed_at == len(hand) * 4
    # the claimer took every remaining trick
    finished = replay_by(record)[0]
    last_tricks = [t for t in _tricks(record, deal)][-len(hand) :]
    assert finished.phase is not Phase.PLAY and all(w == seat for w in last_tricks)
    claim_plays_follow_section_15(record, deal)
    # round trip: the record with its ``by`` replays to the same state and dumps the same
    again, by = replay_by(record)
    assert by == room.by and dump(again, by=by) == record
    for text in listener.texts + spectator.texts:
        validate_outgoing(text)
        check_sent(orjson.loads(text))


async def test_a_refused_claim_changes_nothing_and_shows_nothing() -> None:
    room, listener = await local_room("classic", seed=4)
    spectator = attach(room, 99)
    rng = random.Random(8)
    # the first lead of the card play: no claim can be proved there
    while room.state.phase is not Phase.PLAY:
        seat = current_player(room.state)
        await act(
            room,
            listener,
            f"b{room.version}",
            room.version,
            action_to_json(rng.choice(legal_actions(room.state))),
            seat=seat,
        )
    seat = current_player(room.state)
    assert not seat_view(room.state, seat)["can_claim"]
    listener.new()
    spectator.new()
    before = (room.version, room.seq, room.state, dict(room.by))
    await send_claim(room, listener, "no", room.version)
    got = listener.new()
    assert [m["type"] for m in got] == ["error"]
    assert got[0]["code"] == "claim_not_certain" and got[0]["id"] == "no"
    assert got[0]["reason"] == {"code": "claim_not_certain"}
    others = set(format_mask(sum(room.state.hands[s] for s in range(4) if s != seat)))
    assert not any(card in orjson.dumps(got[0]).decode() for card in others)
    assert not spectator.new()
    assert (room.version, room.seq, room.state, dict(room.by)) == before
    # the connection is usable: a card is played as ever
    card = action_to_json(legal_actions(room.state)[0])
    await act(room, listener, "p1", room.version, card, seat=seat)
    assert listener.new()[0] == {"type": "ack", "id": "p1", "version": before[0] + 1}
    # a claim out of turn, or after the deal's first card of a trick: not your lead
    await send_claim(room, listener, "late", room.version)
    assert listener.new()[0]["code"] == "not_your_lead"


async def test_actions_are_refused_while_a_claim_is_played_out() -> None:
    room, listener = await local_room("classic", seed=3)
    seat = await play_to_a_claim(room, listener, random.Random(5))
    room.detach(listener)  # nobody connected: the driver waits, the play-out stops here
    await send_claim(room, listener, "c", room.version)
    assert room.state.claimer == seat
    to_act = current_player(room.state)
    card = action_to_json(legal_actions(room.state)[-1])
    listener.new()
    await act(room, listener, "x", room.version, card, seat=to_act)
    assert listener.new()[0]["code"] == "claimed"
    view = seat_view(room.state, to_act)
    assert view["claim"] == {"seat": seat, "cards": format_mask(room.state.hands[seat])}
    assert not view["can_claim"] and view["legal"] == []  # the server plays every card


async def test_bots_claim_whenever_they_may() -> None:
    with ThreadPoolExecutor(max_workers=1) as executor:
        room = make_room(
            "classic",
            mode="computer",
            kinds=["human", "bot", "bot", "bot"],
            level="easy",
            service=services(executor=executor),
            seed=2,
        )
        await room.join(1, "Host")
        room.status = Status.PLAYING
        room.publish(new_match("classic", None, room.options, rng=room.rng), [])
        room.deals = 1
        human = attach(room, 1)
        rng = random.Random(3)
        claims = 0
        for _deal in range(8):
            while room.state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER):
                await wait_for(
                    lambda: (
                        current_player(room.state) is None
                        or (current_player(room.state) == 0 and room.state.claimer < 0)
                    )
                )
                if current_player(room.state) is None:
                    break
                action = action_to_json(rng.choice(legal_actions(room.state)))
                await act(room, human, f"h{room.version}", room.version, action)
            if room.state.phase is Phase.MATCH_OVER:
                break
            await room.consent(human, "next_deal", None)
        record = dump(room.state, by=room.by)
        by = record_by(record)
        # whenever a bot was to lead and its view could prove a claim, it claimed
        for step, state in replayed_states(record):
            if step is None:
                continue
            seat = current_player(state)
            if seat in (1, 2, 3) and state.phase is Phase.PLAY and can_claim(state, seat):
                nxt = (step.deal, step.index + 1)
                assert by.get(nxt) == "claim", nxt
                claims += 1
        assert claims >= 1
        await room.close()


# ----------------------------------------------------------------- a restart mid-play-out


@pytest.fixture
async def manager(migrated_database_url: str) -> AsyncIterator[RoomManager]:
    engine = create_engine_from_url(migrated_database_url)
    writer = CommitQueue(engine)
    await writer.start()
    # seeded decks and bots (ATOUT_TEST_SEED): the same deals at every run
    rooms = RoomManager(settings(test_seed=2026), create_sessionmaker(engine), writer, None)
    try:
        yield rooms
    finally:
        await rooms.stop()
        await writer.close()
        await engine.dispose()


@pytest.mark.db
async def test_a_restart_in_the_middle_of_a_play_out_goes_on_from_the_record(
    manager: RoomManager,
) -> None:
    """The claim and its first card are stored; the process goes away before the rest is
    played. The room that comes back from its rows knows the claim (the record's ``by``) and
    plays the deal out in §15's order, each card stored, when a player is connected."""
    token = repo.hash_token("claim-restart")
    host_id = await manager.writer.submit(repo.insert_identity(token))
    created = await manager.create_game(
        host_id, "Host", GameSpec("classic", None, {"target": 5000}, "local")
    )
    room = await manager.get(created.game_id)
    assert room is not None
    socket = FakeListener(host_id, room.seats_of(host_id))
    room.attach(socket)
    seat = await play_to_a_claim(room, socket, random.Random(7))
    left = len(lead_order(room.state.hands[seat], room.state.contract.trump))
    deal = len(room.state.logs)
    room.detach(socket)  # nobody connected: the driver plays nothing more here
    version = room.version
    await send_claim(room, socket, "claim-1", version)
    assert room.version == version + 1 and room.state.claimer == seat
    stored_actions = room.seq

    await manager.evict(room)
    again = await manager.get(room.game_id)
    assert again is not None and again is not room
    assert (again.version, again.seq) == (version + 1, stored_actions)
    assert again.state.claimer == seat  # the replayed record marks the claim
    assert seat_view(again.state, 0)["claim"]["seat"] == seat
    back = FakeListener(host_id, again.seats_of(host_id))
    again.attach(back)
    again.schedule_bots()
    await wait_for(lambda: again.state.phase is not Phase.PLAY)
    record = dump(again.state, by=again.by)
    actions = record["deals"][deal]["actions"]
    players = again.state.rules.players
    assert [a.get("by") for a in actions[-left * players :]] == ["claim"] * (left * players)
    assert _tricks(record, deal)[-left:] == [seat] * left
    claim_plays_follow_section_15(record, deal)
    # and it was all stored: loaded once more, the same record
    await manager.evict(again)
    third = await manager.get(room.game_id)
    assert third is not None and dump(third.state, by=third.by) == record


async def test_a_stand_in_claims_for_the_seat_it_plays() -> None:
    """The stand-in of an away seat that may claim claims (RULES.md §15: a stand-in claims
    like a player); its claim and the whole play-out are marked "claim"."""
    room, listener = await local_room("bela", 3, seed=6)
    seat = await play_to_a_claim(room, listener, random.Random(2))
    room.seats[seat].stand_in = "away"  # its player is away: no connection holds the seat
    listener.seats = tuple(s for s in listener.seats if s != seat)
    deal = len(room.state.logs)
    start = len(room.state.actions)
    room.schedule_bots()
    await wait_for(lambda: room.state.phase is not Phase.PLAY)
    record = dump(room.state, by=room.by)
    actions = record["deals"][deal]["actions"][start:]
    assert actions[0]["seat"] == seat
    assert {a.get("by") for a in actions} == {"claim"}
    claim_plays_follow_section_15(record, deal)
