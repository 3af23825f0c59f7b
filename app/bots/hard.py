"""The hard bot: search over sampled worlds (determinized Monte Carlo).

Card play: draw worlds consistent with the seat's knowledge (``sampler``), and in each
world score every legal card by a playout of the rest of the deal with the heuristic
rollout policy (``sim.policy_card``); the same random numbers serve every card of a world
(common random numbers).  In the last tricks each world is solved exactly instead
(``solver``).  The card with the best mean value wins; the medium bot's choice gets a
small bonus, which settles near-ties the sensible way.

Bidding: ``hard_bidding`` simulates the deal for each candidate contract (see there).

Work is counted in *units* (one card played in a playout, one node of the solver), so a
decision is a deterministic function of the view and the random generator.  A wall-clock
safety deadline only cuts the search short on an overloaded machine.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from app.engine.cards import card_list
from app.engine.scoring import CAPOT_BONUS

from . import HardStyle, dds, medium
from .bidding import bid_likelihood, discard, discard_scores
from .common import (
    belote_points,
    decide,
    declaration_points,
    public_voids,
    seat_declarations,
    table_of,
)
from .knowledge import Knowledge, read_view
from .sampler import World, sample_world
from .score import Scorer
from .sim import (
    NOISE,
    Deal,
    Table,
    allowed_cards,
    play_card,
    playout,
    policy_card,
    trick_best,
)
from .simbid import hard_bid
from .solver import Budget, solve

# Work units per decision.  Calibrated so that a decision takes ~100-150 ms on one core of
# the reference machine (docs/benchmarks.md); ``budget_ms`` scales it.
UNITS_PER_MS = 200
WORLD_UNITS = 30  # drawing a world and setting it up, in units
DEFAULT_BUDGET_MS = 120
SAFETY_FACTOR = 4.0  # wall-clock deadline = SAFETY_FACTOR x budget_ms, at least MIN_DEADLINE_S
MIN_DEADLINE_S = 0.3
MAX_DEADLINE_S = 0.9
MEDIUM_BONUS = 0.75  # points added to the medium bot's card (tie-break towards sense)
ROLLOUT_NUMBERS = 64
# The exact solver of the whole card play (``dds``) in the middle of the deal: from this many
# cards left (all seats, the trick in progress included; per player count), its nodes priced
# in work units (a compiled node costs a small share of a playout's card), and the share of
# a decision's budget one world's solve may take before the decision falls back to playouts.
DDS_CARDS = {4: 32, 2: 22}
DDS_NODES_PER_UNIT = 100
DDS_WORLD_SHARE = 0.25
# Reading the play (the arena's ``hard-reads``): a world is weighted by how well the cards the
# other seats chose so far fit the rollout policy's choice from that world's hands, a factor of
# ``READ_MISS`` for each choice the policy would not have made (equivalent cards are the same
# choice).  In classic deals between hard bots (``atout bench reads``) the policy makes the
# players' choice about half the time when leading (4.7 legal cards on average) and three times
# in four when following (2.8): a likelihood ratio of 4 to 5 between a world where the card
# played is the policy's choice and one where it is not.  0.35 tempers that, so that a few
# worlds do not carry a decision alone.
READ_MISS = 0.35

ScorerKey = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]  # declarations, belote, extra


@dataclass(slots=True)
class Budgeter:
    units: int
    deadline: float

    def spend(self, units: int) -> None:
        self.units -= units

    def done(self) -> bool:
        return self.units <= 0 or time.perf_counter() > self.deadline


# Whether the wall-clock safety deadline applies.  The arena may turn it off (``atout arena
# --no-deadline``) to measure on a loaded machine: every decision is then the same function of
# the view and the generator whatever the load, at the cost of no bound on its wall-clock time.
WALL_DEADLINE = True


def make_budget(budget_ms: float | None) -> Budgeter:
    ms = DEFAULT_BUDGET_MS if budget_ms is None else budget_ms
    deadline = min(max(ms * SAFETY_FACTOR / 1000.0, MIN_DEADLINE_S), MAX_DEADLINE_S)
    if not WALL_DEADLINE:
        deadline = float("inf")
    return Budgeter(int(ms * UNITS_PER_MS), time.perf_counter() + deadline)


def choose(
    view: dict[str, Any],
    rng: random.Random,
    budget_ms: float | None = None,
    *,
    style: HardStyle = HardStyle(),
) -> dict[str, Any]:
    """The hard bot's action, in the way of ``style`` (the level's differences from ``hard``:
    the exact middle game of the arena's ``hard-v2``, the reading of the play of
    ``hard-reads``, a bidding margin of its own)."""
    margin = dict(style.bid_margin)
    noise = NOISE if style.rollout_noise is None else style.rollout_noise
    beliefs_of = None
    if style.model_mix > 0 and view.get("phase") == "play":
        from . import beliefs  # numpy: only the levels that use the model import it

        model = beliefs.load() if beliefs.supported(view) else None
        if model is not None:
            beliefs_of = (model.predict(view), style.model_mix)
    return decide(
        read_view(view),
        rng,
        card=lambda k, r: choose_card(
            k,
            r,
            make_budget(budget_ms),
            style.exact_middle,
            style.reads_play,
            noise,
            beliefs_of,
        ),
        bid=lambda k, r: hard_bid(k, r, make_budget(budget_ms), margin.get(k.variant), noise),
        discard=lambda k, r: choose_discard_hard(k, r, make_budget(budget_ms)),
    )


# ---------------------------------------------------------------------- bela 3p discard

DISCARD_CANDIDATES = 10
DISCARD_MARGIN = 2.0


def choose_discard_hard(k: Knowledge, rng: random.Random, budget: Budgeter) -> dict[str, Any]:
    """Bela 3p caller: simulate the deal for the most promising discards.

    The medium heuristic ranks the 66 pairs; the best ``DISCARD_CANDIDATES`` are played out
    in sampled worlds (same worlds and random numbers for all), and the medium choice is
    left only for a pair better by a margin plus one standard error.
    """
    scored = discard_scores(k.hand, k.trump, k.points)
    value = {c: v for v, c in scored}
    cards = [c for _, c in scored]
    pairs = sorted(
        (
            (value[a] + value[b], (1 << a) | (1 << b))
            for i, a in enumerate(cards)
            for b in cards[i + 1 :]
        ),
        reverse=True,
    )
    candidates = [m for _, m in pairs[:DISCARD_CANDIDATES]]
    fallback = candidates[0]
    table = table_of(k)
    side = k.my_side
    assert k.contract is not None
    results: list[list[float]] = [[] for _ in candidates]
    worlds = 0
    cache: dict[ScorerKey, Scorer] = {}
    voids = [0] * k.n
    while worlds < 300:
        w = sample_world(k, rng)
        budget.spend(WORLD_UNITS)
        rnd = [rng.random() for _ in range(ROLLOUT_NUMBERS)]
        for i, m in enumerate(candidates):
            hands = w.hands[:]
            hands[k.seat] = k.hand & ~m
            extra = [0] * k.sides
            extra[side] = sum(k.points[c] for c in card_list(m))
            decl = declaration_points(k, seat_declarations(k, hands))
            bel = belote_points(k, hands)
            sc = cached_scorer(k, cache, decl, bel, tuple(extra))
            d = Deal(hands, [], k.eldest, 0, [0] * k.n, [0] * k.n, k.total_tricks, voids[:])
            playout(d, table, rnd)
            budget.spend(k.total_tricks * k.n)
            results[i].append(sc.value(d.won, d.tricks, side))
        worlds += 1
        if worlds >= 2 and budget.done():
            break
    best_i, best_score = 0, 0.0
    for i in range(1, len(candidates) if worlds >= 12 else 1):
        diffs = [a - b for a, b in zip(results[i], results[0], strict=True)]
        mean = sum(diffs) / worlds
        var = sum((x - mean) ** 2 for x in diffs) / max(worlds - 1, 1)
        score = mean - DISCARD_MARGIN - (var / worlds) ** 0.5
        if score > best_score:
            best_i, best_score = i, score
    return discard(k, candidates[best_i] if best_i else fallback)


# ---------------------------------------------------------------------- card play


def world_deal(k: Knowledge, w: World, voids: list[int]) -> Deal:
    """The fast-path position of a sampled world."""
    hands = w.hands[:]
    reveal: dict[int, int] = {}
    owner: dict[int, int] = {}
    if k.variant == "duel":
        hands = [k.hand if s == k.seat else k.known[s] for s in range(k.n)]
        for j, slot in enumerate(k.slots):
            downs = card_list(w.assign[j])
            for cover, down in zip(k.duel_covers[slot.owner], downs, strict=True):
                reveal[cover] = down
                owner[down] = slot.owner
    won = [0] * k.n
    tricks = [0] * k.n
    for t in k.tricks:
        won[t.winner] += t.points
        tricks[t.winner] += 1
    return Deal(
        hands=hands,
        trick=k.trick_cards(),
        leader=k.leader,
        played=k.played,
        won=won,
        tricks=tricks,
        tricks_left=k.tricks_left(),
        voids=voids[:],
        reveal=reveal,
        owner=owner,
    )


def world_scorer(
    k: Knowledge, w: World, cache: dict[ScorerKey, Scorer]
) -> tuple[Scorer, tuple[int, ...]]:
    assert k.contract is not None
    hands = w.hands
    if k.variant == "duel":
        decl = (0,) * k.sides
        bel = (0,) * k.sides
    else:
        decl = declaration_points(k, seat_declarations(k, hands))
        bel = belote_points(k, hands)
    extra = [0] * k.sides
    if k.variant == "bela" and k.n == 3:
        taker_side = k.side_of[k.contract.taker]
        discard = 0
        for j, slot in enumerate(k.slots):
            if slot.name == "discard":
                discard = w.assign[j]
        for c in card_list(discard | (k.aside_known if k.contract.taker == k.seat else 0)):
            extra[taker_side] += k.points[c]
    return cached_scorer(k, cache, decl, bel, tuple(extra)), tuple(extra)


def cached_scorer(
    k: Knowledge,
    cache: dict[ScorerKey, Scorer],
    decl: tuple[int, ...],
    bel: tuple[int, ...],
    extra: tuple[int, ...],
) -> Scorer:
    """The deal's scoring for this contract given the declarations, belote and extra points
    of a world (one ``Scorer`` per distinct triple in ``cache``, shared by a decision)."""
    key = (decl, bel, extra)
    sc = cache.get(key)
    if sc is None:
        assert k.contract is not None
        sc = Scorer(
            k.variant,
            k.contract,
            k.side_of,
            k.total_tricks,
            decl,
            bel,
            tie_rule=k.rules.options.get("tie_rule", "fall"),
            extra=extra,
        )
        cache[key] = sc
    return sc


def solve_threshold(k: Knowledge) -> int:
    """Cards left (all seats, the trick in progress included) from which worlds are solved."""
    if k.n == 4:
        return 16
    if k.n == 3:
        return 15
    return 14


def dds_threshold(k: Knowledge) -> int:
    """Cards left (as in :func:`solve_threshold`) from which the exact solver of the whole
    card play (``dds``) values each card in every world; before, playouts do."""
    if k.n == 3:
        return 0  # its two defenders are one party to the solver, two sides to the score
    return DDS_CARDS.get(k.n, 0)


def choose_card(
    k: Knowledge,
    rng: random.Random,
    budget: Budgeter,
    exact_middle: bool = False,
    reads_play: bool = False,
    noise: float = NOISE,
    beliefs_of: tuple[Any, float] | None = None,
) -> int:
    legal_mask = k.legal_cards()
    moves = card_list(legal_mask)
    if len(moves) == 1:
        return moves[0]
    table = table_of(k)
    table.noise = noise
    moves = _sensible(k, moves)
    if len(moves) == 1:
        return moves[0]
    default = medium.choose_card(k, rng)
    scores = card_values(k, rng, budget, moves, table, exact_middle, reads_play, beliefs_of)
    best = max(moves, key=lambda c: (scores[c] + (MEDIUM_BONUS if c == default else 0.0), -c))
    return best


def _sensible(k: Knowledge, moves: list[int]) -> list[int]:
    """Drop the moves no good player considers: trumping the partner's trick when it is
    already won for sure and a plain card may be played instead."""
    if not k.trick or not (0 <= k.trump < 4) or k.n != 4:
        return moves
    w_seat, best = k.trick_winner()
    led = k.trick[0][1] >> 3
    if w_seat != k.partner() or led == k.trump:
        return moves
    f = medium.Facts(k)
    if len(k.trick) != 3 and not medium.secure(f, best, led):
        return moves
    plain = [c for c in moves if c >> 3 != k.trump]
    return plain or moves


def card_values(
    k: Knowledge,
    rng: random.Random,
    budget: Budgeter,
    moves: list[int],
    table: Table,
    exact_middle: bool = False,
    reads_play: bool = False,
    beliefs_of: tuple[Any, float] | None = None,
) -> dict[int, float]:
    """Mean value of each card over the sampled worlds (for this seat's side); with
    ``reads_play``, each world weighs by its :func:`play_likelihood`; with ``beliefs_of``
    (the model's probabilities, per card and other seat, and the mix), by
    :func:`model_world_weights`.

    In a world, a card is valued by the endgame solver in the last tricks (the deal's
    recorded points, exactly); from ``dds_threshold`` cards left on, by the solver of the
    whole card play (the card-play scores with best play by all, turned into recorded
    points); before, by a playout.  A search past its node cap hands the decision to the
    next way down for the worlds left."""
    side = k.my_side
    voids = public_voids(k)
    totals = {c: 0.0 for c in moves}
    worlds = 0
    weights = 0.0
    reads_play = reads_play and k.n == 4 and k.variant != "duel" and k.played != 0
    cache: dict[ScorerKey, Scorer] = {}
    cards_left = sum(k.hand_counts) + len(k.trick)
    if k.variant == "duel":
        cards_left += sum(len(c) for c in k.duel_covers)
    exact = cards_left <= solve_threshold(k)
    middle = exact_middle and not exact and cards_left <= dds_threshold(k)
    likelihood = bid_likelihood
    max_nodes = max(400, budget.units // 6)
    dds_nodes = int(budget.units * DDS_NODES_PER_UNIT * DDS_WORLD_SHARE)
    scale = dds.card_scale(k.variant, table.trump)
    per_world: list[list[float]] = []
    world_hands: list[list[int]] = []
    allies = 0
    if k.n == 3 and k.contract is not None and k.contract.taker != k.seat:
        allies = 1 << (3 - k.seat - k.contract.taker)  # the other defender
    while True:
        w = sample_world(k, rng, likelihood)
        budget.spend(WORLD_UNITS)
        weight = 1.0
        if reads_play:
            weight, calls = play_likelihood(k, w, table)
            budget.spend(calls)
        d = world_deal(k, w, voids)
        scorer, extra = world_scorer(k, w, cache)
        values: list[float] | None = None
        if exact:
            try:
                values, nodes = solve(
                    d,
                    table,
                    lambda p, t, s=scorer: s.value_sides(p, t, side),  # type: ignore[misc]
                    side,
                    moves,
                    extra,
                    max_nodes=max_nodes,
                    allies=allies,
                )
                budget.spend(nodes)
            except Budget:
                budget.spend(max_nodes)
                exact = False
        elif middle:
            try:
                sol = dds.solve(d, table, side, extra, scale, moves, max_nodes=dds_nodes)
                budget.spend(-(-sol.nodes // DDS_NODES_PER_UNIT))
                values = dds_values(sol, d, table, scorer, side, extra, scale, moves)
            except dds.Budget:
                budget.spend(dds_nodes // DDS_NODES_PER_UNIT)
                middle = False
        if values is None:
            rnd = [rng.random() for _ in range(ROLLOUT_NUMBERS)]
            values = []
            for c in moves:
                dd = d.copy()
                play_card(dd, c, table)
                left = sum(h.bit_count() for h in dd.hands)
                playout(dd, table, rnd)
                budget.spend(left)
                values.append(scorer.value(dd.won, dd.tricks, side))
        if beliefs_of is not None:
            per_world.append(values)
            world_hands.append(w.hands)
        else:
            for c, v in zip(moves, values, strict=True):
                totals[c] += weight * v
        worlds += 1
        weights += weight
        if budget.done() or (exact and worlds >= 48):
            break
    if beliefs_of is not None:
        probs, mix = beliefs_of
        omega = model_world_weights(probs, k.seat, world_hands, mix)
        budget.spend(len(world_hands))
        return {
            c: sum(o * vals[i] for o, vals in zip(omega, per_world, strict=True))
            for i, c in enumerate(moves)
        }
    return {c: totals[c] / weights for c in moves}


def model_world_weights(
    probs: Any, seat: int, world_hands: list[list[int]], mix: float
) -> list[float]:
    """The weight of each world (they add up to 1): ``1 - mix`` shared alike (the floor of
    uniform worlds, a guard against players unlike the model's training data) and ``mix`` in
    proportion to the model's likelihood of the world, the product over the other seats'
    cards of the model's probability that the seat holds the card (``probs``: per card, per
    relative seat 1, 2, 3; ``beliefs.Beliefs.predict``).  Cards every world places alike
    (known or played) multiply every world by the same factor."""
    n = len(world_hands)
    if n == 0:
        return []
    logp = [[math.log(max(float(p), 1e-6)) for p in row] for row in probs.tolist()]
    logw = []
    for hands in world_hands:
        total = 0.0
        for s, h in enumerate(hands):
            if s == seat or not h:
                continue
            r = (s - seat) % 4 - 1
            while h:
                low = h & -h
                total += logp[low.bit_length() - 1][r]
                h ^= low
        logw.append(total)
    top = max(logw)
    e = [math.exp(x - top) for x in logw]
    z = sum(e)
    return [(1.0 - mix) / n + mix * x / z for x in e]


def play_likelihood(k: Knowledge, w: World, table: Table) -> tuple[float, int]:
    """How well world ``w`` fits the cards the other seats chose so far, and the rollout
    policy's calls it took (work units).

    The deal is replayed from its first card with the world's hands; at each choice of
    another seat with more than one legal card, the rollout policy (``sim.policy_card``,
    which knows only public facts and that seat's hand) picks a card from the world's hand.
    Each choice it would not have made costs a factor ``READ_MISS``; a card of the same suit
    and points with no card outside that seat's hand ranked between the two is the same
    choice.  A world where the partner ducked holding the master, or an opponent threw a ten
    while holding small cards, weighs less."""
    history = [t.plays for t in k.tricks] + [k.trick]
    weight = 1.0
    calls = 0
    for _lead, _legal, chosen in policy_replay(k, w.hands, table, history, k.seat):
        calls += 1
        if not chosen:
            weight *= READ_MISS
    return weight, calls


def policy_replay(
    k: Knowledge, hands: list[int], table: Table, history: list[list[tuple[int, int]]], skip: int
) -> Iterator[tuple[bool, int, bool]]:
    """Replay ``history`` (the plays of the deal's tricks in order, from its first card) with
    ``hands`` the seats' hands after it; for each choice of a seat other than ``skip`` with more
    than one legal card: (whether it led, its legal cards, whether the rollout policy makes
    that choice from that hand, :func:`_same_choice` counting as the same)."""
    start = hands[:]
    for plays in history:
        for seat, card in plays:
            start[seat] |= 1 << card
    first = history[0][0][0] if history and history[0] else k.leader
    d = Deal(start, [], first, 0, [0] * k.n, [0] * k.n, k.total_tricks, [0] * k.n)
    for plays in history:
        for seat, card in plays:
            if seat != skip:
                hand = d.hands[seat]
                if d.trick:
                    best_i, best = trick_best(d.trick, table)
                    pm = table.partner_exc and (best_i - len(d.trick)) % 4 == 2
                    allowed = allowed_cards(hand, d.trick, best, pm, table)
                else:
                    best_i, best, allowed = 0, -1, hand
                if allowed & (allowed - 1):
                    pick = policy_card(d, seat, allowed, best_i, best, table, 0.5)
                    same = pick == card or _same_choice(pick, card, hand, d.played, table)
                    yield not d.trick, allowed.bit_count(), same
            play_card(d, card, table)


def _same_choice(a: int, b: int, hand: int, played: int, t: Table) -> bool:
    """Whether cards ``a`` and ``b`` of one hand are equivalent: same suit and points, and
    every card ranked between them is in that hand or played."""
    if a >> 3 != b >> 3 or t.points[a] != t.points[b]:
        return False
    low, high = (a, b) if t.strength[a] < t.strength[b] else (b, a)
    between = t.above[low] & ~t.above[high] & ~(1 << high)
    return not (between & ~hand & ~played)


def dds_values(
    sol: dds.Solution,
    d: Deal,
    table: Table,
    scorer: Scorer,
    side: int,
    extra: tuple[int, ...],
    scale: int,
    moves: list[int],
) -> list[float]:
    """Each card's value for ``side`` from the solver's card-play scores (two sides): its
    party's and the other's card points with best play, a capot when they add up to more
    than the points in the deal, scored as the deal would be."""
    points = table.points
    total = sum(d.won) + 10 + sum(extra)
    for c in card_list(dds.remaining(d)):
        total += points[c]
    for c in d.trick:
        total += points[c]
    tricks = table.total_tricks
    out: list[float] = []
    for c in moves:
        own, other = sol.scores[c]
        capot = own + other > total * scale
        if capot:
            if own > other:
                own -= CAPOT_BONUS
                trk = (tricks, 0)
            else:
                other -= CAPOT_BONUS
                trk = (0, tricks)
        else:
            trk = (tricks - 1, 1)
        pts = [0, 0]
        pts[side] = own // scale
        pts[1 - side] = other // scale
        t = [0, 0]
        t[side], t[1 - side] = trk
        out.append(scorer.value_sides(tuple(pts), tuple(t), side))
    return out
