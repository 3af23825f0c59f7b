"""The one scripted table client (bench/table_client.py): what a socket keeps of its table, and
the player that the load, lobby and soak benchmarks run, fed scripted messages."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import orjson
import pytest

from bench.table_client import AutoPlayer, OutOfOrder, TableState


def test_a_state_then_updates_are_merged_and_checked_in_order():
    table = TableState()
    table.seen(
        {
            "type": "state",
            "version": 4,
            "view": {"phase": "bidding", "hand": ["7H"]},
            "room": {"paused": False},
            "seats_you_hold": [2],
            "role": "seat",
        }
    )
    assert (table.version, table.seats, table.role) == (4, [2], "seat")
    assert (
        table.seen({"type": "update", "version": 5, "view": {"phase": "play"}, "events": []})
        == "update"
    )
    assert table.view == {"phase": "play", "hand": ["7H"]}  # a field left out stays
    table.seen({"type": "room", "room": {"paused": True}})
    assert table.room == {"paused": True}
    with pytest.raises(OutOfOrder):
        table.seen({"type": "update", "version": 7, "view": {}, "events": []})
    table.seen({"type": "update", "version": 7, "view": {}, "events": []}, strict=False)
    assert table.version == 7


def test_a_socket_with_several_seats_keeps_one_view_per_seat():
    table = TableState()
    table.seen(
        {
            "type": "state",
            "version": 1,
            "view": {"seat": 0, "legal": []},
            "views": {"0": {"seat": 0, "legal": []}, "1": {"seat": 1, "legal": [{"type": "pass"}]}},
            "room": {},
            "seats_you_hold": [0, 1],
            "role": "seat",
        }
    )
    assert table.my_turn_seat() == 1 and table.legal(1) == [{"type": "pass"}]
    table.seen(
        {
            "type": "update",
            "version": 2,
            "view": {},
            "events": [],
            "views": {"0": {}, "1": {"legal": []}},
        }
    )
    assert table.my_turn_seat() is None


class ScriptedSocket:
    """A socket that hands out scripted messages (letting the player's tasks run between
    them), then closes; it keeps what the player sends."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = list(messages)
        self.sent: list[dict[str, Any]] = []

    async def recv(self) -> bytes:
        for _ in range(5):
            await asyncio.sleep(0)
        if not self.messages:
            raise ConnectionError("closed")
        return orjson.dumps(self.messages.pop(0))

    async def send(self, text: str) -> None:
        self.sent.append(json.loads(text))


ROOM = {"game_id": "g1", "paused": False, "consent": None, "next_deal": None}


async def test_the_player_acts_once_per_version_and_continues_once_per_deal():
    legal = [{"type": "pass"}, {"type": "bid", "denom": "H"}]
    deal_over = {**ROOM, "next_deal": {"waiting_for": [0, 2], "deadline": None}}
    ws = ScriptedSocket(
        [
            {
                "type": "state",
                "version": 3,
                "view": {"legal": legal, "results": []},
                "room": ROOM,
                "seats_you_hold": [0],
                "role": "seat",
            },
            {"type": "ack", "id": "t1", "version": 4},
            {"type": "update", "version": 4, "view": {"legal": [], "results": [{}]}, "events": []},
            {"type": "room", "room": deal_over},
            {"type": "room", "room": deal_over},  # the same deal's wait again: no second Continue
        ]
    )
    player = AutoPlayer(random.Random(1), 0.0, "t")
    acks: list[int] = []
    player.on_ack = lambda msg: acks.append(msg["version"])  # type: ignore[method-assign]
    with pytest.raises(ConnectionError):
        await player.play(ws)
    actions = [m for m in ws.sent if m["type"] == "action"]
    assert len(actions) == 1 and actions[0]["version"] == 3 and actions[0]["action"] in legal
    assert actions[0]["id"] == "t1" and acks == [4]
    assert [m for m in ws.sent if m["type"] == "consent"] == [
        {"type": "consent", "kind": "next_deal"}
    ]


async def test_the_player_agrees_to_a_rematch_and_follows_it_or_stops_at_the_end():
    over = {**ROOM, "consent": {"kind": "rematch", "agreed": [], "needed": [0]}}
    script = [
        {
            "type": "state",
            "version": 9,
            "view": {"phase": "match_over", "legal": []},
            "room": over,
            "seats_you_hold": [0],
            "role": "seat",
        },
        {"type": "rematch", "game_id": "g2", "url": "/g/g2"},
    ]
    ws = ScriptedSocket(script)
    assert await AutoPlayer(random.Random(1), 0.0, "t").play(ws) == "g2"
    assert ws.sent == [{"type": "consent", "kind": "rematch"}]
    ws = ScriptedSocket(script)
    done = AutoPlayer(random.Random(1), 0.0, "t")
    done.stop_at_match_over = True
    assert await done.play(ws) is None and ws.sent == []
