"""Exact double-dummy solver for the card play of every variant and player count.

Every card is known (a finished deal, or one sampled world); the solver finds what each
party secures with best play by everyone, from any position between the first card of
trick 1 and the end, and the value of every legal card of the seat to move.

The value searched is the *card-play difference* of the maximising party: its card-play
score minus the other party's, where a party's card-play score is its card points (the
contract's points table, the last trick's 10 included, bela-3p discards for the caller),
multiplied by ``scale`` (2 in Bulgarian no-trump, RULES.md §4.3), plus the 90 of a capot
(§0.3: one side took every trick; never doubled).  With two sides the parties are the
sides; with three players (bela) they are the caller and the two defenders together, while a
capot still needs one seat to take every trick.  The card points always add up to the
deal's total, so the difference decides the points of both parties (``Solution.scores``).

How it is fast:

* alpha-beta, every value counted from the current position on, so that a transposition
  table at trick boundaries (keyed on the cards still out, the leader and which side may
  still take every trick) serves every line reaching the same cards;
* equivalent cards merged: cards of one hand and one suit with the same points and no
  card still out (or on the table) between them are tried once;
* each legal card's exact value found by null-window searches, all of them sharing the
  table: only on values of the parity of the points still out (the two parties' points add
  up to them, a capot's 90 is even), the first at the previous card's value, the next just
  past the bound the last one returned (the value is often that bound), stepping twice as
  far while the value lies further the same way, and halving the interval once the value
  is bracketed;
* moves ordered (the table's best card first, then masters and cheap winners; with two
  players the leads by the follower's answers, the cards none of them beats first), a
  trick's last card looking its outcomes up in the table first (in the duel too: the table
  is keyed on the cards still out, which tell the face-down cards turned up), and cheap
  bounds at each trick: the points still out; a capot only while it is possible (not once
  another side holds the best trump still out); in a suit contract, the trumps from the
  best one out that one party holds, which each take a trick, so that party has at least
  their points and the other party no capot;
* the last trick is counted, not searched, from the last card of the trick before it.

Legality is the engine's own (``app.engine.play.legal_mask_top`` and ``BEATS``), so the
solver cannot drift from the rules.  ``app/bots/solver.py`` is the older endgame solver
the hard bot uses; ``atout bench solver`` compares the two.

The search runs in C when the extension ``app.bots._dds`` (``_dds.c``, built by ``pip
install``) is there: the same search node for node (the same values and node counts),
several tens of times faster.  This module prepares the position and drives the root in
both cases; the Python search below is the reference and the fallback, used without the
extension or with ``ATOUT_DDS=python`` in the environment (see :data:`IMPL`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.engine.cards import ABOVE_PLAIN, ABOVE_TRUMP, SUIT_MASK, card_list
from app.engine.play import ALL_TRUMP, BEATS, NO_TRUMP, legal_mask_top
from app.engine.scoring import CAPOT_BONUS
from app.engine.state import Phase, State

from .sim import Deal, Table

try:
    from . import _dds  # type: ignore[attr-defined]  # the C extension, built in place
except ImportError:  # not built (no compiler where it was installed): the Python search
    _dds = None

INF = 1 << 30
_BROKEN = 7  # sweep code: two sides have won tricks, no capot any more

#: The search :func:`solve` uses by default: ``"c"`` when the extension is built, unless the
#: environment has ``ATOUT_DDS=python`` (read at import), else ``"python"``.
IMPL = "c" if _dds is not None and os.environ.get("ATOUT_DDS", "").lower() != "python" else "python"

#: A transposition table kept between solves of one deal: a dict for the Python search, an
#: ``app.bots._dds.Table`` for the C one (:func:`new_table` makes the right one).
TT = Any


class Budget(Exception):
    """Raised when a search would need more nodes than it was given."""


@dataclass(frozen=True, slots=True)
class Solution:
    """The exact values of the legal cards of the seat to move.

    ``values[c]``: the maximising party's card-play difference at the end of the deal when
    ``c`` is played now and everyone plays best after; ``scores[c]``: the same as the
    card-play scores of (the maximising party, the other party).  ``best`` is a card of
    highest value; ``nodes`` the positions searched.
    """

    values: dict[int, int]
    scores: dict[int, tuple[int, int]]
    best: int
    nodes: int

    @property
    def value(self) -> int:
        return self.values[self.best]


def has_c() -> bool:
    """Whether the C search is built."""
    return _dds is not None


def _use_c(impl: str | None) -> bool:
    if impl is None:
        impl = IMPL
    if impl == "python":
        return False
    if impl != "c":
        raise ValueError(f"impl: 'c' or 'python', not {impl!r}")
    if _dds is None:
        raise RuntimeError("the C solver (app.bots._dds) is not built: pip install -e . builds it")
    return True


def new_table(impl: str | None = None) -> TT:
    """An empty table to keep between solves of positions of one deal (``solve(tt=...)``),
    for the search ``impl`` (default :data:`IMPL`)."""
    return _dds.Table() if _use_c(impl) else {}


def card_scale(variant: str, trump: int) -> int:
    """The multiplier of card points in card play: Bulgarian no-trump doubles them (§4.3)."""
    return 2 if variant == "bulgarian" and trump == NO_TRUMP else 1


def parties(t: Table, side: int) -> tuple[bool, ...]:
    """Per seat: whether it plays for the maximising party of ``side``.  In three-player
    bela the two defenders play together against the caller (``t.taker``)."""
    if t.n == 3:
        caller = t.side_of[t.taker]
        mine = side == caller
        return tuple((t.side_of[s] == caller) == mine for s in range(t.n))
    return tuple(t.side_of[s] == side for s in range(t.n))


def remaining(d: Deal) -> int:
    """The cards still out: in the hands, and face down under a card not yet taken (duel)."""
    out = 0
    for h in d.hands:
        out |= h
    for c in d.trick:
        out |= 1 << c
    if d.reveal:
        changed = True
        while changed:
            changed = False
            for cover, freed in d.reveal.items():
                if (out >> cover) & 1 and not (out >> freed) & 1:
                    out |= 1 << freed
                    changed = True
    for c in d.trick:
        out &= ~(1 << c)
    return out


def _search_args(
    d: Deal,
    t: Table,
    mx: tuple[bool, ...],
    side_max: tuple[bool, ...],
    bonus: list[int],
    side_card: list[int],
    hands: list[int],
    trick: list[int],
    rem: int,
    sweep: int,
    rp: int,
    scale: int,
    max_nodes: int,
    tt: TT | None,
) -> dict[str, Any]:
    """The arguments of the C search (``_dds.Search``) of a position that :func:`solve`
    prepared: the position, what :func:`solve` derived from it, and the engine's tables."""
    assert _dds is not None
    if tt is None:
        tt = _dds.Table()
    elif not isinstance(tt, _dds.Table):
        raise TypeError("the C solver keeps its table in an app.bots._dds.Table (see new_table)")
    flags = t.flags
    return dict(
        n=t.n,
        trump=t.trump,
        no_trump=NO_TRUMP,
        all_trump=ALL_TRUMP,
        scale=scale,
        capot=CAPOT_BONUS,
        partner_exc=t.partner_exc,
        partner_rule=flags.partner_exception,
        overtake_plain=flags.overtake_plain,
        must_undertrump=flags.must_undertrump,
        beats=BEATS[t.trump],
        above=t.above,
        above_trump=ABOVE_TRUMP,
        above_plain=ABOVE_PLAIN,
        points=t.points,
        strength=t.strength,
        desc=t.desc,
        mx=mx,
        side_of=t.side_of,
        side_max=side_max,
        bonus=bonus,
        side_card=side_card,
        hands=hands,
        reveal=d.reveal,
        owner=d.owner,
        trick=trick,
        leader=d.leader,
        rem=rem,
        left=d.tricks_left,
        sweep=sweep,
        rp=rp,
        table=tt,
        max_nodes=max_nodes,
        budget=Budget,
    )


def solve(
    d: Deal,
    t: Table,
    side: int,
    extra: tuple[int, ...] | None = None,
    scale: int = 1,
    moves: list[int] | None = None,
    max_nodes: int = 0,
    tt: TT | None = None,
    impl: str | None = None,
) -> Solution:
    """Solve ``d`` exactly for the party of ``side`` (see the module docstring).

    ``extra``: card points per side outside the tricks (bela-3p discards); ``moves``: the
    cards to value (default: every legal card, equivalent ones valued once and copied);
    ``max_nodes`` > 0 raises :class:`Budget` past that many nodes.  ``tt``: a table kept
    between solves of positions of one deal (same cards, same contract), which then reuse
    what the earlier ones found; the search counts values for the caller's party, so a
    table serves every side.  It comes from :func:`new_table` with the same ``impl``: a
    table of the other implementation raises ``TypeError``.  ``impl``: ``"c"``, ``"python"``
    or ``None`` (:data:`IMPL`, see there); both give the same values and node counts.
    """
    n = t.n
    trump = t.trump
    flags = t.flags
    beats = BEATS[trump]
    points = t.points
    side_of = t.side_of
    mx = parties(t, side_of[t.taker])  # the table's values are the taker's party's
    flip = not mx[side_of.index(side)]
    pe = t.partner_exc
    hands = d.hands[:]
    reveal = d.reveal
    owner = d.owner
    strength = t.strength
    # every suit's cards, strongest first
    desc = t.desc
    sides = t.sides
    # the points each party already holds (tricks won, and cards outside the tricks)
    held = [0, 0]
    for s in range(sides):
        seat_of_side = next(x for x in range(n) if side_of[x] == s)
        p = extra[s] if extra else 0
        for seat in range(n):
            if side_of[seat] == s:
                p += d.won[seat]
        held[0 if mx[seat_of_side] else 1] += p
    side_max = tuple(any(mx[x] for x in range(n) if side_of[x] == s) for s in range(sides))
    # sweep code: 0 before the first trick, 1 + side while one side took them all, else 7
    trk = [0] * sides
    for seat in range(n):
        trk[side_of[seat]] += d.tricks[seat]
    with_tricks = [s for s in range(sides) if trk[s]]
    if not with_tricks:
        sweep0 = 0
    elif len(with_tricks) == 1:
        sweep0 = 1 + with_tricks[0]
    else:
        sweep0 = _BROKEN
    # the capot bonus as the maximising party counts it, per sweep code at the end
    bonus = [0] * 8
    for s in range(sides):
        bonus[1 + s] = CAPOT_BONUS if side_max[s] else -CAPOT_BONUS
    rem0 = remaining(d)
    trick0 = d.trick[:]
    on_table = 0
    for c in trick0:
        on_table |= 1 << c
    rp0 = 10  # the points still to win, raw: the cards out or on the table, the last ten
    for c in card_list(rem0 | on_table):
        rp0 += points[c]

    covers = 0  # duel: a card that frees a face-down card is like no other
    for cover in reveal:
        covers |= 1 << cover

    # the side holding each card out (face-down ones included): the hands never change
    # hands but by playing, so a card's holder is known from the start
    side_card = [0] * 32
    for x in range(n):
        for c in card_list(hands[x]):
            side_card[c] = side_of[x]
    for f, o in owner.items():
        side_card[f] = side_of[o]

    # ----- the root: the seat to move, maybe in the middle of a trick
    leader = d.leader
    k = len(trick0)
    seat = (leader + k) % n
    left = d.tricks_left
    if k:
        bi, bc, tp = 0, trick0[0], points[trick0[0]]
        for i in range(1, k):
            c = trick0[i]
            if beats[bc * 32 + c]:
                bi, bc = i, c
            tp += points[c]
        pm = pe and (bi - k) % 4 == 2
        legal = legal_mask_top(hands[seat], trick0[0] >> 3, bc, trump, pm, flags)
    else:
        bi = bc = tp = 0
        legal = hands[seat]
    if moves is None:
        moves = card_list(legal)

    search = None
    if _use_c(impl):
        assert _dds is not None
        prepared = (mx, side_max, bonus, side_card, hands, trick0, rem0, sweep0, rp0, scale)
        search = _dds.Search(**_search_args(d, t, *prepared, max_nodes, tt))
        after = search.after
    else:
        if tt is None:
            tt = {}
        elif not isinstance(tt, dict):
            raise TypeError("the Python solver keeps its table in a dict (see new_table)")
        nodes = 0
        limit = max_nodes if max_nodes > 0 else INF
        above = t.above
        trump_mask = t.trump_mask

        # a suit contract: the best trump still out, by the trump byte of the cards out (whoever
        # holds it takes a trick with it: no capot for another side)
        tshift = 8 * trump if trump_mask else 0
        top_trump = [-1] * 256
        if trump_mask:
            for byte in range(1, 256):
                for c in desc[trump]:
                    if (byte >> (c - tshift)) & 1:
                        top_trump[byte] = c
                        break
        # ... and the points of the run of trumps from the best one out held by one party: each
        # of them takes its trick, or falls on a partner's that does (positive for the
        # maximising party, negative for the other)
        party_card = [False] * 32
        for c in range(32):
            party_card[c] = any(mx[x] for x in range(n) if side_of[x] == side_card[c])
        sure_trumps = [0] * 256
        if trump_mask:
            for byte in range(1, 256):
                run = [c for c in desc[trump] if (byte >> (c - tshift)) & 1]
                who = party_card[run[0]]
                pts = 0
                for c in run:
                    if party_card[c] != who:
                        break
                    pts += points[c]
                sure_trumps[byte] = pts if who else -pts

        plain = not reveal  # no card to free at a trick's end

        def free_cards(table: int) -> list[tuple[int, int]]:
            """Duel: turns up the face-down cards that the complete trick ``table`` frees, in
            their owners' hands; returns them as (seat, card)."""
            freed: list[tuple[int, int]] = []
            for c in card_list(table):
                f = reveal.get(c)
                if f is not None:
                    o = owner[f]
                    hands[o] |= 1 << f
                    freed.append((o, f))
            return freed

        def cover_cards(freed: list[tuple[int, int]]) -> None:
            """Turns the cards of ``freed`` face down again."""
            for o, f in freed:
                hands[o] &= ~(1 << f)

        def next_sweep(sweep: int, ws: int, rem: int) -> int:
            """The sweep code once side ``ws`` has won a trick, ``rem`` still out."""
            if sweep == 0:
                nsweep = 1 + ws
            elif sweep != 1 + ws:
                return _BROKEN
            else:
                nsweep = sweep
            if trump_mask:
                c = top_trump[(rem >> tshift) & 255]
                if c >= 0 and side_card[c] != ws:
                    return _BROKEN
            return nsweep

        runs: dict[int, tuple[int, ...]] = {}  # (suit, legal cards, cards out) -> kept cards

        def suit_runs(s: int, m: int, out: int) -> tuple[int, ...]:
            keep: list[int] = []
            run = -1
            for c in desc[s]:
                b = 1 << c
                if m & b:
                    if run == points[c] and not covers & b:
                        continue
                    keep.append(c)
                    run = -1 if covers & b else points[c]
                elif out & b:
                    run = -1
            kept = tuple(keep)
            runs[(out >> (8 * s) & 255) << 10 | (m >> (8 * s)) << 2 | s] = kept
            return kept

        def distinct(legal: int, out: int) -> list[int]:
            """The cards of ``legal``, one per class of equivalent cards (same suit, same
            points, no card of ``out`` between them)."""
            keep: list[int] = []
            for s in range(4):
                m = legal & SUIT_MASK[s]
                if not m:
                    continue
                if m & (m - 1) == 0:
                    keep.append(m.bit_length() - 1)
                    continue
                kept = runs.get((out >> (8 * s) & 255) << 10 | (m >> (8 * s)) << 2 | s)
                if kept is None:
                    kept = suit_runs(s, m, out)
                keep.extend(kept)
            return keep

        def lead(
            leader: int, rem: int, left: int, sweep: int, rp: int, alpha: int, beta: int
        ) -> int:
            """The value still to come at the start of a trick, ``leader`` to lead."""
            nonlocal nodes
            nodes += 1
            if nodes > limit:
                raise Budget
            if left == 1:
                return last_trick(leader, sweep)
            # bounds: no more than the points still out, a capot only while it can happen
            top = rp * scale
            if sweep == 0:
                hi_b, lo_b = top + CAPOT_BONUS, -top - CAPOT_BONUS
            else:
                b = bonus[sweep]
                hi_b = top + b if b > 0 else top
                lo_b = -top + b if b < 0 else -top
            if trump_mask:
                sure = sure_trumps[(rem >> tshift) & 255] * scale * 2
                if sure > 0:
                    lo_b = sure - top
                elif sure < 0:
                    hi_b = top + sure
            if hi_b <= alpha:
                return hi_b
            if lo_b >= beta:
                return lo_b
            key = rem | leader << 32 | sweep << 34
            e: tuple[int, int, int] | None = tt.get(key)
            if e is not None:
                lo, hi, first = e
                if lo >= beta or lo == hi:
                    return lo
                if hi <= alpha:
                    return hi
                if lo > alpha:
                    alpha = lo
                if hi < beta:
                    beta = hi
            else:
                lo, hi, first = lo_b, hi_b, -1
            a0, b0 = alpha, beta
            mine = mx[leader]
            hand = hands[leader]
            opp = hands[1 - leader] if two else 0
            # the kept cards of each suit, each with its order key (see ``lead_suit``)
            enc: list[int] = []
            for sh in (0, 8, 16, 24):
                m = (hand >> sh) & 255
                if m:
                    lk = ((rem >> sh) & 255) << 8 | m | sh << 13 | opp << 18
                    kept = lead_sorted.get(lk)
                    if kept is None:
                        kept = lead_suit(sh >> 3, m, rem, opp, lk)
                    enc.extend(kept)
            if len(enc) > 1:
                enc.sort(reverse=True)
                cards = [x & 31 for x in enc]
                if first >= 0 and first != cards[0] and first in cards:
                    cards.remove(first)
                    cards.insert(0, first)
            else:
                cards = [enc[0] & 31]
            best = -INF if mine else INF
            best_c = cards[0]
            for c in cards:
                hands[leader] = hand & ~(1 << c)
                b = 1 << c
                v = follow(
                    1, leader, c >> 3, 0, c, points[c], b, rem & ~b, left, sweep, rp, alpha, beta
                )
                if mine:
                    if v > best:
                        best, best_c = v, c
                        if v > alpha:
                            alpha = v
                elif v < best:
                    best, best_c = v, c
                    if v < beta:
                        beta = v
                if alpha >= beta:
                    break
            hands[leader] = hand
            if best <= a0:
                hi = best
            elif best >= b0:
                lo = best
            else:
                lo = hi = best
            tt[key] = (lo, hi, best_c)
            return best

        def lead_order(c: int, rem: int) -> int:
            # masters first (no stronger card of the suit still out), by points; then low cards
            if not rem & above[c]:
                return 100 + points[c] + (30 if (trump_mask >> c) & 1 else 0)
            return -points[c] - strength[c]

        two = n == 2
        # the cards beating each card led
        win_over = [sum(1 << x for x in range(32) if beats[c * 32 + x]) for c in range(32)]

        def least_points(m: int) -> int:
            """The fewest points of a card of ``m`` (0 when empty)."""
            return min((points[x] for x in card_list(m)), default=0)

        def lead_order_two(c: int, opp: int) -> int:
            # two players, from the follower's legal answers in ``opp``: cards that none of
            # them beats first, by points, plain before trump, and the points the follower must
            # give on them; then the others, low cards first, later the fewer points the
            # follower's cheapest winner costs him, a card freeing a face-down card a little
            # earlier
            legal = legal_mask_top(opp, c >> 3, c, trump, False, flags)
            wins = legal & win_over[c]
            if not wins:
                return 100 + points[c] - (30 if (trump_mask >> c) & 1 else 0) + least_points(legal)
            return -points[c] - strength[c] + least_points(wins) + (5 if covers >> c & 1 else 0)

        # (cards out in the suit, the hand's cards in it, suit, with two players the
        # follower's hand) -> the kept cards, each as (its lead order + 64) * 32 + card, so
        # that plain integer sorts order a lead
        lead_sorted: dict[int, tuple[int, ...]] = {}

        def lead_suit(s: int, m: int, rem: int, opp: int, lk: int) -> tuple[int, ...]:
            kept = distinct(m << (8 * s), rem)
            if two:
                enc = tuple((lead_order_two(c, opp) + 64) * 32 + c for c in kept)
            else:
                enc = tuple((lead_order(c, rem) + 64) * 32 + c for c in kept)
            lead_sorted[lk] = enc
            return enc

        # (cards out or on the table in the led suit, the legal cards in it, the winning card,
        # whether the trick is the mover's party's so far, the led suit) -> the kept cards in
        # order (the led suit is needed: a trump winning, two suits' bytes may be alike)
        follow_sorted: dict[int, tuple[int, ...]] = {}

        def follow_suit(
            sh: int, legal: int, out: int, bc: int, ours: bool, fk: int
        ) -> tuple[int, ...]:
            kept = distinct(legal, out)
            kept.sort(key=order_keys[bc][ours].__getitem__, reverse=True)
            cards = tuple(kept)
            follow_sorted[fk] = cards
            return cards

        # per led suit: a card following it must beat the card winning so far when it can
        # (and that card is of the led suit, not a trump)
        over_led = tuple(
            trump != NO_TRUMP and (trump == ALL_TRUMP or s == trump or flags.overtake_plain)
            for s in range(4)
        )

        def follow(
            k: int,
            leader: int,
            led: int,
            bi: int,
            bc: int,
            tp: int,
            table: int,
            rem: int,
            left: int,
            sweep: int,
            rp: int,
            alpha: int,
            beta: int,
        ) -> int:
            """The value still to come with ``k`` cards on the table (the mask ``table``):
            ``bc`` wins the trick so far (at index ``bi``), which holds ``tp`` points."""
            nonlocal nodes
            nodes += 1
            seat = (leader + k) % n
            hand = hands[seat]
            mine = mx[seat]
            legal = hand & SUIT_MASK[led]
            if legal:  # following the led suit (``legal_mask_top``, its first case)
                if over_led[led] and bc >> 3 == led:
                    legal = legal & above[bc] or legal
                if legal & (legal - 1) == 0:
                    cards: Sequence[int] = (legal.bit_length() - 1,)
                else:
                    sh = led << 3
                    ours = mx[seat - k + bi] == mine
                    fk = (
                        ((rem | table) >> sh & 255) << 8 | (legal >> sh) | bc << 16 | ours << 21
                        | led << 22
                    )  # fmt: skip
                    cards = follow_sorted.get(fk) or follow_suit(
                        sh, legal, rem | table, bc, ours, fk
                    )
            else:
                legal = legal_mask_top(hand, led, bc, trump, pe and (bi - k) % 4 == 2, flags)
                if legal & (legal - 1) == 0:
                    cards = (legal.bit_length() - 1,)
                else:
                    kept = distinct(legal, rem | table)
                    if len(kept) > 1:
                        kept.sort(
                            key=order_keys[bc][mx[seat - k + bi] == mine].__getitem__, reverse=True
                        )
                    cards = kept
            base = bc * 32
            best = -INF if mine else INF
            if k == n - 1 and left == 2:
                # the last card before the last trick, which is counted (as a node, the lead
                # it is)
                for c in cards:
                    nodes += 1
                    b = 1 << c
                    hands[seat] = hand & ~b
                    w = (leader + (k if beats[base + c] else bi)) % n
                    ntp = tp + points[c]
                    ns = sweep if sweep == _BROKEN else next_sweep(sweep, side_of[w], rem & ~b)
                    freed = None if plain else free_cards(table | b)
                    v = (ntp * scale if mx[w] else -ntp * scale) + last_trick(w, ns)
                    if freed:
                        cover_cards(freed)
                    if mine:
                        if v > best:
                            best = v
                            if v > alpha:
                                alpha = v
                    elif v < best:
                        best = v
                        if v < beta:
                            beta = v
                    if alpha >= beta:
                        break
                hands[seat] = hand
                return best
            if k == n - 1 and left > 1:
                # the trick's last card: each card's outcome is a trick won and a lead
                if len(cards) > 1:
                    # enhanced transposition cutoff: a trick's end already known to refute
                    outs = []
                    for c in cards:
                        w = (leader + (k if beats[base + c] else bi)) % n
                        rest = rem & ~(1 << c)
                        ns = sweep if sweep == _BROKEN else next_sweep(sweep, side_of[w], rest)
                        ntp = tp + points[c]
                        g = ntp * scale if mx[w] else -ntp * scale
                        e: tuple[int, int, int] | None = tt.get(rest | w << 32 | ns << 34)
                        if e is not None:
                            if mine:
                                v = e[0] + g
                                if v >= beta:
                                    return v
                            else:
                                v = e[1] + g
                                if v <= alpha:
                                    return v
                        outs.append((c, w, rest, ns, g, ntp))
                else:
                    c = cards[0]
                    w = (leader + (k if beats[base + c] else bi)) % n
                    rest = rem & ~(1 << c)
                    ns = sweep if sweep == _BROKEN else next_sweep(sweep, side_of[w], rest)
                    ntp = tp + points[c]
                    g = ntp * scale if mx[w] else -ntp * scale
                    hands[seat] = hand & ~(1 << c)
                    freed = None if plain else free_cards(table | 1 << c)
                    v = g + lead(w, rest, left - 1, ns, rp - ntp, alpha - g, beta - g)
                    if freed:
                        cover_cards(freed)
                    hands[seat] = hand
                    return v
                for c, w, rest, ns, g, ntp in outs:
                    hands[seat] = hand & ~(1 << c)
                    freed = None if plain else free_cards(table | 1 << c)
                    v = g + lead(w, rest, left - 1, ns, rp - ntp, alpha - g, beta - g)
                    if freed:
                        cover_cards(freed)
                    if mine:
                        if v > best:
                            best = v
                            if v > alpha:
                                alpha = v
                    elif v < best:
                        best = v
                        if v < beta:
                            beta = v
                    if alpha >= beta:
                        break
                hands[seat] = hand
                return best
            last = k == n - 1
            for c in cards:
                b = 1 << c
                hands[seat] = hand & ~b
                if beats[base + c]:
                    nbi, nbc = k, c
                else:
                    nbi, nbc = bi, bc
                if last:
                    v = finish(
                        leader,
                        nbi,
                        tp + points[c],
                        table | b,
                        rem & ~b,
                        left,
                        sweep,
                        rp,
                        alpha,
                        beta,
                    )
                else:
                    v = follow(
                        k + 1,
                        leader,
                        led,
                        nbi,
                        nbc,
                        tp + points[c],
                        table | b,
                        rem & ~b,
                        left,
                        sweep,
                        rp,
                        alpha,
                        beta,
                    )
                if mine:
                    if v > best:
                        best = v
                        if v > alpha:
                            alpha = v
                elif v < best:
                    best = v
                    if v < beta:
                        beta = v
                if alpha >= beta:
                    break
            hands[seat] = hand
            return best

        def follow_order(c: int, ours: bool, wins: int) -> int:
            if ours:  # the trick is ours so far: give points, keep the winners
                return points[c] * 2 - wins * 5
            if wins:  # take it as cheaply as possible, points welcome
                return 200 - strength[c] - (30 if (trump_mask >> c) & 1 else 0) + points[c]
            return -points[c] * 4 - strength[c]

        # order_keys[winning card][the trick is the mover's party's][card]: the order of a
        # follower's cards, made once
        order_keys = [
            [
                [follow_order(c, ours, beats[bc * 32 + c]) for c in range(32)]
                for ours in (False, True)
            ]
            for bc in range(32)
        ]

        def finish(
            leader: int,
            bi: int,
            tp: int,
            table: int,
            rem: int,
            left: int,
            sweep: int,
            rp: int,
            alpha: int,
            beta: int,
        ) -> int:
            """The trick (the cards ``table``) is complete: score it, go on from its winner's
            lead."""
            w = (leader + bi) % n
            ws = side_of[w]
            nsweep = sweep if sweep == _BROKEN else next_sweep(sweep, ws, rem)
            if left == 1:  # the last trick, reached in the middle of it
                tp += 10
                gain = tp * scale if mx[w] else -tp * scale
                return gain + (bonus[nsweep] if nsweep != _BROKEN else 0)
            gain = tp * scale if mx[w] else -tp * scale
            if plain:
                return gain + lead(w, rem, left - 1, nsweep, rp - tp, alpha - gain, beta - gain)
            freed = free_cards(table)
            v = gain + lead(w, rem, left - 1, nsweep, rp - tp, alpha - gain, beta - gain)
            cover_cards(freed)
            return v

        def last_trick(leader: int, sweep: int) -> int:
            """The last trick: every seat has one card left, so it is counted."""
            bc = -1
            wi = 0
            tp = 10
            for i in range(n):
                c = hands[(leader + i) % n].bit_length() - 1
                tp += points[c]
                if i == 0 or beats[bc * 32 + c]:
                    bc, wi = c, i
            w = (leader + wi) % n
            gain = tp * scale if mx[w] else -tp * scale
            ws = side_of[w]
            if sweep == 0 or sweep == 1 + ws:
                return gain + bonus[1 + ws]
            return gain

        def after(c: int, alpha: int, beta: int) -> int:
            """The value still to come once the seat to move plays ``c``."""
            b = 1 << c
            hand = hands[seat]
            hands[seat] = hand & ~b
            try:
                if k == 0:
                    return follow(
                        1,
                        leader,
                        c >> 3,
                        0,
                        c,
                        points[c],
                        b,
                        rem0 & ~b,
                        left,
                        sweep0,
                        rp0,
                        alpha,
                        beta,
                    )
                nbi, nbc = (k, c) if beats[bc * 32 + c] else (bi, bc)
                ntp = tp + points[c]
                table = on_table | b
                if k == n - 1:
                    return finish(
                        leader, nbi, ntp, table, rem0 & ~b, left, sweep0, rp0, alpha, beta
                    )
                led = trick0[0] >> 3
                return follow(
                    k + 1,
                    leader,
                    led,
                    nbi,
                    nbc,
                    ntp,
                    table,
                    rem0 & ~b,
                    left,
                    sweep0,
                    rp0,
                    alpha,
                    beta,
                )
            finally:
                hands[seat] = hand

    # every value still to come has the parity of the points still out: the two parties'
    # points add up to them, and a capot's 90 is even
    par = (rp0 * scale) & 1

    def exact(c: int, guess: int) -> int:
        """Null-window searches on the values of the right parity: the first at ``guess``,
        then the next just past the bound the last one returned (the value is often that
        bound), stepping twice as far each time the value lies further the same way, and
        halving the interval once the value is bracketed; the table keeps what each search
        proved."""
        lower = -(rp0 * scale + CAPOT_BONUS)
        upper = rp0 * scale + CAPOT_BONUS
        gamma = guess if (guess & 1) == par else guess + 1
        gamma = min(max(gamma, lower + 2), upper)
        step = 2
        way = 0  # +1 after a search failed high, -1 after one failed low
        both = False  # a search has failed each way
        while lower < upper:
            g = after(c, gamma - 1, gamma)
            if g >= gamma:
                lower = g
                if way < 0:
                    both = True
                step = step * 2 if way > 0 else 2
                way = 1
                gamma = lower + step
            else:
                upper = g
                if way > 0:
                    both = True
                step = step * 2 if way < 0 else 2
                way = -1
                gamma = upper + 2 - step
            if both:
                gamma = (lower + upper) // 2
                if (gamma & 1) != par:
                    gamma += 1
                if gamma <= lower:
                    gamma = lower + 2
            gamma = min(max(gamma, lower + 2), upper)
        return lower

    values: dict[int, int] = {}
    cls = _classes(legal, rem0 | on_table, covers, desc, points)
    past = scale * (held[0] - held[1])
    guess = 0
    for c in sorted(moves, key=lambda c: cls.get(c, c)):
        rep = cls.get(c, c)
        if rep in values:
            values[c] = values[rep]
            continue
        v = exact(c, guess)
        guess = v
        values[c] = values[rep] = past + v
    values = {c: values[c] for c in moves}
    total = held[0] + held[1] + rp0
    own_min = held[0]  # points the maximising party keeps whatever happens
    other_min = held[1]
    scores = {c: _scores(v, total, own_min, other_min, scale) for c, v in values.items()}
    if flip:  # the caller's party is the other one
        values = {c: -v for c, v in values.items()}
        scores = {c: (b, a) for c, (a, b) in scores.items()}
    best = max(moves, key=lambda c: values[c])
    if search is not None:
        nodes = search.nodes
    return Solution(values, scores, best, nodes)


def _classes(
    legal: int,
    out: int,
    covers: int,
    desc: tuple[tuple[int, ...], ...],
    points: tuple[int, ...],
) -> dict[int, int]:
    """Each legal card -> the kept card it is equivalent to (see ``distinct``)."""
    rep: dict[int, int] = {}
    for s in range(4):
        m = legal & SUIT_MASK[s]
        cur = -1
        for c in desc[s]:
            b = 1 << c
            if m & b:
                if cur >= 0 and points[cur] == points[c] and not covers & b:
                    rep[c] = cur
                else:
                    cur = -1 if covers & b else c
                    rep[c] = c
            elif out & b:
                cur = -1
    return rep


def _scores(value: int, total: int, own_min: int, other_min: int, scale: int) -> tuple[int, int]:
    """The card-play scores (maximising party, other party) that a difference ``value``
    stands for, when ``total`` raw card points are in the deal and each party already has
    ``own_min`` / ``other_min``: a capot shows as a difference beyond any without one."""
    bonus = 0
    if value > scale * (total - 2 * other_min):
        bonus = CAPOT_BONUS
    elif value < scale * (2 * own_min - total):
        bonus = -CAPOT_BONUS
    own = ((value - bonus) // scale + total) // 2
    return (
        own * scale + (CAPOT_BONUS if bonus > 0 else 0),
        (total - own) * scale + (CAPOT_BONUS if bonus < 0 else 0),
    )


@dataclass(frozen=True, slots=True)
class Position:
    """A position of the card play with every card known, ready for :func:`solve`."""

    deal: Deal
    table: Table
    extra: tuple[int, ...]  # card points per side outside the tricks (bela-3p discards)
    scale: int

    @property
    def seat(self) -> int:
        """The seat to move."""
        return (self.deal.leader + len(self.deal.trick)) % self.table.n


def position_of(state: State) -> Position:
    """The position of an engine state in the card play, every card known (the duel's
    face-down cards with the cards that will free them)."""
    rules = state.rules
    contract = state.contract
    if state.phase is not Phase.PLAY or contract is None or state.flags is None:
        raise ValueError("not in the card play")
    n = rules.players
    points = rules.points(contract)
    table = Table(
        n,
        contract.trump,
        state.flags,
        points,
        rules.side_of,
        rules.total_tricks,
        contract.taker,
        open_hands=bool(rules.covered_cards(state)),
    )
    reveal: dict[int, int] = {}
    owner: dict[int, int] = {}
    for cover, (seat, freed) in rules.covered_cards(state).items():
        reveal[cover] = freed
        owner[freed] = seat
    played = 0
    for t in state.tricks:
        for _, c in t.plays:
            played |= 1 << c
    for _, c in state.trick:
        played |= 1 << c
    deal = Deal(
        hands=list(state.hands),
        trick=[c for _, c in state.trick],
        leader=state.leader,
        played=played,
        won=list(state.points),
        tricks=list(state.tricks_won),
        tricks_left=rules.total_tricks - len(state.tricks),
        voids=[0] * n,
        reveal=reveal,
        owner=owner,
    )
    extra = [0] * rules.sides
    if state.discard:
        extra[rules.side_of[contract.taker]] += sum(points[c] for c in card_list(state.discard))
    return Position(deal, table, tuple(extra), card_scale(rules.variant, contract.trump))


def solve_position(
    pos: Position,
    side: int | None = None,
    moves: list[int] | None = None,
    max_nodes: int = 0,
    tt: TT | None = None,
    impl: str | None = None,
) -> Solution:
    """:func:`solve` for the party of ``side`` (default: the seat to move's side)."""
    if side is None:
        side = pos.table.side_of[pos.seat]
    return solve(pos.deal, pos.table, side, pos.extra, pos.scale, moves, max_nodes, tt, impl)
