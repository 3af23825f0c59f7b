"""Sampling hidden cards consistent with what a seat knows (for the hard bot).

A *world* gives every hidden card of :class:`~app.bots.knowledge.Knowledge` a slot
(another seat's hand, a talon, the cards laid aside, the face-down cards of ``duel``).
Hard constraints are always kept: slot sizes, the cards a seat cannot hold (voids,
failures to overtake or to trump, belote not announced), the cards a seat is known to
hold (announced belote, carrés, shown declarations), and a sequence announced without
its suit is placed in one suit where it fits (with the cards next to it kept out, the run
being maximal).  Soft evidence (the auction, "nothing declared" when declaring is
automatic) is applied afterwards by rejection with a bounded number of tries, see
:func:`sample_world`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from app.engine.cards import card_list
from app.engine.declarations import auto_declaration

from .knowledge import Knowledge


@dataclass(slots=True)
class World:
    assign: list[int]  # per slot of ``k.slots``: the hidden cards placed there
    hands: list[int]  # per seat: every card it holds now (talon included), hidden or not
    relaxed: bool = False  # the hard constraints could not all be kept


def _hand_slot(k: Knowledge, seat: int) -> int:
    for j, s in enumerate(k.slots):
        if s.name == "hand" and s.owner == seat:
            return j
    return -1


def place(k: Knowledge, rng: random.Random, tries: int = 40) -> World:
    """One assignment of the hidden cards keeping every hard constraint (if possible)."""
    slots = k.slots
    m = len(slots)
    hidden = k.hidden
    for attempt in range(tries + 1):
        relax = attempt == tries
        assign = [0] * m
        cap = [s.size for s in slots]
        excl = [0 if relax else s.excluded for s in slots]
        taken = 0
        if not relax and k.seq_constraints:
            order = k.seq_constraints[:]
            rng.shuffle(order)
            for sc in order:
                j = _hand_slot(k, sc.seat)
                if j < 0:
                    continue
                options = _seq_options(k, sc.seat, sc.length, sc.top, excl[j] | taken, cap[j])
                if not options:
                    continue
                need, neighbours = options[rng.randrange(len(options))]
                assign[j] |= need
                cap[j] -= need.bit_count()
                taken |= need
                excl[j] |= neighbours & hidden
        cards = card_list(hidden & ~taken)
        rng.shuffle(cards)
        elig = {c: [j for j in range(m) if not (excl[j] >> c) & 1] for c in cards}
        cards.sort(key=lambda c: len(elig[c]))
        ok = True
        for c in cards:
            opts = [j for j in elig[c] if cap[j] > 0]
            if not opts:
                ok = False
                break
            if len(opts) == 1:
                j = opts[0]
            else:
                x = rng.random() * sum(cap[j] for j in opts)
                for j in opts:
                    x -= cap[j]
                    if x < 0:
                        break
            assign[j] |= 1 << c
            cap[j] -= 1
        if ok:
            return World(assign, _hands(k, assign), relaxed=relax)
    raise AssertionError("unreachable: the relaxed placement always succeeds")


def _seq_options(
    k: Knowledge, seat: int, length: int, top: int, blocked: int, cap: int
) -> list[tuple[int, int]]:
    """Suits where ``seat`` may hold its announced run: (hidden cards to place, neighbours)."""
    out = []
    low = top - length + 1
    others_played = k.played & ~k.played_by[seat]
    mine = k.played_by[seat] | k.known[seat]
    for suit in range(4):
        run = ((1 << length) - 1) << (8 * suit + low)
        if run & others_played:
            continue
        need = run & ~mine
        if need & ~k.hidden or need & blocked or need.bit_count() > cap:
            continue
        neighbours = 0
        if top < 7:
            neighbours |= 1 << (8 * suit + top + 1)
        if low > 0:
            neighbours |= 1 << (8 * suit + low - 1)
        if neighbours & mine:
            continue  # the run would not be maximal
        out.append((need, neighbours))
    return out


def _hands(k: Knowledge, assign: list[int]) -> list[int]:
    hands = [k.known[s] for s in range(k.n)]
    hands[k.seat] = k.hand
    for j, s in enumerate(k.slots):
        if s.owner >= 0 and s.name in ("hand", "talon", "down"):
            hands[s.owner] |= assign[j]
    return hands


def _public_decl(combos: tuple[object, ...]) -> list[tuple[object, ...]]:
    out = []
    for c in combos:
        d = c.describe()  # type: ignore[attr-defined]
        d.pop("suit", None)
        out.append(tuple(sorted(d.items())))
    return sorted(out)


def declarations_fit(k: Knowledge, w: World) -> bool:
    """Each seat that has announced would, from its sampled hand, announce the same.

    Only meaningful where bots (and the engine in automatic mode) announce the best set.
    """
    if not k.tricks and not k.trick:
        return True
    announced = k.view.get("declarations") or []
    if k.contract is None or not k.rules.declarations_allowed(k.contract):
        return True
    first_trick = k.tricks[0].plays if k.tricks else k.trick
    for seat, _card in first_trick:
        if seat == k.seat or seat >= len(announced):
            continue
        initial = w.hands[seat] | k.played_by[seat]
        if k.variant == "bela" and k.n == 3 and k.contract.taker == seat:
            initial &= ~_discard_of(k, w)
        want = sorted(tuple(sorted(d.items())) for d in announced[seat])
        if _public_decl(auto_declaration(initial)) != want:
            return False
    return True


def _discard_of(k: Knowledge, w: World) -> int:
    for j, s in enumerate(k.slots):
        if s.name == "discard":
            return w.assign[j]
    return 0


Likelihood = Callable[[Knowledge, World], float]


def sample_world(
    k: Knowledge,
    rng: random.Random,
    likelihood: Likelihood | None = None,
    tries: int = 12,
) -> World:
    """A world drawn from the hard constraints, then kept with probability ``likelihood``
    (the auction's evidence, in [0, 1]) and only if the declarations fit.

    After ``tries`` rejected draws, the best-scoring draw is returned: the soft evidence
    never blocks a decision.
    """
    best: World | None = None
    best_score = -1.0
    check_decl = bool(k.view.get("declarations")) and any(k.view.get("declarations") or [])
    check_decl = check_decl or k.rules.options.get("auto_declare", False)
    for _ in range(tries):
        w = place(k, rng)
        score = 1.0
        if check_decl and not declarations_fit(k, w):
            score = 0.05
        if likelihood is not None:
            score *= likelihood(k, w)
        if score >= 1.0 or rng.random() < score:
            return w
        if score > best_score:
            best, best_score = w, score
    assert best is not None
    return best
