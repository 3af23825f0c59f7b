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

Partner mode (4 players): a side may be two levels, ``hard+medium``: the first named level sits
in the side's first seat (seat 0 or 1), the partner in the other (seat 2 or 3).  A plain level
means both seats.  The deck is still played twice with the sides exchanged, so A's first level
holds the very cards B's first level held (and the partners likewise): ``--a hard+medium --b
medium+medium`` measures what putting hard in one seat does for a medium partner.  Pairs need
two sides of two: the 2- and 3-player variants refuse them.

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
from bench.levels import ARENA_LEVELS, choose_action


@dataclass
class PlayResult:
    points: list[int]  # recorded points per seat's side, per seat
    taker: int | None
    made: bool | None
    thrown_in: bool
    times: dict[str, list[float]] = field(default_factory=dict)  # wall-clock seconds
    cpu: dict[str, list[float]] = field(default_factory=dict)  # CPU seconds
    winner: int | None = None  # a seat of the side the deal's outcome favours
    seat_times: list[list[float]] = field(default_factory=list)  # wall-clock seconds per seat
    seat_cpu: list[list[float]] = field(default_factory=list)  # CPU seconds per seat


@dataclass
class DeckResult:
    index: int
    diff: float
    contracts: dict[str, list[int]]  # level -> [taken, made]
    thrown_in: int
    times: dict[str, list[float]]
    cpu: dict[str, list[float]]
    # side label -> seat level -> CPU seconds (the partner mode's per-level figures)
    cpu_levels: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    # two sides: per play, (A's recorded points, B's, 1 if the deal's outcome went to A, 0 if
    # to B, None if thrown in or undecided)
    plays: list[tuple[int, int, int | None]] = field(default_factory=list)


def focus_seat(players: int, index: int) -> int | None:
    """Bela 3p: the seat whose points deck ``index`` measures."""
    return index % 3 if players == 3 else None


def side_levels(side: str) -> tuple[str, str]:
    """``"hard+medium"`` -> ``("hard", "medium")``; a plain ``"hard"`` -> ``("hard", "hard")``."""
    parts = side.split("+")
    if len(parts) == 1:
        return parts[0], parts[0]
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"{side!r}: a side is one level or two joined by +, like hard+medium")
    return parts[0], parts[1]


def level_budget(level: str, budget_ms: float | None) -> tuple[str, float | None]:
    """``"hard@200"`` -> ``("hard", 200.0)``: a hard level with its own work budget per
    decision (ms of work on the reference machine, ``hard.make_budget``); a plain level keeps
    the run's ``budget_ms``."""
    name, at, ms = level.partition("@")
    if not at:
        return level, budget_ms
    try:
        value = float(ms)
    except ValueError:
        value = -1.0
    if not name.startswith("hard") or not 0 < value <= 10_000:
        raise ValueError(
            f"{level!r}: a budget goes with a hard level, in ms between 0 and 10000, like hard@200"
        )
    return name, value


def check_sides(players: int, a: str, b: str) -> None:
    """ValueError unless ``a`` and ``b`` are sides the arena can seat at ``players``."""
    for side in (a, b):
        first, partner = side_levels(side)
        for level in (first, partner):
            name, _ = level_budget(level, None)
            if name not in ARENA_LEVELS:
                raise ValueError(
                    f"unknown level {level!r} in {side!r}; one of {', '.join(ARENA_LEVELS)}"
                )
        if "+" in side and players != 4:
            raise ValueError(
                f"{side!r}: a pair of levels needs two sides of two players (a 4-player "
                f"variant); with {players} players give one level per side"
            )


def layout(players: int, index: int = 0) -> list[list[int]]:
    """For each play of deck ``index``: which side (0 = A, 1 = B) holds each seat."""
    if players == 3:
        f = index % 3
        return [[0 if x == f else 1 for x in range(3)], [1 if x == f else 0 for x in range(3)]]
    if players == 4:
        return [[0, 1, 0, 1], [1, 0, 1, 0]]
    return [[0, 1], [1, 0]]


def seatings(players: int, a: str, b: str, index: int = 0) -> list[list[str]]:
    """The level at each seat, for each play of deck ``index``.

    4 players: a side's first level takes the side's first seat (0 or 1), its partner the
    other (2 or 3)."""
    if "+" in a or "+" in b:
        check_sides(players, a, b)
    pairs = (side_levels(a), side_levels(b))
    out = []
    for sides in layout(players, index):
        out.append([pairs[side][0 if seat < 2 else 1] for seat, side in enumerate(sides)])
    return out


def play_one(
    variant: str,
    players: int,
    options: dict[str, Any],
    deck: list[int],
    dealer: int,
    levels: list[str],
    seed: int,
    budget_ms: float | None,
    bid_level: str | None = None,
) -> PlayResult:
    state = new_match(variant, players, options, seed=seed, first_dealer=dealer, deck=deck)
    rngs = [random.Random(seed * 31 + s) for s in range(players)]
    times: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    seat_times: list[list[float]] = [[] for _ in range(players)]
    seat_cpu: list[list[float]] = [[] for _ in range(players)]
    while state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER):
        seat = next_to_move(state)
        assert seat is not None
        view = seat_view(state, seat)
        c0 = time.thread_time()
        t0 = time.perf_counter()
        level, ms = level_budget(levels[seat], budget_ms)
        fixed = bid_level is not None and state.phase == Phase.BIDDING
        if fixed and bid_level is not None:  # fixed implies bid_level; said for the checker
            level, ms = level_budget(bid_level, budget_ms)  # the card play alone differs
        action = choose_action(view, level, rngs[seat], budget_ms=ms)
        dt = time.perf_counter() - t0
        dc = time.thread_time() - c0
        if len(view["legal"]) > 1 and not fixed:
            times.setdefault(levels[seat], []).append(dt)
            cpu.setdefault(levels[seat], []).append(dc)
            seat_times[seat].append(dt)
            seat_cpu[seat].append(dc)
        state, _ = apply(state, action_from_json(action), seat)
    result = state.results[-1]
    side_of = state.rules.side_of
    if result.thrown_in or result.score is None:
        return PlayResult(
            [0] * players, None, None, True, times, cpu, seat_times=seat_times, seat_cpu=seat_cpu
        )
    rec = result.score.recorded
    taker = result.contract.taker if result.contract else None
    made = result.score.outcome == "made"
    winner = None
    if taker is not None and result.score.outcome in ("made", "failed"):
        # the side the outcome favours: the taker's if made, else (two sides) the other one
        winner = taker if made else next(s for s in range(players) if side_of[s] != side_of[taker])
    return PlayResult(
        [rec[side_of[s]] for s in range(players)],
        taker,
        made,
        False,
        times,
        cpu,
        winner=winner,
        seat_times=seat_times,
        seat_cpu=seat_cpu,
    )


def deck_seed(seed: int, index: int) -> int:
    """The seed of both plays of deck ``index``: the match's, and through it each seat's
    generator (``play_one``)."""
    return seed * 1000003 + index * 10


def play_deck(args: tuple[Any, ...]) -> DeckResult:
    variant, players, options, a, b, seed, index, budget_ms, *rest = args
    bid_level = rest[0] if rest else None
    deadline = rest[1] if len(rest) > 1 else True
    from app.bots import hard

    before = hard.WALL_DEADLINE
    hard.WALL_DEADLINE = deadline
    try:
        return _play_deck(variant, players, options, a, b, seed, index, budget_ms, bid_level)
    finally:
        hard.WALL_DEADLINE = before


def _play_deck(
    variant: str,
    players: int,
    options: dict[str, Any],
    a: str,
    b: str,
    seed: int,
    index: int,
    budget_ms: float | None,
    bid_level: str | None,
) -> DeckResult:
    rng = random.Random(f"{seed}:{index}")
    deck = list(range(32))
    rng.shuffle(deck)
    dealer = rng.randrange(players)
    plays = seatings(players, a, b, index)
    sides = layout(players, index)
    labels = (a, b)
    results = []
    # Common random numbers: both plays of the deck give each seat the same generator, so two
    # levels that decide alike play the deck alike and their difference is exactly 0.
    for levels in plays:
        results.append(
            play_one(
                variant,
                players,
                options,
                deck,
                dealer,
                levels,
                deck_seed(seed, index),
                budget_ms,
                bid_level,
            )
        )
    contracts: dict[str, list[int]] = {a: [0, 0], b: [0, 0]}
    times: dict[str, list[float]] = {a: [], b: []}
    cpu: dict[str, list[float]] = {a: [], b: []}
    cpu_levels: dict[str, dict[str, list[float]]] = {
        a: {lv: [] for lv in side_levels(a)},
        b: {lv: [] for lv in side_levels(b)},
    }
    thrown = 0
    for levels, seated, r in zip(plays, sides, results, strict=True):
        for s in range(players):
            label = labels[seated[s]]
            times[label].extend(r.seat_times[s])
            cpu[label].extend(r.seat_cpu[s])
            cpu_levels[label][levels[s]].extend(r.seat_cpu[s])
        if r.thrown_in:
            thrown += 1
            continue
        if r.taker is not None:
            label = labels[seated[r.taker]]
            contracts[label][0] += 1
            contracts[label][1] += int(bool(r.made))
    f = focus_seat(players, index)
    deck_plays: list[tuple[int, int, int | None]] = []
    if f is not None:
        diff = float(results[0].points[f] - results[1].points[f])
    else:
        diffs = []
        for seated, r in zip(sides, results, strict=True):
            sa = seated.index(0)
            sb = seated.index(1)
            diffs.append(r.points[sa] - r.points[sb])
            won = None if r.winner is None else int(seated[r.winner] == 0)
            deck_plays.append((r.points[sa], r.points[sb], won))
        diff = sum(diffs) / len(diffs)
    return DeckResult(index, diff, contracts, thrown, times, cpu, cpu_levels, deck_plays)


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
    keep_plays: bool = False,
    bid_level: str | None = None,
    deadline: bool = True,
) -> dict[str, Any]:
    """Play ``deals`` duplicate decks between sides ``a`` and ``b`` (levels, or pairs
    ``first+partner`` in 4-player variants) and report the figures.  ``keep_plays`` adds
    ``plays``: two sides, per deck in order, per play ``[A's points, B's points, 1|0|None]``
    (the outcome went to A, to B, or the deal was thrown in).  ``bid_level``: every seat's
    bidding is that level's, on both sides, so that (with common random numbers) both plays
    of a deck have the same auction and contract and only the card play differs.
    ``deadline=False``: the hard levels' wall-clock safety deadline is off (``hard.
    WALL_DEADLINE``), so that a loaded machine cuts no search short."""
    check_sides(players, a, b)
    tasks = [
        (variant, players, options, a, b, seed, i, budget_ms, bid_level, deadline)
        for i in range(deals)
    ]
    start = time.perf_counter()
    results: list[DeckResult] = []
    for r in _map(tasks, workers):
        results.append(r)
        if progress is not None:
            progress(len(results), sum(x.diff for x in results) / len(results))
    elapsed = time.perf_counter() - start
    results.sort(key=lambda r: r.index)
    diffs = [r.diff for r in results]
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n > 1 else float("inf")
    contracts = {a: [0, 0], b: [0, 0]}
    times: dict[str, list[float]] = {a: [], b: []}
    cpu: dict[str, list[float]] = {a: [], b: []}
    cpu_levels: dict[str, dict[str, list[float]]] = {
        a: {lv: [] for lv in side_levels(a)},
        b: {lv: [] for lv in side_levels(b)},
    }
    thrown = 0
    for r in results:
        thrown += r.thrown_in
        for lv in (a, b):
            contracts[lv][0] += r.contracts[lv][0]
            contracts[lv][1] += r.contracts[lv][1]
            times[lv].extend(r.times[lv])
            cpu[lv].extend(r.cpu[lv])
            for level, ts in r.cpu_levels[lv].items():
                cpu_levels[lv][level].extend(ts)
    extra: dict[str, Any] = {}
    if keep_plays:
        extra["plays"] = [[list(p) for p in r.plays] for r in results]
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
        "bid_level": bid_level,
        "deadline": deadline,
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
        # per side, the CPU times of each level in it (a pair's two levels apart)
        "decision_cpu_ms_by_level": {
            side: {lv: _summary(ts) for lv, ts in per.items()} for side, per in cpu_levels.items()
        },
        "elapsed_s": elapsed,
        "workers": workers,
        **extra,
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

    from app.bots import warm_up

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
            f"  {lv:6s} {'(A)' if lv == a else '(B)'} contracts made {c['made']}/{c['taken']}"
            f" ({rate}); decisions {t['decisions']}: "
            f"CPU p50 {t['p50']:.1f} ms, p95 {t['p95']:.1f} ms, max {t['max']:.1f} ms"
            f" (wall p95 {w['p95']:.1f} ms, max {w['max']:.1f} ms)"
        )
        if "+" in lv:
            parts = []
            for level, t in r["decision_cpu_ms_by_level"][lv].items():
                parts.append(f"{level} CPU p95 {t['p95']:.1f} ms ({t['decisions']})")
            lines.append(f"  {'':6s} of which {'; '.join(parts)}")
    return "\n".join(lines)


def to_json(r: dict[str, Any]) -> str:
    return json.dumps(r, sort_keys=True)
