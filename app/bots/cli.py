"""``atout arena``: duplicate deals between two bot levels (see ``app.bots.arena``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from . import LEVELS


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "arena",
        help="play duplicate deals between two bot levels",
        description=(
            "Play each deck with the levels' seats swapped (bela 3p: A alone in the deck's "
            "focus seat, then B alone there) and report the mean points-per-deal difference "
            "A - B with a 95%% confidence interval, contracts made, and decision times (CPU "
            "and wall clock)."
        ),
    )
    p.add_argument(
        "--variant", required=True, choices=["classic", "coinche", "bulgarian", "bela", "duel"]
    )
    p.add_argument("--players", type=int, default=None, help="bela: 2, 3 or 4")
    p.add_argument("--a", required=True, choices=LEVELS, help="level A")
    p.add_argument("--b", required=True, choices=LEVELS, help="level B")
    p.add_argument("--deals", type=int, default=100, help="duplicate deals (decks)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1, help="processes (multiprocessing)")
    p.add_argument("--options", default="{}", help="variant options as a JSON object")
    p.add_argument("--budget-ms", type=float, default=None, help="hard bot budget per decision")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--progress", action="store_true", help="print the running mean")
    p.set_defaults(func=cmd_arena)


def cmd_arena(args: argparse.Namespace) -> int:
    from app.engine.errors import InvalidAction
    from app.engine.variants import get_rules

    from .arena import format_report, run, to_json

    try:
        options = json.loads(args.options)
        if not isinstance(options, dict):
            raise ValueError("--options must be a JSON object")
        rules = get_rules(args.variant, args.players, options)
    except (ValueError, InvalidAction) as exc:
        print(f"atout: {exc}", file=sys.stderr)
        return 2
    if args.deals < 1 or args.workers < 1:
        print("atout: --deals and --workers must be at least 1", file=sys.stderr)
        return 2

    def progress(done: int, mean: float) -> None:
        if args.progress:
            print(
                f"  {done}/{args.deals} deals, running mean {mean:+.2f}",
                file=sys.stderr,
                flush=True,
            )

    report = run(
        args.variant,
        rules.players,
        options,
        args.a,
        args.b,
        args.deals,
        args.seed,
        workers=args.workers,
        budget_ms=args.budget_ms,
        progress=progress,
    )
    print(to_json(report) if args.json else format_report(report))
    return 0
