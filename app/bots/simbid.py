"""The hard bot's bidding: simulate the deal for each candidate contract.

For each sampled world (hidden cards placed consistently with the auction so far), the
deal is completed as the variant deals it (classic: the turn-up and the rest of the
stock; bulgarian: the last three cards each; bela: talons, the 3-player middle cards and
the caller's discard; duel: the face-down cards), then every candidate contract is
played out by the rollout policy and scored by the engine's scoring rules:

* each legal bid, with this seat as taker;
* passing: the contract standing now (or nothing, 0, when there is none);
* a double / redouble: the standing contract with its multiplier.

All candidates share the same worlds and random numbers, so their differences are far
less noisy than their values.  The medium bot's choice stands unless another candidate
beats it by ``MARGIN`` (scaled to the variant's points).
"""

from __future__ import annotations

import random
from typing import Any

from app.engine.actions import Bid, Double, Pass, Redouble, action_from_json
from app.engine.cards import card_list
from app.engine.state import Contract
from app.engine.variants.base import DENOM_TRUMP, points_table

from .bidding import (
    PASS_MARGIN,
    belote_in,
    bid_likelihood,
    choose_discard,
    config_of,
    contract_ev,
    leads,
    medium_bid,
    score_outcome,
    standing_bid,
    visible,
    world_declarations,
)
from .knowledge import Knowledge
from .sampler import sample_world
from .sim import NOISE, Deal, Table, playout
from .valuation import expected_points, spread

MARGIN = {"classic": 6.0, "coinche": 8.0, "bulgarian": 0.6, "bela": 6.0, "duel": 6.0}
MIN_WORLDS = 2
MIN_EVIDENCE = 12  # worlds needed before the simulations may overrule the medium bid
WORLD_UNITS = 30
MAX_WORLDS = 400


def _scenarios(
    k: Knowledge, also: dict[str, Any] | None = None
) -> list[tuple[dict[str, Any], str | None, int, int | None, int]]:
    """(action, denom, taker, value, multiplier) for each legal action worth simulating."""
    holder, denom, value, mult = standing_bid(k)
    out: list[tuple[dict[str, Any], str | None, int, int | None, int]] = []
    coinche_values: dict[str, list[int]] = {}
    for a in k.legal:
        act = action_from_json(a)
        if isinstance(act, Pass):
            out.append((dict(a), denom, holder, value, mult))
        elif isinstance(act, Bid):
            if k.variant == "coinche":
                coinche_values.setdefault(act.contract, []).append(act.value or 0)
                continue
            out.append((dict(a), act.contract, k.seat, None, 1))
        elif isinstance(act, Double):
            out.append((dict(a), denom, holder, value, 2))
        elif isinstance(act, Redouble):
            out.append((dict(a), denom, holder, value, 4))
    for d, values in coinche_values.items():
        values.sort()
        # the few lowest legal values and a spread above them (the estimate picks one)
        keep = values[:6] + [v for v in values[6:] if v in (160, 250)]
        if also and also.get("type") == "bid" and also.get("contract") == d:
            v_also = 250 if also.get("value") == "capot" else int(also.get("value") or 0)
            if v_also not in keep:
                keep.append(v_also)
        for v in keep:
            out.append(
                (
                    {"type": "bid", "contract": d, "value": "capot" if v == 250 else v},
                    d,
                    k.seat,
                    v,
                    1,
                )
            )
    return out


def _complete(
    k: Knowledge, assign: list[int], taker: int, trump: int, rng: random.Random
) -> tuple[list[int], dict[int, int], dict[int, int], int]:
    """Final hands of a world for ``taker`` (and duel reveal maps, discard points)."""
    n = k.n
    hands = [0] * n
    hands[k.seat] = k.hand
    for s in range(n):
        if s != k.seat:
            hands[s] |= k.known[s]
    stock: list[int] = []
    middle = 0
    reveal: dict[int, int] = {}
    owner: dict[int, int] = {}
    for j, slot in enumerate(k.slots):
        m = assign[j]
        if slot.name in ("hand", "talon"):
            hands[slot.owner] |= m
        elif slot.name == "stock":
            stock = card_list(m)
            rng.shuffle(stock)
        elif slot.name == "middle":
            middle = m
        elif slot.name == "down":
            downs = card_list(m)
            for cover, down in zip(k.duel_covers[slot.owner], downs, strict=True):
                reveal[cover] = down
                owner[down] = slot.owner
    if k.variant == "classic" and k.upcard >= 0:
        hands[taker] |= 1 << k.upcard
        i = 0
        for s in [(k.eldest + x) % n for x in range(n)]:
            want = 2 if s == taker else 3
            for c in stock[i : i + want]:
                hands[s] |= 1 << c
            i += want
    elif k.variant == "bulgarian" and stock:
        i = 0
        for s in [(k.eldest + x) % n for x in range(n)]:
            for c in stock[i : i + 3]:
                hands[s] |= 1 << c
            i += 3
    discard_pts = 0
    if k.variant == "bela" and n == 3:
        full = hands[taker] | middle
        pts = points_table(trump)
        drop = choose_discard(full, trump, pts)
        hands[taker] = full & ~drop
        discard_pts = sum(pts[c] for c in card_list(drop))
    return hands, reveal, owner, discard_pts


def _value_for(k: Knowledge, seat: int, hand: int, trump: int) -> tuple[float, float]:
    """(mean, spread) of the points ``seat``'s side expects from ``hand`` in ``trump``."""
    cfg = config_of(k, hand.bit_count())
    opp = 0
    if k.variant == "duel":
        opp = k.known[1 - seat] if seat != k.seat else k.known[1 - k.seat]
        if seat != k.seat:
            opp = k.hand
    mean = expected_points(cfg, hand, trump, leads(k, seat), opp)
    if k.variant != "duel":
        mean += belote_in(hand, trump)
    return mean, spread(cfg, trump)


def _takes(k: Knowledge, seat: int, hand: int, suits: list[str], forced: bool) -> str | None:
    """The suit ``seat`` would name (medium valuation), or None if it would pass."""
    best, best_ev = None, 0.0
    side = k.side_of[seat]
    margin = PASS_MARGIN.get(k.variant, 3.0)
    for d in suits:
        mean, sd = _value_for(k, seat, hand, DENOM_TRUMP[d])
        ev = contract_ev(k, d, seat, None, 1, mean, sd, side=side)
        if best is None or ev > best_ev:
            best, best_ev = d, ev
    if forced or (best is not None and best_ev > margin):
        return best
    return None


def _continuation(k: Knowledge, hands: list[int]) -> tuple[str, int] | None:
    """The contract the auction would likely reach if this seat passes now (classic
    turn-up, bela, duel): the first later speaker whose hand is worth naming a trump, the
    forced dealer, or None (thrown in)."""
    n = k.n
    me = k.seat
    suits = ["C", "D", "H", "S"]

    def hand_of(seat: int) -> int:
        if seat == me:
            return visible(k)
        if k.variant == "duel":
            return k.known[seat]
        h = hands[seat]
        if k.variant == "classic" and k.upcard >= 0:
            h |= 1 << k.upcard
        return h

    if k.variant == "classic":
        up = suits[k.upcard >> 3]
        others = [x for x in suits if x != up]
        rnd = 0 if len(k.bids) < n else 1
        after = [(me + i) % n for i in range(1, n)]
        rest = after[: (k.dealer - me) % n]  # the speakers left in this round
        if rnd == 0:
            for seat in rest:
                if _takes(k, seat, hand_of(seat), [up], False):
                    return up, seat
            rest = [(k.eldest + i) % n for i in range(n)]
        for seat in rest:
            d = _takes(k, seat, hand_of(seat), others, False)
            if d:
                return d, seat
        return None
    if k.variant == "bela" and n > 2:
        for seat in [(me + i) % n for i in range(1, n)]:
            d = _takes(k, seat, hand_of(seat), suits, seat == k.dealer)
            if d:
                return d, seat
            if seat == k.dealer:
                break
        return None
    # bela 2p and duel: N speaks at stages 0 and 2, the dealer at 1 and 3
    up = suits[k.upcard >> 3] if k.variant == "bela" else suits[_proposal(k) >> 3]
    others = [x for x in suits if x != up]
    for stage in range(len(k.bids) + 1, 4):
        seat = k.eldest if stage % 2 == 0 else k.dealer
        forced = k.variant == "bela" and stage == 3
        d = _takes(k, seat, hand_of(seat), [up] if stage < 2 else others, forced)
        if d:
            return d, seat
    return None


def _proposal(k: Knowledge) -> int:
    """Duel: the proposal card (the dealer's last face-up card)."""
    return k.upcard


def _table(k: Knowledge, denom: str, taker: int, noise: float = NOISE) -> Table:
    c = Contract(denom, DENOM_TRUMP[denom], taker)
    return Table(
        k.n,
        DENOM_TRUMP[denom],
        k.rules.flags(c),
        k.rules.points(c),
        k.side_of,
        k.total_tricks,
        taker,
        open_hands=k.variant == "duel",
        noise=noise,
    )


def hard_bid(
    k: Knowledge,
    rng: random.Random,
    budget: Any,
    margin: float | None = None,
    noise: float = NOISE,
) -> dict[str, Any]:
    """Simulate the deal for each candidate contract and take the best expectation.

    Worlds are drawn consistent with the auction so far; in each, every candidate contract
    (this seat or its side as taker; the current contract for passing; the current
    contract doubled for a double) is played out by the rollout policy and scored exactly
    as the engine scores it.  The medium bid is kept unless a candidate beats it by a
    margin (``margin``, by default the variant's ``MARGIN``), which keeps the noisy estimates
    from chasing ghosts.
    """
    fallback = medium_bid(k, rng)
    scenarios = _scenarios(k, fallback)
    if len(scenarios) <= 1:
        return fallback
    values, worlds = simulate(k, rng, scenarios, budget, MAX_WORLDS, noise)
    fb_i = next((i for i, s in enumerate(scenarios) if _same(s[0], fallback)), None)
    if fb_i is None or worlds < MIN_EVIDENCE:
        return fallback
    # deviate from the medium bid only when the simulations say so with some confidence:
    # the paired difference must clear the margin by one standard error
    if margin is None:
        margin = MARGIN.get(k.variant, 6.0)
    best_i, best_score = fb_i, 0.0
    for i in range(len(scenarios)):
        if i == fb_i:
            continue
        diffs = [a - b for a, b in zip(values[i], values[fb_i], strict=True)]
        mean = sum(diffs) / worlds
        var = sum((x - mean) ** 2 for x in diffs) / max(worlds - 1, 1)
        score = mean - margin - (var / worlds) ** 0.5
        if score > best_score:
            best_i, best_score = i, score
    return scenarios[best_i][0] if best_i != fb_i else fallback


Scenario = tuple[dict[str, Any], str | None, int, int | None, int]


def simulate(
    k: Knowledge,
    rng: random.Random,
    scenarios: list[Scenario],
    budget: Any,
    max_worlds: int,
    noise: float = NOISE,
) -> tuple[list[list[float]], int]:
    """Each scenario's outcome (recorded points, own side minus the other; three players:
    own) in each of the worlds drawn, all scenarios in the same worlds; and the worlds.
    Stops at ``max_worlds``, or once ``budget.done()`` after ``MIN_WORLDS``."""
    plays = sorted({(d, t) for _, d, t, _, _ in scenarios if d is not None})
    # passing with no contract standing: play out what the others would then name
    continues = k.variant in ("bela", "duel") or (
        k.variant == "classic" and k.rules.options.get("bidding_mode") != "free"
    )
    values: list[list[float]] = [[] for _ in scenarios]
    worlds = 0
    side = k.my_side
    tie_rule = k.rules.options.get("tie_rule", "fall")
    tables: dict[tuple[str, int], Table] = {}
    for d, t in plays:
        tables[(d, t)] = _table(k, d, t, noise)
    while worlds < max_worlds:
        w = sample_world(k, rng, bid_likelihood, tries=6)
        budget.spend(WORLD_UNITS)
        rnd = [rng.random() for _ in range(64)]
        outcomes: dict[tuple[str, int], tuple[Any, ...]] = {}
        cont = _continuation(k, w.hands) if continues else None
        for d, t in plays + ([cont] if cont is not None and cont not in plays else []):
            trump = DENOM_TRUMP[d]
            hands, reveal, owner, extra = _complete(k, w.assign, t, trump, rng)
            if (d, t) not in tables:
                tables[(d, t)] = _table(k, d, t, noise)
            table = tables[(d, t)]
            decl, bel = world_declarations(k, hands, trump)
            deal = Deal(
                hands[:],
                [],
                k.eldest,
                0,
                [0] * k.n,
                [0] * k.n,
                k.total_tricks,
                [0] * k.n,
                reveal,
                owner,
            )
            playout(deal, table, rnd)
            budget.spend(k.total_tricks * k.n + 8)
            pts = [0] * k.sides
            trk = [0] * k.sides
            for s in range(k.n):
                pts[k.side_of[s]] += deal.won[s]
                trk[k.side_of[s]] += deal.tricks[s]
            pts[k.side_of[t]] += extra
            outcomes[(d, t)] = (tuple(pts), tuple(trk), decl, bel)
        for i, (_a, named, t, value, mult) in enumerate(scenarios):
            if named is None:
                if cont is None:
                    values[i].append(0.0)
                    continue
                d, t = cont
            else:
                d = named
            pts, trk, decl, bel = outcomes[(d, t)]
            rec = score_outcome(
                k.variant,
                k.side_of[t],
                d,
                value,
                mult,
                pts,
                trk,
                k.total_tricks,
                decl,
                bel,
                tie_rule,
            )
            v = rec[side] - rec[1 - side] if k.sides == 2 else float(rec[side])
            values[i].append(v)
        worlds += 1
        if worlds >= MIN_WORLDS and budget.done():
            break
    return values, worlds


def bid_review(k: Knowledge, rng: random.Random, worlds: int) -> list[tuple[dict[str, Any], float]]:
    """Every candidate action of the seat to bid and its mean outcome over ``worlds``
    worlds drawn consistent with its view (the simulation of :func:`hard_bid`)."""
    scenarios = _scenarios(k, None)

    class _Endless:
        """A budget without end: a review draws every world it is asked for."""

        def spend(self, units: int) -> None:
            return None

        def done(self) -> bool:
            return False

    values, drawn = simulate(k, rng, scenarios, _Endless(), worlds)
    return [(s[0], sum(v) / max(drawn, 1)) for s, v in zip(scenarios, values, strict=True)]


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    def strip(x: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in x.items() if k != "seat"}

    return strip(a) == strip(b)
