"""``atout arena``: duplicate deals between two bot levels (see ``bench.arena``);
``atout arena anchors``: the bot levels' rating anchors measured in the arena
(``bench.anchors``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from app.engine.cli import read_json
from bench.levels import ARENA_LEVELS


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "arena",
        help="play duplicate deals between two bot levels",
        description=(
            "Play each deck with the levels' seats swapped (bela 3p: A alone in the deck's "
            "focus seat, then B alone there) and report the mean points-per-deal difference "
            "A - B with a 95%% confidence interval, contracts made, and decision times (CPU "
            "and wall clock). 'atout arena anchors --family F' measures the bot levels' "
            "rating anchors of a variant family instead (medium-easy and hard-medium in the "
            "family's game, turned into match-win probabilities and openskill mu)."
        ),
    )
    p.add_argument(
        "what",
        nargs="?",
        choices=["anchors"],
        help="anchors: measure the rating anchors of --family",
    )
    p.add_argument("--variant", choices=["classic", "coinche", "bulgarian", "bela", "duel"])
    p.add_argument("--players", type=int, default=None, help="bela: 2, 3 or 4")
    side = (
        f"a level ({', '.join(ARENA_LEVELS)}; a hard level may carry its own budget, "
        "hard@200), or in 4-player variants a pair first+partner"
    )
    p.add_argument("--a", help=f"side A: {side}")
    p.add_argument("--b", help=f"side B: {side}")
    p.add_argument("--deals", type=int, default=100, help="duplicate deals (decks)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1, help="processes (multiprocessing)")
    p.add_argument("--options", default="{}", help="variant options as a JSON object")
    p.add_argument("--budget-ms", type=float, default=None, help="hard bot budget per decision")
    p.add_argument(
        "--bid-level",
        default=None,
        metavar="LEVEL",
        help=(
            "every seat bids as LEVEL on both sides: the same auctions and contracts in both "
            "plays of a deck, so that only the card play differs"
        ),
    )
    p.add_argument(
        "--no-deadline",
        action="store_true",
        help=(
            "turn the hard levels' wall-clock safety deadline off: on a loaded machine every "
            "decision stays the same function of the view and the generator"
        ),
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--progress", action="store_true", help="print the running mean")
    p.add_argument(
        "--plays",
        action="store_true",
        help="with --json: add each play's recorded points and outcome (two sides)",
    )
    p.add_argument(
        "--family",
        choices=["classic", "bulgarian", "bela", "duel"],
        help="anchors: the variant family",
    )
    p.add_argument(
        "--from",
        dest="sources",
        action="append",
        default=None,
        metavar="PAIR=FILE",
        help=(
            "anchors: reuse the plays of an 'atout arena ... --json --plays' run of the "
            "family's game, PAIR medium-easy or hard-medium (repeat to add more runs)"
        ),
    )
    p.set_defaults(func=cmd_arena)


def fail(message: str, code: int = 2) -> int:
    print(f"atout: {message}", file=sys.stderr)
    return code


def cmd_anchors(args: argparse.Namespace) -> int:
    from app.players.ratings import ANCHOR_SIGMA
    from bench.anchors import GAMES, PAIRS, format_anchors, measure

    if args.family is None:
        return fail("arena anchors needs --family")
    if args.a or args.b or args.variant:
        return fail("arena anchors takes --family, not --variant/--a/--b")
    if args.deals < 1:
        return fail("--deals must be at least 1")
    names = [f"{s}-{w}" for s, w in PAIRS]
    plays: dict[str, list[Any]] = {}
    for source in args.sources or []:
        name, sep, path = source.partition("=")
        if not sep or name not in names:
            return fail(f"--from {source!r}: give PAIR=FILE, PAIR one of {', '.join(names)}")
        data, why = read_json(path)
        if why is not None:
            return fail(why)
        strong, weak = name.split("-")
        variant, players = GAMES[args.family]
        if not isinstance(data, dict) or not isinstance(data.get("plays"), list):
            return fail(f"{path}: not an arena report with plays (--json --plays)")
        got = (data.get("variant"), data.get("players"), data.get("a"), data.get("b"))
        if got != (variant, players, strong, weak):
            return fail(
                f"{path}: an arena run of {got[2]} vs {got[3]} in {got[0]} {got[1]}p; "
                f"{name} of the {args.family} family needs {strong} vs {weak} in "
                f"{variant} {players}p"
            )
        plays.setdefault(name, []).extend(data["plays"])

    def progress(name: str, done: int, mean: float) -> None:
        if args.progress:
            print(f"  {name}: {done}/{args.deals} deals, running mean {mean:+.2f}", file=sys.stderr)

    report = measure(args.family, args.deals, args.seed, ANCHOR_SIGMA, plays, progress)
    print(json.dumps(report, sort_keys=True) if args.json else format_anchors(report))
    return 0


def cmd_arena(args: argparse.Namespace) -> int:
    from app.engine.errors import InvalidAction
    from app.engine.variants import get_rules
    from bench.arena import check_sides, format_report, run, to_json

    if args.what == "anchors":
        return cmd_anchors(args)
    if args.family or args.sources:
        return fail("--family and --from belong to 'atout arena anchors'")
    if args.variant is None or args.a is None or args.b is None:
        return fail("arena needs --variant, --a and --b")
    try:
        options = json.loads(args.options)
        if not isinstance(options, dict):
            raise ValueError("--options must be a JSON object")
        rules = get_rules(args.variant, args.players, options)
        check_sides(rules.players, args.a, args.b)
        if args.bid_level is not None:
            check_sides(rules.players, args.bid_level, args.bid_level)
            if "+" in args.bid_level:
                raise ValueError("--bid-level is one level, like medium")
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
        keep_plays=args.plays,
        bid_level=args.bid_level,
        deadline=not args.no_deadline,
    )
    print(to_json(report) if args.json else format_report(report))
    return 0
