"""Find a whole-deal ``belote-record/1`` record for every worked example of RULES.md §7.

Run by hand (not collected by pytest)::

    python -m tests.engine.examples_builder            # every example
    python -m tests.engine.examples_builder C1 B8      # some of them
    python -m tests.engine.examples_builder --check    # search, but write nothing

Each example is a short recipe:

* a deck, built with the canonical dealing maps of ``tests/engine/dealing.py``: the cards the
  example needs are placed in the right seat's slots, the rest are dealt at random;
* a scripted auction (the contract, coinche/contra/recontra, free-mode TA ...);
* a filter on the dealt hands (for instance: nobody holds a declaration);
* a goal for the card play: each side's card points (last trick and bela-3p discards
  included), each side's trick count, manual ``declare`` actions and manual belote flags;
* the example's figures, checked on the finished deal's ``DealResult``.

The card play is found by a depth-first search over the legal actions (``Search``): every
seat cooperates to reach the goal, so the search is pruned as soon as a side's points or
tricks can no longer reach their target.  Matches that must start from given totals
(C10, B8, B14) first play whole deals with random legal actions into pools, one per
dealer, and pick a sequence of them that lands exactly on the totals (``prefix_to``).
Decks and search nodes are bounded per example; a whole run takes about 30 s of CPU.

Everything is seeded (``zlib.crc32`` of the example id), so a run always writes the same
files.  The records go to ``tests/data/examples/<ID>.json`` with ``meta.example`` and
``meta.rules``; ``tests/engine/test_worked_examples.py`` replays them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from app.engine import (
    IllegalAction,
    Phase,
    State,
    action_from_json,
    apply,
    legal_actions,
    new_match,
    start_deal,
)
from app.engine.actions import Play
from app.engine.cards import cards_of, format_card
from app.engine.declarations import auto_declaration
from app.engine.record import dump, replay

from .dealing import Dest, build_deck, destinations

OUT = Path(__file__).resolve().parent.parent / "data" / "examples"
SUITS = "CDHS"
PASS = {"type": "pass"}
OVER = (Phase.DEAL_OVER, Phase.MATCH_OVER)


class NotFound(RuntimeError):
    pass


# ----------------------------------------------------------------------------- decks


def _seat_dests(variant: str, players: int, seat: int, taker: int | None) -> list[Dest]:
    """The deck destinations whose cards end in ``seat``'s hand."""
    own: list[Dest] = [(kind, seat) for kind in ("hand", "rest", "talon", "down", "faceup")]
    if seat == taker and variant == "classic":
        own.append(("up",))
    if seat == taker and variant == "bela" and players == 3:
        own.append(("middle",))
    return own


def deck_with(
    rng: random.Random,
    variant: str,
    dealer: int,
    want: dict[int, str] | None = None,
    *,
    players: int = 4,
    taker: int | None = None,
    free: bool = False,
    trump: str | None = None,
    place: dict[Dest, str] | None = None,
) -> list[int]:
    """A deck dealing each seat of ``want`` the listed cards (the rest at random).

    ``want`` maps a seat to the cards that must end in its hand (turn-up, talons and the
    bela-3p middle cards included for the taker).  ``place`` puts cards at other
    destinations (``("out",)``, ``("up",)`` ...).  In classic turn-up mode the turn-up is
    a card of ``trump`` (one of the taker's wanted trumps if any) so that the taker takes it
    in the first round.
    """
    want = {s: c.split() for s, c in (want or {}).items()}
    dests = destinations(variant, dealer, players, taker=taker, free=free)
    room = Counter(dests)
    assigned: dict[Dest, list[str]] = defaultdict(list)
    used: set[str] = set()
    wanted = {c for cs in want.values() for c in cs}

    def put(dest: Dest, card: str) -> None:
        assert card not in used, f"{card} placed twice"
        assert len(assigned[dest]) < room[dest], f"no room at {dest}"
        assigned[dest].append(card)
        used.add(card)

    for dest, text in (place or {}).items():
        for card in text.split():
            put(dest, card)
    if variant == "classic" and not free and trump is not None and not assigned[("up",)]:
        assert taker is not None
        mine = [c for c in want.get(taker, []) if c[1] == trump and c not in used]
        spare = [
            format_card(c)
            for c in range(32)
            if format_card(c)[1] == trump and format_card(c) not in wanted | used
        ]
        put(("up",), rng.choice(mine or spare))
    for seat, cards in want.items():
        slots = _seat_dests(variant, players, seat, taker)
        for card in cards:
            if card in used:
                continue
            free_slots = [d for d in slots for _ in range(room[d] - len(assigned[d]))]
            put(rng.choice(free_slots), card)
    rest = [format_card(c) for c in range(32) if format_card(c) not in used]
    rng.shuffle(rest)
    for dest in sorted(room):
        while len(assigned[dest]) < room[dest]:
            put(dest, rest.pop())
    for dest in assigned:
        rng.shuffle(assigned[dest])
    return build_deck(dests, dict(assigned))


def random_deck(rng: random.Random) -> list[int]:
    deck = list(range(32))
    rng.shuffle(deck)
    return deck


# ----------------------------------------------------------------------------- auctions


def act(state: State, action: dict[str, Any]) -> State:
    state, _ = apply(state, action_from_json(action))
    return state


def call(state: State, seat: int, action: dict[str, Any]) -> State:
    """Pass until ``seat`` is to act, then make its call."""
    while state.to_act != seat:
        state = act(state, PASS)
    return act(state, action)


def close(state: State) -> State:
    """Pass until the auction is over (a bela-2p seven exchange is declined by playing)."""
    while state.phase is Phase.BIDDING:
        state = act(state, PASS)
    return state


def bid(suit: str, value: int | str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "bid", "contract": suit}
    if value is not None:
        out["value"] = value
    return out


def take(seat: int, suit: str) -> Callable[[State], State]:
    """classic turn-up / duel / bela 2p: take the proposal's suit, or name ``suit`` in round 2."""

    def auction(state: State) -> State:
        if SUITS[state.upcard >> 3] != suit:
            for _ in range(state.rules.players):
                state = act(state, PASS)
        return close(call(state, seat, bid(suit)))

    return auction


def script(*steps: tuple[int, dict[str, Any]]) -> Callable[[State], State]:
    """A ladder/coinche/bela auction: each (seat, call) after passes, then pass it out."""

    def auction(state: State) -> State:
        for seat, action in steps:
            state = call(state, seat, action)
        return close(state)

    return auction


# ----------------------------------------------------------------------------- filters


def decl_points(state: State) -> list[list[int]]:
    """What automatic declaration would announce for each hand (points per combination)."""
    return [sorted(c.points for c in auto_declaration(h)) for h in state.hands]


def belote_pairs(state: State, suits: str) -> set[tuple[int, str]]:
    """(seat, suit) for every seat holding K and Q of one of ``suits``."""
    out = set()
    for seat, hand in enumerate(state.hands):
        held = {format_card(c) for c in cards_of(hand)}
        for s in suits:
            if {"K" + s, "Q" + s} <= held:
                out.add((seat, s))
    return out


def trump_of(state: State) -> str:
    assert state.contract is not None
    denom = state.contract.denom
    return {"NT": "", "AT": SUITS}.get(denom, denom)


def declares(want: dict[int, list[int]] | None = None) -> Callable[[State], bool]:
    """Hands whose automatic declarations are exactly ``want`` (seat -> points), none else."""
    want = want or {}

    def ok(state: State) -> bool:
        got = decl_points(state)
        return all(got[s] == sorted(want.get(s, [])) for s in range(len(got)))

    return ok


def belote(want: set[tuple[int, str]] | None = None) -> Callable[[State], bool]:
    """Exactly these (seat, suit) belote pairs are held among the contract's belote suits."""
    want = want or set()

    def ok(state: State) -> bool:
        return belote_pairs(state, trump_of(state)) == want

    return ok


def all_of(*tests: Callable[[State], bool]) -> Callable[[State], bool]:
    return lambda state: all(t(state) for t in tests)


def in_play(total: int) -> Callable[[State], bool]:
    """Bela 2p: the card points in play (hands + last trick) are ``total``."""

    def ok(state: State) -> bool:
        return sum(state.table[c] for h in state.hands for c in cards_of(h)) + 10 == total

    return ok


# ----------------------------------------------------------------------------- the play


@dataclass
class Goal:
    points: tuple[int | None, ...] | None = None  # raw card points per side (last trick in)
    tricks: tuple[int | None, ...] | None = None  # tricks per side
    declare: dict[int, str] = field(default_factory=dict)  # seat -> "7H 8H 9H|KC KD KH KS"
    belote: frozenset[int] = frozenset()  # seats announcing belote by hand (auto_belote off)
    expect: dict[str, Any] = field(default_factory=dict)  # the example's figures


def figures(state: State) -> dict[str, Any]:
    """The figures of the last deal that ``expect`` may name."""
    r = state.results[-1]
    s = r.score
    assert s is not None and r.contract is not None
    return {
        "denom": r.contract.denom,
        "value": r.contract.value,
        "multiplier": r.contract.multiplier,
        "taker_side": r.taker_side,
        "tricks_won": r.tricks_won,
        "last_trick_side": r.last_trick_side,
        "outcome": s.outcome,
        "capot_side": s.capot_side,
        "card_points": s.card_points,
        "decl_points": s.decl_points,
        "belote_points": s.belote_points,
        "totals": s.totals,
        "recorded": s.recorded,
        "reserve_paid": s.reserve_paid,
        "reserve_paid_to": s.reserve_paid_to,
        "reserve": s.reserve,
        "scores": state.scores,
        "winner": state.winner,
        "phase": state.phase.value,
    }


def matches(state: State, expect: dict[str, Any]) -> bool:
    got = figures(state)
    return all(got[k] == v for k, v in expect.items())


class Search:
    """Depth-first search of a deal's card play for a ``Goal`` (all seats cooperate)."""

    def __init__(self, state: State, goal: Goal, rng: random.Random, limit: int):
        self.goal, self.rng, self.limit = goal, rng, limit
        self.nodes = 0
        self.near = 0  # deals that met points and tricks but not the figures
        rules = state.rules
        self.side_of = rules.side_of
        self.sides = rules.sides
        self.total_tricks = rules.total_tricks
        table = state.table
        in_hands = [c for h in state.hands for c in cards_of(h)]
        in_piles = [c for p in state.piles for c in p if c >= 0]
        self.total = sum(table[c] for c in in_hands + in_piles) + 10
        self.declare = {
            s: action_from_json({"type": "declare", "combos": [c.split() for c in text.split("|")]})
            for s, text in goal.declare.items()
        }

    def won(self, state: State) -> list[int]:
        out = [0] * self.sides
        for seat, p in enumerate(state.points):
            out[self.side_of[seat]] += p
        if state.discard and state.contract is not None:
            out[self.side_of[state.contract.taker]] += sum(
                state.table[c] for c in cards_of(state.discard)
            )
        return out

    def feasible(self, state: State) -> bool:
        g = self.goal
        if g.points is not None:
            won = self.won(state)
            left = self.total - sum(won)
            for w, t in zip(won, g.points, strict=True):
                if t is not None and not w <= t <= w + left:
                    return False
        if g.tricks is not None:
            got = [0] * self.sides
            for seat, t in enumerate(state.tricks_won):
                got[self.side_of[seat]] += t
            left = self.total_tricks - len(state.tricks)
            for w, t in zip(got, g.tricks, strict=True):
                if t is not None and not w <= t <= w + left:
                    return False
        return True

    def children(self, state: State) -> list[Any]:
        seat = state.to_act
        if state.phase is Phase.PLAY:
            if not state.tricks and not state.declared[seat] and seat in self.declare:
                return [self.declare[seat]]
            plays = [a for a in legal_actions(state) if isinstance(a, Play)]
            flagged = {a.card for a in plays if a.belote}
            if seat in self.goal.belote:
                plays = [a for a in plays if a.belote or a.card not in flagged]
            else:
                plays = [a for a in plays if not a.belote]
        else:
            plays = legal_actions(state)
        self.rng.shuffle(plays)
        return plays

    def run(self, state: State) -> State | None:
        self.nodes += 1
        if self.nodes > self.limit:
            return None
        if state.phase in OVER:
            if matches(state, self.goal.expect):
                return state
            self.near += 1
            return None
        for action in self.children(state):
            try:
                nxt, _ = apply(state, action)
            except IllegalAction:  # a planned declaration the hand does not allow
                return None
            if self.feasible(nxt):
                found = self.run(nxt)
                if found is not None:
                    return found
            if self.nodes > self.limit:
                return None
        return None


@dataclass
class Deal:
    """One deal of an example: how to deal, bid, filter and play it."""

    deck: Callable[[random.Random, int], list[int]]  # (rng, dealer) -> deck
    auction: Callable[[State], State]
    goal: Goal
    accept: Callable[[State], bool] = lambda state: True
    decks: int = 300  # decks tried at most
    nodes: int = 20000  # search nodes per deck


@dataclass
class Stats:
    decks: int = 0
    nodes: int = 0
    near: int = 0


def find_deal(
    prev: State | None,
    spec: Deal,
    rng: random.Random,
    stats: Stats,
    *,
    variant: str,
    players: int,
    options: dict[str, Any],
    first_dealer: int,
) -> State:
    dealer = first_dealer if prev is None else (prev.dealer + 1) % players
    for _ in range(spec.decks):
        stats.decks += 1
        deck = spec.deck(rng, dealer)
        if prev is None:
            state = new_match(variant, players, options, first_dealer=dealer, deck=deck)
        else:
            state, _ = start_deal(prev, deck=deck)
        state = spec.auction(state)
        if state.phase in OVER or not spec.accept(state):
            continue
        search = Search(state, spec.goal, rng, spec.nodes)
        found = search.run(state)
        stats.nodes += search.nodes
        stats.near += search.near
        if found is not None:
            return found
    raise NotFound(f"no deal found after {spec.decks} decks ({stats.near} near misses)")


# ----------------------------------------------------------------------------- match prefixes


def _random_deal(
    variant: str, players: int, options: dict[str, Any], dealer: int, rng: random.Random
) -> dict[str, Any] | None:
    """A whole deal played with random legal actions; None if thrown in, litige or hanging."""
    state = new_match(variant, players, options, first_dealer=dealer, deck=random_deck(rng))
    while state.phase not in OVER:
        state, _ = apply(state, rng.choice(legal_actions(state)))
    r = state.results[-1]
    if r.thrown_in or r.score is None or r.score.outcome not in ("made", "failed"):
        return None
    deal = dump(state)["deals"][0]
    return {"deal": deal, "recorded": r.score.recorded}


def prefix_to(
    variant: str,
    options: dict[str, Any],
    first_dealer: int,
    totals: tuple[int, int],
    rng: random.Random,
    pool_size: int = 300,
    attempts: int = 20000,
) -> list[dict[str, Any]]:
    """Deals of a 4-player match, from ``first_dealer`` on, that end exactly on ``totals``.

    Whole deals are played at random into one pool per dealer; a random sequence of them
    is drawn until what is left to reach ``totals`` is the sum of one deal of each of the
    next two dealers' pools (a meet-in-the-middle look-up).  No deal is a litige or a
    hanging deal, so no reserve is ever carried.
    """
    pools: list[list[dict[str, Any]]] = []
    for dealer in range(4):
        pool: list[dict[str, Any]] = []
        while len(pool) < pool_size:
            d = _random_deal(variant, 4, options, dealer, rng)
            if d is not None:
                pool.append(d)
        pools.append(pool)
    # First without the biggest deals (contra'd valats ...): smaller steps land more
    # easily.  Then with all of them: every classic deal adds 2 modulo 10 to the sum of
    # the totals, so some totals need a given number of deals and bigger ones.
    sums = sorted(sum(d["recorded"]) for p in pools for d in p)
    for cap in (sums[len(sums) * 4 // 5], sums[-1]):
        found = _compose(
            [[d for d in p if sum(d["recorded"]) <= cap] for p in pools],
            first_dealer,
            totals,
            rng,
            attempts,
        )
        if found is not None:
            return found
    raise NotFound(f"no sequence of deals reaches {totals}")


def _compose(
    pools: list[list[dict[str, Any]]],
    first_dealer: int,
    totals: tuple[int, int],
    rng: random.Random,
    attempts: int,
) -> list[dict[str, Any]] | None:
    by_sum: list[dict[tuple[int, ...], dict[str, Any]]] = [
        {d["recorded"]: d for d in pool} for pool in pools
    ]
    mean = sum(sum(d["recorded"]) for p in pools for d in p) / sum(len(p) for p in pools)
    for _ in range(attempts):
        chosen: list[dict[str, Any]] = []
        left = list(totals)
        dealer = first_dealer
        stop = 2 * mean * rng.uniform(0.6, 1.6)
        while sum(left) > stop and left[0] >= 0 and left[1] >= 0:
            d = rng.choice(pools[dealer])
            rec = d["recorded"]
            chosen.append(d)
            left = [left[0] - rec[0], left[1] - rec[1]]
            dealer = (dealer + 1) % 4
        if left[0] < 0 or left[1] < 0:
            continue
        if tuple(left) in by_sum[dealer]:
            return [x["deal"] for x in [*chosen, by_sum[dealer][tuple(left)]]]
        second = by_sum[(dealer + 1) % 4]
        for d in pools[dealer]:
            rest = (left[0] - d["recorded"][0], left[1] - d["recorded"][1])
            if rest in second:
                return [x["deal"] for x in [*chosen, d, second[rest]]]
    return None


# ----------------------------------------------------------------------------- examples


@dataclass
class Example:
    id: str
    rules: str
    variant: str
    deals: list[Deal]
    players: int = 4
    options: dict[str, Any] = field(default_factory=dict)
    first_dealer: int = 3
    prefix: tuple[int, int] | None = None  # match totals reached by random deals first
    note: str | None = None


def build(ex: Example) -> tuple[dict[str, Any], Stats]:
    rng = random.Random(zlib.crc32(ex.id.encode()))
    stats = Stats()
    state: State | None = None
    if ex.prefix is not None:
        deals = prefix_to(ex.variant, ex.options, ex.first_dealer, ex.prefix, rng)
        record = {
            "format": "belote-record/1",
            "variant": ex.variant,
            "players": ex.players,
            "options": ex.options,
            "first_dealer": ex.first_dealer,
            "deals": deals,
        }
        state = replay(record)
        assert state.scores == ex.prefix, (state.scores, ex.prefix)
    for spec in ex.deals:
        state = find_deal(
            state,
            spec,
            rng,
            stats,
            variant=ex.variant,
            players=ex.players,
            options=ex.options,
            first_dealer=ex.first_dealer,
        )
    assert state is not None
    meta: dict[str, Any] = {"example": ex.id.split("_")[0], "rules": ex.rules}
    if "_" in ex.id:
        meta["case"] = ex.id
    if ex.note:
        meta["note"] = ex.note
    record = dump(state, meta=meta)
    # The record must replay to the same figures, deal by deal.
    again = replay(record)
    assert again.results == state.results and again.scores == state.scores
    return record, stats


def to_json(record: dict[str, Any]) -> str:
    """Compact but readable: one line per deck and per action."""
    head = {k: v for k, v in record.items() if k not in ("deals", "meta")}
    lines = ["{"]
    for k, v in head.items():
        lines.append(f"  {json.dumps(k)}: {json.dumps(v)},")
    lines.append('  "deals": [')
    for i, deal in enumerate(record["deals"]):
        lines.append(f'    {{"dealer": {deal["dealer"]},')
        lines.append(f'     "deck": {json.dumps(deal["deck"])},')
        lines.append('     "actions": [')
        acts = [f"      {json.dumps(a)}" for a in deal["actions"]]
        lines.append(",\n".join(acts))
        lines.append("    ]}" + ("," if i + 1 < len(record["deals"]) else ""))
    lines.append("  ]" + ("," if "meta" in record else ""))
    if "meta" in record:
        lines.append(f'  "meta": {json.dumps(record["meta"], ensure_ascii=False)}')
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == record
    return text


# ----------------------------------------------------------------------------- recipes

S71, S72, S73, S74, S75 = (f"RULES.md §7.{i}" for i in range(1, 6))

# Short names of the DealResult / DealScore figures that ``fig`` understands.
FIG_KEYS = {
    "value": "value",
    "m": "multiplier",
    "taker": "taker_side",
    "tricks": "tricks_won",
    "capot": "capot_side",
    "cards": "card_points",
    "decl": "decl_points",
    "bel": "belote_points",
    "tot": "totals",
    "rec": "recorded",
    "paid": "reserve_paid",
    "paid_to": "reserve_paid_to",
    "reserve": "reserve",
    "scores": "scores",
    "winner": "winner",
    "phase": "phase",
}
OUTCOMES = ("made", "failed", "litige", "hanging")


def _value(text: str) -> Any:
    if text == "none":
        return None
    if "/" in text:
        return tuple(int(x) for x in text.split("/"))
    return int(text) if text.isdigit() else text


def fig(text: str) -> dict[str, Any]:
    """``"made H rec=92/70 m=1"`` -> the figures a deal must show (``figures`` keys)."""
    out: dict[str, Any] = {}
    for word in text.split():
        if word in OUTCOMES:
            out["outcome"] = word
        elif "=" not in word:
            out["denom"] = word
        else:
            key, value = word.split("=")
            out[FIG_KEYS[key]] = _value(value)
    return out


def pts(points: str, figures: str, **kw: Any) -> Goal:
    """Goal: these raw card points per side ("92/70"), then these figures."""
    return Goal(points=_value(points), expect=fig(figures), **kw)


def sweep(tricks: str, figures: str, **kw: Any) -> Goal:
    """Goal: these tricks per side ("8/0"), then these figures."""
    return Goal(tricks=_value(tricks), expect=fig(figures), **kw)


def also(deal: Deal, figures: str) -> Deal:
    """The same deal recipe, checking more figures (match totals, winner ...)."""
    goal = replace(deal.goal, expect={**deal.goal.expect, **fig(figures)})
    return replace(deal, goal=goal)


def one(
    rules: str,
    variant: str,
    id: str,
    deck: Callable[[random.Random, int], list[int]],
    auction: Callable[[State], State],
    goal: Goal,
    accept: Callable[[State], bool] | None = None,
    *,
    decks: int = 300,
    nodes: int = 20000,
    **kw: Any,
) -> Example:
    """A one-deal example."""
    deal = Deal(deck, auction, goal, accept or (lambda state: True), decks, nodes)
    return Example(id, rules, variant, [deal], **kw)


def classic_deck(
    want: dict[int, str] | None = None, *, taker: int = 0, trump: str = "S", free: bool = False
) -> Callable[[random.Random, int], list[int]]:
    return lambda rng, dealer: deck_with(
        rng, "classic", dealer, want, taker=taker, trump=trump, free=free
    )


def deck_of(
    variant: str, want: dict[int, str] | None = None, *, players: int = 4, **kw: Any
) -> Callable[[random.Random, int], list[int]]:
    return lambda rng, dealer: deck_with(rng, variant, dealer, want, players=players, **kw)


NO_DECL = declares()
NO_PAIRS = belote()  # nobody holds a belote pair
CLEAN = all_of(NO_DECL, NO_PAIRS)
DOUBLE = {"type": "double"}
REDOUBLE = {"type": "redouble"}
NOT_QUEENS = (
    "substitution: the carré of the swept side is of aces, not queens (same value, 100): "
    "a carré of queens holds the trump queen, so the sweeping side could not also hold "
    "the belote pair."
)


def classic_examples() -> list[Example]:
    c = partial(one, S71, "classic")
    made_92_70 = Deal(
        classic_deck(trump="H"),
        take(0, "H"),
        pts("92/70", "made H taker=0 cards=92/70 decl=0/0 bel=0/0 rec=92/70"),
        CLEAN,
    )
    return [
        c(
            "C1",
            classic_deck(trump="H"),
            take(0, "H"),
            pts("92/70", "made H taker=0 cards=92/70 decl=0/0 bel=0/0 rec=92/70 reserve=0"),
            CLEAN,
        ),
        c(
            "C2",
            classic_deck({0: "KS QS"}),
            take(0, "S"),
            pts("61/101", "failed cards=61/101 decl=0/0 bel=20/0 tot=81/101 rec=20/162"),
            all_of(NO_DECL, belote({(0, "S")})),
        ),
        Example(
            "C3",
            S71,
            "classic",
            [
                Deal(
                    classic_deck(trump="D"),
                    take(0, "D"),
                    pts("81/81", "litige taker=0 tot=81/81 rec=0/81 reserve=81"),
                    CLEAN,
                ),
                Deal(
                    classic_deck(taker=1, trump="C"),
                    take(1, "C"),
                    pts(
                        "62/100",
                        "made taker=1 tot=62/100 rec=62/181 paid=81 paid_to=1 reserve=0 "
                        "scores=62/262",
                    ),
                    CLEAN,
                ),
            ],
        ),
        c(
            "C4",
            classic_deck({0: "TC JC QC KC 7D 8D 9D", 1: "AH KH QH"}),
            take(0, "S"),
            pts("75/87", "made cards=75/87 decl=70/0 bel=0/0 tot=145/87 rec=145/87"),
            all_of(declares({0: [50, 20], 1: [20]}), NO_PAIRS),
        ),
        c(
            "C5",
            classic_deck({0: "TC TD TH TS", 1: "JC JD JH JS"}),
            take(0, "S"),
            pts("62/100", "failed cards=62/100 decl=0/200 bel=0/0 tot=62/300 rec=0/362"),
            all_of(declares({0: [100], 1: [200]}), NO_PAIRS),
        ),
        c(
            "C6",
            classic_deck({0: "7C 8C 9C"}),
            take(0, "S"),
            pts("60/102", "failed cards=60/102 decl=20/0 bel=0/0 tot=80/102 rec=0/182"),
            all_of(declares({0: [20]}), NO_PAIRS),
        ),
        c(
            "C7",
            classic_deck({0: "KS QS", 2: "JS 9S", 1: "AC AD AH AS"}),
            take(0, "S"),
            sweep("8/0", "made capot=0 cards=252/0 decl=0/0 bel=20/0 rec=272/0"),
            all_of(declares({1: [100]}), belote({(0, "S")})),
            nodes=40000,
            note=NOT_QUEENS,
        ),
        c(
            "C8",
            classic_deck({0: "KS QS", 1: "7H 8H 9H", 3: "JS 9S AS"}),
            take(0, "S"),
            sweep("0/8", "failed capot=1 cards=0/252 decl=0/20 bel=20/0 rec=20/272"),
            all_of(declares({1: [20]}), belote({(0, "S")})),
            nodes=40000,
        ),
        c(
            "C9",
            classic_deck({0: "KS QS"}),
            take(0, "S"),
            pts("71/91", "litige cards=71/91 bel=20/0 tot=91/91 rec=20/91 reserve=71"),
            all_of(NO_DECL, belote({(0, "S")})),
        ),
        Example(
            "C10",
            S71,
            "classic",
            [also(made_92_70, "scores=1082/1020 winner=0 phase=match_over")],
            first_dealer=1,
            prefix=(990, 950),
        ),
        Example(
            "C10_tie",
            S71,
            "classic",
            [
                also(made_92_70, "scores=1020/1020 winner=none phase=deal_over"),
                also(made_92_70, "scores=1112/1090 winner=0 phase=match_over"),
            ],
            first_dealer=2,
            prefix=(928, 950),
        ),
        c(
            "C11",
            classic_deck({0: "KS QS KD QD"}, free=True),
            script((0, bid("AT"))),
            pts("96/66", "made AT taker=0 cards=96/66 decl=0/0 bel=40/0 tot=136/66 rec=136/66"),
            all_of(NO_DECL, belote({(0, "S"), (0, "D")})),
            options={"bidding_mode": "free"},
        ),
    ]


def coinche_examples() -> list[Example]:
    k = partial(one, S72, "coinche")
    any_deck = deck_of("coinche")
    return [
        k(
            "K1",
            any_deck,
            script((0, bid("S", 100))),
            pts("113/49", "made S value=100 m=1 taker=0 cards=113/49 decl=0/0 bel=0/0 rec=210/50"),
            CLEAN,
        ),
        k(
            "K2",
            deck_of("coinche", {0: "KH QH"}),
            script((0, bid("H", 120))),
            pts("104/58", "made H value=120 m=1 cards=104/58 bel=20/0 tot=124/58 rec=240/60"),
            all_of(NO_DECL, belote({(0, "H")})),
        ),
        k(
            "K3",
            deck_of("coinche", {0: "KD QD"}),
            script((0, bid("D", 110))),
            pts("87/75", "failed D value=110 m=1 cards=87/75 bel=20/0 tot=107/75 rec=20/270"),
            all_of(NO_DECL, belote({(0, "D")})),
        ),
        k(
            "K4",
            any_deck,
            script((0, bid("C", 90)), (1, DOUBLE)),
            pts("101/61", "made C value=90 m=2 cards=101/61 decl=0/0 bel=0/0 rec=500/0"),
            CLEAN,
        ),
        k(
            "K5",
            any_deck,
            script((0, bid("S", 130)), (1, DOUBLE), (2, REDOUBLE)),
            pts("120/42", "failed S value=130 m=4 cards=120/42 decl=0/0 bel=0/0 rec=0/1160"),
            CLEAN,
        ),
        k(
            "K6",
            deck_of("coinche", {0: "KH QH 9H TH AD", 2: "JH AH AS AC"}),
            script((0, bid("H", "capot"))),
            sweep(
                "8/0",
                "made H value=250 m=1 capot=0 cards=252/0 decl=0/0 bel=20/0 tot=272/0 rec=520/0",
            ),
            all_of(NO_DECL, belote({(0, "H")})),
            nodes=40000,
        ),
        k(
            "K7",
            any_deck,
            script((0, bid("S", "capot")), (1, DOUBLE)),
            sweep("7/1", "failed S value=250 m=2 capot=none decl=0/0 bel=0/0 rec=0/820"),
            CLEAN,
            nodes=40000,
        ),
        k(
            "K8",
            any_deck,
            script((0, bid("C", 80))),
            pts("81/81", "failed C value=80 m=1 cards=81/81 tot=81/81 rec=0/240 reserve=0"),
            CLEAN,
        ),
        k(
            "K9",
            any_deck,
            script((0, bid("D", 80))),
            pts("125/37", "made D value=80 m=1 cards=125/37 tot=125/37 rec=210/40"),
            CLEAN,
        ),
        k(
            "K10",
            deck_of("coinche", {0: "7C 8C 9C"}),
            script((0, bid("H", 90))),
            pts("70/92", "failed H value=90 m=1 cards=70/92 decl=20/0 bel=0/0 tot=90/92 rec=0/270"),
            all_of(declares({0: [20]}), NO_PAIRS),
        ),
    ]


def bulgarian_examples() -> list[Example]:
    v = "bulgarian"
    b = partial(one, S73, v)
    any_deck = deck_of(v)
    # B1's deal, reused wherever a deal must record 11 / 7: ♥, 96 + belote 20 = 116 / 66.
    eleven_seven = Deal(
        deck_of(v, {0: "KH QH"}),
        script((0, bid("H"))),
        pts("96/66", "made H taker=0 cards=96/66 decl=0/0 bel=20/0 tot=116/66 rec=11/7"),
        belote({(0, "H")}),
    )
    return [
        Example("B1", S73, v, [eleven_seven]),
        b(
            "B2",
            any_deck,
            script((0, bid("S"))),
            pts("92/70", "made S taker=0 bel=0/0 tot=92/70 rec=9/7"),
            NO_PAIRS,
        ),
        b(
            "B3",
            deck_of(v, {0: "7C 8C 9C", 1: "7H 8H 9H TH"}),
            script((0, bid("D"))),
            pts(
                "72/90",
                "failed D cards=72/90 decl=0/50 bel=0/0 tot=72/140 rec=0/21",
                declare={0: "7C 8C 9C", 1: "7H 8H 9H TH"},
            ),
            all_of(NO_PAIRS, declares({0: [20], 1: [50]})),
        ),
        b(
            "B4",
            any_deck,
            script((0, bid("NT"))),
            pts("78/52", "made NT cards=156/104 tot=156/104 rec=16/10"),
        ),
        b(
            "B5",
            any_deck,
            script((0, bid("AT"))),
            pts("134/124", "made AT bel=0/0 tot=134/124 rec=13/13"),
            NO_PAIRS,
        ),
        Example(
            "B6",
            S73,
            v,
            [
                Deal(
                    any_deck,
                    script((0, bid("C"))),
                    pts("81/81", "hanging C taker=0 tot=81/81 rec=0/8 reserve=8"),
                    NO_PAIRS,
                ),
                Deal(
                    any_deck,
                    script((1, bid("H"))),
                    pts(
                        "62/100",
                        "made taker=1 tot=62/100 rec=6/18 paid=8 paid_to=1 reserve=0 scores=6/26",
                    ),
                    NO_PAIRS,
                ),
            ],
        ),
        Example(
            "B7",
            S73,
            v,
            [
                Deal(
                    any_deck,
                    script((0, bid("S")), (1, DOUBLE)),
                    pts("90/72", "made S m=2 taker=0 tot=90/72 rec=32/0"),
                    NO_PAIRS,
                ),
                Deal(
                    any_deck,
                    script((2, bid("S")), (3, DOUBLE), (0, REDOUBLE)),
                    pts("90/72", "made S m=4 taker=0 tot=90/72 rec=64/0"),
                    NO_PAIRS,
                ),
                Deal(
                    any_deck,
                    script((2, bid("S")), (3, DOUBLE)),
                    pts("70/92", "failed S m=2 taker=0 tot=70/92 rec=0/32 scores=96/32"),
                    NO_PAIRS,
                ),
            ],
        ),
        Example(
            "B8",
            S73,
            v,
            [
                Deal(
                    deck_of(v, {0: "KH QH", 1: "AC AD AH AS"}),
                    script((0, bid("H"))),
                    sweep(
                        "8/0",
                        "made H taker=0 capot=0 cards=252/0 decl=0/100 bel=20/0 tot=272/100 "
                        "rec=27/10 scores=157/100 winner=none phase=deal_over",
                        declare={1: "AC AD AH AS"},
                    ),
                    all_of(belote({(0, "H")}), declares({1: [100]})),
                    nodes=40000,
                ),
                also(eleven_seven, "scores=168/107 winner=0 phase=match_over"),
            ],
            first_dealer=2,
            prefix=(130, 90),
            note=NOT_QUEENS,
        ),
        b(
            "B9",
            deck_of(v, {0: "AC AD AH AS", 2: "TC TD TH TS"}),
            script((0, bid("NT"))),
            sweep("8/0", "made NT capot=0 cards=350/0 tot=350/0 rec=35/0"),
            nodes=40000,
        ),
        b(
            "B10",
            deck_of(v, {0: "7D 8D 9D TD"}),
            script((0, bid("C"))),
            pts(
                "56/106",
                "hanging C cards=56/106 decl=50/0 bel=0/0 tot=106/106 rec=0/10 reserve=11",
                declare={0: "7D 8D 9D TD"},
            ),
            NO_PAIRS,
        ),
        b(
            "B11",
            deck_of(v, {0: "JC JD 9C 9D", 2: "JH JS 9H 9S"}),
            script((0, bid("AT"))),
            sweep("8/0", "made AT capot=0 cards=348/0 bel=0/0 tot=348/0 rec=35/0"),
            NO_PAIRS,
            nodes=40000,
        ),
        b(
            "B12",
            deck_of(v, {0: "7D 8D 9D TD"}),
            script((0, bid("AT"))),
            pts(
                "104/154",
                "hanging AT cards=104/154 decl=50/0 bel=0/0 tot=154/154 rec=0/15 reserve=16",
                declare={0: "7D 8D 9D TD"},
            ),
            NO_PAIRS,
        ),
        Example(
            "B13",
            S73,
            v,
            [
                Deal(
                    any_deck,
                    script((0, bid("D"))),
                    pts("146/16", "made D taker=0 bel=0/0 tot=146/16 rec=14/2"),
                    NO_PAIRS,
                ),
                Deal(
                    any_deck,
                    script((2, bid("D"))),
                    pts("128/34", "made D taker=0 bel=0/0 tot=128/34 rec=13/3"),
                    NO_PAIRS,
                ),
            ],
        ),
        Example(
            "B14",
            S73,
            v,
            [also(eleven_seven, "scores=156/147 winner=0 phase=match_over")],
            first_dealer=1,
            prefix=(145, 140),
        ),
        Example(
            "B14_tie",
            S73,
            v,
            [
                also(eleven_seven, "scores=151/151 winner=none phase=deal_over"),
                also(eleven_seven, "scores=162/158 winner=0 phase=match_over"),
            ],
            first_dealer=0,
            prefix=(140, 144),
        ),
    ]


def bela_examples() -> list[Example]:
    v = "bela"
    h = partial(one, S74, v)
    three = {"players": 3, "first_dealer": 2}  # seat 0 is eldest and the caller P0
    two = {"players": 2, "first_dealer": 1}  # seat 0 is the non-dealer and the caller
    return [
        h(
            "H1",
            deck_of(v, {0: "KC QC 7D 8D 9D", 1: "7H 8H 9H TH"}),
            script((0, bid("C"))),
            pts(
                "95/67",
                "failed C taker=0 cards=95/67 decl=0/50 bel=20/0 tot=115/117 rec=0/232",
                declare={0: "7D 8D 9D", 1: "7H 8H 9H TH"},
                belote=frozenset({0}),
            ),
            all_of(declares({0: [20], 1: [50]}), belote({(0, "C")})),
        ),
        h(
            "H2",
            deck_of(v, {0: "KC KD KH KS"}),
            script((0, bid("H"))),
            pts(
                "90/72",
                "made H taker=0 cards=90/72 decl=100/0 bel=0/0 tot=190/72 rec=190/72",
                declare={0: "KC KD KH KS"},
            ),
            declares({0: [100]}),
        ),
        h(
            "H3",
            deck_of(v),
            script((0, bid("S"))),
            pts("81/81", "failed S taker=0 cards=81/81 tot=81/81 rec=0/162 reserve=0"),
        ),
        h(
            "H3_hang",
            deck_of(v),
            script((0, bid("S"))),
            pts("81/81", "hanging S taker=0 cards=81/81 tot=81/81 rec=0/81 reserve=81"),
            options={"tie_rule": "hang"},
        ),
        h(
            "H4",
            deck_of(v, {0: "KC QC JC 9C AC", 2: "TC AD AH AS"}),
            script((0, bid("C"))),
            sweep(
                "8/0",
                "made C taker=0 capot=0 cards=252/0 bel=20/0 tot=272/0 rec=272/0",
                belote=frozenset({0}),
            ),
            belote({(0, "C")}),
            nodes=40000,
        ),
        h(
            "H5",
            deck_of(v, players=3, taker=0),
            script((0, bid("S"))),
            pts("70/52/40", "made S taker=0 cards=70/52/40 tot=70/52/40 rec=70/52/40"),
            **three,
        ),
        h(
            "H6",
            deck_of(v, players=3, taker=0),
            script((0, bid("S"))),
            pts("61/62/39", "failed S taker=0 cards=61/62/39 tot=61/62/39 rec=0/93/69"),
            **three,
        ),
        h(
            "H7",
            deck_of(v, {0: "7D 8D 9D"}, players=2),
            take(0, "H"),
            pts(
                "68/47",
                "made H taker=0 cards=68/47 decl=20/0 bel=0/0 tot=88/47 rec=88/47",
                declare={0: "7D 8D 9D"},
            ),
            all_of(in_play(115), declares({0: [20]})),
            decks=3000,
            **two,
        ),
        h(
            "H8",
            deck_of(v, {0: "KH QH"}, players=2),
            take(0, "H"),
            pts(
                "50/74",
                "failed H taker=0 cards=50/74 decl=0/0 bel=20/0 tot=70/74 rec=0/144",
                belote=frozenset({0}),
            ),
            in_play(124),
            decks=3000,
            **two,
        ),
    ]


def duel_examples() -> list[Example]:
    v = "duel"
    r = partial(one, S75, v, nodes=40000, players=2, first_dealer=1)  # seat 0 leads
    any_deck = deck_of(v, players=2)
    strong = "JS 9S AS TS KS QS AH AD AC"
    return [
        r("R1", any_deck, take(0, "S"), pts("95/67", "made taker=0 rec=95/67 scores=1/0")),
        r("R2", any_deck, take(0, "S"), pts("82/80", "made taker=0 rec=82/80 scores=1/0")),
        r("R3", any_deck, take(0, "S"), pts("81/81", "failed taker=0 rec=0/162 scores=0/1")),
        r(
            "R4",
            deck_of(v, {0: strong}, players=2),
            take(0, "S"),
            sweep("16/0", "made taker=0 capot=0 cards=252/0 rec=252/0 scores=1/0"),
        ),
        r(
            "R5",
            deck_of(v, {1: strong}, players=2),
            take(0, "S"),
            sweep("0/16", "failed taker=0 capot=1 cards=0/252 rec=0/252 scores=0/1"),
        ),
    ]


def all_examples() -> list[Example]:
    return (
        classic_examples()
        + coinche_examples()
        + bulgarian_examples()
        + bela_examples()
        + duel_examples()
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="example ids (default: all)")
    parser.add_argument("--check", action="store_true", help="search but write nothing")
    args = parser.parse_args(argv)
    examples = all_examples()
    if args.ids:
        wanted = set(args.ids)
        examples = [e for e in examples if e.id in wanted or e.id.split("_")[0] in wanted]
    OUT.mkdir(parents=True, exist_ok=True)
    failed = []
    start = time.perf_counter()
    for ex in examples:
        t0 = time.perf_counter()
        try:
            record, stats = build(ex)
        except NotFound as exc:
            failed.append(ex.id)
            print(f"{ex.id:8} NOT FOUND: {exc}", flush=True)
            continue
        took = time.perf_counter() - t0
        print(
            f"{ex.id:8} {len(record['deals'])} deal(s), {stats.decks} deck(s), "
            f"{stats.nodes} nodes, {took:.1f}s",
            flush=True,
        )
        if not args.check:
            (OUT / f"{ex.id}.json").write_text(to_json(record), encoding="utf-8")
    print(f"total {time.perf_counter() - start:.1f}s; not found: {failed or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
