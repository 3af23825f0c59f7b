"""``atout analyse``: the analysis of a record's finished deals (``app.bots.analysis``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from app.engine.cli import read_json


def register(subparsers: Any) -> None:
    a = subparsers.add_parser(
        "analyse",
        help="analyse the finished deals of a record: what each card and bid was worth",
        description=(
            "For each card a seat chose: every legal card's exact value against the real "
            "cards, and its mean exact value over deals drawn consistent with what the seat "
            "could see; what the card played cost against the best. Bids: each candidate's "
            "mean outcome over drawn deals. Exit codes: 0 done, 1 the record breaks a rule, "
            "2 bad input."
        ),
    )
    a.add_argument("file", help="a belote-record/1 JSON file, or - for standard input")
    a.add_argument("--deal", type=int, action="append", default=None, help="deal index (0...)")
    a.add_argument("--seat", type=int, action="append", default=None, help="seat (0...)")
    a.add_argument("--worlds", type=int, default=100, help="drawn deals per card decision")
    a.add_argument("--bid-worlds", type=int, default=100, help="drawn deals per bid")
    a.add_argument("--seed", type=int, default=0)
    a.add_argument(
        "--cpu-seconds",
        type=float,
        default=None,
        help="CPU budget per deal: early decisions draw fewer deals when it runs short",
    )
    a.add_argument("--json", action="store_true", help="print the analysis as JSON")
    a.add_argument("--progress", action="store_true", help="report progress on stderr")
    a.set_defaults(func=cmd_analyse)


def cmd_analyse(args: argparse.Namespace) -> int:
    from app.engine.record import RecordRuleError, RecordSchemaError

    from .analysis import Options, analyse_record, format_analysis

    def fail(code: int, message: str) -> int:
        print(f"atout: {message}", file=sys.stderr)
        return code

    if args.worlds < 1 or args.bid_worlds < 1:
        return fail(2, "--worlds and --bid-worlds must be at least 1")
    if args.cpu_seconds is not None and not args.cpu_seconds > 0:
        return fail(2, "--cpu-seconds must be above 0")
    data, why = read_json(args.file)
    if why is not None:
        return fail(2, why)

    def progress(done: int, total: int) -> None:
        if args.progress:
            print(f"  {done}/{total} decisions", file=sys.stderr, flush=True)

    options = Options(
        worlds=args.worlds,
        bid_worlds=args.bid_worlds,
        seed=args.seed,
        cpu_seconds=args.cpu_seconds,
    )
    try:
        report = analyse_record(data, args.deal, args.seat, options, progress)
    except RecordSchemaError as exc:
        return fail(2, f"invalid record: {exc}")
    except RecordRuleError as exc:
        return fail(1, str(exc))
    except RecursionError:
        return fail(2, "invalid record: nested too deeply")
    text = json.dumps(report) if args.json else format_analysis(report)
    try:
        print(text, flush=True)
    except BrokenPipeError:
        sys.stderr.close()
    return 0
