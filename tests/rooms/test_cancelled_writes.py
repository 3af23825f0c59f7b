"""A write that commits while its caller is cancelled is still applied (``Room.store``).

The commit queue shields a submitted write from its caller's cancellation, as it must: the
write may already be in the database. A caller cancelled at that moment (a stand-in whose
clock is rearmed because its player came back, a bot whose turn ended) used to stop before
applying the step, so the room's ``seq`` stayed behind its record and every later action of the
table collided with the stored one (UNIQUE ``actions.game_id, seq``): the table stalled.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from app.engine import action_to_json, current_player, legal_actions
from app.persistence.repository import RecordStep
from tests.rooms.harness import FakeWriter, act, services
from tests.rooms.test_room import holder, started


class GatedWriter(FakeWriter):
    """A commit queue whose writes wait at a gate, shielded from their caller as
    ``CommitQueue.submit`` shields them."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.gate.set()
        self.waiting = asyncio.Event()

    async def submit(self, work: Any) -> Any:
        async def write() -> None:
            self.waiting.set()
            await self.gate.wait()
            self.works.append(work)

        return await asyncio.shield(asyncio.ensure_future(write()))

    def action_seqs(self) -> list[int]:
        return [a.seq for w in self.works if isinstance(w, RecordStep) for a in w.actions]


async def test_an_action_whose_caller_is_cancelled_during_the_write_is_applied() -> None:
    writer = GatedWriter()
    room, listeners = await started("duel", service=services(writer=writer))
    seq, version = room.seq, room.version
    seat = current_player(room.state)
    player = holder(listeners, seat)
    writer.gate.clear()
    writer.waiting.clear()
    action = action_to_json(legal_actions(room.state)[0])
    task = asyncio.create_task(act(room, player, "m1", version, action))
    await writer.waiting.wait()
    task.cancel()
    await asyncio.sleep(0)
    writer.gate.set()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert task.cancelled()  # the cancellation is delivered, after the step is applied
    assert room.seq == seq + 1 and room.version == version + 1
    assert {"type": "ack", "id": "m1", "version": version + 1} in player.messages
    # the next action takes the next number: no two stored actions share one
    seat = current_player(room.state)
    await act(
        room,
        holder(listeners, seat),
        "m2",
        room.version,
        action_to_json(legal_actions(room.state)[0]),
    )
    seqs = writer.action_seqs()
    assert seqs[-2:] == [seq, seq + 1] and len(seqs) == len(set(seqs))


async def test_a_write_that_fails_while_its_caller_is_cancelled_changes_nothing() -> None:
    writer = GatedWriter()
    room, listeners = await started("duel", service=services(writer=writer))
    before = (room.seq, room.version, room.state)
    seat = current_player(room.state)
    writer.gate.clear()
    writer.waiting.clear()
    writer.fail = True
    original = writer.submit

    async def failing(work: Any) -> Any:
        await original(lambda s: None)  # waits at the gate, then refuses
        raise RuntimeError("disk full")

    writer.submit = failing  # type: ignore[method-assign]
    action = action_to_json(legal_actions(room.state)[0])
    task = asyncio.create_task(act(room, holder(listeners, seat), "m1", room.version, action))
    await writer.waiting.wait()
    task.cancel()
    await asyncio.sleep(0)
    writer.gate.set()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert task.cancelled()
    assert (room.seq, room.version, room.state) == before
