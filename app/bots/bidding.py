"""Bidding, doubling, the bela exchange and discard, for every variant and level.

Medium: value the hand for each possible contract with ``valuation.expected_points``
(the card points the side can expect, per variant and point scale), add the belote and
declarations it holds, and bid from that value:

* classic: take (or name a suit) when the value clears the threshold;
* coinche: bid the value rounded down to tens, raise the partner from the support the
  hand brings, overcall the opponents, coinche when the hand breaks their contract,
  surcoinche when well above the bid;
* bulgarian: the contract of the ladder whose value (as a share of its deal total) is
  best, contra and recontra from the same values;
* bela: name the best suit when it clears the threshold (the forced dealer always
  names one); duel: the same from both face-up layouts.

Hard: simulate the deal for each candidate contract (``simbid.hard_bid``, which builds on
this module; this module does not import it).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from app.engine.actions import CAPOT, Bid, Double, Pass, Redouble, action_from_json, action_to_json
from app.engine.cards import RK, RQ, SUIT_MASK, TRUMP_STRENGTH, card_list
from app.engine.declarations import auto_declaration, best_bulgarian, best_unified
from app.engine.play import PlayFlags
from app.engine.scoring import DealFacts
from app.engine.state import Contract
from app.engine.variants import score_deal
from app.engine.variants.base import DENOM_TRUMP

from .knowledge import Knowledge
from .valuation import expected_points, mean_points, spread

SUITS = "CDHS"

# Share of the deal's card points (``deal_total``) the medium bidder wants to expect,
# belote and declarations included, before it takes.  Three-player bela: the caller must
# beat each opponent, not both together.
TAKE_SHARE = {
    "classic": 0.56,
    "bulgarian": 0.56,
    "bela": 0.55,
    "bela3": 0.45,
    "duel": 0.55,
}


def take_share(k: Knowledge) -> float:
    if k.variant == "bela" and k.n == 3:
        return TAKE_SHARE["bela3"]
    if k.variant == "coinche":
        return TAKE_SHARE["classic"]
    return TAKE_SHARE[k.variant]


BASELINE = {"suit": 62.0, "nt": 62.0, "at": 62.0}  # an average hand's contribution


def config_of(k: Knowledge, cards: int | None = None) -> str:
    """The valuation config for a hand of ``cards`` known cards (default: what this seat
    sees now as its own)."""
    if cards is None:
        cards = visible(k).bit_count()
    if k.variant in ("classic", "coinche"):
        return "fr4-8" if cards >= 8 else "fr4-6"
    if k.variant == "bulgarian":
        return "bulgarian-5" if cards <= 5 else "bulgarian-8"
    if k.variant == "bela":
        full = 8 if k.n == 4 else 10
        return f"bela{k.n}-{full if cards >= full else 6}"
    return "duel-8"


def deal_total(k: Knowledge, trump: int) -> int:
    """Card points in play (last trick included) for a contract, before NT doubling."""
    if k.variant == "bulgarian":
        return 130 if trump == 4 else 258 if trump == 5 else 162
    if k.variant == "bela" and k.n == 2:
        return 105  # 20 of 32 cards in play: about 5/8 of 152, plus the last trick
    return 162


def visible(k: Knowledge) -> int:
    """The cards this bidder sees that will be its own: hand, and the turn-up in classic."""
    hand = k.hand
    if k.variant == "classic" and k.upcard >= 0:
        hand |= 1 << k.upcard
    return hand


def leads(k: Knowledge, taker: int | None = None) -> int:
    taker = k.seat if taker is None else taker
    return int(k.side_of[k.eldest] == k.side_of[taker])


def belote_in(hand: int, trump: int) -> int:
    if trump == 4:
        return 0
    suits = range(4) if trump == 5 else (trump,)
    pts = 0
    for s in suits:
        pair = (1 << (8 * s + RK)) | (1 << (8 * s + RQ))
        if hand & pair == pair:
            pts += 20
    return pts


def declarations_in(hand: int) -> float:
    """Expected declaration points from the cards held (they must still win the comparison)."""
    combos = auto_declaration(hand)
    total = 0.0
    for c in combos:
        total += c.points * (0.75 if c.points >= 50 else 0.45)
    return total


def hand_value(k: Knowledge, trump: int, hand: int | None = None) -> float:
    """Expected points of this seat's side if it plays ``trump``, belote and declarations
    included (the medium bot's valuation)."""
    hand = visible(k) if hand is None else hand
    opp = 0
    if k.variant == "duel":
        opp = k.known[1 - k.seat]
    v = expected_points(config_of(k), hand, trump, leads(k), opp)
    if k.variant == "duel":
        return v
    v += belote_in(hand, trump)
    decl_ok = k.rules.options.get("declarations", True) and trump != 4
    if decl_ok:
        v += declarations_in(hand)
    return v


def share(k: Knowledge, trump: int, hand: int | None = None) -> float:
    return hand_value(k, trump, hand) / deal_total(k, trump)


def _legal_objs(k: Knowledge) -> list[Any]:
    return [action_from_json(a) for a in k.legal]


def _json(a: Any) -> dict[str, Any]:
    return action_to_json(a)


def _find(k: Knowledge, want: Any) -> dict[str, Any] | None:
    target = _json(want)
    for a in k.legal:
        if {x: y for x, y in a.items() if x != "seat"} == target:
            return dict(a)
    return None


def _pass(k: Knowledge) -> dict[str, Any]:
    p = _find(k, Pass())
    if p is not None:
        return p
    return dict(k.legal[0])


# ====================================================================== medium

# Normal quadrature: (z, weight) for E[f(X)] with X ~ N(mean, sd).
_Z = (-2.4, -1.8, -1.2, -0.6, 0.0, 0.6, 1.2, 1.8, 2.4)
_W_RAW = tuple(pow(2.718281828, -z * z / 2) for z in _Z)
_W = tuple(w / sum(_W_RAW) for w in _W_RAW)
PASS_MARGIN = {"classic": 3.0, "coinche": 4.0, "bulgarian": 0.3, "bela": 3.0, "duel": 3.0}
SUPPORT = 0.8  # how much of a hand's excess over an average hand counts for the partner


def _perspective(k: Knowledge, rec: tuple[int, ...], side: int | None = None) -> float:
    side = k.my_side if side is None else side
    if k.sides == 2:
        return float(rec[side] - rec[1 - side])
    others = [s for s in range(k.sides) if s != side]
    return rec[side] - sum(rec[s] for s in others) / len(others)


def contract_ev(
    k: Knowledge,
    denom: str,
    taker: int,
    value: int | None,
    mult: int,
    mean: float,
    sd: float,
    side: int | None = None,
) -> float:
    """Expected recorded-points difference for this seat's side (or ``side``) when
    ``taker``'s side plays the contract and holds X ~ N(mean, sd) points (cards, belote
    and declarations)."""
    trump = DENOM_TRUMP[denom]
    total = deal_total(k, trump)
    taker_side = k.side_of[taker]
    tie_rule = k.rules.options.get("tie_rule", "fall")
    half = k.total_tricks // 2
    ev = 0.0
    for z, w in zip(_Z, _W, strict=True):
        x = int(round(min(max(mean + z * sd, 0.0), float(total))))
        pts = [0] * k.sides
        trk = [0] * k.sides
        pts[taker_side] = x
        rest = total - x
        others = [s for s in range(k.sides) if s != taker_side]
        if len(others) == 1:
            pts[others[0]] = rest
            trk[taker_side], trk[others[0]] = half, k.total_tricks - half
        else:
            pts[others[0]] = int(rest * 0.55)
            pts[others[1]] = rest - int(rest * 0.55)
            trk[taker_side] = k.total_tricks - 2 * (k.total_tricks // 3)
            trk[others[0]] = trk[others[1]] = k.total_tricks // 3
        rec = score_outcome(
            k.variant,
            taker_side,
            denom,
            value,
            mult,
            tuple(pts),
            tuple(trk),
            k.total_tricks,
            (0,) * k.sides,
            (0,) * k.sides,
            tie_rule,
        )
        ev += w * _perspective(k, rec, side)
    return ev


def standing_bid(k: Knowledge) -> tuple[int, str | None, int | None, int]:
    """(holder, denom, value, multiplier) of the bid standing now, or (-1, None, None, 1)."""
    seat, denom, value, mult = -1, None, None, 1
    for s, a in k.bids:
        if isinstance(a, Bid):
            seat, denom, value, mult = s, a.contract, a.value, 1
        elif isinstance(a, Double):
            mult = 2
        elif isinstance(a, Redouble):
            mult = 4
    return seat, denom, value, mult


def _claim(k: Knowledge, denom: str, value: int | None) -> float:
    """The points a bidder of ``denom`` (at ``value``) is expected to hold with an average
    partner: what made the bid worth it."""
    trump = DENOM_TRUMP[denom]
    if value:
        return min(value, 160) + 14.0
    return take_share(k) * deal_total(k, trump) + 6.0


def _excess(k: Knowledge, trump: int) -> float:
    """How much more than an average hand this hand brings to ``trump``."""
    cfg = config_of(k)
    return hand_value(k, trump) - mean_points(cfg, trump)


def _partner_bonus(k: Knowledge, denom: str) -> float:
    """What the partner's own bids in ``denom`` showed beyond an average hand."""
    partner = k.partner()
    if partner is None:
        return 0.0
    best = 0.0
    trump = DENOM_TRUMP[denom]
    for seat, a in k.bids:
        if seat == partner and isinstance(a, Bid) and a.contract == denom:
            best = max(best, _claim(k, denom, a.value) - mean_points(config_of(k), trump))
    return SUPPORT * best


def action_values(k: Knowledge) -> list[tuple[float, dict[str, Any]]]:
    """The medium bot's expected value of each legal bidding action."""
    holder, sdenom, svalue, smult = standing_bid(k)
    out: list[tuple[float, dict[str, Any]]] = []
    cfg = config_of(k)
    standing_mean = 0.0
    standing_sd = 30.0
    if sdenom is not None:
        trump = DENOM_TRUMP[sdenom]
        standing_sd = spread(cfg, trump) * 1.1
        if k.same_side(holder, k.seat):
            if holder == k.seat:
                standing_mean = hand_value(k, trump) + _partner_bonus(k, sdenom)
            else:
                standing_mean = _claim(k, sdenom, svalue) + SUPPORT * _excess(k, trump)
        else:
            standing_mean = _claim(k, sdenom, svalue) - SUPPORT * _excess(k, trump)
    margin = PASS_MARGIN.get(k.variant, 3.0)
    for a in k.legal:
        act = action_from_json(a)
        if isinstance(act, Pass):
            if sdenom is None:
                ev = 0.0
            else:
                ev = contract_ev(k, sdenom, holder, svalue, smult, standing_mean, standing_sd)
            out.append((ev + margin, dict(a)))
        elif isinstance(act, Bid):
            if act.value == CAPOT:
                continue
            trump = DENOM_TRUMP[act.contract]
            mean = hand_value(k, trump) + _partner_bonus(k, act.contract)
            ev = contract_ev(k, act.contract, k.seat, act.value, 1, mean, spread(cfg, trump))
            out.append((ev, dict(a)))
        elif isinstance(act, (Double, Redouble)) and sdenom is not None:
            mult = 2 if isinstance(act, Double) else 4
            ev = contract_ev(k, sdenom, holder, svalue, mult, standing_mean, standing_sd)
            out.append((ev - margin, dict(a)))
    return out


def medium_bid(k: Knowledge, rng: random.Random) -> dict[str, Any]:
    """The legal bidding action of best expected value (passing gets a small edge)."""
    values = action_values(k)
    if not values:
        return dict(k.legal[0])
    return max(values, key=lambda x: x[0])[1]


# ====================================================================== exchange, discard


def exchange(k: Knowledge) -> dict[str, Any] | None:
    """Bela 2p: always take the proposal card for the trump seven (it is a higher trump),
    when the exchange is offered; None when it is not."""
    for a in k.legal:
        if a.get("type") == "exchange":
            return dict(a)
    return None


def choose_discard(hand: int, trump: int, points: tuple[int, ...]) -> int:
    """Bela 3p: two cards to put in one's own trick pile (their points count).

    Bank the points of cards that would rarely win a trick (a ten without its ace, a king
    or queen alone), shorten a side suit to make a void for ruffing, never a trump nor a
    master.
    """
    scores = discard_scores(hand, trump, points)
    return (1 << scores[0][1]) | (1 << scores[1][1])


def discard_scores(hand: int, trump: int, points: tuple[int, ...]) -> list[tuple[float, int]]:
    """(how good a discard it is, card) for each card of ``hand``, best first."""
    scores = []
    for c in card_list(hand):
        s = c >> 3
        suit_cards = hand & SUIT_MASK[s]
        n = suit_cards.bit_count()
        if s == trump:
            v = -100.0 - TRUMP_STRENGTH[c & 7]
        else:
            rank = c & 7
            v = 0.0
            has_ace = (suit_cards >> (8 * s + 7)) & 1
            has_ten = (suit_cards >> (8 * s + 3)) & 1
            if rank == 7:
                v = -60.0  # an ace wins its trick
            elif rank == 3:
                v = points[c] * 1.2 if not has_ace else -40.0
            elif rank in (RK, RQ):
                v = points[c] * 1.0 - (15 if (has_ace and has_ten) else 0)
            else:
                v = 2.0
            v += 6.0 / n  # short suits first: voids let one ruff
        scores.append((v, c))
    scores.sort(reverse=True)
    return scores


def discard(k: Knowledge, mask: int | None = None) -> dict[str, Any]:
    """The legal ``discard`` of the two cards of ``mask`` (default: :func:`choose_discard`)."""
    if mask is None:
        mask = choose_discard(k.hand, k.trump, k.points)
    want = sorted(card_list(mask))
    for a in k.legal:
        if a.get("type") == "discard":
            from app.engine.cards import parse_card

            if sorted(parse_card(c) for c in a["cards"]) == want:
                return dict(a)
    return dict(k.legal[0])


# ====================================================================== inference


def bid_likelihood(k: Knowledge, w: Any) -> float:
    """How well a sampled world fits the auction (in [0, 1]), from the medium valuation.

    Bidders are expected to hold hands worth roughly their bid; players who passed when
    they could have named the final trump, hands not much above the threshold.
    """
    if not k.bids or k.variant == "duel":
        return 1.0
    like = 1.0
    first_seen: dict[int, int] = {}
    for seat, a in k.bids:
        if seat == k.seat:
            continue
        hand = _bidding_hand(k, w, seat)
        if isinstance(a, Bid):
            t = DENOM_TRUMP[a.contract]
            e = _seat_value(k, hand, t, seat)
            if k.variant == "coinche" and a.value:
                need: float = min(a.value, 160) - 10
                if e < need:
                    like *= max(0.15, 1.0 - (need - e) / 40.0)
            else:
                need = take_share(k) * deal_total(k, t) - 12
                if e < need:
                    like *= max(0.15, 1.0 - (need - e) / 40.0)
        elif isinstance(a, Pass) and k.contract is not None and seat not in first_seen:
            t = k.contract.trump
            if t < 4 and k.variant in ("classic", "bela", "duel"):
                e = _seat_value(k, hand, t, seat)
                need = take_share(k) * deal_total(k, t) + 15
                if e > need:
                    like *= max(0.3, 1.0 - (e - need) / 40.0)
            first_seen[seat] = 1
    return like


def _bidding_hand(k: Knowledge, w: Any, seat: int) -> int:
    """The cards ``seat`` holds in world ``w`` (its whole hand: a close stand-in for what
    it saw when bidding)."""
    return int(w.hands[seat] | k.played_by[seat])


def _seat_value(k: Knowledge, hand: int, trump: int, seat: int) -> float:
    if k.variant == "classic" and k.upcard >= 0 and k.contract is None:
        hand |= 1 << k.upcard  # a classic taker receives the turn-up
    cfg = config_of(k, hand.bit_count())
    v = expected_points(cfg, hand, trump, leads(k, seat))
    if k.variant != "duel":
        v += belote_in(hand, trump)
    return v


# ====================================================================== hard


@lru_cache(maxsize=200_000)
def score_outcome(
    variant: str,
    taker_side: int,
    denom: str,
    value: int | None,
    mult: int,
    pts: tuple[int, ...],
    trk: tuple[int, ...],
    total_tricks: int,
    decl: tuple[int, ...],
    bel: tuple[int, ...],
    tie_rule: str,
) -> tuple[int, ...]:
    facts = DealFacts(
        variant=variant,
        taker_side=taker_side,
        denom=denom,
        bid_value=value,
        multiplier=mult,
        card_points=pts,
        tricks_won=trk,
        total_tricks=total_tricks,
        decl_points=decl,
        belote_points=bel,
        reserve=0,
        tie_rule=tie_rule,
    )
    return score_deal(facts).recorded


def world_declarations(
    k: Knowledge, hands: list[int], trump: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(declaration points, belote points) per side when every seat declares its best."""
    sides = k.sides
    decl = [0] * sides
    bel = [0] * sides
    if k.variant == "duel":
        return tuple(decl), tuple(bel)
    allowed = bool(k.rules.options.get("declarations", True)) and trump != 4
    if allowed:
        announced = tuple(auto_declaration(h) for h in hands)
        if k.rules.comparison == "bulgarian":
            seq_side, carre_side = best_bulgarian(announced, k.side_of)
        else:
            order = [(k.eldest + i) % k.n for i in range(k.n)]
            side = best_unified(announced, k.side_of, trump if trump < 4 else None, order)
            seq_side = carre_side = side
        for seat, combos in enumerate(announced):
            for c in combos:
                winner = carre_side if c.is_carre else seq_side
                if winner == k.side_of[seat]:
                    decl[winner] += c.points
    for seat, h in enumerate(hands):
        bel[k.side_of[seat]] += belote_in(h, trump)
    return tuple(decl), tuple(bel)


def contract_for(k: Knowledge, denom: str, taker: int, value: int | None, mult: int) -> Contract:
    return Contract(denom, DENOM_TRUMP[denom], taker, value, mult)


def flags_for(k: Knowledge, denom: str) -> PlayFlags:
    return k.rules.flags(Contract(denom, DENOM_TRUMP[denom], 0))


__all__ = [
    "bid_likelihood",
    "choose_discard",
    "discard",
    "exchange",
    "hand_value",
    "medium_bid",
    "score_outcome",
    "standing_bid",
    "world_declarations",
]
