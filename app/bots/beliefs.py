"""A learned model of where the hidden cards are (the card play of the 4-player variants).

``features(view)`` turns a seat view (RULES.md §13: exactly what a human in the seat is given)
into a vector of small integers: the seat's hand, the auction, the contract, the declarations
and belote, every card played by whom, into which led suit, and which cards each seat led, the
trick and the position in it.  Seats are counted from the deciding seat (0 = itself, 1 = the
next, 2 = the partner, 3 = the one before) and suits from the trump (the trump suit first, the
others in their order), so one pattern serves every seat and every trump.  Nothing is inferred
by hand: which seat cannot hold what is left to the model to learn from those inputs (the
sampler keeps the rules' exact inferences as hard constraints anyway).

``Beliefs.predict(view)`` runs the fitted multilayer perceptron with numpy alone (no training
library is imported): for each card it gives the probability that each other seat holds it
(relative seats 1, 2, 3), renormalised over the three seats.  The weights are
``beliefs.npz`` beside this file, written by ``atout train fit`` (bench/train.py) with its
provenance (command, data, date, held-out scores) in ``beliefs.json``.  docs/bots.md, "The
model of the hidden cards".
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from app.engine.cards import parse_card

# The variants (4 players) the model serves, in the order of the variant's one-hot input.
FAMILIES = ("classic", "coinche", "bulgarian", "bela")
DENOMS = ("C", "D", "H", "S", "NT", "AT")
DECL_KINDS = ("sequence3", "sequence4", "sequence5", "carre")
WEIGHTS = Path(__file__).with_name("beliefs.npz")
META = Path(__file__).with_name("beliefs.json")

# Input layout: (name, width).
LAYOUT = (
    ("variant", 4),
    ("hand", 32),
    ("played_by", 4 * 32),
    ("led_by", 4 * 32),
    ("played_into", 3 * 32 * 4),  # other seat, card, suit led in its trick
    ("trick_no", 8),
    ("position", 4),
    ("denom", 3),  # a trump suit, no trumps, all trumps
    ("taker", 4),
    ("value", 8),  # coinche bid value bucket
    ("multiplier", 3),
    ("bids", 4 * 8),  # per seat: its last bid's denom (6), bid at all, doubled
    ("declared", 4 * 4),  # per seat: declarations by kind (count)
    ("belote", 4),
    ("taken", 32),  # the face-up card the taker took, still in its hand
)
N_FEATURES = sum(w for _, w in LAYOUT)
OFFSET: dict[str, int] = {}
_o = 0
for _name, _w in LAYOUT:
    OFFSET[_name] = _o
    _o += _w


def supported(view: dict[str, Any]) -> bool:
    """Whether the model serves this view: the card play of a 4-player variant it knows."""
    return (
        view.get("players") == 4
        and view.get("variant") in FAMILIES
        and view.get("phase") == "play"
        and bool(view.get("contract"))
    )


def suit_order(view: dict[str, Any]) -> list[int]:
    """Real suit -> canonical suit: the trump suit first, the others in their order."""
    denom = (view.get("contract") or {}).get("denom")
    if denom in ("C", "D", "H", "S"):
        t = "CDHS".index(denom)
        others = [s for s in range(4) if s != t]
        order = [0] * 4
        order[t] = 0
        for i, s in enumerate(others):
            order[s] = i + 1
        return order
    return [0, 1, 2, 3]


def canonical(card: int, order: list[int]) -> int:
    return order[card >> 3] * 8 + (card & 7)


def features(view: dict[str, Any]) -> np.ndarray:
    """The model's input for ``view`` (uint8, ``N_FEATURES`` long): a function of the seat
    view alone."""
    x = np.zeros(N_FEATURES, dtype=np.uint8)
    me: int = view["seat"]
    order = suit_order(view)

    def rel(seat: int) -> int:
        return (seat - me) % 4

    def cc(text: str) -> int:
        return canonical(parse_card(text), order)

    x[OFFSET["variant"] + FAMILIES.index(view["variant"])] = 1
    for text in view.get("hand") or []:
        x[OFFSET["hand"] + cc(text)] = 1
    tricks = [t["plays"] for t in view.get("tricks") or []]
    current = view.get("trick") or []
    for plays in [*tricks, current]:
        if not plays:
            continue
        led = order[parse_card(plays[0]["card"]) >> 3]
        x[OFFSET["led_by"] + rel(plays[0]["seat"]) * 32 + cc(plays[0]["card"])] = 1
        for p in plays:
            r = rel(p["seat"])
            c = cc(p["card"])
            x[OFFSET["played_by"] + r * 32 + c] = 1
            if r:
                x[OFFSET["played_into"] + ((r - 1) * 32 + c) * 4 + led] = 1
    x[OFFSET["trick_no"] + min(len(tricks), 7)] = 1
    x[OFFSET["position"] + min(len(current), 3)] = 1
    contract = view["contract"]
    denom = contract.get("denom")
    x[OFFSET["denom"] + (0 if denom in ("C", "D", "H", "S") else 1 if denom == "NT" else 2)] = 1
    x[OFFSET["taker"] + rel(contract["taker"])] = 1
    value = contract.get("value")
    if value:
        x[OFFSET["value"] + max(0, min(7, (int(value) - 80) // 20))] = 1
    mult = int(contract.get("multiplier") or 1)
    x[OFFSET["multiplier"] + (0 if mult <= 1 else 1 if mult == 2 else 2)] = 1
    for b in view.get("bids") or []:
        base = OFFSET["bids"] + rel(b["seat"]) * 8
        kind = b.get("type")
        if kind == "bid" and b.get("contract") in DENOMS:
            d = b["contract"]
            if d in ("C", "D", "H", "S"):
                d_i = order["CDHS".index(d)]
            else:
                d_i = DENOMS.index(d)
            x[base : base + 6] = 0
            x[base + d_i] = 1
            x[base + 6] = 1
        elif kind not in ("pass", "bid", None):
            x[base + 7] = 1
    for seat, combos in enumerate(view.get("declarations") or []):
        for combo in combos:
            if combo.get("kind") == "carre":
                k = 3
            else:
                k = max(0, min(2, int(combo.get("length") or 3) - 3))
            i = OFFSET["declared"] + rel(seat) * 4 + k
            x[i] = min(3, int(x[i]) + 1)
    for b in view.get("belote") or []:
        x[OFFSET["belote"] + rel(b["seat"])] = 1
    taken = view.get("taken")
    if taken and taken.get("card"):
        c = parse_card(taken["card"])
        played = any(p["card"] == taken["card"] for plays in [*tricks, current] for p in plays)
        if not played and taken.get("seat") != me:
            x[OFFSET["taken"] + canonical(c, order)] = 1
    return x


class Beliefs:
    """The fitted model: ``predict(view)`` -> a 32 x 3 array, for each real card (the
    engine's card index) the probability that relative seat 1, 2 or 3 holds it."""

    layers: list[tuple[np.ndarray, np.ndarray]]
    softmax: bool

    def __init__(self, path: Path = WEIGHTS) -> None:
        with np.load(path) as data:
            self.layers = []
            i = 0
            while f"w{i}" in data:
                self.layers.append(
                    (data[f"w{i}"].astype(np.float32), data[f"b{i}"].astype(np.float32))
                )
                i += 1
            self.softmax = bool(data["softmax"]) if "softmax" in data else False

    @classmethod
    def from_arrays(cls, weights: list[Any], biases: list[Any]) -> Beliefs:
        self = cls.__new__(cls)
        self.layers = [
            (np.asarray(w, np.float32), np.asarray(b, np.float32))
            for w, b in zip(weights, biases, strict=True)
        ]
        self.softmax = False
        return self

    def logits(self, x: np.ndarray) -> np.ndarray:
        h = x.astype(np.float32)
        for w, b in self.layers[:-1]:
            h = np.maximum(h @ w + b, 0.0)
        w, b = self.layers[-1]
        out: np.ndarray = h @ w + b
        return out

    def predict_canonical(self, x: np.ndarray) -> np.ndarray:
        """(..., 32, 3) probabilities for canonical cards, from features ``x``."""
        z = self.logits(x).reshape(*x.shape[:-1], 32, 3)
        if self.softmax:
            z = z - z.max(axis=-1, keepdims=True)
            e = np.exp(z)
        else:  # one logistic output per (card, seat): renormalise over the seats
            e = 1.0 / (1.0 + np.exp(-z))
        probabilities: np.ndarray = e / np.maximum(e.sum(axis=-1, keepdims=True), 1e-12)
        return probabilities

    def predict(self, view: dict[str, Any]) -> np.ndarray:
        order = suit_order(view)
        p = self.predict_canonical(features(view))
        index = [canonical(c, order) for c in range(32)]
        return p[index]


@lru_cache(maxsize=1)
def load() -> Beliefs | None:
    """The committed model, or None when there is none (the bot then weighs worlds alike)."""
    if not WEIGHTS.exists():
        return None
    return Beliefs(WEIGHTS)


def metadata() -> dict[str, Any]:
    return json.loads(META.read_text()) if META.exists() else {}
