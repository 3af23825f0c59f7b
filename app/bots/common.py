"""Helpers shared by the bot levels: the choice of a move (``decide``), tables, public voids,
declarations and belote values, and turning a chosen card into one of the view's legal JSON
actions."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from app.engine.cards import CARRE_STRENGTH, RANKS, RK, RQ, card_list, format_card, parse_card
from app.engine.declarations import auto_declaration

from . import bidding
from .knowledge import Knowledge, mask_of_cards
from .sim import Table

DeclKey = tuple[int, int, int, int]
Decision = Callable[[Knowledge, random.Random], dict[str, Any]]


def first_legal(k: Knowledge, rng: random.Random) -> dict[str, Any]:
    return dict(k.legal[0])


def decide(
    k: Knowledge,
    rng: random.Random,
    *,
    card: Callable[[Knowledge, random.Random], int],
    bid: Decision,
    discard: Decision,
    otherwise: Decision = first_legal,
) -> dict[str, Any]:
    """One move, the way every level makes it: the only legal action when there is one; in
    card play the bela exchange by the one rule all levels follow (it is offered before the
    seat's first card), then the best declaration when one may be made, else the level's
    ``card``; the level's ``bid`` and ``discard``; ``otherwise`` in any other phase."""
    legal = k.legal
    if len(legal) == 1:
        return dict(legal[0])
    if k.phase == "play":
        swap = bidding.exchange(k)  # bela 2p: before the seat's first card
        if swap is not None:
            return swap
        decl = best_declare(k)
        if decl is not None:
            return decl
        return play_action(k, card(k, rng))
    if k.phase == "bidding":
        return bid(k, rng)
    if k.phase == "discard":
        return discard(k, rng)
    return otherwise(k, rng)


def table_of(k: Knowledge) -> Table:
    assert k.contract is not None and k.flags is not None
    return Table(
        k.n,
        k.trump,
        k.flags,
        k.points,
        k.side_of,
        k.total_tricks,
        k.contract.taker,
        open_hands=k.variant == "duel",
    )


def public_voids(k: Knowledge) -> list[int]:
    """Per seat, bitmask (1 << suit) of the suits it has shown void in by not following."""
    voids = [0] * k.n
    for plays in [t.plays for t in k.tricks] + [k.trick]:
        if not plays:
            continue
        led = plays[0][1] >> 3
        for seat, card in plays[1:]:
            if card >> 3 != led:
                voids[seat] |= 1 << led
    return voids


# ---------------------------------------------------------------------- declarations


def _key_of(desc: dict[str, Any]) -> DeclKey:
    if desc.get("kind") == "carre":
        return (int(desc["points"]), 1, 4, CARRE_STRENGTH[RANKS.index(desc["rank"])])
    return (int(desc["points"]), 0, int(desc["length"]), RANKS.index(desc["top"]))


def seat_declarations(k: Knowledge, hands: list[int]) -> list[list[tuple[DeclKey, int]]]:
    """Per seat: (comparison key, suit or -1) of what it declared or will declare.

    Seats that have played in trick 1 announced already (the view says what); the others
    are assumed to announce their best set from ``hands`` (what bots and the automatic
    mode do).  The suit of a sequence is known only when shown, or from ``hands``.
    """
    out: list[list[tuple[DeclKey, int]]] = [[] for _ in range(k.n)]
    if k.contract is None or not k.rules.declarations_allowed(k.contract):
        return out
    if k.tricks:
        played_t1 = {s for s, _ in k.tricks[0].plays}
    else:
        played_t1 = {s for s, _ in k.trick}
    announced = k.view.get("declarations") or [[] for _ in range(k.n)]
    shown_suits: dict[int, list[int]] = {}
    for entry in k.view.get("shown_declarations") or []:
        suits = []
        for combo in entry.get("combos") or []:
            cs = [parse_card(c) for c in combo]
            if len({c >> 3 for c in cs}) == 1 and len(cs) != 4:
                suits.append(cs[0] >> 3)
        shown_suits[entry["seat"]] = suits
    for seat in range(k.n):
        if seat in played_t1:
            suits = list(shown_suits.get(seat, []))
            for desc in announced[seat]:
                suit = -1
                if desc.get("kind") == "sequence" and suits:
                    suit = suits.pop(0)
                out[seat].append((_key_of(desc), suit))
        else:
            initial = hands[seat] | k.played_by[seat]
            for c in auto_declaration(initial):
                key = c.key()
                out[seat].append(
                    ((key[0], key[1], key[2], key[3]), c.suit if not c.is_carre else -1)
                )
    return out


def declaration_points(k: Knowledge, decls: list[list[tuple[DeclKey, int]]]) -> tuple[int, ...]:
    """Declaration points each side is awarded by the comparison of §1.3 (before the
    "no trick, no declarations" rule, which the engine's scoring applies)."""
    sides = k.sides
    out = [0] * sides
    if k.rules.comparison == "bulgarian":
        seq_best: tuple[int, int] | None = None
        seq_sides: set[int] = set()
        carre_best = -1
        carre_side = -1
        for seat, combos in enumerate(decls):
            for key, _suit in combos:
                if key[1] == 1:
                    if key[3] > carre_best:
                        carre_best, carre_side = key[3], k.side_of[seat]
                else:
                    sk = (key[2], key[3])
                    if seq_best is None or sk > seq_best:
                        seq_best, seq_sides = sk, {k.side_of[seat]}
                    elif sk == seq_best:
                        seq_sides.add(k.side_of[seat])
        seq_side = next(iter(seq_sides)) if len(seq_sides) == 1 else -1
        for seat, combos in enumerate(decls):
            side = k.side_of[seat]
            for key, _suit in combos:
                if (key[1] == 1 and side == carre_side) or (key[1] == 0 and side == seq_side):
                    out[side] += key[0]
        return tuple(out)
    trump = k.trump if 0 <= k.trump < 4 else None
    order = [(k.eldest + i) % k.n for i in range(k.n)]
    best = None
    best_side = -1
    for seat, combos in enumerate(decls):
        for key, suit in combos:
            rank = (
                key,
                int(key[1] == 0 and trump is not None and suit == trump),
                -order.index(seat),
            )
            if best is None or rank > best:
                best, best_side = rank, k.side_of[seat]
    if best_side >= 0:
        for seat, combos in enumerate(decls):
            if k.side_of[seat] == best_side:
                out[best_side] += sum(key[0] for key, _ in combos)
    return tuple(out)


def belote_points(k: Knowledge, hands: list[int]) -> tuple[int, ...]:
    """Belote each side scores: completed and announced pairs, and pairs held in ``hands``."""
    out = [0] * k.sides
    if k.contract is None:
        return tuple(out)
    suits = k.rules.belote_suits(k.contract)
    counted: set[tuple[int, int]] = set()
    for b in k.view.get("belote") or []:
        seat = b["seat"]
        if b.get("stage") == "rebelote":
            out[k.side_of[seat]] += 20
        elif b.get("suit"):
            out[k.side_of[seat]] += 20
            counted.add((seat, "CDHS".index(b["suit"])))
    for seat in range(k.n):
        for suit in range(4):
            if (suits >> suit) & 1 and (seat, suit) not in counted:
                pair = (1 << (8 * suit + RK)) | (1 << (8 * suit + RQ))
                if hands[seat] & pair == pair:
                    out[k.side_of[seat]] += 20
    return tuple(out)


# ---------------------------------------------------------------------- legal actions


def play_action(k: Knowledge, card: int) -> dict[str, Any]:
    """The legal JSON action playing ``card``, announcing belote with the first card of a
    pair (the flag on the second is optional: it is left off)."""
    text = format_card(card)
    second = any(
        b.get("seat") == k.seat and b.get("stage") == "belote" and b.get("suit") == text[1]
        for b in k.view.get("belote") or []
    )
    plain = None
    for a in k.legal:
        if a.get("type") == "play" and a.get("card") == text:
            if not a.get("belote"):
                plain = a
            elif not second:
                return dict(a)
    if plain is None:
        raise ValueError(f"{text} is not a legal play")
    return dict(plain)


def best_declare(k: Knowledge) -> dict[str, Any] | None:
    """The legal ``declare`` with the most points (the automatic choice), if any."""
    options = [a for a in k.legal if a.get("type") == "declare"]
    if not options:
        return None
    best = auto_declaration(k.hand)
    want = sorted(sorted(c) for c in ([format_card(x) for x in card_list(c.mask)] for c in best))
    for a in options:
        if sorted(sorted(c) for c in a["combos"]) == want:
            return dict(a)
    return max(options, key=lambda a: sum(len(c) for c in a["combos"]))


def discard_points(k: Knowledge) -> int:
    return sum(k.points[c] for c in card_list(mask_of_cards(k.view.get("discard") or [])))
