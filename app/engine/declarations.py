"""Declarations: finding, choosing and comparing combinations (RULES.md §1.1-§1.3, §14).

A combination ("annonce", "zvanje", "анонс") is a :class:`Combo`: a sequence (a maximal
run of three or more cards of one suit in NATURAL order) or a carré (four of a kind,
J 9 A T K Q only).  A card serves in at most one declaration (Decision D-3): sequences
are the maximal runs among the cards left outside the declared carrés.

Everything here is pure and works on the int bitmasks of :mod:`app.engine.cards`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from app.engine.cards import CARRE_STRENGTH, FULL_DECK, RANKS, SUITS, format_mask

SEQUENCE = "sequence"
CARRE = "carre"

# Carré values of §1.1 by natural rank (7s and 8s: no carré).
CARRE_POINTS = (0, 0, 150, 100, 200, 100, 100, 100)
# Carré ranks from the strongest to the weakest (CARRÉ order J 9 A T K Q).
CARRE_RANKS = tuple(
    sorted((r for r in range(8) if CARRE_STRENGTH[r] >= 0), key=lambda r: -CARRE_STRENGTH[r])
)


ComboKey = tuple[int, int, int, int]


class DeclarationError(ValueError):
    """A manual ``declare`` that breaks §1.1/§14; the message names the reason."""


def sequence_points(length: int) -> int:
    """§1.1: tierce 20, quarte 50, quinte and longer 100."""
    if length < 3:
        raise ValueError(f"a sequence has at least 3 cards, not {length}")
    return 20 if length == 3 else 50 if length == 4 else 100


@dataclass(frozen=True)
class Combo:
    kind: str  # SEQUENCE or CARRE
    mask: int  # bitmask of its cards
    suit: int  # sequence: its suit 0..3; carré: -1
    top: int  # sequence: natural rank of its highest card; carré: the rank
    length: int  # sequence: 3..8; carré: 4
    points: int  # sequence 20/50/100; carré J 200, 9 150, A/T/K/Q 100

    @property
    def is_carre(self) -> bool:
        return self.kind == CARRE

    def key(self) -> ComboKey:
        """Unified comparison key of §1.3: (points, kind, length, top index)."""
        if self.is_carre:
            return (self.points, 1, self.length, CARRE_STRENGTH[self.top])
        return (self.points, 0, self.length, self.top)

    def describe(self) -> dict[str, object]:
        """JSON-able type and strength, without card identities (§1.2)."""
        if self.is_carre:
            return {"kind": CARRE, "rank": RANKS[self.top], "points": self.points}
        return {
            "kind": SEQUENCE,
            "length": self.length,
            "top": RANKS[self.top],
            "suit": SUITS[self.suit],
            "points": self.points,
        }

    def label(self) -> str:
        """Short text such as ``J-T-9S`` (sequence) or ``carre QQQQ``; names the cards."""
        if self.is_carre:
            return "carre " + RANKS[self.top] * 4
        ranks = range(self.top, self.top - self.length, -1)
        return "-".join(RANKS[r] for r in ranks) + SUITS[self.suit]


def make_carre(rank: int) -> Combo:
    if CARRE_STRENGTH[rank] < 0:
        raise ValueError(f"no carré of {RANKS[rank]}")
    mask = sum(1 << (8 * s + rank) for s in range(4))
    return Combo(CARRE, mask, -1, rank, 4, CARRE_POINTS[rank])


def make_sequence(suit: int, top: int, length: int) -> Combo:
    low = top - length + 1
    if not (0 <= low and top <= 7 and length >= 3 and 0 <= suit <= 3):
        raise ValueError(f"not a sequence: suit {suit} top {top} length {length}")
    mask = ((1 << length) - 1) << (8 * suit + low)
    return Combo(SEQUENCE, mask, suit, top, length, sequence_points(length))


def carres_in(hand: int) -> list[Combo]:
    """The carrés held, strongest first (four 7s or 8s are never a carré)."""
    return [combo for combo in _CARRES if hand & combo.mask == combo.mask]


def _all_carres() -> tuple[Combo, ...]:
    return tuple(make_carre(rank) for rank in CARRE_RANKS)


def runs_in(mask: int) -> list[Combo]:
    """Maximal runs of 3+ consecutive natural ranks per suit (no A-7 wrap), by suit then rank."""
    found: list[Combo] = []
    for suit in range(4):
        found += _RUNS[suit][(mask >> (8 * suit)) & 0xFF]
    return found


def _runs_of_byte(suit: int, bits: int) -> tuple[Combo, ...]:
    found = []
    rank = 0
    while rank < 8:
        if not bits >> rank & 1:
            rank += 1
            continue
        start = rank
        while rank < 8 and bits >> rank & 1:
            rank += 1
        length = rank - start
        if length >= 3:
            found.append(make_sequence(suit, rank - 1, length))
    return tuple(found)


# Precomputed once: the carrés (strongest first) and the runs of every suit byte.
_CARRES = _all_carres()
_RUNS = tuple(tuple(_runs_of_byte(suit, b) for b in range(256)) for suit in range(4))


def _subsets(items: Sequence[Combo]) -> list[tuple[Combo, ...]]:
    return [c for k in range(len(items) + 1) for c in combinations(items, k)]


def declarable_sets(hand: int) -> list[tuple[Combo, ...]]:
    """Every legal content of a manual ``declare`` (§14), the empty tuple included.

    Any subset of the carrés held, plus any subset of the maximal runs among the cards
    left outside the chosen carrés.  Each tuple lists its carrés first, then its runs.
    """
    result: list[tuple[Combo, ...]] = []
    seen: set[frozenset[tuple[str, int]]] = set()
    for chosen in _subsets(carres_in(hand)):
        used = 0
        for combo in chosen:
            used |= combo.mask
        for runs in _subsets(runs_in(hand & ~used)):
            option = chosen + runs
            ident = frozenset((c.kind, c.mask) for c in option)
            if ident not in seen:
                seen.add(ident)
                result.append(option)
    return result


def total_points(combos: Sequence[Combo]) -> int:
    return sum(c.points for c in combos)


def auto_declaration(hand: int) -> tuple[Combo, ...]:
    """§1.2 auto-declare: most points, then strongest single key, then holds a carré.

    Only the maximal choices (chosen carrés + every run left over) can win, since every
    combination adds points.  A final tie (never met with 8-10 cards) falls to the
    lexicographically greatest list of keys, so the choice is deterministic.
    """
    if not _MAY_DECLARE_RANKS & hand & (hand >> 8) & (hand >> 16) & (hand >> 24):
        # no carré (the usual case): no choice to make, every run is declared
        if not (
            _HAS_RUN[hand & 0xFF]
            or _HAS_RUN[(hand >> 8) & 0xFF]
            or _HAS_RUN[(hand >> 16) & 0xFF]
            or _HAS_RUN[hand >> 24]
        ):
            return ()
        return tuple(runs_in(hand))
    return max(declarable_sets(hand), key=_choice_rank)


def _choice_rank(option: tuple[Combo, ...]) -> tuple[int, ComboKey, int, tuple[ComboKey, ...]]:
    """How auto_declaration ranks a possible declaration (the greatest is chosen)."""
    keys = tuple(sorted((c.key() for c in option), reverse=True))
    best = keys[0] if keys else (-1, -1, -1, -1)
    return (total_points(option), best, int(any(c.is_carre for c in option)), keys)


# Bits (by rank) of the ranks that make a carré, and whether a suit's byte holds a run of 3.
_MAY_DECLARE_RANKS = sum(1 << r for r in CARRE_RANKS)
_HAS_RUN = bytes(int(bool(b & (b >> 1) & (b >> 2))) for b in range(256))


def _combo_of(mask: int) -> Combo | None:
    """The combination formed by exactly the cards of ``mask``, if any."""
    if mask.bit_count() == 4:
        for rank in CARRE_RANKS:
            combo = make_carre(rank)
            if combo.mask == mask:
                return combo
    runs = runs_in(mask)
    if len(runs) == 1 and runs[0].mask == mask:
        return runs[0]
    return None


def parse_declaration(hand: int, combos: list[int]) -> tuple[Combo, ...]:
    """Validate a manual ``declare`` (one card bitmask per combination) against ``hand``.

    Returns the combinations in the order given, or raises :class:`DeclarationError`
    naming the first problem: ``not held: JS``, ``card used twice: KS``,
    ``not a combination: 7H 8H`` or ``sequence must be a maximal run: J-T-9S``.
    """
    used = 0
    parsed: list[Combo] = []
    for mask in combos:
        if not isinstance(mask, int) or isinstance(mask, bool) or mask < 0 or mask & ~FULL_DECK:
            raise DeclarationError(f"not a card set: {mask!r}")
        if not mask:
            raise DeclarationError("not a combination: no cards")
        missing = mask & ~hand
        if missing:
            raise DeclarationError("not held: " + " ".join(format_mask(missing)))
        twice = mask & used
        if twice:
            raise DeclarationError("card used twice: " + " ".join(format_mask(twice)))
        used |= mask
        combo = _combo_of(mask)
        if combo is None:
            raise DeclarationError("not a combination: " + " ".join(format_mask(mask)))
        parsed.append(combo)
    in_carres = 0
    for combo in parsed:
        if combo.is_carre:
            in_carres |= combo.mask
    maximal = {run.mask for run in runs_in(hand & ~in_carres)}
    for combo in parsed:
        if not combo.is_carre and combo.mask not in maximal:
            raise DeclarationError("sequence must be a maximal run: " + combo.label())
    return tuple(parsed)


def best_unified(
    announced: Sequence[tuple[Combo, ...]],
    side_of: Sequence[int],
    trump: int | None,
    order: Sequence[int],
) -> int | None:
    """The side scoring declarations under the unified comparison of §1.3 (D-4).

    ``announced[seat]`` is what the seat announced, ``side_of[seat]`` its side, ``trump``
    the trump suit (None in NT/AT: no trump priority) and ``order`` the seats in trick-1
    playing order from eldest.  The single best key wins; a full tie goes to a sequence in
    trump, then to the seat that plays earlier.  Returns None if nobody declared.
    """
    best: tuple[ComboKey, int, int] | None = None
    best_seat = -1
    for seat, combos in enumerate(announced):
        if not combos:
            continue
        position = order.index(seat) if seat in order else len(order)
        for combo in combos:
            in_trump = int(not combo.is_carre and trump is not None and combo.suit == trump)
            rank = (combo.key(), in_trump, -position)
            if best is None or rank > best:
                best, best_seat = rank, seat
    return None if best is None else side_of[best_seat]


def best_bulgarian(
    announced: Sequence[tuple[Combo, ...]], side_of: Sequence[int]
) -> tuple[int | None, int | None]:
    """Separate categories of §1.3 (bulgarian): (side scoring sequences, side scoring carrés).

    Sequences compare by (length, top); equal best sequences of different sides cancel
    every sequence (None).  Carrés compare by CARRÉ order and cannot tie.
    """
    seq_best: tuple[int, int] | None = None
    seq_sides: set[int] = set()
    carre_best = -1
    carre_side: int | None = None
    for seat, combos in enumerate(announced):
        for combo in combos:
            if combo.is_carre:
                if CARRE_STRENGTH[combo.top] > carre_best:
                    carre_best, carre_side = CARRE_STRENGTH[combo.top], side_of[seat]
                continue
            key = (combo.length, combo.top)
            if seq_best is None or key > seq_best:
                seq_best, seq_sides = key, {side_of[seat]}
            elif key == seq_best:
                seq_sides.add(side_of[seat])
    seq_side = next(iter(seq_sides)) if len(seq_sides) == 1 else None
    return seq_side, carre_side


def public_combo(c: Combo) -> dict[str, object]:
    """What everyone learns of a declared combination: its kind and strength, no suit and no
    cards (§1.2)."""
    d = c.describe()
    d.pop("suit", None)
    return d
