"""``atout bench solver``: the exact solver's time per position, per variant.

Positions come from deals played at random through the engine (random bids, random cards),
every card known.  Three kinds of position per deal:

* **deal**: the first card of trick 1, nothing played yet;
* **trick 2**: trick 2 complete, the next card to lead;
* **endgame**: the last four tricks (the older endgame solver's own ground).

Each position is solved by ``app.bots.dds.solve`` for the side to move, every legal card
valued exactly (what the analysis of a deal needs), by its C search (``--impl c``, the
default when the extension is built) or its Python one (``--impl python``).  With the C
search, the Python one solves the same positions in the same run as the reference (``ref``
columns; ``--no-reference`` leaves it out), and every solution of the two is compared: the
values, scores, best card and node counts must be the same.  The older solver of the hard bot
(``app.bots.solver.solve``) solves the same trick-2 and endgame positions in the same run,
with a node cap (it has no bounds and no null-window searches; a position past the cap is
counted as not solved), and every value both found is compared.

Times are the process's CPU time (one core), so that other work on a shared machine does not
count; ``nodes/s`` is the positions searched per CPU second.
"""

from __future__ import annotations

import json
import platform
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from app.bots import dds, solver
from app.bots.sim import legal_now
from app.engine.cards import card_list
from app.engine.game import apply, legal_actions, new_match
from app.engine.scoring import CAPOT_BONUS
from app.engine.state import Phase, State
from app.engine.variants import VARIANTS

CONFIGS: list[tuple[str, int]] = [
    ("classic", 4),
    ("coinche", 4),
    ("bulgarian", 4),
    ("bela", 2),
    ("bela", 3),
    ("bela", 4),
    ("duel", 2),
]
KINDS = ("deal", "trick2", "endgame")


def sample_states(variant: str, players: int, rng: random.Random) -> dict[str, State]:
    """One random deal's positions of each kind (see the module docstring)."""
    while True:
        state = new_match(variant, players, rng=rng)
        found: dict[str, State] = {}
        total = state.rules.total_tricks
        while state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER):
            if state.phase is Phase.PLAY and not state.trick:
                done = len(state.tricks)
                if done == 0 and "deal" not in found:
                    found["deal"] = state
                elif done == 2:
                    found.setdefault("trick2", state)
                elif done == total - 4:
                    found.setdefault("endgame", state)
            legal = legal_actions(state)
            state, _ = apply(state, legal[int(rng.random() * len(legal))])
        if len(found) == len(KINDS):
            return found


def old_solve(pos: dds.Position, max_nodes: int) -> tuple[dict[int, int] | None, int]:
    """The same values by the older solver (``None`` past ``max_nodes``), and its nodes."""
    t = pos.table
    seat = pos.seat
    side = t.side_of[seat]
    mx = dds.parties(t, side)
    scale = pos.scale
    cards = card_list(legal_now(pos.deal, t))

    def evaluate(pts: tuple[int, ...], trk: tuple[int, ...]) -> float:
        own = other = 0
        for s in range(t.sides):
            p = pts[s] * scale + (CAPOT_BONUS if trk[s] == t.total_tricks else 0)
            if mx[t.side_of.index(s)]:
                own += p
            else:
                other += p
        return float(own - other)

    allies = 0
    for s in range(t.n):
        if mx[s] and t.side_of[s] != side:
            allies |= 1 << s
    try:
        values, nodes = solver.solve(
            pos.deal, t, evaluate, side, cards, pos.extra, max_nodes=max_nodes, allies=allies
        )
    except solver.Budget:
        return None, max_nodes
    return {c: int(v) for c, v in zip(cards, values, strict=True)}, nodes


@dataclass
class Row:
    name: str
    times: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    nodes: dict[str, int] = field(default_factory=lambda: {k: 0 for k in KINDS})
    old_times: dict[str, list[float]] = field(default_factory=lambda: {"trick2": [], "endgame": []})
    old_nodes: dict[str, int] = field(default_factory=lambda: {"trick2": 0, "endgame": 0})
    old_failed: dict[str, int] = field(default_factory=lambda: {"trick2": 0, "endgame": 0})
    ref_times: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    ref_nodes: dict[str, int] = field(default_factory=lambda: {k: 0 for k in KINDS})
    mismatches: int = 0
    ref_mismatches: int = 0
    denoms: dict[str, int] = field(default_factory=dict)


def _p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(0.95 * len(s)))] if s else 0.0


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else 0.0


def bench_config(
    variant: str,
    players: int,
    deals: int,
    seed: int,
    old_nodes: int,
    kinds: tuple[str, ...],
    impl: str = dds.IMPL,
    reference: str | None = None,
) -> Row:
    rng = random.Random(seed)
    several = len(VARIANTS[variant].player_counts) > 1
    row = Row(f"{variant}-{players}p" if several else variant)
    for _ in range(deals):
        states = sample_states(variant, players, rng)
        contract = states["deal"].contract
        assert contract is not None
        row.denoms[contract.denom] = row.denoms.get(contract.denom, 0) + 1
        for kind in kinds:
            pos = dds.position_of(states[kind])
            start = time.process_time()
            sol = dds.solve_position(pos, impl=impl)
            row.times[kind].append(time.process_time() - start)
            row.nodes[kind] += sol.nodes
            if reference is not None:
                start = time.process_time()
                ref = dds.solve_position(pos, impl=reference)
                row.ref_times[kind].append(time.process_time() - start)
                row.ref_nodes[kind] += ref.nodes
                same = (ref.values, ref.scores, ref.best, ref.nodes)
                row.ref_mismatches += same != (sol.values, sol.scores, sol.best, sol.nodes)
            if kind in row.old_times:
                start = time.process_time()
                values, nodes = old_solve(pos, old_nodes)
                spent = time.process_time() - start
                if values is None:
                    row.old_failed[kind] += 1
                else:
                    row.old_times[kind].append(spent)
                    row.old_nodes[kind] += nodes
                    row.mismatches += values != sol.values
    return row


def run_solver_bench(
    deals: int = 10,
    variants: list[str] | None = None,
    seed: int = 1,
    old_nodes: int = 400_000,
    kinds: tuple[str, ...] = KINDS,
    impl: str = dds.IMPL,
    reference: bool = True,
) -> int:
    ref_impl = "python" if reference and impl == "c" else None
    out = []
    refs = ""
    if ref_impl:
        refs = f" {'ref med ms':>10s} {'ref p95 ms':>10s} {'ref nodes/s':>11s} {'speed-up':>8s}"
    print(f"search: {impl}" + (f", reference: {ref_impl}" if ref_impl else ""), flush=True)
    print(
        f"{'variant':12s} {'kind':8s} {'median ms':>10s} {'p95 ms':>9s} {'nodes/s':>9s}{refs}"
        f" {'old median ms':>14s} {'old nodes/s':>11s} {'old unsolved':>12s}",
        flush=True,
    )
    for variant, players in CONFIGS:
        if variants and variant not in variants and f"{variant}-{players}p" not in variants:
            continue
        row = bench_config(variant, players, deals, seed, old_nodes, kinds, impl, ref_impl)
        result: dict[str, Any] = {"variant": row.name, "contracts": row.denoms}
        for kind in kinds:
            ts = row.times[kind]
            rate = row.nodes[kind] / sum(ts) if sum(ts) else 0.0
            entry: dict[str, Any] = {
                "median_ms": round(_median(ts) * 1000, 1),
                "p95_ms": round(_p95(ts) * 1000, 1),
                "nodes_per_s": round(rate),
            }
            ref = ""
            if ref_impl:
                rts = row.ref_times[kind]
                rrate = row.ref_nodes[kind] / sum(rts) if sum(rts) else 0.0
                ratio = sum(rts) / sum(ts) if sum(ts) else 0.0
                entry |= {
                    "ref_median_ms": round(_median(rts) * 1000, 1),
                    "ref_p95_ms": round(_p95(rts) * 1000, 1),
                    "ref_nodes_per_s": round(rrate),
                    "speedup": round(ratio, 1),
                }
                ref = (
                    f" {entry['ref_median_ms']:10.1f} {entry['ref_p95_ms']:10.1f} {rrate:11.0f}"
                    f" {ratio:8.1f}"
                )
            old = ""
            if kind in row.old_times:
                ots = row.old_times[kind]
                orate = row.old_nodes[kind] / sum(ots) if sum(ots) else 0.0
                entry |= {
                    "old_median_ms": round(_median(ots) * 1000, 1) if ots else None,
                    "old_nodes_per_s": round(orate),
                    "old_unsolved": row.old_failed[kind],
                }
                med = f"{_median(ots) * 1000:14.1f}" if ots else f"{'-':>14s}"
                old = f" {med} {orate:11.0f} {row.old_failed[kind]:12d}"
            result[kind] = entry
            print(
                f"{row.name:12s} {kind:8s} {entry['median_ms']:10.1f} {entry['p95_ms']:9.1f}"
                f" {rate:9.0f}{ref}{old}",
                flush=True,
            )
        result["mismatches"] = row.mismatches
        if ref_impl:
            result["ref_mismatches"] = row.ref_mismatches
        out.append(result)
    print(
        json.dumps(
            {
                "python": platform.python_version(),
                "machine": platform.machine(),
                "deals": deals,
                "seed": seed,
                "impl": impl,
                "reference": ref_impl,
                "old_nodes": old_nodes,
                "results": out,
            }
        )
    )
    return 1 if any(r["mismatches"] or r.get("ref_mismatches") for r in out) else 0


def add_bench(bench: Any) -> None:
    """Add ``solver`` under ``atout bench``."""
    bs = bench.add_parser("solver", help="the exact solver's time per position, per variant")
    bs.add_argument("--deals", type=int, default=10, help="random deals per variant")
    bs.add_argument("--variant", action="append", default=None, help="e.g. classic, bela-3p")
    bs.add_argument("--seed", type=int, default=1)
    bs.add_argument(
        "--old-nodes", type=int, default=400_000, help="node cap of the older endgame solver"
    )
    bs.add_argument(
        "--kind", action="append", choices=KINDS, default=None, help="positions to solve"
    )
    bs.add_argument(
        "--impl",
        choices=("c", "python"),
        default=dds.IMPL,
        help=f"the search measured (default here: {dds.IMPL})",
    )
    bs.add_argument(
        "--no-reference",
        dest="reference",
        action="store_false",
        help="with --impl c, leave out the Python search on the same positions",
    )
    bs.set_defaults(func=_cmd)


def _cmd(args: Any) -> int:
    kinds = tuple(args.kind) if args.kind else KINDS
    return run_solver_bench(
        args.deals, args.variant, args.seed, args.old_nodes, kinds, args.impl, args.reference
    )
