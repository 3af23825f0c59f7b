"""The fast path for the computer players: card play on bare bitmasks, no events.

A ``Position`` is a plain description of the card play from some point on; ``playout``
plays it to the end with random legal cards and returns the card points each seat won.
It implements exactly the rules of ``play.legal_mask`` (tested against it), inlined.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .cards import ABOVE_PLAIN, ABOVE_TRUMP, PLAIN_STRENGTH, SUIT_MASK, TRUMP_STRENGTH
from .play import ALL_TRUMP, NO_TRUMP, PlayFlags, legal_mask, trick_winner_index
from .state import Phase, State
from .variants.duel import pile_up_card

# BITS[b]: the set bit positions of an 8-bit value, for quick card lists.
BITS = tuple(tuple(i for i in range(8) if b >> i & 1) for b in range(256))


@dataclass(slots=True)
class Position:
    hands: list[int]  # playable cards per seat
    trick: list[int]  # cards of the trick in progress, in play order
    leader: int  # seat that led the trick in progress
    trump: int  # suit 0..3, NO_TRUMP or ALL_TRUMP
    flags: PlayFlags
    points: tuple[int, ...]  # card points per card for the contract
    tricks_left: int  # tricks still to complete, the one in progress included
    n: int
    reveal: dict[int, int] = field(default_factory=dict)  # duel: played card -> freed card
    owner: dict[int, int] = field(default_factory=dict)  # duel: freed card -> seat


def position_of(state: State) -> Position:
    """The fast-path position of a state in the play phase (full information)."""
    assert state.phase is Phase.PLAY and state.contract is not None
    rules = state.rules
    reveal: dict[int, int] = {}
    owner: dict[int, int] = {}
    if rules.variant == "duel":
        for seat in range(2):
            for i, down in enumerate(state.piles[seat]):
                if down >= 0:
                    reveal[pile_up_card(state, seat, i)] = down
                    owner[down] = seat
    return Position(
        hands=list(state.hands),
        trick=[c for _, c in state.trick],
        leader=state.leader,
        trump=state.contract.trump,
        flags=rules.flags(state.contract),
        points=rules.points(state.contract),
        tricks_left=rules.total_tricks - len(state.tricks),
        n=rules.players,
        reveal=reveal,
        owner=owner,
    )


def _pick(mask: int, r: float) -> int:
    """A uniformly chosen card of ``mask`` given ``r`` in [0, 1)."""
    k = int(r * mask.bit_count())
    for s in (0, 8, 16, 24):
        b = (mask >> s) & 255
        if b:
            bits = BITS[b]
            if k < len(bits):
                return s + bits[k]
            k -= len(bits)
    raise ValueError("empty mask")


def legal(hands: list[int], seat: int, trick: list[int], leader: int, pos: Position) -> int:
    """Legal cards of ``seat``; same result as ``play.legal_mask`` (kept for clarity)."""
    partner_master = False
    if pos.n == 4 and trick and pos.flags.partner_exception:
        w = (leader + trick_winner_index(trick, pos.trump)) % 4
        partner_master = w == (seat + 2) % 4
    return legal_mask(hands[seat], trick, pos.trump, partner_master, pos.flags)


def playout(pos: Position, rng: random.Random) -> list[int]:
    """Play ``pos`` to the end with random legal cards; return card points per seat.

    The last trick's 10 is included.  ``pos`` is not changed.
    """
    n = pos.n
    hands = pos.hands[:]
    trump = pos.trump
    table = pos.points
    overtake_plain = pos.flags.overtake_plain
    partner_exc = pos.flags.partner_exception and n == 4
    undertrump = pos.flags.must_undertrump
    reveal = pos.reveal
    owner = pos.owner
    rand = rng.random
    won = [0] * n
    trick = pos.trick[:]
    leader = pos.leader
    tricks_left = pos.tricks_left
    trump_mask = SUIT_MASK[trump] if trump < 4 else 0
    while tricks_left:
        seat = (leader + len(trick)) % n
        while len(trick) < n:
            hand = hands[seat]
            if not trick:
                allowed = hand
            else:
                led_card = trick[0]
                led = led_card >> 3
                follow = hand & SUIT_MASK[led]
                # current winner of the trick
                best_i = 0
                best = led_card
                best_trump = trump < 4 and led == trump
                for i in range(1, len(trick)):
                    c = trick[i]
                    s = c >> 3
                    if trump < 4 and s == trump:
                        if not best_trump or TRUMP_STRENGTH[c & 7] > TRUMP_STRENGTH[best & 7]:
                            best_i, best, best_trump = i, c, True
                    elif s == led and not best_trump:
                        strength = TRUMP_STRENGTH if trump == ALL_TRUMP else PLAIN_STRENGTH
                        if strength[c & 7] > strength[best & 7]:
                            best_i, best = i, c
                if trump == NO_TRUMP:
                    allowed = follow or hand
                elif trump == ALL_TRUMP:
                    allowed = ((follow & ABOVE_TRUMP[best]) or follow) if follow else hand
                elif follow:
                    if led == trump:
                        allowed = (follow & ABOVE_TRUMP[best]) or follow
                    elif overtake_plain and not best_trump:
                        allowed = (follow & ABOVE_PLAIN[best]) or follow
                    else:
                        allowed = follow
                elif led == trump:
                    allowed = hand
                elif partner_exc and (leader + best_i) % 4 == (seat + 2) % 4:
                    allowed = hand
                else:
                    trumps = hand & trump_mask
                    if not trumps:
                        allowed = hand
                    elif best_trump:
                        allowed = (trumps & ABOVE_TRUMP[best]) or (trumps if undertrump else hand)
                    else:
                        allowed = trumps
            card = _pick(allowed, rand())
            hands[seat] = hand & ~(1 << card)
            trick.append(card)
            seat = (seat + 1) % n
        w = (leader + trick_winner_index(trick, trump)) % n
        pts = 0
        for c in trick:
            pts += table[c]
        tricks_left -= 1
        if not tricks_left:
            pts += 10
        won[w] += pts
        if reveal:
            for c in trick:
                freed = reveal.get(c)
                if freed is not None:
                    hands[owner[freed]] |= 1 << freed
        trick = []
        leader = w
    return won
