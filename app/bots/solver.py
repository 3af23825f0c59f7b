"""Exact solution of the last tricks of one sampled world (alpha-beta).

The side of the root player maximises the deal's value (``Scorer.value_sides``); every
other side minimises it.  With three players (bela) the caller's two opponents share his
points when he falls, so they are treated as a coalition: when the root player is the
caller both opponents minimise; when it defends, the other defender maximises with it.  A transposition
table is kept at trick boundaries; equivalent cards (same holder, same suit, adjacent
among the cards still out, same points) are tried once.
"""

from __future__ import annotations

from collections.abc import Callable

from app.engine.cards import SUIT_MASK, card_list

from .sim import Deal, Table, allowed_cards, beats, trick_best

Evaluator = Callable[[tuple[int, ...], tuple[int, ...]], float]


class Budget(Exception):
    """Raised inside the search when its node budget is spent."""


def solve(
    d: Deal,
    t: Table,
    evaluate: Evaluator,
    side: int,
    moves: list[int],
    extra: tuple[int, ...],
    max_nodes: int = 200_000,
    allies: int = 0,
) -> tuple[list[float], int]:
    """Exact value of each root move for ``side``; and the nodes searched.

    ``allies`` (a bitmask of seats) may name seats of other sides that play to maximise
    the value too (three-player bela: the other defender, when the root player defends).

    Raises :class:`Budget` when more than ``max_nodes`` nodes would be needed.
    """
    n = t.n
    side_of = t.side_of
    n_sides = t.sides
    points = t.points
    hands = d.hands[:]
    trick = d.trick[:]
    state = {"leader": d.leader, "left": d.tricks_left}
    pts = list(extra)
    trk = [0] * n_sides
    for seat in range(n):
        pts[side_of[seat]] += d.won[seat]
        trk[side_of[seat]] += d.tricks[seat]
    reveal = d.reveal
    owner = d.owner
    tt: dict[tuple[int, int, tuple[int, ...], tuple[int, ...]], tuple[float, int]] = {}
    nodes = 0
    strength = t.strength
    hidden_down = 0  # duel: face-down cards lie between cards too
    for f in reveal.values():
        hidden_down |= 1 << f

    def ordered(seat: int, legal: int, maximizing: bool) -> list[int]:
        # drop equivalent cards: same suit, adjacent among cards not yet played, same points
        out_cards = 0
        for h in hands:
            out_cards |= h
        out_cards |= _trick_mask(trick) | hidden_down
        cs = card_list(legal)
        keep = []
        for c in cs:
            suit_rest = out_cards & SUIT_MASK[c >> 3]
            # the next stronger card still out in this suit
            nxt = -1
            ns = 99
            for o in card_list(suit_rest):
                so = strength[o]
                if strength[c] < so < ns:
                    nxt, ns = o, so
            if nxt >= 0 and (legal >> nxt) & 1 and points[nxt] == points[c]:
                continue  # equivalent to the stronger card, which is kept
            keep.append(c)
        keep.sort(key=lambda c: -(points[c] * 4 + strength[c]))
        return keep

    def search(alpha: float, beta: float) -> float:
        nonlocal nodes
        nodes += 1
        if nodes > max_nodes:
            raise Budget
        if state["left"] == 0:
            return evaluate(tuple(pts), tuple(trk))
        leader = state["leader"]
        k = len(trick)
        seat = (leader + k) % n
        key = None
        if k == 0:
            u = 0
            for h in hands:
                u |= h
            key = (u, leader, tuple(pts), tuple(trk))
            hit = tt.get(key)
            if hit is not None:
                v, flag = hit
                if flag == 0:
                    return v
                if flag > 0 and v >= beta:
                    return v
                if flag < 0 and v <= alpha:
                    return v
        if k:
            best_i, best = trick_best(trick, t)
            pm = t.partner_exc and (best_i - k) % 4 == 2
            legal = allowed_cards(hands[seat], trick, best, pm, t)
        else:
            legal = hands[seat]
        maximizing = side_of[seat] == side or (allies >> seat) & 1 == 1
        a0, b0 = alpha, beta
        value = -1e18 if maximizing else 1e18
        for c in ordered(seat, legal, maximizing):
            v = play_and_search(seat, c, alpha, beta)
            if maximizing:
                if v > value:
                    value = v
                if value > alpha:
                    alpha = value
            else:
                if v < value:
                    value = v
                if value < beta:
                    beta = value
            if alpha >= beta:
                break
        if key is not None:
            flag = 0
            if value <= a0:
                flag = -1
            elif value >= b0:
                flag = 1
            tt[key] = (value, flag)
        return value

    def play_and_search(seat: int, c: int, alpha: float, beta: float) -> float:
        hands[seat] &= ~(1 << c)
        trick.append(c)
        if len(trick) < n:
            v = search(alpha, beta)
            trick.pop()
            hands[seat] |= 1 << c
            return v
        leader = state["leader"]
        best_i, _ = trick_best(trick, t)
        w = (leader + best_i) % n
        ws = side_of[w]
        p = 0
        for x in trick:
            p += points[x]
        if state["left"] == 1:
            p += 10
        saved = trick[:]
        freed: list[tuple[int, int]] = []
        if reveal:
            for x in saved:
                f = reveal.get(x)
                if f is not None:
                    o = owner[f]
                    hands[o] |= 1 << f
                    freed.append((o, f))
        pts[ws] += p
        trk[ws] += 1
        state["left"] -= 1
        state["leader"] = w
        trick.clear()
        v = search(alpha, beta)
        trick.extend(saved)
        state["leader"] = leader
        state["left"] += 1
        trk[ws] -= 1
        pts[ws] -= p
        for o, f in freed:
            hands[o] &= ~(1 << f)
        trick.pop()
        hands[seat] |= 1 << c
        return v

    seat = (d.leader + len(d.trick)) % n
    values = []
    for c in moves:
        values.append(play_and_search(seat, c, -1e18, 1e18))
    return values, nodes


def _trick_mask(trick: list[int]) -> int:
    m = 0
    for c in trick:
        m |= 1 << c
    return m


__all__ = ["Budget", "solve", "beats"]
