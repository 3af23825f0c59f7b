"""Claims (RULES.md §15, D-24): the seat about to lead claims every remaining trick.

``claim_order(view)`` answers from a seat's view alone (RULES.md §13): the order in which the
seat can lead its cards so that each wins its trick whatever the cards it cannot see are and
whatever the others play, or None. The real hidden cards never enter it, so a refused claim
reveals nothing. ``can_claim(state, seat)`` asks the same of a state through that seat's view.

The check. The claimer leads every trick, so each other seat plays one card per trick. The
order is his trumps from the highest, then each other suit from its highest (leading trumps
first only helps: it draws the others' trumps; within a suit the higher card first only
helps). Card ``c`` of suit S, led after ``m_S`` earlier leads of S and ``m_T`` of trumps, is
beaten in some placement and play when some other seat ``s`` may

* hold a higher card of S then: one that may reach his hand later (a ``duel`` face-down card),
  or one in his hand now with ``m_S`` other cards of S to follow the earlier leads with
  (``most(s, S) - 1 + later(s, S) >= m_S``), or
* ruff it (S is not trump): be void of S then (he is known to hold at most ``m_S`` cards of
  S) and hold a trump then (one may reach him later, or ``most(s, T) >= m_T + 1``).

``most(s, X)`` bounds the cards of X seat ``s`` may hold now: the cards of X he may hold (the
hidden ones his play has not ruled out, and those he is known to hold, RULES.md §0.6 and §1.2)
that no other seat is known to hold, and no more than his hand's size leaves beside the
cards of other suits he is known to hold. Each bound lets the others more than the rules do,
so a claim found valid is valid (tests/engine/test_claims.py checks it against the exact
solver); a very rare valid claim that needs a finer count is refused.

The play-out (§15): ``claim_action(state, claimer)`` is the action of the seat to act: the
claimer's next card in that order, any other seat's lowest-ranked legal card by the order of
its suit, ties broken by suit C D H S; the first card of a belote pair carries the flag where
the variant wants it announced by hand.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .actions import PLAYS, PLAYS_BELOTE, Play
from .cards import (
    FULL_DECK,
    PLAIN_STRENGTH,
    RANKS,
    SUIT_MASK,
    TRUMP_STRENGTH,
    format_mask,
    parse_card,
)
from .errors import IllegalAction
from .game import _belote_first, legal_play_mask
from .play import ALL_TRUMP, NO_TRUMP, PlayFlags, ruled_out, trick_winner_index
from .state import Contract, Event, Phase, State
from .variants import get_rules
from .variants.base import DENOM_TRUMP, Rules

# _ABOVE[order][card]: the cards of the card's suit that beat it in that order (0 plain, 1 trump)
_ABOVE = tuple(
    tuple(
        sum(1 << (8 * (c >> 3) + r) for r in range(8) if strength[r] > strength[c & 7])
        for c in range(32)
    )
    for strength in (PLAIN_STRENGTH, TRUMP_STRENGTH)
)
# _DESC[order][suit]: the suit's cards from the strongest to the weakest
_DESC = tuple(
    tuple(tuple(sorted((8 * s + r for r in range(8)), key=lambda c: -st[c & 7])) for s in range(4))
    for st in (PLAIN_STRENGTH, TRUMP_STRENGTH)
)


def _mask(cards: Any) -> int:
    m = 0
    for text in cards or ():
        m |= 1 << parse_card(text)
    return m


def _is_trump_order(trump: int, suit: int) -> bool:
    return trump == ALL_TRUMP or suit == trump


def lead_order(hand: int, trump: int) -> list[int]:
    """The claimer's cards in the order he leads them: trumps from the highest, then clubs,
    diamonds, hearts and spades, each from its highest (§15, the order that proves a claim)."""
    out: list[int] = []
    suits = [trump, *(s for s in range(4) if s != trump)] if trump < 4 else list(range(4))
    for suit in suits:
        for c in _DESC[1 if _is_trump_order(trump, suit) else 0][suit]:
            if (hand >> c) & 1:
                out.append(c)
    return out


def _excluded(
    rules: Rules, contract: Contract, tricks: list[tuple[int, list[tuple[int, int]]]], seat: int
) -> list[int]:
    """Per seat, the cards its play shows it did not hold (RULES.md §0.6): card ``c`` is
    ruled out for a seat that played ``p`` when ``p`` would be illegal from the hand
    ``{p, c}``. The claimer's own plays teach nothing and are skipped."""
    n = rules.players
    out = [0] * n
    flags = rules.flags(contract)
    for _leader, plays in tricks:
        for s, m in enumerate(_trick_excluded(flags, contract.trump, n, tuple(plays))):
            if s != seat:
                out[s] |= m
    return out


@lru_cache(maxsize=4096)
def _trick_excluded(
    flags: PlayFlags, trump: int, n: int, plays: tuple[tuple[int, int], ...]
) -> tuple[int, ...]:
    """What one trick's plays rule out, per seat (``_excluded``); a trick is read by every
    claim check of the rest of its deal, so each is worked out once. Only cards of the led
    suit and trumps can change what is legal."""
    out = [0] * n
    before: list[int] = []
    winner_index = 0
    for i, (s, p) in enumerate(plays):
        if before:
            led = before[0] >> 3
            cands = SUIT_MASK[led] | (SUIT_MASK[trump] if trump < 4 else 0)
            cands &= ~(1 << p)
            partner = n == 4 and plays[winner_index][0] == (s + 2) % 4
            top = before[trick_winner_index(before, trump)]
            out[s] |= ruled_out(p, led, top, trump, partner, flags) & cands
        before.append(p)
        if i and _beats_in(p, plays[winner_index][1], trump):
            winner_index = i
    return tuple(out)


def _beats_in(card: int, top: int, trump: int) -> bool:
    suit, top_suit = card >> 3, top >> 3
    if trump < 4 and suit == trump:
        return top_suit != trump or TRUMP_STRENGTH[card & 7] > TRUMP_STRENGTH[top & 7]
    if suit != top_suit:
        return False
    strength = TRUMP_STRENGTH if _is_trump_order(trump, suit) else PLAIN_STRENGTH
    return strength[card & 7] > strength[top & 7]


def claim_order(view: dict[str, Any]) -> list[int] | None:
    """The order proving a claim of every remaining trick by the view's seat, or None when
    the claim is not certain or not possible now (not the card play, not this seat's lead,
    a card of the trick already played). Reads the seat view only (RULES.md §13, §15)."""
    seat = view.get("seat")
    contract = view.get("contract")
    if (
        seat is None
        or view.get("phase") != Phase.PLAY.value
        or view.get("to_act") != seat
        or view.get("trick")
        or not contract
        or view.get("claim")
    ):
        return None
    hand = _mask(view.get("hand"))
    if not hand:
        return None
    rules = get_rules(view["variant"], view["players"], view.get("options") or {})
    layout = rules.claim_layout(view, seat)
    if layout.blocked:
        return None
    trump = DENOM_TRUMP[contract["denom"]]
    n = rules.players
    denoted = Contract(contract["denom"], trump, contract["taker"])
    tricks = [
        (t["leader"], [(p["seat"], parse_card(p["card"])) for p in t["plays"]])
        for t in view.get("tricks") or ()
    ]
    played = 0
    for _, plays in tricks:
        for _, c in plays:
            played |= 1 << c
    counts = view.get("hand_counts") or [0] * n
    known = [0] * n
    if layout.open_hands is not None:
        known = list(layout.open_hands)
    taken = view.get("taken")
    if taken:
        known[taken["seat"]] |= 1 << parse_card(taken["card"])
    for b in view.get("belote") or ():
        if b.get("stage") == "belote" and b.get("suit"):
            suit = "CDHS".index(b["suit"])
            known[b["seat"]] |= 0x60 << (8 * suit)  # its king and queen (the unplayed one)
    for entry in view.get("shown_declarations") or ():
        for combo in entry.get("combos") or ():
            known[entry["seat"]] |= _mask(combo)
    for s, combos in enumerate(view.get("declarations") or ()):
        for combo in combos:
            if combo.get("kind") == "carre":
                r = RANKS.index(combo["rank"])
                known[s] |= sum(1 << (8 * su + r) for su in range(4))
    aside = _mask(view.get("discard"))  # the bela-3p taker's own discards
    for s in range(n):
        known[s] &= ~played & ~hand
    known[seat] = 0
    seen = played | hand | aside
    for s in range(n):
        seen |= known[s]
    hidden = FULL_DECK & ~seen
    excluded = _excluded(rules, denoted, tricks, seat) if layout.open_hands is None else [0] * n
    others = [s for s in range(n) if s != seat]
    may = [0] * n
    for s in others:
        if layout.open_hands is not None:
            may[s] = known[s]  # the whole hand is seen; hidden cards come later, if at all
        else:
            may[s] = known[s] | (hidden & ~excluded[s])
    later = [hidden if s in layout.later else 0 for s in range(n)]
    return _prove(hand, trump, others, known, may, later, counts)


def _prove(
    hand: int,
    trump: int,
    others: list[int],
    known: list[int],
    may: list[int],
    later: list[int],
    counts: list[int],
) -> list[int] | None:
    order = lead_order(hand, trump)
    trumps = SUIT_MASK[trump] if trump < 4 else 0
    # cand[s]: the cards seat s may hold that no other seat is known to hold
    cand = {}
    for s in others:
        theirs = 0
        for o in others:
            if o != s:
                theirs |= known[o]
        cand[s] = may[s] & ~theirs

    def most(s: int, suit_mask: int) -> int:
        room = counts[s] - (known[s] & ~suit_mask).bit_count()
        return min((cand[s] & suit_mask).bit_count(), max(room, 0))

    led = [0, 0, 0, 0]
    for c in order:
        suit = c >> 3
        s_mask = SUIT_MASK[suit]
        above = _ABOVE[1 if _is_trump_order(trump, suit) else 0][c]
        m_s = led[suit]
        for s in others:
            if above & later[s]:
                return None
            if above & cand[s] and most(s, s_mask) - 1 + (later[s] & s_mask).bit_count() >= m_s:
                return None
            if trumps and suit != trump:
                void_possible = (known[s] & s_mask).bit_count() <= m_s
                has_trump = bool(later[s] & trumps) or most(s, trumps) >= led[trump] + 1
                if void_possible and has_trump:
                    return None
        led[suit] += 1
    return order


def _seat_view(state: State, seat: int) -> dict[str, Any]:
    """The part of ``seat``'s view the check reads: the common view, the seat, its hand and
    (the bela-3p taker's) discards."""
    from .views import spectator_view  # noqa: PLC0415 - views imports this module

    view = spectator_view(state)
    view["seat"] = seat
    view["hand"] = format_mask(state.hands[seat])
    contract = state.contract
    if state.discard and contract is not None and contract.taker == seat:
        view["discard"] = format_mask(state.discard)
    return view


def may_claim_now(state: State, seat: int) -> bool:
    """The cheap conditions of a claim: the card play, ``seat`` to lead, no claim made yet."""
    return (
        state.phase is Phase.PLAY
        and state.to_act == seat
        and not state.trick
        and state.claimer < 0
        and state.hands[seat] != 0
    )


def can_claim(state: State, seat: int) -> bool:
    """Whether ``seat`` may claim every remaining trick now, judged on its own view."""
    return may_claim_now(state, seat) and claim_order(_seat_view(state, seat)) is not None


def claim(state: State, seat: int) -> tuple[State, list[Event]]:
    """``seat`` claims the remaining tricks: a new state in which the claim is made (its
    cards shown to everyone: ``claimed``), or ``IllegalAction`` when it is not possible now
    (``not_your_lead``) or not certain (``claim_not_certain``); ``state`` never changes."""
    if not may_claim_now(state, seat):
        raise IllegalAction(
            "claim: only the seat about to lead a trick in the card play may claim",
            {"code": "not_your_lead"},
        )
    if claim_order(_seat_view(state, seat)) is None:
        raise IllegalAction(
            "claim: not certain: the remaining tricks could still be lost",
            {"code": "claim_not_certain"},
        )
    return mark_claim(state, seat)


def mark_claim(state: State, seat: int) -> tuple[State, list[Event]]:
    """The state with ``seat``'s claim made, unchecked (replaying a record whose plays carry
    ``"by": "claim"``: RULES.md §12 checks the plays, not the claim)."""
    new = state.copy()
    new.claimer = seat
    cards = format_mask(state.hands[seat])
    return new, [Event("claimed", {"seat": seat, "cards": cards})]


def _lowest(mask: int, trump: int) -> int:
    """The lowest-ranked card of ``mask`` by the order of its suit, ties by suit C D H S."""
    best, best_key = -1, (99, 99)
    m = mask
    while m:
        low = m & -m
        m ^= low
        c = low.bit_length() - 1
        strength = TRUMP_STRENGTH if _is_trump_order(trump, c >> 3) else PLAIN_STRENGTH
        key = (strength[c & 7], c >> 3)
        if key < best_key:
            best, best_key = c, key
    return best


def claim_action(state: State) -> Play:
    """The play-out's next action (§15) for the seat to act, in a deal whose claim is made."""
    claimer = state.claimer
    if claimer < 0 or state.phase is not Phase.PLAY:
        raise IllegalAction("no claim is being played out", {"code": "no_claim"})
    contract = state.contract
    assert contract is not None
    seat = state.to_act
    if seat == claimer and not state.trick:
        card = lead_order(state.hands[seat], contract.trump)[0]
    else:
        card = _lowest(legal_play_mask(state), contract.trump)
    if not state.rules.auto_belote and _belote_first(state, seat, card):
        return PLAYS_BELOTE[card]
    return PLAYS[card]


def claim_json(state: State) -> dict[str, Any] | None:
    """The claim being played out, as everyone sees it: the claimer and his cards left."""
    seat = state.claimer
    if seat < 0 or state.phase is not Phase.PLAY:
        return None
    return {"seat": seat, "cards": format_mask(state.hands[seat])}


__all__ = [
    "NO_TRUMP",
    "can_claim",
    "claim",
    "claim_action",
    "claim_json",
    "claim_order",
    "lead_order",
    "mark_claim",
    "may_claim_now",
]
