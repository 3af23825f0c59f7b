"""Rooms in process over a real database: the RoomManager, a CommitQueue, no server process.

A room is played, evicted and loaded again from its rows: same version, same state, the same
acknowledgement for a repeated id, and a consent that survives the reload.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import delete, insert, update

from app.engine import Phase, action_to_json, current_player, legal_actions
from app.engine.cards import format_card
from app.engine.record import dump
from app.persistence import repository as repo
from app.persistence.models import GameAction, GameDeal
from app.rooms import GameSpec, RoomManager, Status
from tests.database import Database
from tests.engine.helpers import deal, do
from tests.rooms.harness import FakeListener, act, settings

pytestmark = pytest.mark.db


@pytest.fixture
async def manager(database: Database) -> AsyncIterator[RoomManager]:
    rooms = RoomManager(settings(), database.sessionmaker, database.writer, None)
    try:
        yield rooms
    finally:
        await rooms.stop()


_tokens = iter(range(10**6))


async def identities(rooms: RoomManager, count: int) -> list[int]:
    return [
        await rooms.writer.submit(repo.insert_identity(repo.hash_token(f"token-{next(_tokens)}")))
        for _ in range(count)
    ]


async def create(manager: RoomManager, host_id: int, spec: GameSpec) -> Any:
    """A new game's live room: on PostgreSQL (room leases) the creating call keeps nothing in
    memory, and the room is loaded, under its lease, by the first access."""
    created = await manager.create_game(host_id, "Host", spec)
    room = await manager.get(created.game_id)
    assert room is not None
    return room


def connect(room: Any, identity_id: int) -> FakeListener:
    listener = FakeListener(identity_id, room.seats_of(identity_id))
    room.attach(listener)
    return listener


async def test_a_room_comes_back_from_its_rows_as_it_was(manager: RoomManager) -> None:
    host_id, guest_id = await identities(manager, 2)
    room = await create(manager, host_id, GameSpec("duel", None, {}, "friends"))
    assert room.status is Status.WAITING
    joined = await manager.join(room.game_id, guest_id, "Guest")
    assert joined is not None and joined.seats == (1,) and room.status is Status.PLAYING
    sockets = {host_id: connect(room, host_id), guest_id: connect(room, guest_id)}
    rng = random.Random(6)
    last: tuple[int, str, dict[str, Any]] | None = None
    while not (room.state.phase is Phase.DEAL_OVER and room.consent_kind() == "next_deal"):
        seat = current_player(room.state)
        identity = host_id if seat == 0 else guest_id
        action = action_to_json(rng.choice(legal_actions(room.state)))
        last = (identity, f"m{room.version}", action)
        sockets[identity].new()
        await act(room, sockets[identity], last[1], room.version, action)
        assert sockets[identity].new()[0]["type"] == "ack"
    await room.consent(sockets[host_id], "next_deal", "agree")
    version, state, deals = room.version, room.state, room.deals

    await manager.evict(room)
    assert sockets[host_id].closed == (1012, "idle")
    again = await manager.get(room.game_id)
    assert again is not None and again is not room
    assert (again.version, again.deals, again.status) == (version, deals, Status.PLAYING)
    assert again.state.scores == state.scores and again.state.phase is state.phase
    assert again.consents.agreed == {0}  # the host's agreement was stored before its ack
    # the last action's id, sent again after the reload: the same ack, nothing applied
    assert last is not None
    socket = connect(again, last[0])
    socket.new()
    await act(again, socket, last[1], version - 1, last[2])
    assert socket.new() == [{"type": "ack", "id": last[1], "version": version}]
    # the guest agrees too: the next deal is dealt and stored
    await again.consent(connect(again, guest_id), "next_deal", None)
    assert again.deals == deals + 1 and again.version == version + 1
    await manager.evict(again)
    third = await manager.get(room.game_id)
    assert third is not None and third.version == version + 1 and third.deals == deals + 1


async def test_a_restored_room_waits_for_continue_again(manager: RoomManager) -> None:
    """Restarted at a deal's summary, a friends game keeps the Continue already pressed and
    starts its countdown again."""
    host_id, guest_id = await identities(manager, 2)
    spec = GameSpec("classic", None, {"target": 501}, "friends")
    room = await create(manager, host_id, spec)
    for identity in (guest_id, *await identities(manager, 2)):
        await manager.join(room.game_id, identity, None)
    assert room.status is Status.PLAYING
    sockets = [connect(room, s.identity_id) for s in room.seats]
    rng = random.Random(9)
    for i in range(400):
        if room.state.phase is Phase.DEAL_OVER:
            break
        seat = current_player(room.state)
        action = action_to_json(rng.choice(legal_actions(room.state)))
        await act(room, sockets[seat], f"a{i}", room.version, action)
    assert room.consent_kind() == "next_deal" and room.consents.deadline is not None
    await room.consent(sockets[0], "next_deal", None)
    assert room.deals == 1  # the others have not pressed Continue
    version, deals = room.version, room.deals
    await manager.evict(room)
    again = await manager.get(room.game_id)
    assert again is not None and (again.version, again.deals) == (version, deals)
    assert again.consents.agreed == {0}
    info = again.room_json(host_id)["next_deal"]
    assert info is not None and info["deadline"] is not None  # a new countdown


async def play_to_the_summary(room: Any, sockets: dict[int, FakeListener], seed: int) -> None:
    """Random legal moves (seeded) until the deal ends on its summary."""
    rng = random.Random(seed)
    for i in range(400):
        if room.state.phase is Phase.DEAL_OVER and room.consent_kind() == "next_deal":
            return
        seat = current_player(room.state)
        identity = room.seats[seat].identity_id
        action = action_to_json(rng.choice(legal_actions(room.state)))
        await act(room, sockets[identity], f"a{i}", room.version, action)
    raise AssertionError("the deal did not end")


async def test_a_continue_stored_before_a_crash_deals_when_the_room_comes_back(
    manager: RoomManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last Continue of a deal is stored and acknowledged; the process dies before the
    next deal is written. The room that comes back deals at once instead of waiting for a
    Continue that everyone already gave."""
    (host_id,) = await identities(manager, 1)
    room = await create(manager, host_id, GameSpec("classic", None, {"target": 501}, "local"))
    socket = connect(room, host_id)
    await play_to_the_summary(room, {host_id: socket}, seed=31)
    version, deals = room.version, room.deals

    async def killed(*_args: Any) -> None:
        raise RuntimeError("the process died here")

    monkeypatch.setattr(type(room), "deal_next", killed)
    with pytest.raises(RuntimeError, match="died"):
        await room.consent(socket, "next_deal", "agree")
    assert {"type": "ack", "id": "agree", "version": version} in socket.new()
    monkeypatch.undo()
    assert room.deals == deals  # the deal was never written

    await manager.evict(room)
    again = await manager.get(room.game_id)
    assert again is not None
    assert (again.deals, again.version) == (deals + 1, version + 1)
    assert again.state.phase is not Phase.DEAL_OVER and again.consent_kind() is None
    # and it was stored: loaded once more, the new deal is there
    await manager.evict(again)
    third = await manager.get(room.game_id)
    assert third is not None and (third.deals, third.version) == (deals + 1, version + 1)


async def test_a_duel_whose_both_players_agreed_deals_when_the_room_comes_back(
    manager: RoomManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    host_id, guest_id = await identities(manager, 2)
    room = await create(manager, host_id, GameSpec("duel", None, {}, "friends"))
    await manager.join(room.game_id, guest_id, "Guest")
    sockets = {host_id: connect(room, host_id), guest_id: connect(room, guest_id)}
    await play_to_the_summary(room, sockets, seed=6)
    version, deals = room.version, room.deals
    await room.consent(sockets[host_id], "next_deal", None)
    assert room.deals == deals  # the guest has not agreed yet

    async def killed(*_args: Any) -> None:
        raise RuntimeError("the process died here")

    monkeypatch.setattr(type(room), "deal_next", killed)
    with pytest.raises(RuntimeError, match="died"):
        await room.consent(sockets[guest_id], "next_deal", None)
    monkeypatch.undo()
    await manager.evict(room)
    again = await manager.get(room.game_id)
    assert again is not None and (again.deals, again.version) == (deals + 1, version + 1)


async def test_an_incomplete_continue_still_waits_when_the_room_comes_back(
    manager: RoomManager,
) -> None:
    host_id, guest_id = await identities(manager, 2)
    room = await create(manager, host_id, GameSpec("duel", None, {}, "friends"))
    await manager.join(room.game_id, guest_id, "Guest")
    sockets = {host_id: connect(room, host_id), guest_id: connect(room, guest_id)}
    await play_to_the_summary(room, sockets, seed=7)
    await room.consent(sockets[host_id], "next_deal", None)
    version, deals = room.version, room.deals
    await manager.evict(room)
    again = await manager.get(room.game_id)
    assert again is not None and (again.deals, again.version) == (deals, version)
    assert again.consent_kind() == "next_deal" and again.consents.agreed == {0}


async def test_a_stored_game_with_an_old_exchange_pass_still_loads(manager: RoomManager) -> None:
    """Rows written before RULES.md 1.1 declined the bela-2p seven exchange with a ``pass``: the
    room still loads them (the pass is read as the decline), keeps its version count from the
    rows, and goes on appending after them."""
    host_id, guest_id = await identities(manager, 2)
    room = await create(manager, host_id, GameSpec("bela", 2, {}, "friends"))
    await manager.join(room.game_id, guest_id, "Guest")
    dealer = room.state.dealer
    leader = 1 - dealer
    await manager.evict(room)

    # the dealer holds the trump seven; the leader takes the proposal AH
    wanted = {("hand", dealer): ["7H", "AS", "KS", "QS", "JS", "8C"], ("up",): ["AH"]}
    fixed = deal("bela", wanted, dealer=dealer, players=2)
    after_bid = do(fixed, {"type": "bid", "contract": "H"})
    lead = action_to_json(legal_actions(after_bid)[-1])
    assert lead["type"] == "play"
    rows = [(leader, {"type": "bid", "contract": "H"}), (dealer, {"type": "pass"}), (leader, lead)]
    async with manager.sessionmaker() as session, session.begin():
        deck = [format_card(c) for c in fixed.deck]
        await session.execute(
            update(GameDeal).where(GameDeal.game_id == room.game_id).values(deck=deck)
        )
        await session.execute(delete(GameAction).where(GameAction.game_id == room.game_id))
        for seq, (seat, action) in enumerate(rows):
            values = {"game_id": room.game_id, "seq": seq, "deal_number": 0, "seat": seat}
            await session.execute(insert(GameAction).values(**values, action=action))

    again = await manager.get(room.game_id)
    assert again is not None
    assert (again.version, again.seq) == (1 + 3, 3)  # counted from the rows
    assert [a.type for _, a in again.state.actions] == ["bid", "play"]  # no pass kept
    assert again.state.to_act == dealer
    assert not any(a.type == "exchange" for a in legal_actions(again.state))  # declined
    assert all(a["type"] != "pass" for d in dump(again.state)["deals"] for a in d["actions"])
    listener = connect(again, guest_id if dealer == 1 else host_id)
    connect(again, host_id if dealer == 1 else guest_id)  # a friends table waits for both
    follow = action_to_json(legal_actions(again.state)[0])
    listener.new()  # the state sent on attaching
    await act(again, listener, "after-old-pass", again.version, follow)
    reply = listener.new()[0]
    assert reply["type"] == "ack" and again.version == 5, reply
    await manager.evict(again)
    third = await manager.get(room.game_id)
    assert third is not None and third.version == 5 and len(third.state.actions) == 3
