"""The bela-2p seven exchange at the room (RULES.md §5.4, §14): from the end of the bidding to
the first declare or play of either player. The holder who does not lead is offered it out of
turn while the leader thinks; the room takes that one action out of turn; a bot holder makes
it at once, and a bot leader waits while a human holder may still make it.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from app.engine import Phase
from app.rooms import Status, bot_driver
from tests.engine.helpers import deal, do
from tests.rooms.harness import act, attach, make_room, services

EXCHANGE = {"type": "exchange", "card": "7H"}


def opening(holder: int) -> Any:
    """Dealer 1, seat 0 leads and takes the proposal AH; ``holder`` has the trump seven."""
    other = 1 - holder
    wanted = {
        ("hand", holder): ["7H", "AS", "KS", "QS", "JS", "8C"],
        ("talon", holder): ["9S", "8S", "7S", "7C"],
        ("hand", other): ["AC", "KC", "QC", "JC", "TC", "9C"],
        ("talon", other): ["KD", "QD", "JD", "TD"],
        ("up",): ["AH"],
    }
    state = deal("bela", wanted, dealer=1, players=2)
    return do(state, {"type": "bid", "contract": "H"})


def table(
    kinds: list[str], holder: int, executor: Any = None, **values: Any
) -> tuple[Any, list[Any]]:
    """A room of ``kinds`` playing from ``opening(holder)``, every human connected (the human
    of seat s is identity s + 1)."""
    mode = "computer" if "bot" in kinds else "friends"
    room = make_room(
        "bela", 2, mode=mode, kinds=kinds, service=services(executor=executor, **values)
    )
    for seat in room.seats:
        seat.identity_id = seat.seat + 1 if seat.kind == "human" else None
    room.status = Status.PLAYING
    room.deals = 1
    listeners = [attach(room, s + 1) for s, kind in enumerate(kinds) if kind == "human"]
    room.publish(opening(holder), [])
    return room, listeners


def legal_sent(listener: Any) -> list[dict[str, Any]]:
    """The ``legal`` of the last view or update that carried it to ``listener``."""
    for text in reversed(listener.texts):
        msg = json.loads(text)
        found = _find(msg, "legal")
        if found is not None:
            return found
    raise AssertionError("no legal sent")


def _find(value: Any, key: str) -> Any:
    if isinstance(value, dict):
        if key in value:
            return value[key]
        for v in value.values():
            got = _find(v, key)
            if got is not None:
                return got
    return None


async def test_the_holder_who_does_not_lead_exchanges_out_of_turn() -> None:
    room, (leader, holder) = table(["human", "human"], holder=1)
    assert room.state.to_act == 0
    assert legal_sent(holder) == [EXCHANGE]
    assert EXCHANGE not in legal_sent(leader)
    # anything else out of turn is refused, and changes nothing
    version = room.version
    await act(room, holder, "early-card", version, {"type": "play", "card": "AS"})
    assert holder.last("error")["code"] == "not_your_turn" and room.version == version
    await act(room, holder, "swap", version, EXCHANGE)
    assert holder.last("ack")["id"] == "swap"
    state = room.state
    assert state.exchanged == 1 and state.to_act == 0 and state.phase is Phase.PLAY
    assert [(seat, a.type) for seat, a in state.actions] == [(0, "bid"), (1, "exchange")]
    assert legal_sent(holder) == []


async def test_the_first_lead_closes_the_exchange() -> None:
    room, (leader, holder) = table(["human", "human"], holder=1)
    await act(room, leader, "lead", room.version, {"type": "play", "card": "AC"})
    assert room.state.to_act == 1
    assert EXCHANGE not in legal_sent(holder)
    version = room.version
    await act(room, holder, "late", version, EXCHANGE)
    error = holder.last("error")
    assert error["code"] == "illegal_action" and "first declare or play" in error["message"]
    assert room.version == version and room.state.exchanged == -1


async def test_a_bot_holder_exchanges_at_once() -> None:
    # the bots' own delay is long: the exchange does not wait for it
    room, (human,) = table(["human", "bot"], holder=1, bot_delay_ms=5000)
    room.schedule_bots()
    await asyncio.wait_for(_until(lambda: room.state.exchanged == 1), 2.0)
    assert [(seat, a.type) for seat, a in room.state.actions] == [(0, "bid"), (1, "exchange")]
    assert room.state.to_act == 0 and human.seats == (0,)
    await room.close()


async def test_a_bot_leader_waits_while_the_human_holder_may_exchange(monkeypatch) -> None:
    monkeypatch.setattr(bot_driver, "EXCHANGE_WAIT_SECONDS", 0.4)
    with ThreadPoolExecutor(max_workers=1) as executor:
        room, (human,) = table(["bot", "human"], holder=1, executor=executor)
        assert human.seats == (1,) and legal_sent(human) == [EXCHANGE]
        room.schedule_bots()
        await asyncio.sleep(0.15)
        assert len(room.state.actions) == 1  # the bot has not led yet
        await act(room, human, "swap", room.version, EXCHANGE)
        await asyncio.wait_for(_until(lambda: room.state.trick), 5.0)
        done = [(seat, a.type) for seat, a in room.state.actions]
        assert done[:2] == [(0, "bid"), (1, "exchange")]
        assert done[-1] == (0, "play") and {seat for seat, _ in done[2:]} == {0}
        await room.close()


async def test_a_bot_leader_leads_once_the_wait_is_over(monkeypatch) -> None:
    monkeypatch.setattr(bot_driver, "EXCHANGE_WAIT_SECONDS", 0.2)
    with ThreadPoolExecutor(max_workers=1) as executor:
        room, (human,) = table(["bot", "human"], holder=1, executor=executor)
        room.schedule_bots()
        await asyncio.wait_for(_until(lambda: room.state.trick), 5.0)
        assert all(a.type != "exchange" for _, a in room.state.actions)
        assert room.state.exchanged == -1 and room.state.to_act == 1
        assert EXCHANGE not in legal_sent(human)  # the lead closed it: declined, unwritten
        await room.close()


async def _until(predicate: Any) -> None:
    while not predicate():
        await asyncio.sleep(0.01)
