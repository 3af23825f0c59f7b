"""Cards, suits, ranks and card sets as int bitmasks (RULES.md §0.1-§0.3).

A card is a small int ``suit * 8 + rank`` where ``suit`` is 0..3 for C, D, H, S
and ``rank`` is the NATURAL index 0..7 for 7, 8, 9, T, J, Q, K, A.  A set of
cards is an int whose bit ``1 << card`` is set for each member.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

SUITS = "CDHS"
RANKS = "789TJQKA"
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
R7, R8, R9, RT, RJ, RQ, RK, RA = range(8)

ALL_CARDS = tuple(range(32))
FULL_DECK = (1 << 32) - 1
SUIT_MASK = tuple(0xFF << (8 * s) for s in range(4))

# Strength of each rank inside a suit (higher wins), per card order of §0.2.
TRUMP_STRENGTH = (0, 1, 6, 4, 7, 2, 3, 5)  # J 9 A T K Q 8 7
PLAIN_STRENGTH = (0, 1, 2, 6, 3, 4, 5, 7)  # A T K Q J 9 8 7
CARRE_STRENGTH = (-1, -1, 4, 2, 5, 0, 1, 3)  # J 9 A T K Q (7s and 8s: no carré)

# Point scales of §0.3, indexed by natural rank.
TRUMP_POINTS = (0, 0, 14, 10, 20, 3, 4, 11)
PLAIN_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)
SA_POINTS = (0, 0, 0, 10, 2, 3, 4, 19)
TA_POINTS = (0, 0, 9, 5, 14, 1, 3, 6)

# Card masks ordered from the strongest card to the weakest, per suit.
_TRUMP_DESC = sorted(range(8), key=lambda r: -TRUMP_STRENGTH[r])
_PLAIN_DESC = sorted(range(8), key=lambda r: -PLAIN_STRENGTH[r])

# ABOVE_TRUMP[c]: mask of the cards of c's suit that beat c in TRUMP order.
ABOVE_TRUMP = tuple(
    sum(1 << (8 * (c >> 3) + r) for r in range(8) if TRUMP_STRENGTH[r] > TRUMP_STRENGTH[c & 7])
    for c in range(32)
)
ABOVE_PLAIN = tuple(
    sum(1 << (8 * (c >> 3) + r) for r in range(8) if PLAIN_STRENGTH[r] > PLAIN_STRENGTH[c & 7])
    for c in range(32)
)


def suit_of(card: int) -> int:
    return card >> 3


def rank_of(card: int) -> int:
    return card & 7


def make_card(suit: int, rank: int) -> int:
    return suit * 8 + rank


def bit(card: int) -> int:
    return 1 << card


def parse_card(text: str) -> int:
    """Parse ``"TH"`` into a card; raise ``ValueError`` on anything else."""
    if not isinstance(text, str) or len(text) != 2:
        raise ValueError(f"not a card: {text!r}")
    r = RANKS.find(text[0].upper())
    s = SUITS.find(text[1].upper())
    if r < 0 or s < 0 or text != text.upper():
        raise ValueError(f"not a card: {text!r}")
    return s * 8 + r


def format_card(card: int) -> str:
    return RANKS[card & 7] + SUITS[card >> 3]


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> Iterator[int]:
    """Yield the cards of ``mask`` in increasing card order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


_BYTE_CARDS = tuple(
    tuple(tuple(8 * s + r for r in range(8) if b >> r & 1) for b in range(256)) for s in range(4)
)


def card_list(mask: int) -> list[int]:
    """The cards of ``mask`` in increasing order (a table lookup per suit)."""
    return [
        *_BYTE_CARDS[0][mask & 255],
        *_BYTE_CARDS[1][(mask >> 8) & 255],
        *_BYTE_CARDS[2][(mask >> 16) & 255],
        *_BYTE_CARDS[3][(mask >> 24) & 255],
    ]


def count(mask: int) -> int:
    return mask.bit_count()


_BYTE_NAMES = tuple(
    tuple(tuple(format_card(8 * s + r) for r in range(8) if b >> r & 1) for b in range(256))
    for s in range(4)
)


def format_mask(mask: int) -> list[str]:
    """The names of the cards of ``mask``, in increasing card order."""
    return [
        *_BYTE_NAMES[0][mask & 255],
        *_BYTE_NAMES[1][(mask >> 8) & 255],
        *_BYTE_NAMES[2][(mask >> 16) & 255],
        *_BYTE_NAMES[3][(mask >> 24) & 255],
    ]


def parse_cards(texts: Iterable[str]) -> list[int]:
    return [parse_card(t) for t in texts]


def best_card(mask: int, trump_order: bool) -> int:
    """The strongest card of ``mask`` (which must hold cards of one suit)."""
    strength = TRUMP_STRENGTH if trump_order else PLAIN_STRENGTH
    return max(cards_of(mask), key=lambda c: strength[c & 7])
