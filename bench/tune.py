"""Offline fitting of the bots' hand valuation (``atout bench tune``, or
``python -m bench.tune``).

For each bidding *config* (see ``valuation``), deal many random deals, let the rollout
policy of ``sim`` play them with a random taker and contract, and fit the taker side's
card points by ridge least squares on the taker's visible-card features.  The result is
written to ``app/bots/valuation_coefs.py``.  This is a developer tool: the server never
runs it.  ``--samples`` trades time for accuracy (the header of ``valuation_coefs.py`` says
what the committed coefficients used).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.bots import valuation
from app.bots.bidding import choose_discard
from app.bots.sim import Deal, Table, playout
from app.bots.valuation import AT_FEATURES, NT_FEATURES, SUIT_FEATURES, features, kind_of
from app.engine.cards import card_list
from app.engine.play import PlayFlags
from app.engine.variants.base import points_table

SubParsers = Any


@dataclass(frozen=True)
class Config:
    name: str
    players: int
    hand: int  # cards each player plays with
    known: int  # cards the bidder sees
    flags: PlayFlags
    scale: str  # "french" or "bulgarian"
    kinds: tuple[int, ...]  # trump values to fit: 0 (a suit), 4 (NT), 5 (AT)
    extra: str = ""  # "bela3" (12 cards, discard 2), "bela2" (11 aside), "duel"


FR = PlayFlags(overtake_plain=False, partner_exception=True, must_undertrump=True)
BG = PlayFlags(overtake_plain=False, partner_exception=True, must_undertrump=False)
BELA = PlayFlags(overtake_plain=True, partner_exception=False, must_undertrump=True)
DUEL = PlayFlags(overtake_plain=False, partner_exception=False, must_undertrump=False)

CONFIGS = {
    c.name: c
    for c in (
        Config("fr4-6", 4, 8, 6, FR, "french", (0,)),
        Config("fr4-8", 4, 8, 8, FR, "french", (0, 4, 5)),
        Config("bulgarian-5", 4, 8, 5, BG, "bulgarian", (0, 4, 5)),
        Config("bulgarian-8", 4, 8, 8, BG, "bulgarian", (0, 4, 5)),
        Config("bela4-6", 4, 8, 6, BELA, "french", (0,)),
        Config("bela4-8", 4, 8, 8, BELA, "french", (0,)),
        Config("bela3-6", 3, 10, 6, BELA, "french", (0,), "bela3"),
        Config("bela3-10", 3, 10, 10, BELA, "french", (0,), "bela3"),
        Config("bela2-6", 2, 10, 6, BELA, "french", (0,), "bela2"),
        Config("bela2-10", 2, 10, 10, BELA, "french", (0,), "bela2"),
        Config("duel-8", 2, 16, 8, DUEL, "french", (0,), "duel"),
    )
}


def discard_two(hand: int, trump: int, points: tuple[int, ...]) -> int:
    """A quick discard for simulations: bank the points of cards unlikely to win."""
    return choose_discard(hand, trump, points)


def sample(cfg: Config, trump: int, rng: random.Random) -> tuple[list[float], float]:
    """One simulated deal: (features of the taker's visible cards, taker side's points)."""
    n = cfg.players
    deck = list(range(32))
    rng.shuffle(deck)
    taker = rng.randrange(n)
    leader = rng.randrange(n)  # eldest
    side_of = tuple(s % 2 if n == 4 else s for s in range(n))
    points = points_table(trump, cfg.scale)
    hands = [0] * n
    reveal: dict[int, int] = {}
    owner: dict[int, int] = {}
    extra = 0
    opp_visible = 0
    if cfg.extra == "duel":
        for s in range(n):
            ups = deck[16 * s : 16 * s + 8]
            downs = deck[16 * s + 8 : 16 * s + 16]
            for u, dn in zip(ups, downs, strict=True):
                hands[s] |= 1 << u
                reveal[u] = dn
                owner[dn] = s
        known = hands[taker]
        opp_visible = hands[1 - taker]
    else:
        i = 0
        for s in range(n):
            for c in deck[i : i + cfg.hand]:
                hands[s] |= 1 << c
            i += cfg.hand
        cards = [c for c in deck[taker * cfg.hand : (taker + 1) * cfg.hand]]
        if cfg.extra == "bela3":
            middle = deck[30:32]
            full = hands[taker] | (1 << middle[0]) | (1 << middle[1])
            discard = discard_two(full, trump, points)
            hands[taker] = full & ~discard
            extra = sum(points[c] for c in card_list(discard))
        known = 0
        if cfg.known >= cfg.hand:
            known = hands[taker]  # the whole hand (after the bela-3p discard)
        else:
            for c in rng.sample(cards, cfg.known):
                known |= 1 << c
    leads = int(side_of[leader] == side_of[taker])
    x = features(known, trump, leads, opp_visible)
    flags = cfg.flags
    if trump >= 4:
        flags = PlayFlags(False, flags.partner_exception, flags.must_undertrump)
    total_tricks = 16 if cfg.extra == "duel" else cfg.hand
    table = Table(n, trump, flags, points, side_of, total_tricks, taker, cfg.extra == "duel")
    d = Deal(hands, [], leader, 0, [0] * n, [0] * n, table.total_tricks, [0] * n, reveal, owner)
    rnd = [rng.random() for _ in range(64)]
    playout(d, table, rnd)
    side = side_of[taker]
    y = float(extra + sum(d.won[s] for s in range(n) if side_of[s] == side))
    return x, y


def fit(xs: list[list[float]], ys: list[float], ridge: float = 1.0) -> list[float]:
    """Ridge least squares by the normal equations (a few dozen features)."""
    m = len(xs[0])
    a = [[0.0] * m for _ in range(m)]
    b = [0.0] * m
    for x, y in zip(xs, ys, strict=True):
        for i in range(m):
            xi = x[i]
            if xi:
                row = a[i]
                for j in range(m):
                    row[j] += xi * x[j]
                b[i] += xi * y
    for i in range(m):
        a[i][i] += ridge
    return _solve(a, b)


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    m = len(b)
    for col in range(m):
        piv = max(range(col, m), key=lambda r: abs(a[r][col]))
        a[col], a[piv] = a[piv], a[col]
        b[col], b[piv] = b[piv], b[col]
        p = a[col][col]
        if abs(p) < 1e-12:
            continue
        for r in range(m):
            if r != col and a[r][col]:
                f = a[r][col] / p
                row, prow = a[r], a[col]
                for j in range(col, m):
                    row[j] -= f * prow[j]
                b[r] -= f * b[col]
    return [b[i] / a[i][i] if abs(a[i][i]) > 1e-12 else 0.0 for i in range(m)]


Fit = dict[tuple[str, str], tuple[list[float], float, float]]  # coefficients, mean, rmse


def run(samples: int, seed: int, only: list[str] | None, log: Callable[[str], None]) -> Fit:
    rng = random.Random(seed)
    out: Fit = {}
    for name, cfg in CONFIGS.items():
        if only and name not in only:
            continue
        for kind in cfg.kinds:
            start = time.perf_counter()
            xs, ys = [], []
            for _ in range(samples):
                trump = rng.randrange(4) if kind == 0 else kind
                x, y = sample(cfg, trump, rng)
                xs.append(x)
                ys.append(y)
            coefs = fit(xs, ys)
            mean = sum(ys) / len(ys)
            pred = [sum(a * b for a, b in zip(coefs, x, strict=True)) for x in xs]
            sse = sum((p - y) ** 2 for p, y in zip(pred, ys, strict=True))
            sst = sum((y - mean) ** 2 for y in ys)
            names = {0: SUIT_FEATURES, 4: NT_FEATURES, 5: AT_FEATURES}[kind]
            log(
                f"{name} {kind_of(kind)}: n={samples} mean={mean:.1f} "
                f"R2={1 - sse / sst:.3f} rmse={(sse / len(ys)) ** 0.5:.1f} "
                f"({time.perf_counter() - start:.0f}s)"
            )
            log("  " + " ".join(f"{n}={c:.1f}" for n, c in zip(names, coefs, strict=True)))
            rmse = (sse / len(ys)) ** 0.5
            out[(name, kind_of(kind))] = (
                [round(c, 2) for c in coefs],
                round(mean, 1),
                round(rmse, 1),
            )
    return out


def write(fits: Fit, path: Path, samples: int, seed: int) -> None:
    lines = [
        '"""Fitted coefficients of ``valuation`` (generated by ``atout bench tune``',
        f'--samples {samples} --seed {seed}; do not edit by hand)."""',
        "",
        "COEFS: dict[tuple[str, str], list[float]] = {",
    ]
    for key in sorted(fits):
        lines.append(f"    {key!r}: {fits[key][0]!r},")
    lines += [
        "}",
        "",
        "# Mean target and residual RMSE of each fit (points).",
        "MEAN: dict[tuple[str, str], float] = {",
    ]
    for key in sorted(fits):
        lines.append(f"    {key!r}: {fits[key][1]!r},")
    lines += ["}", "RMSE: dict[tuple[str, str], float] = {"]
    for key in sorted(fits):
        lines.append(f"    {key!r}: {fits[key][2]!r},")
    lines.append("}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


COEFS_FILE = Path(valuation.__file__).with_name("valuation_coefs.py")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--samples", type=int, default=40000, help="deals per fit (default 40000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", action="append", help="fit only this config (repeatable)")
    parser.add_argument("--out", default=str(COEFS_FILE), help="the coefficients file to write")
    parser.add_argument("--dry-run", action="store_true", help="print the fits, write nothing")


def add_bench(bench: SubParsers) -> None:
    """Add ``tune`` under ``atout bench``."""
    p = bench.add_parser(
        "tune",
        help="fit the bots' hand valuation by simulated deals (writes valuation_coefs.py)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    add_arguments(p)
    p.set_defaults(func=cmd_tune)


def cmd_tune(args: argparse.Namespace) -> int:
    if args.samples < 2 or (args.only and not set(args.only) <= set(CONFIGS)):
        print(f"atout: --samples >= 2, --only one of {', '.join(CONFIGS)}", file=sys.stderr)
        return 2
    coefs = run(args.samples, args.seed, args.only, lambda s: print(s, flush=True))
    if not args.dry_run:
        if args.only:
            from app.bots.valuation_coefs import COEFS, MEAN, RMSE

            old = {key: (COEFS[key], MEAN[key], RMSE[key]) for key in COEFS}
            coefs = {**old, **coefs}
        write(coefs, Path(args.out), args.samples, args.seed)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    add_arguments(parser)
    return cmd_tune(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
