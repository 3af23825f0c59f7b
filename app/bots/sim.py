"""Fast card play on bitmasks for the bots: legal cards, a heuristic policy, playouts.

A :class:`Table` holds the fixed facts of a deal's card play (contract, flags, point
scale, sides); a :class:`Deal` is one complete, fully known position (a sampled "world"):
every seat's playable cards, the trick in progress, the cards played, and in ``duel`` the
face-down cards each played card will free.  ``playout`` plays a deal to the end with the
heuristic policy of :func:`policy_card` and returns card points and tricks per seat.

The policy uses only what the player to move could know: its own hand, the cards played
(hence which cards are masters) and the suits each seat has shown void in during the
playout.  It is the rollout policy of the hard bot; the medium bot has richer rules of
its own (``medium.py``).

Everything follows ``app.engine.play.legal_mask`` exactly (tests compare them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.engine.cards import (
    ABOVE_PLAIN,
    ABOVE_TRUMP,
    PLAIN_STRENGTH,
    SUIT_MASK,
    TRUMP_STRENGTH,
    card_list,
)
from app.engine.play import ALL_TRUMP, PlayFlags, legal_mask_top

NOISE = 0.06  # share of random cards in the rollout policy


def low_card(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


class Table:
    """The fixed facts of one deal's card play, with tables precomputed for speed."""

    __slots__ = (
        "above",
        "cheap",
        "desc",
        "flags",
        "n",
        "noise",
        "open_hands",
        "partner_exc",
        "points",
        "side_of",
        "sides",
        "strength",
        "taker",
        "total_tricks",
        "trump",
        "trump_mask",
        "value",
        "weak",
    )

    def __init__(
        self,
        n: int,
        trump: int,
        flags: PlayFlags,
        points: tuple[int, ...],
        side_of: tuple[int, ...],
        total_tricks: int,
        taker: int,
        open_hands: bool = False,
        noise: float = NOISE,
    ) -> None:
        self.n = n
        self.noise = noise  # share of random cards in the rollout policy
        self.open_hands = open_hands  # duel: the others' playable cards are face up
        self.trump = trump
        self.flags = flags
        self.partner_exc = flags.partner_exception and n == 4
        self.points = points
        self.side_of = side_of
        self.sides = max(side_of) + 1
        self.total_tricks = total_tricks
        self.taker = taker
        self.trump_mask = SUIT_MASK[trump] if trump < 4 else 0
        self.strength = tuple(
            (TRUMP_STRENGTH if _is_trumpy(c >> 3, trump) else PLAIN_STRENGTH)[c & 7]
            for c in range(32)
        )
        self.above = tuple(
            (ABOVE_TRUMP if _is_trumpy(c >> 3, trump) else ABOVE_PLAIN)[c] for c in range(32)
        )
        self.desc = tuple(
            tuple(sorted(range(8 * s, 8 * s + 8), key=lambda c: -self.strength[c]))
            for s in range(4)
        )
        # "value" of holding a card: its points, trumps and strength on top (discard order)
        self.value = tuple(
            points[c] * 4 + self.strength[c] + (60 if (self.trump_mask >> c) & 1 else 0)
            for c in range(32)
        )
        self.cheap = tuple(sorted(range(32), key=lambda c: self.value[c]))
        # weakest first: plain cards before trumps, by strength
        self.weak = tuple(
            sorted(
                range(32),
                key=lambda c: self.strength[c] + (16 if (self.trump_mask >> c) & 1 else 0),
            )
        )


def _is_trumpy(suit: int, trump: int) -> bool:
    return trump == ALL_TRUMP or suit == trump


def cheapest(mask: int, t: Table) -> int:
    """The card of ``mask`` one minds least giving away."""
    for c in t.cheap:
        if (mask >> c) & 1:
            return c
    raise ValueError("empty mask")


def dearest(mask: int, t: Table) -> int:
    for c in reversed(t.cheap):
        if (mask >> c) & 1:
            return c
    raise ValueError("empty mask")


def strongest(mask: int, t: Table) -> int:
    """Strongest card of ``mask`` (trumps first, then by strength within suits)."""
    for c in reversed(t.weak):
        if (mask >> c) & 1:
            return c
    return -1


def weakest(mask: int, t: Table) -> int:
    """Weakest card of ``mask`` (plain cards before trumps, then by strength)."""
    for c in t.weak:
        if (mask >> c) & 1:
            return c
    return -1


def winners_of(allowed: int, best: int, t: Table) -> int:
    """The cards of ``allowed`` that would take the trick from ``best``."""
    if t.trump_mask and not (t.trump_mask >> best) & 1:
        return (allowed & t.above[best]) | (allowed & t.trump_mask)
    return allowed & t.above[best]


def beats(card: int, best: int, t: Table) -> bool:
    """``card`` played now takes the trick from ``best`` (the card winning so far)."""
    if (card ^ best) >> 3 == 0:
        return t.strength[card] > t.strength[best]
    return (t.trump_mask >> card) & 1 == 1


def allowed_cards(hand: int, trick: list[int], best: int, partner_master: bool, t: Table) -> int:
    """The legal cards, given the trick's current winning card: the engine's §0.6."""
    if not trick:
        return hand
    return legal_mask_top(hand, trick[0] >> 3, best, t.trump, partner_master, t.flags)


@dataclass(slots=True)
class Deal:
    """A fully known position of the card play (one sampled world)."""

    hands: list[int]
    trick: list[int]
    leader: int
    played: int  # all cards played so far, the trick in progress included
    won: list[int]  # card points won per seat so far (last trick's 10 included)
    tricks: list[int]  # tricks won per seat so far
    tricks_left: int  # tricks to complete, the one in progress included
    voids: list[int] = field(default_factory=list)  # per seat: bitmask 1 << suit shown void
    reveal: dict[int, int] = field(default_factory=dict)  # duel: played card -> freed card
    owner: dict[int, int] = field(default_factory=dict)  # duel: freed card -> seat

    def copy(self) -> Deal:
        return Deal(
            self.hands[:],
            self.trick[:],
            self.leader,
            self.played,
            self.won[:],
            self.tricks[:],
            self.tricks_left,
            self.voids[:] if self.voids else [0] * len(self.hands),
            self.reveal,
            self.owner,
        )


def trick_best(trick: list[int], t: Table) -> tuple[int, int]:
    """(index, card) winning the trick so far."""
    best_i = 0
    best = trick[0]
    for i in range(1, len(trick)):
        c = trick[i]
        if beats(c, best, t):
            best_i, best = i, c
    return best_i, best


def policy_card(
    d: Deal, seat: int, allowed: int, best_i: int, best: int, t: Table, r: float
) -> int:
    """The rollout policy: cheap, sensible Belote play from public facts and own hand.

    ``r`` in [0, 1) drives the few random choices (so that callers can reuse numbers).
    """
    if allowed & (allowed - 1) == 0:
        return low_card(allowed)
    if r < t.noise:  # a little noise keeps playouts from being all alike
        cs = card_list(allowed)
        return cs[int(r / t.noise * len(cs))]
    hand = d.hands[seat]
    trick = d.trick
    if t.open_hands:
        outside = 0
        for s2 in range(t.n):
            if s2 != seat:
                outside |= d.hands[s2]
    else:
        outside = ~d.played & ~hand & 0xFFFFFFFF
    tm = t.trump_mask
    n = t.n
    if not trick:
        return _lead(d, seat, hand, outside, t, r)
    k = len(trick)
    winner = (d.leader + best_i) % n
    last = k == n - 1
    partner_wins = n == 4 and (winner - seat) % 4 == 2
    if partner_wins:
        safe = last or not (t.above[best] & outside)
        if safe and not last and tm and not (best >> 3 == t.trump):
            # a master in a plain suit may still be trumped by a later opponent
            led = trick[0] >> 3
            for i in range(1, n - k):
                s2 = (seat + i) % n
                if (d.voids[s2] >> led) & 1 and outside & tm and (s2 - seat) % 2 == 1:
                    safe = False
        if safe:
            # throw points, keeping trumps and masters when possible
            best_c = -1
            best_v = -999
            trump_led = trick[0] >> 3 == t.trump
            for c in card_list(allowed):
                p = t.points[c]
                v = p * 2
                if (tm >> c) & 1:
                    v -= int(2.5 * p) if trump_led else 30
                elif t.above[c] & outside:
                    if p == 10:
                        v += 6  # a ten whose ace is out: give it now
                elif p >= 10 and d.tricks_left > 2:
                    v -= 12  # a master: it may win a trick of its own later
                if beats(c, best, t):
                    v -= 1
                if v > best_v:
                    best_c, best_v = c, v
            return best_c
        # the partner may be overtaken: secure the trick with a master if it is worth it
        wins = winners_of(allowed, best, t) & ~tm
        if wins:
            top = strongest(wins, t)
            pts = t.points[top]
            for c in trick:
                pts += t.points[c]
            if not (t.above[top] & outside) and pts >= 10:
                return top
        return _discard(allowed, hand, outside, t)
    winners = winners_of(allowed, best, t)
    if winners:
        if last:
            return weakest(winners, t)
        # later players may still beat us: win with a master (or a trump on a plain lead)
        led = trick[0] >> 3
        masters = 0
        for c in card_list(winners):
            if not (t.above[c] & outside):
                masters |= 1 << c
        if masters:
            plain_masters = masters & ~tm
            if plain_masters and led != t.trump and tm and outside & tm:
                # could be trumped by a later opponent void in the suit
                for i in range(1, n - k):
                    s2 = (seat + i) % n
                    if (d.voids[s2] >> led) & 1 and not (n == 4 and (s2 - seat) % 4 == 2):
                        masters &= tm
                        break
            if masters:
                return weakest(masters, t)
        if winners == allowed:
            return weakest(winners, t)
        pts = 0
        for c in trick:
            pts += t.points[c]
        if winners & tm and not (best >> 3 == t.trump) and pts >= 10:
            return weakest(winners & tm, t)
        return _discard(allowed & ~winners, hand, outside, t)
    return _discard(allowed, hand, outside, t)


def _discard(allowed: int, hand: int, outside: int, t: Table) -> int:
    """The cheapest card, but not the last guard of a ten whose ace is still out."""
    first = -1
    for c in t.cheap:
        if (allowed >> c) & 1:
            if first < 0:
                first = c
            sc = hand & SUIT_MASK[c >> 3]
            if t.points[c] == 0 and sc.bit_count() == 2 and not (t.trump_mask >> c) & 1:
                other = low_card(sc & ~(1 << c))
                if t.points[other] == 10 and t.above[other] & outside:
                    continue
            return c
    return first


def _lead(d: Deal, seat: int, hand: int, outside: int, t: Table, r: float) -> int:
    tm = t.trump_mask
    n = t.n
    attack = t.side_of[seat] == t.side_of[t.taker]
    partner = (seat + 2) % 4 if n == 4 else -1
    opp_trumps = False
    if tm:
        my_trumps = hand & tm
        out_trumps = outside & tm
        opp_trumps = bool(out_trumps)
        if attack and my_trumps and out_trumps:
            top = strongest(my_trumps, t)
            if not (t.above[top] & outside):
                return top  # draw trumps with the master
            if seat == t.taker and my_trumps.bit_count() >= 3:
                return _low_trump(my_trumps, outside, t)
            if seat != t.taker and partner >= 0 and not (d.voids[partner] >> t.trump) & 1:
                low = _low_trump(my_trumps, outside, t)
                if not (low & 7 == 2 and t.above[low] & outside and my_trumps.bit_count() == 1):
                    return low  # give the lead back to the taker in trumps
    # cash plain masters, unless an opponent is void there and may trump
    best_c = -1
    best_v: float = -1
    for s in range(4):
        suit_cards = hand & SUIT_MASK[s] & ~tm
        if not suit_cards:
            continue
        top = strongest(suit_cards, t)
        if t.above[top] & outside:
            continue
        if not (outside & SUIT_MASK[s]) and opp_trumps:
            continue  # nobody can follow: an opponent would trump a master for nothing
        if opp_trumps and _ruffable(d, seat, partner, s, n):
            continue
        v: float = t.points[top] + 1
        if v > best_v:
            best_c, best_v = top, v
    if best_c >= 0:
        return best_c
    plain = hand & ~tm
    if not plain:
        top = strongest(hand, t)
        if not (t.above[top] & outside):
            return top
        return weakest(hand, t)
    # a low card from the plain suit where it costs least
    best_c, best_v = -1, 1e9
    for s in range(4):
        sc = plain & SUIT_MASK[s]
        if not sc:
            continue
        low = cheapest(sc, t)
        v = float(t.value[low]) - 2 * sc.bit_count()
        cnt = sc.bit_count()
        if cnt == 1 and t.points[low] >= 10:
            v += 40  # a lone ten or ace led away
        elif cnt == 2:
            top = strongest(sc, t)
            if t.points[top] >= 10 and t.above[top] & outside:
                v += 15  # keep the ten guarded
        if opp_trumps and _ruffable(d, seat, partner, s, n):
            v += 25
        if partner >= 0 and tm and not attack and (d.voids[partner] >> s) & 1:
            v -= 12  # the partner ruffs it
        v += r * 3
        if v < best_v:
            best_c, best_v = low, v
    return best_c


def _ruffable(d: Deal, seat: int, partner: int, suit: int, n: int) -> bool:
    for o in range(n):
        if o != seat and o != partner and (d.voids[o] >> suit) & 1:
            return True
    return False


def _low_trump(trumps: int, outside: int, t: Table) -> int:
    """A small trump, keeping the 9 while the jack is out (unless it is the only one)."""
    for c in t.weak:
        if (trumps >> c) & 1:
            if c & 7 == 2 and t.above[c] & outside and trumps.bit_count() > 1:
                continue
            return c
    return weakest(trumps, t)


def playout(d: Deal, t: Table, rnd: list[float], start: int = 0) -> Deal:
    """Play ``d`` (changed in place) to the end with the policy; return it."""
    n = t.n
    hands = d.hands
    points = t.points
    reveal = d.reveal
    owner = d.owner
    voids = d.voids
    nr = len(rnd)
    ri = start
    partner_exc = t.partner_exc
    while d.tricks_left:
        trick = d.trick
        leader = d.leader
        k = len(trick)
        if k:
            best_i, best = trick_best(trick, t)
        else:
            best_i, best = 0, -1
        while k < n:
            seat = (leader + k) % n
            hand = hands[seat]
            if k:
                pm = partner_exc and (best_i - k) % 4 == 2
                allowed = allowed_cards(hand, trick, best, pm, t)
            else:
                allowed = hand
            card = policy_card(d, seat, allowed, best_i, best, t, rnd[ri % nr])
            ri += 1
            if k and card >> 3 != trick[0] >> 3:
                voids[seat] |= 1 << (trick[0] >> 3)
            hands[seat] = hand & ~(1 << card)
            d.played |= 1 << card
            trick.append(card)
            if k == 0:
                best_i, best = 0, card
            elif beats(card, best, t):
                best_i, best = k, card
            k += 1
        w = (leader + best_i) % n
        pts = 0
        for c in trick:
            pts += points[c]
        d.tricks_left -= 1
        if not d.tricks_left:
            pts += 10
        d.won[w] += pts
        d.tricks[w] += 1
        if reveal:
            for c in trick:
                freed = reveal.get(c)
                if freed is not None:
                    hands[owner[freed]] |= 1 << freed
        d.trick = []
        d.leader = w
    return d


def play_card(d: Deal, card: int, t: Table) -> None:
    """Play ``card`` by the seat to move (assumed legal), completing the trick if full."""
    n = t.n
    trick = d.trick
    seat = (d.leader + len(trick)) % n
    if trick and card >> 3 != trick[0] >> 3:
        d.voids[seat] |= 1 << (trick[0] >> 3)
    d.hands[seat] &= ~(1 << card)
    d.played |= 1 << card
    trick.append(card)
    if len(trick) == n:
        best_i, _ = trick_best(trick, t)
        w = (d.leader + best_i) % n
        pts = 0
        for c in trick:
            pts += t.points[c]
        d.tricks_left -= 1
        if not d.tricks_left:
            pts += 10
        d.won[w] += pts
        d.tricks[w] += 1
        if d.reveal:
            for c in trick:
                freed = d.reveal.get(c)
                if freed is not None:
                    d.hands[d.owner[freed]] |= 1 << freed
        d.trick = []
        d.leader = w


def to_move(d: Deal, t: Table) -> int:
    return (d.leader + len(d.trick)) % t.n


def legal_now(d: Deal, t: Table) -> int:
    seat = to_move(d, t)
    if not d.trick:
        return d.hands[seat]
    best_i, best = trick_best(d.trick, t)
    pm = t.partner_exc and (best_i - len(d.trick)) % 4 == 2
    return allowed_cards(d.hands[seat], d.trick, best, pm, t)
