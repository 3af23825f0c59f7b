"""``atout bench engine``: complete random deals and fast-path playouts per second."""

from __future__ import annotations

import json
import platform
import random
import time
from typing import Any

from .fast import playout, position_of
from .game import apply, legal_actions, new_match
from .state import Phase, State

CONFIGS: list[tuple[str, int | None, dict[str, Any]]] = [
    ("classic", 4, {}),
    ("coinche", 4, {}),
    ("bulgarian", 4, {}),
    ("bela", 2, {}),
    ("bela", 3, {}),
    ("bela", 4, {}),
    ("duel", 2, {}),
]


def random_deal(
    variant: str, players: int | None, options: dict[str, Any], rng: random.Random
) -> State:
    """One complete deal through the public API: deal, bidding, tricks and scoring."""
    state = new_match(variant, players, options, rng=rng)
    rand = rng.random  # a uniform pick: legal[int(rand() * n)]
    play = Phase.PLAY
    while True:
        phase = state.phase
        if phase is not play and phase in _ENDS:
            return state
        legal = legal_actions(state)
        state, _ = apply(state, legal[int(rand() * len(legal))])


_ENDS = (Phase.DEAL_OVER, Phase.MATCH_OVER)


def _play_phase_state(variant: str, players: int | None, rng: random.Random) -> State:
    while True:
        state = new_match(variant, players, rng=rng)
        while state.phase not in (Phase.PLAY, Phase.DEAL_OVER, Phase.MATCH_OVER):
            state, _ = apply(state, rng.choice(legal_actions(state)))
        if state.phase is Phase.PLAY:
            return state


def measure(seconds: float, fn: Any) -> float:
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            fn()
        count += 20
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start)


def bench_config(
    seconds: float, variant: str, players: int | None, options: dict[str, Any]
) -> tuple[float, float]:
    """(complete deals per second, fast-path playouts per second) for one configuration."""
    rng = random.Random(1)
    deals = measure(seconds, lambda: random_deal(variant, players, options, rng))
    starts = [position_of(_play_phase_state(variant, players, rng)) for _ in range(64)]
    i = 0

    def one_playout() -> None:
        nonlocal i
        playout(starts[i & 63], rng)
        i += 1

    return deals, measure(seconds, one_playout)


def run_engine_bench(seconds: float = 2.0, variants: list[str] | None = None) -> int:
    rows = []
    for variant, players, options in CONFIGS:
        if variants and variant not in variants:
            continue
        deals, playouts = bench_config(seconds, variant, players, options)
        name = f"{variant}" + (f"-{players}p" if variant == "bela" else "")
        rows.append(
            {"variant": name, "deals_per_s": round(deals), "playouts_per_s": round(playouts)}
        )
        print(f"{name:12s} {deals:10.0f} deals/s {playouts:12.0f} playouts/s", flush=True)
    print(
        json.dumps(
            {
                "python": platform.python_version(),
                "machine": platform.machine(),
                "processor": platform.processor() or platform.machine(),
                "results": rows,
            }
        )
    )
    return 0
