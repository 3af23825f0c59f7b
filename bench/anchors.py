"""The bot levels' rating anchors, measured in the arena (``atout arena anchors``).

The ratings (``app.players.ratings``) give each bot level a fixed rating per variant family,
the anchor every human rating is measured against.  This module derives those anchors from
the levels' measured strength; it is tuning code, never on a request's path.

For a family, in its representative game (``GAMES``):

1. the arena plays ``deals`` duplicate decks of medium against easy and of hard against
   medium, and records each play's points and outcome (``arena.run(..., keep_plays=True)``);
2. the per-deal outcomes become the probability that the stronger level wins a whole match:
   deals are drawn with replacement from the measured plays and added up until a side has
   won the match by the variant's rules (the target reached with a single highest total,
   ``scoring.top_at_target``; the duel: each deal is a game, its outcome decides);
3. the mu gap between the two levels is the one for which openskill's own model
   (``PlackettLuce().predict_win``), on the teams the rating code forms (a side of two bots of
   one level in 4-player games, one player a side in the duel) with the anchors' sigma,
   predicts that probability (bisection);
4. medium keeps mu 25 (it shows 1500 on the displayed scale): hard = 25 + gap(hard,
   medium), easy = 25 - gap(medium, easy). A newcomer starts at easy's mu
   (app/players/ratings.py ``newcomer``).

The 95% intervals come from a bootstrap over the decks (a deck's two plays drawn together):
the whole chain (match probability, gap) is recomputed on each resample.

``fingerprint(family, level)`` is a digest of the level's decisions on fixed seeded positions
of the family's game; the anchors store it next to them, and a test fails when a level's play
changes, so that the anchors are measured again.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from app.bots import choose_action
from app.engine import Phase, action_from_json, apply, new_match, next_to_move, seat_view
from app.engine.scoring import top_at_target
from app.engine.variants import get_rules

# family -> (variant, players): the game whose arena figures set the family's anchors
GAMES: dict[str, tuple[str, int]] = {
    "classic": ("classic", 4),
    "bulgarian": ("bulgarian", 4),
    "bela": ("bela", 4),
    "duel": ("duel", 2),
}
PAIRS: tuple[tuple[str, str], ...] = (("medium", "easy"), ("hard", "medium"))
ANCHOR_LEVELS = ("easy", "medium", "hard")
MEDIUM_MU = 25.0
MAX_DEALS_PER_MATCH = 10_000

Plays = Sequence[Sequence[Sequence[Any]]]  # per deck, per play: [A points, B points, won]


def target_of(family: str) -> int | None:
    """The match target of the family's game (default options); None: one deal is a game."""
    variant, players = GAMES[family]
    return get_rules(variant, players, {}).target


def one_match(plays: list[Sequence[Any]], target: int | None, rng: random.Random) -> float:
    """1 if A wins a match drawn from ``plays``, 0 if B does, 0.5 if nothing decides it."""
    if target is None:
        decided = [p[2] for p in plays if p[2] is not None]
        return float(rng.choice(decided)) if decided else 0.5
    totals = (0, 0)
    for _ in range(MAX_DEALS_PER_MATCH):
        a, b, _won = rng.choice(plays)
        totals = (totals[0] + int(a), totals[1] + int(b))
        winner = top_at_target(totals, target)
        if winner is not None:
            return 1.0 if winner == 0 else 0.0
    return 0.5


def match_win_probability(
    decks: Plays, target: int | None, rng: random.Random, matches: int = 4000
) -> float:
    """The probability that side A wins a match, deals drawn from the measured plays."""
    plays = [p for deck in decks for p in deck]
    if target is None:
        # one deal is a game: the share of decided plays A won (no simulation needed)
        decided = [p[2] for p in plays if p[2] is not None]
        return sum(decided) / len(decided) if decided else 0.5
    return sum(one_match(plays, target, rng) for _ in range(matches)) / matches


def predicted(gap: float, team_size: int, sigma: float) -> float:
    """openskill's probability that a team of ``team_size`` players of mu 25 + gap beats one
    of ``team_size`` players of mu 25, every sigma ``sigma``."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    strong = [model.rating(mu=MEDIUM_MU + gap, sigma=sigma) for _ in range(team_size)]
    weak = [model.rating(mu=MEDIUM_MU, sigma=sigma) for _ in range(team_size)]
    return float(model.predict_win([strong, weak])[0])


def mu_gap(probability: float, team_size: int, sigma: float, limit: float = 60.0) -> float:
    """The mu gap for which ``predicted`` gives ``probability`` (bisection on [-limit, limit];
    a probability of 0 or 1 gives the bound)."""
    lo, hi = -limit, limit
    for _ in range(60):
        mid = (lo + hi) / 2
        if predicted(mid, team_size, sigma) < probability:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def pair_figures(
    decks: Plays,
    target: int | None,
    team_size: int,
    sigma: float,
    seed: int = 0,
    matches: int = 20_000,
    resamples: int = 200,
    resample_matches: int = 1000,
) -> dict[str, Any]:
    """Margins, match-win probability and mu gap of side A over side B, with bootstrap 95%
    intervals over the decks."""
    rng = random.Random(seed)
    n = len(decks)
    if n == 0:
        raise ValueError("no decks")

    def margin(ds: Plays) -> float:
        return sum(sum(int(p[0]) - int(p[1]) for p in d) / len(d) for d in ds) / len(ds)

    def deal_wins(ds: Plays) -> float:
        decided = [p[2] for d in ds for p in d if p[2] is not None]
        return sum(decided) / len(decided) if decided else 0.5

    p = match_win_probability(decks, target, rng, matches)
    boot: list[tuple[float, float, float]] = []
    for _ in range(resamples):
        sample = [decks[rng.randrange(n)] for _ in range(n)]
        bp = match_win_probability(sample, target, rng, resample_matches)
        boot.append((margin(sample), bp, mu_gap(bp, team_size, sigma)))

    def interval(i: int) -> list[float]:
        xs = sorted(b[i] for b in boot)
        return [xs[int(0.025 * (len(xs) - 1))], xs[int(round(0.975 * (len(xs) - 1)))]]

    return {
        "decks": n,
        "plays": sum(len(d) for d in decks),
        "margin": margin(decks),
        "margin_ci95": interval(0),
        "deal_win_rate": deal_wins(decks),
        "match_win": p,
        "match_win_ci95": interval(1),
        "mu_gap": mu_gap(p, team_size, sigma),
        "mu_gap_ci95": interval(2),
    }


def measure(
    family: str,
    deals: int,
    seed: int,
    sigma: float,
    plays: Mapping[str, Plays] | None = None,
    progress: Callable[[str, int, float], None] | None = None,
) -> dict[str, Any]:
    """The family's anchors: each pair's figures and the resulting mu and displayed ratings.

    ``plays`` (pair name "medium-easy"/"hard-medium" -> the ``plays`` of an arena run of the
    family's game) reuses measured plays instead of playing them again."""
    from app.players.ratings import Rating, display
    from bench.arena import run

    variant, players = GAMES[family]
    target = target_of(family)
    team_size = 2 if players == 4 else 1
    pairs: dict[str, Any] = {}
    for strong, weak in PAIRS:
        name = f"{strong}-{weak}"
        decks: Plays
        source: dict[str, Any]
        if plays is not None and name in plays:
            decks = plays[name]
            source = {"from": "measured plays given", "decks": len(decks)}
        else:
            report = run(
                variant,
                players,
                {},
                strong,
                weak,
                deals,
                seed,
                progress=partial(progress, name) if progress else None,
                keep_plays=True,
            )
            decks = report["plays"]
            source = {
                "from": "arena",
                "seed": seed,
                "arena_mean": report["mean_diff"],
                "arena_ci95": report["ci95"],
            }
        pairs[name] = {**pair_figures(decks, target, team_size, sigma, seed=seed), **source}
    hard = MEDIUM_MU + pairs["hard-medium"]["mu_gap"]
    easy = MEDIUM_MU - pairs["medium-easy"]["mu_gap"]
    mu = {"easy": easy, "medium": MEDIUM_MU, "hard": hard}
    lo_hi = {
        "easy": [MEDIUM_MU - x for x in reversed(pairs["medium-easy"]["mu_gap_ci95"])],
        "medium": [MEDIUM_MU, MEDIUM_MU],
        "hard": [MEDIUM_MU + x for x in pairs["hard-medium"]["mu_gap_ci95"]],
    }
    return {
        "family": family,
        "variant": variant,
        "players": players,
        "target": target,
        "team_size": team_size,
        "sigma": sigma,
        "pairs": pairs,
        "mu": mu,
        "mu_ci95": lo_hi,
        "display": {lv: display(Rating(m, sigma)) for lv, m in mu.items()},
        "fingerprints": {lv: fingerprint(family, lv) for lv in ANCHOR_LEVELS},
    }


def format_anchors(r: dict[str, Any]) -> str:
    target = r["target"] if r["target"] is not None else "one deal"
    lines = [
        f"anchors {r['family']}: measured in {r['variant']} {r['players']}p, match to {target}, "
        f"teams of {r['team_size']}, sigma {r['sigma']:.3f}"
    ]
    for name, p in r["pairs"].items():
        lines.append(
            f"  {name}: {p['decks']} decks, margin {p['margin']:+.2f} per deal "
            f"[{p['margin_ci95'][0]:+.2f}, {p['margin_ci95'][1]:+.2f}], deals won "
            f"{100 * p['deal_win_rate']:.1f}%, match won {100 * p['match_win']:.1f}% "
            f"[{100 * p['match_win_ci95'][0]:.1f}, {100 * p['match_win_ci95'][1]:.1f}], "
            f"mu gap {p['mu_gap']:.2f} [{p['mu_gap_ci95'][0]:.2f}, {p['mu_gap_ci95'][1]:.2f}]"
        )
    for lv in ANCHOR_LEVELS:
        lo, hi = r["mu_ci95"][lv]
        lines.append(
            f"  {lv:6s} mu {r['mu'][lv]:.2f} [{lo:.2f}, {hi:.2f}]  displayed {r['display'][lv]}"
            f"  fingerprint {r['fingerprints'][lv]}"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- the levels' fingerprints

FINGERPRINT_SEED = 20261201
FINGERPRINT_DEALS = 4
FINGERPRINT_EVERY = 4  # one decision in four of the seeded deals


def fingerprint_positions(family: str) -> list[dict[str, Any]]:
    """Fixed seat views of the family's game where a bot must choose (more than one legal
    action): deals played from a seeded generator with seeded random legal actions, one
    decision point in ``FINGERPRINT_EVERY``."""
    variant, players = GAMES[family]
    rng = random.Random(f"{FINGERPRINT_SEED}-{family}")
    views: list[dict[str, Any]] = []
    count = 0
    for _ in range(FINGERPRINT_DEALS):
        state = new_match(variant, players, {}, rng=rng)
        while state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER):
            seat = next_to_move(state)
            assert seat is not None
            view = seat_view(state, seat)
            legal = view["legal"]
            if len(legal) > 1:
                if count % FINGERPRINT_EVERY == 0:
                    views.append(view)
                count += 1
            action = rng.choice(legal)
            state, _ = apply(state, action_from_json(action), seat)
    return views


def fingerprint(family: str, level: str) -> str:
    """A digest of ``level``'s decisions on ``fingerprint_positions(family)``, at the budget
    the arena uses (the hard level's default), without the wall-clock safety deadline (so
    that a loaded machine does not change it): ``decisions:sha256[:16]``."""
    from app.bots import hard

    saved = hard.MIN_DEADLINE_S, hard.MAX_DEADLINE_S
    hard.MIN_DEADLINE_S = hard.MAX_DEADLINE_S = 3600.0
    try:
        actions = []
        for i, view in enumerate(fingerprint_positions(family)):
            rng = random.Random(f"{FINGERPRINT_SEED}-{family}-{i}")
            actions.append(choose_action(view, level, rng))
    finally:
        hard.MIN_DEADLINE_S, hard.MAX_DEADLINE_S = saved
    text = json.dumps(actions, sort_keys=True, separators=(",", ":"))
    return f"{len(actions)}:{hashlib.sha256(text.encode()).hexdigest()[:16]}"
