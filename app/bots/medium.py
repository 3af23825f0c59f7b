"""The medium bot: strong hand-written rules on top of :mod:`knowledge`.

Card play keeps count of what has been played and of who has shown void in what (the
``Knowledge``), and follows the classic advice of the game:

* the attack draws trumps while the opponents may still hold some and it holds the
  master trump (or length); the taker's partner gives the lead back in trumps;
* everyone cashes master cards, except into a suit an opponent can ruff;
* with the partner winning securely it throws points ("charger"), never trumping the
  partner's master card when it may discard, and keeping its own masters and trumps;
* against an opponent it wins cheaply when it is last or holds a secure winner, else it
  plays low, discarding the cards it minds least.

Bidding, doubling, the bela exchange and discard are in :mod:`bidding`.
"""

from __future__ import annotations

import random
from typing import Any

from app.engine.cards import SUIT_MASK, card_list

from . import bidding
from .common import decide, table_of
from .knowledge import Knowledge, read_view
from .sim import Table, beats, cheapest, strongest, weakest


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    return decide(
        read_view(view),
        rng,
        card=choose_card,
        bid=bidding.medium_bid,
        discard=lambda k, _rng: bidding.discard(k),
    )


# ---------------------------------------------------------------------- helpers


class Facts:
    """What the card-play rules consult, computed once per decision."""

    def __init__(self, k: Knowledge) -> None:
        self.k = k
        self.t: Table = table_of(k)
        self.hand = k.hand
        self.outside = k.outside()
        self.tm = self.t.trump_mask
        self.partner = k.partner()
        self.opps = k.opponents()
        self.may: list[int] = [self._may_play(s) for s in range(k.n)]
        opp = 0
        for o in self.opps:
            opp |= self.may[o]
        self.opp_may = opp
        self.tricks_left = k.tricks_left()

    def _may_play(self, seat: int) -> int:
        k = self.k
        if seat == k.seat:
            return k.hand
        if k.variant == "duel":
            return k.known[seat]  # the face-up cards: the only ones playable now
        return k.could_hold(seat)

    def master_vs_opps(self, card: int) -> bool:
        """No opponent can hold a stronger card of its suit."""
        return not (self.t.above[card] & self.opp_may)

    def is_master(self, card: int) -> bool:
        return not (self.t.above[card] & self.outside)

    def may_ruff(self, seat: int, suit: int) -> bool:
        """``seat`` may trump a lead of ``suit`` (trump contracts)."""
        if not self.tm or suit == self.k.trump:
            return False
        may = self.may[seat]
        if not may & self.tm:
            return False
        if not may & SUIT_MASK[suit]:
            return True  # void (shown or certain)
        out_in_suit = (self.outside & SUIT_MASK[suit]).bit_count()
        return out_in_suit <= 1


def secure(f: Facts, best: int, led: int) -> bool:
    """The card winning the trick cannot be beaten by an opponent still to play."""
    k = f.k
    for o in k.to_play_after():
        if k.same_side(o, k.seat):
            continue
        may = f.may[o]
        if may & SUIT_MASK[best >> 3] & f.t.above[best]:
            return False
        if best >> 3 != k.trump and f.may_ruff(o, led):
            return False
    return True


# ---------------------------------------------------------------------- card play


def choose_card(k: Knowledge, rng: random.Random) -> int:
    legal = k.legal_cards()
    if legal & (legal - 1) == 0:
        return legal.bit_length() - 1
    f = Facts(k)
    if not k.trick:
        return _lead(f, legal, rng)
    return _follow(f, legal)


def _lead(f: Facts, legal: int, rng: random.Random) -> int:
    k = f.k
    t = f.t
    hand = legal
    tm = f.tm
    c = k.contract
    assert c is not None
    attack = k.is_attack
    if tm:
        my_trumps = hand & tm
        opp_trumps = f.opp_may & tm
        if my_trumps and opp_trumps:
            top = strongest(my_trumps, t)
            if attack and f.master_vs_opps(top):
                return top  # draw trumps with the master
            if attack and k.seat == c.taker and my_trumps.bit_count() >= 3:
                return _low_trump(f, my_trumps)
            if attack and k.seat != c.taker and f.partner is not None and f.may[f.partner] & tm:
                low = _low_trump(f, my_trumps)
                if not ((low & 7) == 2 and not f.is_master(low)):  # not a lone 9 under the J
                    return low
    # cash masters that cannot be ruffed by an opponent
    best_c, best_v = -1, -1.0
    for s in range(4):
        suit_cards = hand & SUIT_MASK[s]
        if not suit_cards or (tm and s == k.trump):
            continue
        top = strongest(suit_cards, t)
        if not f.master_vs_opps(top):
            continue
        if any(f.may_ruff(o, s) for o in f.opps):
            continue
        if not (f.opp_may & SUIT_MASK[s]) and not attack:
            continue  # nobody follows: it wins, but only its own points; keep it for later
        v = t.points[top] + 0.1 * suit_cards.bit_count()
        if v > best_v:
            best_c, best_v = top, v
    if best_c >= 0:
        return best_c
    # the defence (or anyone) gives the partner a ruff
    if f.partner is not None and tm:
        p = f.partner
        if f.may[p] & tm:
            for s in range(4):
                sc = hand & SUIT_MASK[s] & ~tm
                if sc and not (f.may[p] & SUIT_MASK[s]) and not attack:
                    return cheapest(sc, t)
    plain = hand & ~tm if tm else hand
    if not plain:
        top = strongest(hand, t)
        if f.master_vs_opps(top):
            return top
        return weakest(hand, t)
    return _low_lead(f, plain, rng)


def _low_trump(f: Facts, trumps: int) -> int:
    """A small trump, keeping the 9 when the jack is still out (and the jack itself)."""
    t = f.t
    cs = sorted(card_list(trumps), key=lambda c: t.strength[c])
    for c in cs:
        if f.is_master(c):
            continue
        rank = c & 7
        if rank == 2 and not f.is_master(c):  # the 9 under an outstanding jack
            if len(cs) > 1:
                continue
        return c
    return cs[0]


def _low_lead(f: Facts, plain: int, rng: random.Random) -> int:
    """A low card from the plain suit where it costs least."""
    k = f.k
    t = f.t
    options = []
    for s in range(4):
        sc = plain & SUIT_MASK[s]
        if not sc:
            continue
        low = cheapest(sc, t)
        v = float(t.value[low])
        top = strongest(sc, t)
        # a lone ten (or lone second card) led away is lost; a ten guarded by small ones
        # is best kept guarded
        if sc.bit_count() == 1 and t.points[low] >= 10:
            v += 40
        if sc.bit_count() == 2 and t.points[top] >= 10 and not f.is_master(top):
            v += 15
        if any(f.may_ruff(o, s) for o in f.opps):
            v += 25
        if f.partner is not None and f.may_ruff(f.partner, s) and not k.is_attack:
            v -= 10
        # long suits are better to lead from
        v -= 2 * sc.bit_count()
        options.append((v, rng.random(), low))
    options.sort()
    return options[0][2]


def _follow(f: Facts, legal: int) -> int:
    k = f.k
    t = f.t
    w_seat, best = k.trick_winner()
    led = k.trick[0][1] >> 3
    last = len(k.trick) == k.n - 1
    partner_wins = f.partner is not None and w_seat == f.partner
    trick_pts = k.trick_points()
    if partner_wins:
        if last or secure(f, best, led):
            return _throw_points(f, legal, best)
        # the partner may be overtaken: secure the trick if a card of ours can
        secure_winners = [
            c
            for c in card_list(legal)
            if beats(c, best, t) and _secure_with(f, c, led) and not (f.tm >> c) & 1
        ]
        if secure_winners and trick_pts + max(t.points[c] for c in secure_winners) >= 10:
            return min(secure_winners, key=lambda c: t.strength[c])
        return _discard(f, legal)
    winners = [c for c in card_list(legal) if beats(c, best, t)]
    if winners:
        wmask = 0
        for c in winners:
            wmask |= 1 << c
        if last:
            return weakest(wmask, t)
        sure = [c for c in winners if _secure_with(f, c, led)]
        if sure:
            smask = 0
            for c in sure:
                smask |= 1 << c
            return weakest(smask, t)
        if wmask == legal:
            return weakest(wmask, t)
        # a partner still to play may win it: keep high cards
        if trick_pts >= 10 and wmask & f.tm and best >> 3 != k.trump:
            return weakest(wmask & f.tm, t)
        return _discard(f, legal & ~wmask)
    return _discard(f, legal)


def _secure_with(f: Facts, card: int, led: int) -> bool:
    """Playing ``card`` now would win against every opponent still to play."""
    return secure(f, card, led)


def _throw_points(f: Facts, legal: int, best: int) -> int:
    """The partner wins: give it points, keeping trumps and masters when possible."""
    t = f.t
    k = f.k
    best_c, best_v = -1, -1e9
    for c in card_list(legal):
        v = 2.0 * t.points[c]
        is_trump = (f.tm >> c) & 1
        if is_trump and (k.trick[0][1] >> 3) != k.trump:
            v -= 40  # no trumping of a partner's master
        elif is_trump:
            v -= 2.5 * t.points[c]  # on a trump lead keep the big trumps
        elif f.is_master(c) and t.points[c] >= 10 and f.tricks_left > 2:
            v -= 14
        if beats(c, best, t) and k.variant != "bela":
            v -= 0.5
        # a ten whose ace is still out is a liability: give it now
        if not is_trump and t.points[c] == 10 and not f.is_master(c):
            v += 6
        if v > best_v:
            best_c, best_v = c, v
    return best_c


def _discard(f: Facts, legal: int) -> int:
    """The card that costs least, keeping guards of tens and lengths in trumps."""
    t = f.t
    best_c, best_v = -1, 1e9
    hand = f.hand
    for c in card_list(legal):
        v = float(t.value[c])
        s = c >> 3
        sc = hand & SUIT_MASK[s]
        # the guard of a ten: the ten would then be alone
        if t.points[c] == 0 and sc.bit_count() == 2:
            other = sc & ~(1 << c)
            o = other.bit_length() - 1
            if t.points[o] >= 10 and not f.is_master(o):
                v += 8
        if f.is_master(c) and t.points[c] >= 10:
            v += 20
        if v < best_v:
            best_c, best_v = c, v
    return best_c
