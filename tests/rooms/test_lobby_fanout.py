"""The lobby's fan-out (app/rooms/lobby.py ``_fanout``): every watcher gets every message in
order; the messages that wait while a round is written go out together in the next one."""

from __future__ import annotations

import asyncio

import orjson

from app.rooms.lobby import FANOUT_CHUNK, Lobby


class Recorder:
    def __init__(self, identity_id: int) -> None:
        self.identity_id = identity_id
        self.rounds: list[tuple[list[int], bytes | None]] = []

    def deliver(self, texts: list[str], frames: bytes | None) -> None:
        self.rounds.append(([orjson.loads(t)["online"] for t in texts], frames))


def counts(online: int) -> dict[str, object]:
    return {"type": "lobby_counts", "online": online, "playing": 0}


async def test_changes_made_during_a_round_go_out_together_and_in_order() -> None:
    lobby = Lobby(None, lambda game_id: game_id)  # type: ignore[arg-type]
    lobby.encode = lambda text: f"<{text}>".encode()
    watchers = [Recorder(i) for i in range(2 * FANOUT_CHUNK + 1)]  # three chunks
    lobby.watchers.update(watchers)
    lobby._push(counts(1))
    await asyncio.sleep(0)  # the first round writes its first chunk, then pauses
    lobby._push(counts(2))
    lobby._push(counts(3))
    assert lobby._fanning is not None
    await lobby._fanning
    assert not lobby._outbox
    for w in watchers:
        assert [online for online, _ in w.rounds] == [[1], [2, 3]], w.rounds
        joined = w.rounds[1][1]
        assert joined is not None and joined.count(b"<") == 2  # the two frames, one write


async def test_a_lobby_without_watchers_queues_nothing() -> None:
    lobby = Lobby(None, lambda game_id: game_id)  # type: ignore[arg-type]
    lobby._push(counts(1))
    assert not lobby._outbox and lobby._fanning is None
