"""Offline training of the model of the hidden cards (``atout bench train data|fit``).

``data``: self-play deals of a 4-player variant (every seat the same level, medium by default)
with every hand known; at ``--positions`` card-play decisions drawn per deal, the deciding
seat's features (``app.bots.beliefs.features``, from its seat view alone) and, for each card,
which other seat holds it (255 where no other seat does).  Written as a ``.npz`` with a sidecar
``.json`` saying how it was made and how long it took.

``importance``: which inputs matter, by the rise of the held-out log-loss when one group of
inputs is shuffled across decisions.

``fit``: a multilayer perceptron (scikit-learn's ``MLPClassifier``, one logistic output per
card and other seat) on one or more data files, written as plain arrays to
``app/bots/beliefs.npz``, with ``beliefs.json`` giving the command, the data, the date and
the held-out scores (``evaluate``).

``evaluate`` plays fresh deals (a seed of its own) and at sampled decisions scores, by log-loss
on the hidden cards and by calibration: the uniform distribution over the worlds consistent
with the seat's knowledge (the hard bot's sampler without the auction's weights), the model
alone, and the model applied to those worlds (each world weighted by the product of the
model's probabilities of its placements) mixed with the uniform worlds as the bot mixes them.

scikit-learn is the optional extra ``.[train]``: the server never needs it (inference is
``app.bots.beliefs``, numpy alone).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from datetime import UTC, datetime
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

from app.bots import beliefs
from app.bots.beliefs import N_FEATURES, canonical, features, suit_order
from app.engine import Phase, action_from_json, apply, new_match, next_to_move, seat_view
from bench.levels import choose_action

SubParsers = Any
NONE = 255


def targets(hands: tuple[int, ...], seat: int, order: list[int]) -> np.ndarray:
    """For each canonical card, the relative seat (0 = next, 1 = partner, 2 = before) of the
    other seat holding it, ``NONE`` where none does."""
    y = np.full(32, NONE, dtype=np.uint8)
    for other in range(4):
        if other == seat:
            continue
        h = hands[other]
        r = (other - seat) % 4 - 1
        for c in range(32):
            if (h >> c) & 1:
                y[canonical(c, order)] = r
    return y


def play_deal(args: tuple[str, str, int, int]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """One self-play deal; the features and targets of ``positions`` card-play decisions."""
    variant, level, seed, positions = args
    rng = random.Random(seed)
    state = new_match(variant, 4, {}, seed=seed, first_dealer=rng.randrange(4))
    rngs = [random.Random(seed * 7 + s) for s in range(4)]
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    keep: set[int] | None = None
    step = 0
    while state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER):
        seat = next_to_move(state)
        assert seat is not None
        view = seat_view(state, seat)
        if view["phase"] == "play" and view.get("contract") and view.get("hand"):
            if keep is None:
                keep = set(rng.sample(range(32), min(positions, 32)))
            if step in keep and beliefs.supported(view):
                xs.append(features(view))
                ys.append(targets(state.hands, seat, suit_order(view)))
            step += 1
        action = choose_action(view, level, rngs[seat])
        state, _ = apply(state, action_from_json(action), seat)
    return xs, ys


def generate(
    variant: str, deals: int, seed: int, level: str, positions: int, workers: int
) -> tuple[np.ndarray, np.ndarray, float]:
    tasks = [(variant, level, seed * 1_000_003 + i, positions) for i in range(deals)]
    t0 = time.perf_counter()
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    if workers > 1:
        with Pool(workers) as pool:
            for x, y in pool.imap(play_deal, tasks, chunksize=20):
                xs.extend(x)
                ys.extend(y)
    else:
        for t in tasks:
            x, y = play_deal(t)
            xs.extend(x)
            ys.extend(y)
    dt = time.perf_counter() - t0
    x_arr = np.stack(xs) if xs else np.zeros((0, N_FEATURES), np.uint8)
    y_arr = np.stack(ys) if ys else np.zeros((0, 32), np.uint8)
    return x_arr, y_arr, dt


def cmd_data(args: argparse.Namespace) -> int:
    x, y, dt = generate(
        args.variant, args.deals, args.seed, args.level, args.positions, args.workers
    )
    out = Path(args.out)
    np.savez_compressed(out, x=x, y=y)
    meta = {
        "command": "atout bench train data " + " ".join(sys.argv[4:]),
        "variant": args.variant,
        "level": args.level,
        "deals": args.deals,
        "positions": int(len(x)),
        "seed": args.seed,
        "seconds": round(dt, 1),
        "workers": args.workers,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(meta))
    return 0


# ---------------------------------------------------------------------- fitting


def dense_targets(y: np.ndarray) -> np.ndarray:
    """(N, 32) owners -> (N, 96) 0/1 indicators (card-major, 3 seats per card)."""
    out = np.zeros((len(y), 32, 3), dtype=np.uint8)
    for r in range(3):
        out[:, :, r] = y == r
    return out.reshape(len(y), 96)


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    """Mean -ln p(true seat) over the hidden cards; ``p`` (N, 32, 3), ``y`` (N, 32)."""
    mask = y != NONE
    idx = np.where(mask, y, 0).astype(np.int64)
    pt = np.take_along_axis(p, idx[..., None], axis=-1)[..., 0]
    return float(-np.log(np.clip(pt[mask], 1e-6, 1.0)).mean())


def cmd_fit(args: argparse.Namespace) -> int:
    from sklearn.neural_network import MLPClassifier  # the optional extra .[train]

    xs, ys, sources = [], [], []
    for f in args.data:
        with np.load(f) as d:
            xs.append(d["x"])
            ys.append(d["y"])
        side = Path(f).with_suffix(".json")
        sources.append(json.loads(side.read_text()) if side.exists() else {"file": f})
    x = np.concatenate(xs)
    y = np.concatenate(ys)
    rng = np.random.default_rng(args.seed)
    perm = rng.permutation(len(x))
    n_val = max(1, int(len(x) * args.holdout))
    val, tr = perm[:n_val], perm[n_val:]
    hidden = tuple(int(h) for h in args.hidden.split(","))
    clf = MLPClassifier(
        hidden_layer_sizes=hidden,
        activation="relu",
        solver="adam",
        alpha=args.alpha,
        batch_size=512,
        learning_rate_init=args.lr,
        max_iter=1,
        early_stopping=False,
        random_state=args.seed,
        verbose=args.verbose,
    )
    t0 = time.perf_counter()
    # In chunks (``partial_fit``: one pass of Adam over each), so that only a chunk at a time
    # is held as float32.
    chunk = 50_000
    curve = []
    for epoch in range(args.epochs):
        order = rng.permutation(tr)
        for i in range(0, len(order), chunk):
            part = np.sort(order[i : i + chunk])
            first = {"classes": np.arange(96)} if not hasattr(clf, "coefs_") else {}
            clf.partial_fit(x[part].astype(np.float32), dense_targets(y[part]), **first)
        m = beliefs.Beliefs.from_arrays(clf.coefs_, clf.intercepts_)
        curve.append(round(log_loss(m.predict_canonical(x[val[:20000]]), y[val[:20000]]), 4))
        print(f"epoch {epoch + 1}: held-out log-loss {curve[-1]}", file=sys.stderr, flush=True)
    fit_s = time.perf_counter() - t0
    arrays: dict[str, Any] = {"softmax": np.array(False)}
    for i, (w, b) in enumerate(zip(clf.coefs_, clf.intercepts_, strict=True)):
        arrays[f"w{i}"] = w.astype(np.float32)
        arrays[f"b{i}"] = b.astype(np.float32)
    out = Path(args.out)
    np.savez_compressed(out, **arrays)
    model = beliefs.Beliefs(out)
    p_val = model.predict_canonical(x[val])
    held = {
        "positions": int(n_val),
        "log_loss_model": round(log_loss(p_val, y[val]), 4),
        "log_loss_uniform_seats": round(math.log(3), 4),
    }
    meta: dict[str, Any] = {
        "command": "atout bench train fit " + " ".join(sys.argv[4:]),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "data": sources,
        "positions": int(len(x)),
        "train_positions": int(len(tr)),
        "hidden": list(hidden),
        "epochs": args.epochs,
        "held_out_log_loss_by_epoch": curve,
        "fit_seconds": round(fit_s, 1),
        "inputs": N_FEATURES,
        "held_out_positions_of_the_data": held,
    }
    if args.eval_deals:
        meta["held_out_deals"] = evaluate(
            model, args.eval_variants.split(","), args.eval_deals, args.eval_seed, args.worlds
        )
    meta_path = Path(args.meta) if args.meta else out.with_suffix(".json")
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(meta, indent=1))
    return 0


# ---------------------------------------------------------------------- evaluation


def world_marginals(
    view: dict[str, Any],
    model: beliefs.Beliefs,
    worlds: int,
    rng: random.Random,
    mixes: tuple[float, ...],
) -> list[np.ndarray]:
    """Per real card, per relative seat (1, 2, 3): the share of the worlds consistent with
    the seat's knowledge (the hard bot's sampler, without the auction's weights) placing it
    there, the worlds weighed alike and then as the bot weighs them with each of ``mixes``."""
    from app.bots.hard import model_world_weights
    from app.bots.knowledge import read_view
    from app.bots.sampler import sample_world

    k = read_view(view)
    me = view["seat"]
    hands = [sample_world(k, rng).hands for _ in range(worlds)]
    probs = model.predict(view)
    weightings = [[1.0 / worlds] * worlds]
    weightings += [model_world_weights(probs, me, hands, mix) for mix in mixes]
    out = [np.zeros((32, 3)) for _ in weightings]
    for i, hs in enumerate(hands):
        for s in range(4):
            if s == me:
                continue
            r = (s - me) % 4 - 1
            for c in range(32):
                if (hs[s] >> c) & 1:
                    for m, ws in zip(out, weightings, strict=True):
                        m[c, r] += ws[i]
    return out


def calibration(p: np.ndarray, hit: np.ndarray, bins: int = 10) -> dict[str, Any]:
    """Expected calibration error and the reliability table (predicted vs observed)."""
    edges = np.linspace(0, 1, bins + 1)
    rows = []
    ece = 0.0
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        m = (p >= lo) & ((p < hi) if hi < 1 else (p <= hi))
        if m.sum():
            pred, obs = float(p[m].mean()), float(hit[m].mean())
            rows.append([round(lo, 1), int(m.sum()), round(pred, 3), round(obs, 3)])
            ece += m.sum() / len(p) * abs(pred - obs)
    return {"ece": round(ece, 4), "bins": rows}


def evaluate(
    model: beliefs.Beliefs, variants: list[str], deals: int, seed: int, worlds: int
) -> dict[str, Any]:
    out: dict[str, Any] = {"deals_per_variant": deals, "seed": seed, "worlds_per_position": worlds}
    for variant in variants:
        names = ("uniform_worlds", "model_alone", "model_worlds_mix50", "model_worlds_mix100")
        rows: dict[str, list[float]] = {k: [] for k in names}
        pairs: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in names}
        rng = random.Random(seed)
        for i in range(deals):
            for view, hands in sample_views(variant, seed * 1_000_003 + i, 4):
                me = view["seat"]
                uni, mix50, mix100 = world_marginals(view, model, worlds, rng, (0.5, 1.0))
                raw = model.predict(view)
                for c in range(32):
                    owner = next((s for s in range(4) if (hands[s] >> c) & 1), None)
                    if owner is None or owner == me:
                        continue
                    r = (owner - me) % 4 - 1
                    for name, p in zip(names, (uni, raw, mix50, mix100), strict=True):
                        q = p[c] / max(p[c].sum(), 1e-12)
                        rows[name].append(-math.log(max(q[r], 1e-3)))
                        for s in range(3):
                            pairs[name][0].append(float(q[s]))
                            pairs[name][1].append(float(s == r))
        out[variant] = {
            "hidden_cards": len(rows["uniform_worlds"]),
            **{
                name: {
                    "log_loss": round(sum(v) / max(len(v), 1), 4),
                    "calibration": calibration(np.array(pairs[name][0]), np.array(pairs[name][1])),
                }
                for name, v in rows.items()
            },
        }
    return out


def sample_views(
    variant: str, seed: int, count: int
) -> list[tuple[dict[str, Any], tuple[int, ...]]]:
    """``count`` card-play views of one medium self-play deal, with the hands at the time."""
    rng = random.Random(seed)
    state = new_match(variant, 4, {}, seed=seed, first_dealer=rng.randrange(4))
    rngs = [random.Random(seed * 7 + s) for s in range(4)]
    keep = set(rng.sample(range(2, 30), count))
    out = []
    step = 0
    while state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER):
        seat = next_to_move(state)
        assert seat is not None
        view = seat_view(state, seat)
        if view["phase"] == "play" and view.get("contract"):
            if step in keep:
                out.append((view, state.hands))
            step += 1
        state, _ = apply(state, action_from_json(choose_action(view, "medium", rngs[seat])), seat)
    return out


def cmd_importance(args: argparse.Namespace) -> int:
    """Which inputs matter: the rise of the held-out log-loss (the same 10% as ``fit`` with
    the same ``--seed``) when one group of inputs is taken from another decision at random."""
    xs, ys = [], []
    for f in args.data:
        with np.load(f) as d:
            xs.append(d["x"])
            ys.append(d["y"])
    x = np.concatenate(xs)
    y = np.concatenate(ys)
    perm = np.random.default_rng(args.seed).permutation(len(x))
    val = perm[: max(1, int(len(x) * args.holdout))]
    xv, yv = x[val], y[val]
    model = beliefs.Beliefs(Path(args.model))
    base = log_loss(model.predict_canonical(xv), yv)
    shuffle = np.random.default_rng(7).permutation(len(xv))
    out: dict[str, float] = {"held_out_log_loss": round(base, 4)}
    for name, width in beliefs.LAYOUT:
        o = beliefs.OFFSET[name]
        xp = xv.copy()
        xp[:, o : o + width] = xv[shuffle][:, o : o + width]
        out[name] = round(log_loss(model.predict_canonical(xp), yv) - base, 4)
    print(json.dumps(out, indent=1))
    return 0


def add_bench(bench: SubParsers) -> None:
    p = bench.add_parser("train", help="the model of the hidden cards: data and fitting")
    sub = p.add_subparsers(dest="train_command", required=True)
    d = sub.add_parser("data", help="self-play deals with every hand known")
    d.add_argument("--variant", default="classic", choices=beliefs.FAMILIES)
    d.add_argument("--deals", type=int, default=1000)
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--level", default="medium")
    d.add_argument("--positions", type=int, default=8, help="card-play decisions kept per deal")
    d.add_argument("--workers", type=int, default=1)
    d.add_argument("--out", required=True, help="the .npz to write (a .json beside it)")
    d.set_defaults(func=cmd_data)
    f = sub.add_parser("fit", help="fit the model, write app/bots/beliefs.npz and .json")
    f.add_argument("data", nargs="+", help=".npz files of `atout bench train data`")
    f.add_argument("--hidden", default="128,64")
    f.add_argument("--epochs", type=int, default=20)
    f.add_argument("--alpha", type=float, default=1e-4)
    f.add_argument("--lr", type=float, default=1e-3)
    f.add_argument("--holdout", type=float, default=0.1)
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--out", default=str(beliefs.WEIGHTS))
    f.add_argument("--meta", default=None)
    f.add_argument("--eval-deals", type=int, default=0, help="fresh deals per variant to score")
    f.add_argument("--eval-variants", default="classic")
    f.add_argument("--eval-seed", type=int, default=999)
    f.add_argument("--worlds", type=int, default=200, help="worlds per scored decision")
    f.add_argument("--verbose", action="store_true")
    f.set_defaults(func=cmd_fit)
    i = sub.add_parser("importance", help="which inputs matter (permutation importance)")
    i.add_argument("data", nargs="+", help="the .npz files the model was fitted on")
    i.add_argument("--model", default=str(beliefs.WEIGHTS))
    i.add_argument("--holdout", type=float, default=0.1)
    i.add_argument("--seed", type=int, default=1)
    i.set_defaults(func=cmd_importance)
