"""Byte identity of what the server sends, over seeded matches of every variant.

Random matches are played through the engine (the same seeds, the same choices among
``legal_actions``); every version is handed to a room's publisher exactly as the room does after
a commit, with listeners holding each seat, all seats (one device) and none (a spectator). For
each version the test hashes every text a listener receives, the views of every seat and of a
spectator, and the events; at the end of each match, the record. The hashes are compared with
``tests/data/golden/messages.json``. Every text is also validated against the protocol's
published JSON Schema (tests/schema.py).

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
from tests.schema import check_sent

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
    room.publish(state, events)


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
                for text in listener.texts[start:]:
                    check_sent(text)  # every frame is in the published schema
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


# ----------------------------------------------------------------- a room's commands
#
# Whole friends games through an in-process Room (tests/rooms/harness.py: recording listeners,
# a commit queue that keeps its works): joins, seat swaps and choices, refused commands of every kind,
# repeated ids, a disconnection and a resume, consents and the rematch. For each step the test
# hashes every text every listener received (``state``, ``update``, ``ack``, ``error``,
# ``room``, ``rematch``) and the answers of ``join``/``swap_seats``; compared with
# ``tests/data/golden/room.json``.

GOLDEN_ROOM = GOLDEN.parent / "room.json"

# (name, variant, players, options, seed, steps)
ROOM_CONFIGS: list[tuple[str, str, int | None, dict[str, Any], int, int]] = [
    ("classic", "classic", None, {"target": 501}, 21, 400),
    ("coinche", "coinche", None, {"target": 501}, 22, 400),
    ("bela3", "bela", 3, {"target": 501}, 23, 400),
    ("duel", "duel", None, {}, 24, 300),
]


async def _room_script(
    variant: str, players: int | None, options: dict[str, Any], seed: int, steps: int
) -> list[str]:
    from app.engine import action_to_json, current_player
    from app.rooms import CommandError
    from tests.rooms.harness import act, attach, make_room, services

    rng = random.Random(seed)
    # no countdown runs out during the script; its deadlines are read from a fixed clock
    room = make_room(
        variant, players, options=options, seed=seed, service=services(next_deal_seconds=600)
    )
    room.consents.clock = lambda: 1_800_000_000.0
    room.live.now = lambda: 1_800_000_000.0  # the seats' away times, read from the same clock
    room.live.loaded_at = room.live.now_ms()
    n = room.players
    listeners = [attach(room, 1), attach(room, 50)]  # the host, a spectator
    watcher = listeners[1]
    digests: list[str] = []
    answers: list[bytes] = []

    def snap(label: str) -> None:
        parts = [label.encode(), *answers]
        answers.clear()
        for listener in listeners:
            parts.append(f"{listener.identity_id}:{listener.seats}".encode())
            parts.extend(t.encode() for t in listener.texts)
            for text in listener.texts:
                check_sent(text)  # every frame is in the published schema
            listener.texts.clear()
        digests.append(_digest(parts))

    async def refused(coro: Any) -> None:
        try:
            answers.append(orjson.dumps(await coro, option=orjson.OPT_SORT_KEYS))
        except CommandError as exc:
            answers.append(f"{exc.code}: {exc.message}".encode())

    snap("attached")
    await refused(room.swap_seats(2, [(0, 1)]))  # not the host
    for identity in range(2, n + 1):
        if identity == n and n >= 3:
            await refused(room.swap_seats(1, [(1, n - 1)]))
            await refused(room.swap_seats(1, [(0, 7)]))
            host, guest = listeners[0], listeners[2]
            await room.set_seat(guest, n - 2, "bot", "easy", "g")  # not the host
            await room.set_seat(host, n - 1, "bot", "hard", "b")
            await room.set_seat(host, n - 1, "human", None, "h")
            await room.take_seat(guest, n - 1, None, "t")
            await room.take_seat(guest, 0, None, "t0")  # the host's
        joined = await room.join(identity, f"P{identity}")
        answers.append(f"{joined.role} {joined.seats}".encode())
        answers.append(orjson.dumps(joined.room, option=orjson.OPT_SORT_KEYS))
        listeners.append(attach(room, identity))
        snap(f"joined {identity}")
    late = await room.join(60, "Late")
    answers.append(f"{late.role} {late.seats}".encode())
    await refused(room.swap_seats(1, [(0, 1)]))  # too late
    snap("started")

    def holder(seat: int) -> Any:
        return next(x for x in listeners if seat in x.seats)

    for i in range(steps):
        state = room.state
        assert state is not None
        if state.phase is Phase.MATCH_OVER:
            break
        if room.consent_kind() == "next_deal":
            await room.consent(watcher, "next_deal", f"w{i}")
            for listener in listeners[2:] + listeners[:1]:
                await room.consent(listener, "next_deal", f"n{i}")
                await room.consent(listener, "rematch", f"r{i}")
            snap(f"consent {i}")
            continue
        seat = current_player(state)
        assert seat is not None
        actor = holder(seat)
        other = holder((seat + 1) % n)
        v = room.version
        k = i % 17
        if k == 3:
            await act(room, actor, f"s{i}", v - 1, {"type": "pass"})
        elif k == 5:
            await act(room, other, f"t{i}", v, {"type": "pass"})
        elif k == 7:
            await act(room, watcher, f"x{i}", v, {"type": "pass"})
        elif k == 9:
            await act(room, actor, f"i{i}", v, {"type": "play", "card": "7C"})
            await act(room, actor, f"j{i}", v, {"type": "double"})
        elif k == 11:
            await act(room, actor, f"b{i}", v, {"type": "bid", "contract": "H", "value": 85})
            await act(room, actor, f"d{i}", v, {"type": "play", "card": "ZZ"})
        elif k == 13:
            room.detach(other)
            await act(room, actor, f"p{i}", v, {"type": "pass"})
            room.attach(other)
            room.resume(other, max(0, v - 3))
            room.resume(other, v + 5)
        await room.set_level(actor, "hard", f"l{i}")
        action = action_to_json(rng.choice(legal_actions(state)))
        await act(room, actor, f"c{i}", v, action)
        if i % 11 == 0:
            await act(room, actor, f"c{i}", v, action)  # the same id again
        snap(f"step {i}")
    await room.hint(listeners[0], "h")
    if room.consent_kind() == "rematch":
        await act(room, listeners[0], "over", room.version, {"type": "pass"})
        for listener in [watcher, *listeners[2:], listeners[0]]:
            await room.consent(listener, "rematch", "again")
        snap("rematch")
    answers.append(orjson.dumps(room.record(1), option=orjson.OPT_SORT_KEYS))
    snap("end")
    return digests


def compute_room(name: str) -> list[str]:
    import asyncio

    _, variant, players, options, seed, steps = next(c for c in ROOM_CONFIGS if c[0] == name)
    return asyncio.run(_room_script(variant, players, options, seed, steps))


@pytest.mark.parametrize("name", [c[0] for c in ROOM_CONFIGS])
def test_room_messages_identical(name: str) -> None:
    golden = json.loads(GOLDEN_ROOM.read_text())[name]
    got = compute_room(name)
    for i, (a, b) in enumerate(zip(golden, got, strict=True)):
        assert a == b, f"{name}: step {i} differs from the golden data"


def main(argv: list[str]) -> int:
    if argv not in (["--write"], ["--write-room"]):
        print("usage: python -m tests.test_golden --write | --write-room", file=sys.stderr)
        return 2
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    if argv == ["--write"]:
        data = {c[0]: compute(c[0]) for c in CONFIGS}
        GOLDEN.write_text(json.dumps(data, indent=0) + "\n")
        print(f"wrote {GOLDEN}")
    rooms = {c[0]: compute_room(c[0]) for c in ROOM_CONFIGS}
    GOLDEN_ROOM.write_text(json.dumps(rooms, indent=0) + "\n")
    print(f"wrote {GOLDEN_ROOM}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
