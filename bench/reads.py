"""How much the play so far tells about the hidden hands (``atout bench reads``).

The arena's ``hard-reads`` weighs each sampled world by how well the others' earlier cards fit
the rollout policy's choices from that world's hands (``app.bots.hard.play_likelihood``).  This
bench measures, on deals played by one level at every seat:

- how often the rollout policy, given the real hands, makes the choice the players made
  (leads and follows apart, over every choice with more than one legal card);
- at every card-play decision after the first card, where the real world ranks among worlds
  drawn from the deciding seat's view (the hard bot's sampler) by that weight: 0.5 means the
  weight tells the real world from the drawn ones no better than chance, 1.0 that it always
  weighs the real world highest.
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any

from app.bots.bidding import bid_likelihood
from app.bots.common import table_of
from app.bots.hard import play_likelihood, policy_replay
from app.bots.knowledge import Knowledge, read_view
from app.bots.sampler import World, sample_world
from app.engine import Phase, action_from_json, apply, new_match, next_to_move, seat_view
from bench.levels import choose_action


def agreement(k: Knowledge, hands: list[int]) -> dict[str, list[int]]:
    """Per kind of choice (``lead``, ``follow``): [choices, the policy's choices, legal cards],
    over the finished tricks of the deal ``k`` sees, replayed from the real ``hands``."""
    out = {"lead": [0, 0, 0], "follow": [0, 0, 0]}
    history = [t.plays for t in k.tricks]
    for lead, legal, chosen in policy_replay(k, hands, table_of(k), history, -1):
        row = out["lead" if lead else "follow"]
        row[0] += 1
        row[1] += chosen
        row[2] += legal
    return out


def run_reads(variant: str, level: str, deals: int, seed: int, worlds: int) -> dict[str, Any]:
    rng = random.Random(seed)
    ranks: list[float] = []
    agree = {"lead": [0, 0, 0], "follow": [0, 0, 0]}
    t0 = time.perf_counter()
    for i in range(deals):
        state = new_match(variant, 4, {}, seed=seed * 1000 + i)
        rngs = [random.Random(seed * 31 + i * 4 + s) for s in range(4)]
        last = None
        while state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER):
            seat = next_to_move(state)
            assert seat is not None
            view = seat_view(state, seat)
            if state.phase is Phase.PLAY and len(view["legal"]) > 1:
                k = read_view(view)
                if k.played:
                    table = table_of(k)
                    real, _ = play_likelihood(k, World([], list(state.hands)), table)
                    drawn = [
                        play_likelihood(k, sample_world(k, rng, bid_likelihood), table)[0]
                        for _ in range(worlds)
                    ]
                    below = sum(w < real for w in drawn) + 0.5 * sum(w == real for w in drawn)
                    ranks.append(below / worlds)
                last = (k, list(state.hands))
            action = choose_action(view, level, rngs[seat])
            state, _ = apply(state, action_from_json(action), seat)
        if last is not None and last[0].tricks:
            for kind, row in agreement(*last).items():
                agree[kind] = [a + b for a, b in zip(agree[kind], row, strict=True)]
    return {
        "variant": variant,
        "level": level,
        "deals": deals,
        "seed": seed,
        "worlds": worlds,
        "decisions": len(ranks),
        "real_world_rank": sum(ranks) / len(ranks) if ranks else None,
        "agreement": {
            kind: {
                "choices": n,
                "policy_choice_share": a / n if n else None,
                "legal_cards_mean": c / n if n else None,
            }
            for kind, (n, a, c) in agree.items()
        },
        "seconds": round(time.perf_counter() - t0, 1),
    }


def format_reads(r: dict[str, Any]) -> str:
    lines = [
        f"reads {r['variant']}: {r['deals']} deals of {r['level']} at every seat, seed "
        f"{r['seed']}, {r['seconds']} s",
    ]
    for kind, a in r["agreement"].items():
        if a["choices"]:
            lines.append(
                f"  {kind:6} choices {a['choices']}: the policy's choice "
                f"{a['policy_choice_share']:.1%} (legal cards {a['legal_cards_mean']:.1f})"
            )
    if r["real_world_rank"] is not None:
        lines.append(
            f"  real world's rank among {r['worlds']} drawn worlds by weight, mean over "
            f"{r['decisions']} decisions: {r['real_world_rank']:.3f} (chance 0.5)"
        )
    return "\n".join(lines)


def add_bench(bench: Any) -> None:
    """Add ``reads`` under ``atout bench``."""
    br = bench.add_parser("reads", help="what the play so far tells about the hidden hands")
    br.add_argument("--variant", default="classic", help="a 4-player variant (default classic)")
    br.add_argument("--level", default="hard", help="the level at every seat (default hard)")
    br.add_argument("--deals", type=int, default=20)
    br.add_argument("--seed", type=int, default=1)
    br.add_argument("--worlds", type=int, default=60, help="worlds drawn per decision")
    br.add_argument("--json", action="store_true")
    br.set_defaults(func=_cmd)


def _cmd(args: Any) -> int:
    if args.variant not in ("classic", "coinche", "bulgarian", "bela"):
        print(f"atout: bench reads: {args.variant!r} is not a 4-player variant", file=sys.stderr)
        return 2
    if args.deals < 1 or args.worlds < 1:
        print("atout: bench reads: --deals >= 1, --worlds >= 1", file=sys.stderr)
        return 2
    r = run_reads(args.variant, args.level, args.deals, args.seed, args.worlds)
    print(json.dumps(r) if args.json else format_reads(r))
    return 0
