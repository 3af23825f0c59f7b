"""``atout bench publish``: what a room spends to send one version to its listeners.

A random match of the variant is played through the engine first (not timed); then its states
are handed, version after version, to ``Room.publish`` of a room with one listener per seat,
exactly as the room does after a commit (its publisher makes and sends the texts): the common
view made from the previous one, each seat's changed fields, the events each listener may see,
one JSON text per seats tuple. The listeners only count the bytes. Each round starts from fresh states (no view cached on them).

    atout bench publish --variant classic --versions 2000 --rounds 5
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

from app.engine import (
    Event,
    InvalidAction,
    Phase,
    State,
    apply,
    legal_actions,
    new_match,
    start_deal,
)
from app.engine.views import clear_view_cache

SubParsers = Any


class _Listener:
    def __init__(self, identity_id: int, seats: tuple[int, ...]) -> None:
        self.identity_id = identity_id
        self.seats = seats
        self.bytes = 0
        self.messages = 0
        self.closed: tuple[int, str] | None = None

    def send(self, text: str) -> None:
        self.bytes += len(text)
        self.messages += 1

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)  # a room closes a listener only on trouble: checked below


def _versions(
    variant: str, players: int | None, count: int, seed: int
) -> list[tuple[State, list[Event]]]:
    """``count`` consecutive versions of random matches (a new match after each one ends)."""
    rng = random.Random(seed)
    state = new_match(variant, players, rng=rng)
    out: list[tuple[State, list[Event]]] = [(state, [])]
    while len(out) < count:
        if state.phase is Phase.MATCH_OVER:
            state = new_match(variant, players, rng=rng)
            out.append((state, []))
            continue
        if state.phase is Phase.DEAL_OVER:
            state, events = start_deal(state, rng)
        else:
            state, events = apply(state, rng.choice(legal_actions(state)))
        out.append((state, events))
    return out


def _round(variant: str, n: int, versions: list[tuple[State, list[Event]]]) -> tuple[float, int]:
    from app.rooms.model import Mode, Seat, SeatKind, Status
    from app.rooms.room import Room

    room = Room(
        services=None,  # type: ignore[arg-type]  # publish uses no service
        game_id="bench",
        variant=variant,
        players=n,
        options={},
        mode=Mode.FRIENDS,
        status=Status.PLAYING,
        spectators_allowed=True,
        host_id=1,
        seats=[Seat(seat, SeatKind.HUMAN, seat + 1) for seat in range(n)],
    )
    listeners = [_Listener(seat + 1, (seat,)) for seat in range(n)]
    room.listeners.update(listeners)
    for state, _ in versions:
        clear_view_cache(state)  # as fresh as a state the engine just made
    started = time.perf_counter()
    for state, events in versions:
        room.publish(state, events)
    elapsed = time.perf_counter() - started
    closed = [listener.closed for listener in listeners if listener.closed is not None]
    if closed:
        raise RuntimeError(f"the room closed a listener during the bench: {closed[0]}")
    return elapsed, sum(listener.bytes for listener in listeners)


def run_publish_bench(
    variant: str, players: int | None, count: int, rounds: int, seed: int = 1
) -> dict[str, Any]:
    versions = _versions(variant, players, count, seed)
    n = versions[0][0].rules.players
    times = []
    sent = 0
    for _ in range(rounds):
        elapsed, sent = _round(variant, n, versions)
        times.append(elapsed)
    best = min(times)
    return {
        "variant": variant,
        "players": n,
        "versions": len(versions),
        "rounds": rounds,
        "us_per_version_best": round(1e6 * best / len(versions), 1),
        "us_per_version_median": round(1e6 * sorted(times)[len(times) // 2] / len(versions), 1),
        "bytes_per_version": round(sent / len(versions)),
    }


def add_bench(bench: SubParsers) -> None:
    """Add ``publish`` under ``atout bench``."""
    p = bench.add_parser(
        "publish",
        help="a room's cost to send one version to every seat (views, changes, JSON)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("--variant", default="classic", help="variant (default classic)")
    p.add_argument("--players", type=int, help="bela: 2, 3 or 4 players")
    p.add_argument("--versions", type=int, default=2000, help="versions per round (default 2000)")
    p.add_argument("--rounds", type=int, default=5, help="rounds; the best is reported (default 5)")
    p.set_defaults(func=cmd_bench_publish)


def cmd_bench_publish(args: argparse.Namespace) -> int:
    if args.versions < 2 or args.rounds < 1:
        print("atout: --versions >= 2, --rounds >= 1", file=sys.stderr)
        return 2
    try:
        result = run_publish_bench(args.variant, args.players, args.versions, args.rounds)
    except (InvalidAction, ValueError, RuntimeError) as exc:
        print(f"atout: {exc}", file=sys.stderr)
        return 2
    print(
        f"{result['variant']} ({result['players']} seats): "
        f"{result['us_per_version_best']} us per version (best of {result['rounds']}), "
        f"median {result['us_per_version_median']} us, {result['bytes_per_version']} bytes sent"
    )
    print(json.dumps(result))
    return 0
