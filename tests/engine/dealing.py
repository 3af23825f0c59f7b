"""Canonical dealing maps of RULES.md, written independently of the engine.

``destinations(...)`` says where each deck index goes; ``build_deck`` turns wanted hands
into a deck order, so tests can build exact deals (RULES.md §0.4 "canonical dealing").
"""

from __future__ import annotations

from app.engine.cards import format_card, parse_card

Dest = tuple  # ("hand", seat) | ("rest", seat) | ("up",) | ("talon", seat) | ("middle",)
# | ("out",) | ("down", seat) | ("faceup", seat)


def _order(dealer: int, n: int) -> list[int]:
    return [(dealer + 1 + i) % n for i in range(n)]


def _rounds(dealer: int, n: int, sizes: list[int], kind: str = "hand") -> list[Dest]:
    out: list[Dest] = []
    for k in sizes:
        for seat in _order(dealer, n):
            out += [(kind, seat)] * k
    return out


def destinations(
    variant: str, dealer: int, players: int = 4, *, taker: int | None = None, free: bool = False
) -> list[Dest]:
    if variant == "classic" and not free:
        out = _rounds(dealer, 4, [3, 2]) + [("up",)]
        assert taker is not None
        for seat in _order(dealer, 4):
            out += [("rest", seat)] * (2 if seat == taker else 3)
        return out
    if variant in ("classic", "coinche"):
        return _rounds(dealer, 4, [3, 2, 3])
    if variant == "bulgarian":
        return _rounds(dealer, 4, [3, 2]) + _rounds(dealer, 4, [3], "rest")
    if variant == "bela" and players == 4:
        return _rounds(dealer, 4, [3, 3]) + _rounds(dealer, 4, [2], "talon")
    if variant == "bela" and players == 3:
        return _rounds(dealer, 3, [3, 3]) + _rounds(dealer, 3, [4], "talon") + [("middle",)] * 2
    if variant == "bela" and players == 2:
        return (
            _rounds(dealer, 2, [3, 3])
            + [("up",)]
            + _rounds(dealer, 2, [4], "talon")
            + [("out",)] * 11
        )
    if variant == "duel":
        nd = 1 - dealer
        return (
            [("down", nd)] * 8
            + [("down", dealer)] * 8
            + [("faceup", nd)] * 8
            + [("faceup", dealer)] * 8
        )
    raise ValueError(variant)


def build_deck(dests: list[Dest], wanted: dict[Dest, list[str]]) -> list[int]:
    """Place the wanted cards (in order) at their destinations; fill the rest."""
    deck: list[int | None] = [None] * 32
    used: set[int] = set()
    for dest, cards in wanted.items():
        slots = [i for i, d in enumerate(dests) if d == dest]
        assert len(cards) <= len(slots), f"too many cards for {dest}"
        for i, text in zip(slots, cards, strict=False):
            c = parse_card(text)
            assert c not in used, f"{text} used twice"
            deck[i] = c
            used.add(c)
    spare = iter(c for c in range(32) if c not in used)
    return [d if d is not None else next(spare) for d in deck]


def hand_strs(mask: int) -> set[str]:
    return {format_card(c) for c in range(32) if mask >> c & 1}
