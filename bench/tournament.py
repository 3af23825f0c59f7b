"""``atout bench tournament``: the live duplicate Swiss's pairing time (app/tournaments/swiss.py).

A Swiss event of N pairs is simulated over R rounds of B boards, with seeded random results
(each table's North-South net drawn from a few typical scores, a datum table when there are
fewer than three tables): before each round, ``entrant_states`` then ``pair_round`` are timed
(the time to pair a round), and after it the scoring of the round (``score_board`` for every
board, ``score_match`` for every table, then ``standings``). Each field is run ``--events``
times with different seeds; the report gives, per round, the median and the worst time, on
the wall clock and in this process's CPU time (which a loaded machine inflates less).

    atout bench tournament --pairs 64 --pairs 256 --rounds 3 --boards 4
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from datetime import UTC, datetime
from typing import Any

from app.tournaments.swiss import (
    DATUM_TABLE,
    BoardScore,
    MatchScore,
    TableResult,
    entrant_states,
    needs_datum,
    pair_round,
    score_board,
    score_match,
    standings,
)
from bench.load import machine

SubParsers = Any

NETS = (-162, -82, -20, 0, 20, 58, 100, 162)
"""The North-South nets a simulated table scores, drawn uniformly."""


def simulate_event(pairs: int, rounds: int, boards: int, seed: int) -> dict[str, list[float]]:
    """One event: per round, the seconds to pair it (wall clock and this process's CPU) and
    to score it."""
    rng = random.Random(seed)
    ids = list(range(1, pairs + 1))
    matches: list[MatchScore] = []
    pair_s: list[float] = []
    pair_cpu_s: list[float] = []
    score_s: list[float] = []
    for round_no in range(1, rounds + 1):
        start, cpu = time.perf_counter(), time.process_time()
        tables = pair_round(entrant_states(matches, ids), round_no, f"bench{seed}", rounds)
        pair_s.append(time.perf_counter() - start)
        pair_cpu_s.append(time.process_time() - cpu)
        results = []
        for _ in range(boards):
            board = [TableResult(t.table, rng.choice(NETS)) for t in tables]
            if needs_datum(len(tables)):
                board.append(TableResult(DATUM_TABLE, rng.choice(NETS)))
            results.append(board)
        start = time.perf_counter()
        per_table: dict[int, list[BoardScore]] = {}
        for board in results:
            for table, score in score_board(board).items():
                per_table.setdefault(table, []).append(score)
        for t in tables:
            matches.extend(score_match(t, round_no, per_table[t.table]))
        standings(matches, ids)
        score_s.append(time.perf_counter() - start)
    return {"pair_s": pair_s, "pair_cpu_s": pair_cpu_s, "score_s": score_s}


def run_tournament_bench(
    fields: list[int], rounds: int, boards: int, events: int, seed: int
) -> dict[str, Any]:
    """Every field's per-round pairing and scoring times (ms: median and worst of events)."""
    out: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "rounds": rounds,
        "boards": boards,
        "events": events,
        "fields": {},
    }
    for pairs in fields:
        runs = [simulate_event(pairs, rounds, boards, seed + k) for k in range(events)]
        per_round = []
        for r in range(rounds):
            pair_ms = [run["pair_s"][r] * 1000 for run in runs]
            cpu_ms = [run["pair_cpu_s"][r] * 1000 for run in runs]
            score_ms = [run["score_s"][r] * 1000 for run in runs]
            per_round.append(
                {
                    "round": r + 1,
                    "pair_ms_median": round(statistics.median(pair_ms), 1),
                    "pair_ms_max": round(max(pair_ms), 1),
                    "pair_cpu_ms_median": round(statistics.median(cpu_ms), 1),
                    "pair_cpu_ms_max": round(max(cpu_ms), 1),
                    "score_ms_median": round(statistics.median(score_ms), 1),
                }
            )
        out["fields"][str(pairs)] = {
            "rounds": per_round,
            "pair_ms_max": max(r["pair_ms_max"] for r in per_round),
            "pair_cpu_ms_max": max(r["pair_cpu_ms_max"] for r in per_round),
        }
    return out


def print_results(r: dict[str, Any]) -> None:
    m = r["machine"]
    print(f"date: {r['date']}")
    print(f"machine: {m['cpus']} x {m['cpu']}, Python {m['python']}, Linux {m['kernel']}")
    print(f"load average: {m['load_average']}")
    print(f"{r['rounds']} rounds of {r['boards']} boards, {r['events']} events per field")
    for pairs, field in r["fields"].items():
        for row in field["rounds"]:
            print(
                f"{pairs:>5} pairs  round {row['round']}: pair {row['pair_ms_median']:7.1f} ms "
                f"median, {row['pair_ms_max']:7.1f} ms worst (CPU {row['pair_cpu_ms_median']:.1f}"
                f" / {row['pair_cpu_ms_max']:.1f} ms); score {row['score_ms_median']:.1f} ms"
            )
        print(
            f"{pairs:>5} pairs  worst time to pair a round: {field['pair_ms_max']:.1f} ms "
            f"(CPU {field['pair_cpu_ms_max']:.1f} ms)"
        )


def add_bench(bench: SubParsers) -> None:
    """Add ``tournament`` under ``atout bench``."""
    p = bench.add_parser(
        "tournament",
        help="the live Swiss: the time to pair a round (and to score it)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument(
        "--pairs",
        type=int,
        action="append",
        help="pairs in the field; repeat for several (default 64 and 256)",
    )
    p.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    p.add_argument("--boards", type=int, default=4, help="boards per round (default 4)")
    p.add_argument("--events", type=int, default=3, help="events per field (default 3)")
    p.add_argument("--seed", type=int, default=1, help="first event's seed (default 1)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument(
        "--live",
        action="store_true",
        help="run a live event with the real runtime instead (bench/tournament_live.py): "
        "the deal gap between boards and the move times (default 64 pairs)",
    )
    p.add_argument("--clock", type=float, default=0.05, help="--live: stand-in clock (s)")
    p.add_argument("--level", default="easy", help="--live: house level (default easy)")
    p.add_argument("--workers", type=int, default=2, help="--live: bot workers (default 2)")
    p.set_defaults(func=cmd_bench_tournament)


def cmd_bench_tournament(args: argparse.Namespace) -> int:
    if args.live:
        from bench.tournament_live import print_live, run_live_bench

        live = run_live_bench(
            (args.pairs or [64])[0], args.rounds, args.boards, args.clock, args.level, args.workers
        )
        if args.json:
            print(json.dumps(live, indent=2))
        else:
            print_live(live)
        return 0
    fields = args.pairs or [64, 256]
    if min(fields) < 1 or args.rounds < 1 or args.boards < 1 or args.events < 1:
        print("atout: --pairs, --rounds, --boards and --events are at least 1", file=sys.stderr)
        return 2
    result = run_tournament_bench(fields, args.rounds, args.boards, args.events, args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_results(result)
    return 0
