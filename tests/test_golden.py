"""Byte identity of what the server sends, over seeded matches of every variant.

Random matches are played through the engine (the same seeds, the same choices among
``legal_actions``); every version is handed to a room's publisher exactly as the room does after
a commit, with listeners holding each seat, all seats (one device) and none (a spectator). For
each version the test hashes every text a listener receives, the views of every seat and of a
spectator, and the events; at the end of each match, the record. The hashes are compared with
``tests/data/golden/messages.json``.

A refactoring must leave this test passing with the data unchanged. The data is regenerated
(``python -m tests.test_golden --write``) only for a deliberate change of what is sent, and the
commit that does it says which change. The construction of the room below may be adapted to the
room's code; the played games and what is hashed may not.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from app.engine import Phase, State, apply, legal_actions, new_match, seat_view, spectator_view
from app.engine.game import start_deal
from app.engine.record import dump

GOLDEN = Path(__file__).parent / "data" / "golden" / "messages.json"

# (name, variant, players, options, seeds, versions per seed)
CONFIGS: list[tuple[str, str, int | None, dict[str, Any], tuple[int, ...], int]] = [
    ("classic", "classic", None, {}, (1, 2), 700),
    ("classic-sans", "classic", None, {"declarations": False}, (3,), 500),
    ("classic-free", "classic", None, {"bidding_mode": "free"}, (4,), 500),
    ("coinche", "coinche", None, {}, (5, 6), 700),
    ("bulgarian", "bulgarian", None, {}, (7, 8), 700),
    ("bela2", "bela", 2, {}, (9,), 600),
    ("bela3", "bela", 3, {}, (10,), 600),
    ("bela4", "bela", 4, {}, (11,), 600),
    ("duel", "duel", None, {}, (12, 13), 600),
]


class _Listener:
    def __init__(self, identity_id: int, seats: tuple[int, ...]) -> None:
        self.identity_id = identity_id
        self.seats = seats
        self.texts: list[str] = []
        self.closed: tuple[int, str] | None = None

    def send(self, text: str) -> None:
        self.texts.append(text)

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


def _room(variant: str, n: int, options: dict[str, Any]) -> Any:
    from app.rooms.room import Room, Seat

    return Room(
        services=None,  # type: ignore[arg-type]  # publishing uses no service
        game_id="golden",
        variant=variant,
        players=n,
        options=options,
        mode="friends",
        status="playing",
        spectators_allowed=True,
        host_id=1,
        seats=[Seat(seat, "human", seat + 1) for seat in range(n)],
    )


def _publish(room: Any, state: State, events: list[Any]) -> None:
    room._publish(state, events)


def _digest(parts: list[bytes]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()[:16]


def _play(variant: str, players: int | None, options: dict[str, Any], seed: int, count: int):
    """Yield (state, events) for ``count`` versions of seeded random matches."""
    rng = random.Random(seed)
    state = new_match(variant, players, options, rng=rng)
    yield state, []
    produced = 1
    while produced < count:
        if state.phase is Phase.MATCH_OVER:
            yield None, [state]  # a match ended: its record is hashed
            state = new_match(variant, players, options, rng=rng)
            yield state, []
        elif state.phase is Phase.DEAL_OVER:
            state, events = start_deal(state, rng)
            yield state, events
        else:
            state, events = apply(state, rng.choice(legal_actions(state)))
            yield state, events
        produced += 1
    yield None, [state]


def compute(name: str) -> dict[str, Any]:
    _, variant, players, options, seeds, count = next(c for c in CONFIGS if c[0] == name)
    out: dict[str, Any] = {}
    for seed in seeds:
        versions: list[str] = []
        records: list[str] = []
        room = None
        listeners: list[_Listener] = []
        for state, extra in _play(variant, players, options, seed, count):
            if state is None:
                final = extra[0]
                records.append(_digest([orjson.dumps(dump(final), option=orjson.OPT_SORT_KEYS)]))
                room = None
                continue
            n = state.rules.players
            if room is None:
                room = _room(variant, n, options)
                listeners = [_Listener(s + 1, (s,)) for s in range(n)]
                listeners.append(_Listener(99, tuple(range(n))))  # one device, every seat
                listeners.append(_Listener(100, ()))  # a spectator
                room.listeners.update(listeners)
            before = [len(listener.texts) for listener in listeners]
            # the engine's views first (as a client's first "state" would carry them) ...
            parts = [orjson.dumps(spectator_view(state), option=orjson.OPT_SORT_KEYS)]
            parts += [
                orjson.dumps(seat_view(state, s), option=orjson.OPT_SORT_KEYS) for s in range(n)
            ]
            parts += [orjson.dumps(e.to_json(), option=orjson.OPT_SORT_KEYS) for e in extra]
            parts.append(repr([e.to for e in extra]).encode())
            # ... then what the room sends every listener for this version
            _publish(room, state, extra)
            for listener, start in zip(listeners, before, strict=True):
                assert listener.closed is None, listener.closed
                parts.append(str(listener.seats).encode())
                parts.extend(text.encode() for text in listener.texts[start:])
            versions.append(_digest(parts))
        out[str(seed)] = {"versions": versions, "records": records}
    return out


def _load() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("name", [c[0] for c in CONFIGS])
def test_messages_identical(name: str) -> None:
    golden = _load()[name]
    got = compute(name)
    for seed, expected in golden.items():
        mine = got[seed]
        for i, (a, b) in enumerate(zip(expected["versions"], mine["versions"], strict=True)):
            assert a == b, f"{name} seed {seed}: version {i} differs from the golden data"
        assert expected["records"] == mine["records"], f"{name} seed {seed}: records differ"


def main(argv: list[str]) -> int:
    if argv != ["--write"]:
        print("usage: python -m tests.test_golden --write", file=sys.stderr)
        return 2
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    data = {c[0]: compute(c[0]) for c in CONFIGS}
    GOLDEN.write_text(json.dumps(data, indent=0) + "\n")
    print(f"wrote {GOLDEN}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
