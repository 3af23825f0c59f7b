"""``atout record ...``: the engine's command line."""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from .errors import InvalidAction
from .game import apply, legal_actions, new_match, start_deal
from .record import RecordRuleError, RecordSchemaError, dump, replay, summary
from .state import Phase
from .variants import VARIANTS


def register(subparsers: Any) -> None:
    record = subparsers.add_parser("record", help="replay or generate belote-record/1 files")
    sub = record.add_subparsers(dest="record_command", required=True)
    rp = sub.add_parser("replay", help="validate and replay a record; print each deal as JSON")
    rp.add_argument("file", help="a belote-record/1 JSON file, or - for standard input")
    rp.set_defaults(func=cmd_replay)
    rr = sub.add_parser("random", help="print a random legal record")
    rr.add_argument("--variant", required=True, choices=sorted(VARIANTS))
    rr.add_argument("--players", type=int, default=None)
    rr.add_argument("--options", default="{}", help="options as a JSON object")
    rr.add_argument("--seed", type=int, default=0)
    rr.add_argument("--deals", type=int, default=None, help="stop after K deals")
    rr.set_defaults(func=cmd_random)


def _fail(code: int, message: str) -> int:
    print(f"atout: {message}", file=sys.stderr)
    return code


def read_json(file: str) -> tuple[Any, str | None]:
    """The JSON document in ``file`` (``-``: standard input), or ``(None, why)`` when it
    cannot be read or parsed: the commands that take a record print ``why`` and exit 2."""
    try:
        if file == "-":
            text = sys.stdin.read()
        else:
            with open(file, encoding="utf-8") as fh:
                text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"cannot read {file}: {exc}"
    try:
        return json.loads(text), None
    except ValueError as exc:
        return None, f"not JSON: {exc}"
    except RecursionError:
        return None, "not JSON: nested too deeply"


def cmd_replay(args: argparse.Namespace) -> int:
    data, why = read_json(args.file)
    if why is not None:
        return _fail(2, why)
    try:
        state = replay(data)
    except RecordSchemaError as exc:
        return _fail(2, f"invalid record: {exc}")
    except RecordRuleError as exc:
        return _fail(1, str(exc))
    except RecursionError:
        return _fail(2, "invalid record: nested too deeply")
    return _emit(json.dumps(summary(state), indent=2))


def _emit(text: str) -> int:
    try:
        print(text, flush=True)
    except BrokenPipeError:  # e.g. piped into head: not an error of ours
        sys.stderr.close()
    return 0


def random_record(
    variant: str,
    players: int | None,
    options: dict[str, Any],
    seed: int,
    deals: int | None,
) -> dict[str, Any]:
    """A complete random legal record, deterministic for ``seed``."""
    rng = random.Random(seed)
    state = new_match(variant, players, options, rng=rng)
    played = 0
    while True:
        if state.phase is Phase.MATCH_OVER:
            break
        if state.phase is Phase.DEAL_OVER:
            played += 1
            if deals is not None and played >= deals:
                break
            if deals is None and state.rules.next_deal_needs_consent(state):
                break  # the deal was a whole game (duel): the record ends with it
            state, _ = start_deal(state, rng)
            continue
        state, _ = apply(state, rng.choice(legal_actions(state)))
    return dump(state, meta={"generator": f"atout record random --seed {seed}"})


def cmd_random(args: argparse.Namespace) -> int:
    try:
        options = json.loads(args.options)
    except ValueError as exc:
        return _fail(2, f"--options is not JSON: {exc}")
    if not isinstance(options, dict):
        return _fail(2, "--options must be a JSON object")
    if args.deals is not None and args.deals < 1:
        return _fail(2, "--deals must be at least 1")
    try:
        record = random_record(args.variant, args.players, options, args.seed, args.deals)
    except InvalidAction as exc:
        return _fail(2, str(exc))
    return _emit(json.dumps(record))
