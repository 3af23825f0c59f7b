"""Duplicate deals between two bot levels (``atout arena``).

Every deck is played several times with the levels' seats exchanged, so that the luck of
the cards cancels out:

* two sides (4-player partnerships, 2 players): the deck is played twice; level A holds
  side 0 then side 1, level B the other side.  The deck's figure is the mean over the two
  plays of (A's recorded points - B's recorded points) for the deal.
* three players (bela 3p, each for himself): deck *i* has a focus seat ``f = i mod 3``.
  It is played twice: once with A alone in seat f (B in the two other seats), once with
  B alone in seat f (A in the two others).  The deck's figure is seat f's points when A
  holds it minus its points when B holds it: the same cards, every seat's level swapped.
  Over the decks the focus seat rotates, so every seat (and every dealing position) is
  measured equally often.  It is a head-to-head: each level alone against two of the other,
  in the same seat with the same cards.  (An earlier scheme played six plays per deck and also
  counted plays where a seat's level had an ally of its own level at the table, a different
  mix; its figures are not comparable with these.)

Each play is one deal of a fresh match (same deck, same dealer), scored by the engine as
a real deal would be (without a reserve from earlier deals); a thrown-in deal scores 0.
The report gives the mean difference per deck with a 95% confidence interval (normal
approximation, 1.96 standard errors over decks), the rate of contracts made by each
level as taker, and each level's decision times (p50/p95/max over decisions with a real
choice, i.e. more than one legal action), both as the CPU time of the deciding process
(what one core spends, whatever else the machine runs) and as wall-clock time.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from app.engine import Phase, action_from_json, apply, new_match, next_to_move, seat_view

from . import choose_action


@dataclass
class PlayResult:
    points: list[int]  # recorded points per seat's side, per seat
    taker: int | None
    made: bool | None
    thrown_in: bool
    times: dict[str, list[float]] = field(default_factory=dict)  # wall-clock seconds
    cpu: dict[str, list[float]] = field(default_factory=dict)  # CPU seconds


@dataclass
class DeckResult:
    index: int
    diff: float
    contracts: dict[str, list[int]]  # level -> [taken, made]
    thrown_in: int
    times: dict[str, list[float]]
    cpu: dict[str, list[float]]


def focus_seat(players: int, index: int) -> int | None:
    """Bela 3p: the seat whose points deck ``index`` measures."""
    return index % 3 if players == 3 else None


def seatings(players: int, a: str, b: str, index: int = 0) -> list[list[str]]:
    """The level at each seat, for each play of deck ``index``."""
    if players == 3:
        f = index % 3
        return [[a if x == f else b for x in range(3)], [b if x == f else a for x in range(3)]]
    if players == 4:
        return [[a, b, a, b], [b, a, b, a]]
    return [[a, b], [b, a]]


def play_one(
    variant: str,
    players: int,
    options: dict[str, Any],
    deck: list[int],
    dealer: int,
    levels: list[str],
    seed: int,
    budget_ms: float | None,
) -> PlayResult:
    state = new_match(variant, players, options, seed=seed, first_dealer=dealer, deck=deck)
    rngs = [random.Random(seed * 31 + s) for s in range(players)]
    times: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    while state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER):
        seat = next_to_move(state)
        assert seat is not None
        view = seat_view(state, seat)
        c0 = time.thread_time()
        t0 = time.perf_counter()
        action = choose_action(view, levels[seat], rngs[seat], budget_ms=budget_ms)
        dt = time.perf_counter() - t0
        dc = time.thread_time() - c0
        if len(view["legal"]) > 1:
            times.setdefault(levels[seat], []).append(dt)
            cpu.setdefault(levels[seat], []).append(dc)
        state, _ = apply(state, action_from_json(action), seat)
    result = state.results[-1]
    side_of = state.rules.side_of
    if result.thrown_in or result.score is None:
        return PlayResult([0] * players, None, None, True, times, cpu)
    rec = result.score.recorded
    taker = result.contract.taker if result.contract else None
    return PlayResult(
        [rec[side_of[s]] for s in range(players)],
        taker,
        result.score.outcome == "made",
        False,
        times,
        cpu,
    )


def play_deck(args: tuple[Any, ...]) -> DeckResult:
    variant, players, options, a, b, seed, index, budget_ms = args
    rng = random.Random(f"{seed}:{index}")
    deck = list(range(32))
    rng.shuffle(deck)
    dealer = rng.randrange(players)
    plays = seatings(players, a, b, index)
    results = []
    for p, levels in enumerate(plays):
        results.append(
            play_one(
                variant,
                players,
                options,
                deck,
                dealer,
                levels,
                seed * 1000003 + index * 10 + p,
                budget_ms,
            )
        )
    contracts: dict[str, list[int]] = {a: [0, 0], b: [0, 0]}
    times: dict[str, list[float]] = {a: [], b: []}
    cpu: dict[str, list[float]] = {a: [], b: []}
    thrown = 0
    for levels, r in zip(plays, results, strict=True):
        for lv, ts in r.times.items():
            times[lv].extend(ts)
        for lv, ts in r.cpu.items():
            cpu[lv].extend(ts)
        if r.thrown_in:
            thrown += 1
            continue
        if r.taker is not None:
            lv = levels[r.taker]
            contracts[lv][0] += 1
            contracts[lv][1] += int(bool(r.made))
    f = focus_seat(players, index)
    if f is not None:
        diff = float(results[0].points[f] - results[1].points[f])
    else:
        diffs = []
        for levels, r in zip(plays, results, strict=True):
            sa = next(s for s in range(players) if levels[s] == a)
            sb = next(s for s in range(players) if levels[s] == b)
            diffs.append(r.points[sa] - r.points[sb])
        diff = sum(diffs) / len(diffs)
    return DeckResult(index, diff, contracts, thrown, times, cpu)


def percentile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    i = min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))
    return s[i]


def run(
    variant: str,
    players: int,
    options: dict[str, Any],
    a: str,
    b: str,
    deals: int,
    seed: int,
    workers: int = 1,
    budget_ms: float | None = None,
    progress: Callable[[int, float], None] | None = None,
) -> dict[str, Any]:
    tasks = [(variant, players, options, a, b, seed, i, budget_ms) for i in range(deals)]
    start = time.perf_counter()
    results: list[DeckResult] = []
    for r in _map(tasks, workers):
        results.append(r)
        if progress is not None:
            progress(len(results), sum(x.diff for x in results) / len(results))
    elapsed = time.perf_counter() - start
    diffs = [r.diff for r in results]
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n > 1 else float("inf")
    contracts = {a: [0, 0], b: [0, 0]}
    times: dict[str, list[float]] = {a: [], b: []}
    cpu: dict[str, list[float]] = {a: [], b: []}
    thrown = 0
    for r in results:
        thrown += r.thrown_in
        for lv in (a, b):
            contracts[lv][0] += r.contracts[lv][0]
            contracts[lv][1] += r.contracts[lv][1]
            times[lv].extend(r.times[lv])
            cpu[lv].extend(r.cpu[lv])
    return {
        "variant": variant,
        "players": players,
        "options": options,
        "a": a,
        "b": b,
        "deals": n,
        "plays_per_deal": len(seatings(players, a, b)),
        "seed": seed,
        "budget_ms": budget_ms,
        "mean_diff": mean,
        "ci95": [mean - half, mean + half],
        "sd": sd,
        "thrown_in_plays": thrown,
        "contracts": {
            lv: {"taken": t, "made": m, "rate": (m / t if t else None)}
            for lv, (t, m) in contracts.items()
        },
        "decision_ms": {lv: _summary(ts) for lv, ts in times.items()},
        "decision_cpu_ms": {lv: _summary(ts) for lv, ts in cpu.items()},
        "elapsed_s": elapsed,
        "workers": workers,
    }


def _summary(ts: list[float]) -> dict[str, float]:
    return {
        "decisions": len(ts),
        "p50": percentile(ts, 0.5) * 1000,
        "p95": percentile(ts, 0.95) * 1000,
        "max": (max(ts) * 1000 if ts else float("nan")),
    }


def _map(tasks: list[tuple[Any, ...]], workers: int) -> Iterator[DeckResult]:
    if workers <= 1:
        for t in tasks:
            yield play_deck(t)
        return
    import multiprocessing as mp

    from . import warm_up

    ctx = mp.get_context("spawn")
    with ctx.Pool(workers, initializer=warm_up) as pool:
        yield from pool.imap_unordered(play_deck, tasks, chunksize=1)


def format_report(r: dict[str, Any]) -> str:
    a, b = r["a"], r["b"]
    lines = [
        f"arena {r['variant']} {r['players']}p: {a} (A) vs {b} (B), {r['deals']} duplicate deals "
        f"x {r['plays_per_deal']} plays, seed {r['seed']}, {r['workers']} worker(s), "
        f"{r['elapsed_s']:.0f} s",
        f"  A - B per deal: {r['mean_diff']:+.2f}  95% CI [{r['ci95'][0]:+.2f}, {r['ci95'][1]:+.2f}]"
        f"  (sd {r['sd']:.1f}; thrown-in plays {r['thrown_in_plays']})",
    ]
    for lv in (a, b):
        c = r["contracts"][lv]
        rate = f"{100 * c['rate']:.1f}%" if c["rate"] is not None else "-"
        t = r["decision_cpu_ms"][lv]
        w = r["decision_ms"][lv]
        lines.append(
            f"  {lv:6s} contracts made {c['made']}/{c['taken']} ({rate}); decisions {t['decisions']}: "
            f"CPU p50 {t['p50']:.1f} ms, p95 {t['p95']:.1f} ms, max {t['max']:.1f} ms"
            f" (wall p95 {w['p95']:.1f} ms, max {w['max']:.1f} ms)"
        )
    return "\n".join(lines)


def to_json(r: dict[str, Any]) -> str:
    return json.dumps(r, sort_keys=True)
