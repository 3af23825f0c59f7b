"""What a seat knows, rebuilt from its seat view only (RULES.md §13).

``read_view(view)`` turns the JSON-able dict that a human's client receives into a
:class:`Knowledge`: card sets as int bitmasks (``app.engine.cards``), the contract, the
cards each seat has played, the cards each seat *cannot* hold (shown by the rules of
play: failing to follow, to overtake, to trump ...), the cards each seat is *known* to
hold (belote announced, carrés, declarations shown after trick 1, duel face-up cards),
and the hidden cards with the "slots" they may lie in.  Nothing here looks at the
engine's state: the bots are given exactly what a human in their seat is given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.engine.actions import action_from_json
from app.engine.cards import (
    FULL_DECK,
    PLAIN_STRENGTH,
    RANKS,
    RK,
    RQ,
    SUIT_MASK,
    TRUMP_STRENGTH,
    card_list,
    parse_card,
)
from app.engine.play import ALL_TRUMP, NO_TRUMP, PlayFlags, ruled_out, trick_winner_index
from app.engine.state import Contract
from app.engine.variants import get_rules
from app.engine.variants.base import DENOM_TRUMP, Rules

# Cards of each suit from the strongest to the weakest, per order.
TRUMP_DESC = tuple(
    tuple(sorted((8 * s + r for r in range(8)), key=lambda c: -TRUMP_STRENGTH[c & 7]))
    for s in range(4)
)
PLAIN_DESC = tuple(
    tuple(sorted((8 * s + r for r in range(8)), key=lambda c: -PLAIN_STRENGTH[c & 7]))
    for s in range(4)
)


def mask_of_cards(cards: list[str]) -> int:
    m = 0
    for text in cards:
        m |= 1 << parse_card(text)
    return m


@dataclass(slots=True)
class PastTrick:
    leader: int
    plays: list[tuple[int, int]]  # (seat, card) in play order
    winner: int
    points: int


@dataclass(slots=True)
class Slot:
    """A place where hidden cards lie: a seat's hand, a talon, the cards laid aside ..."""

    name: str  # "hand", "talon", "aside", "discard", "stock", "down"
    owner: int  # a seat, or -1 for nobody's (aside, stock)
    size: int
    excluded: int = 0  # cards that cannot lie here


@dataclass(slots=True)
class SeqConstraint:
    """A sequence announced without its suit: ``length`` cards topped by natural ``top``."""

    seat: int
    length: int
    top: int


@dataclass(slots=True)
class Knowledge:
    view: dict[str, Any]
    variant: str
    n: int
    seat: int
    rules: Rules
    phase: str
    dealer: int
    eldest: int
    side_of: tuple[int, ...]
    sides: int
    hand: int
    contract: Contract | None
    trump: int  # 0..3, NO_TRUMP, ALL_TRUMP; -1 before the contract
    flags: PlayFlags | None
    points: tuple[int, ...]  # card points per card for the contract (zeros before it)
    total_tricks: int
    tricks: list[PastTrick]
    trick: list[tuple[int, int]]
    leader: int
    played: int  # every card played in tricks, the trick in progress included
    played_by: list[int]
    excluded: list[int]  # per seat: cards it cannot hold now
    known: list[int]  # per seat: cards it is known to hold now (own hand for ``seat``)
    hand_counts: list[int]
    upcard: int  # classic turn-up / bela-2p or duel proposal, -1 if none shown
    slots: list[Slot] = field(default_factory=list)
    hidden: int = 0  # cards whose place is unknown to this seat
    seq_constraints: list[SeqConstraint] = field(default_factory=list)
    # duel: per seat, the face-up card lying on a still face-down card (it frees it)
    duel_covers: list[list[int]] = field(default_factory=list)
    bids: list[tuple[int, Any]] = field(default_factory=list)  # (seat, Action)
    legal: list[dict[str, Any]] = field(default_factory=list)
    aside_known: int = 0  # cards known to be out of play (bela 2p proposal, own discards)

    # ------------------------------------------------------------------ seats and sides
    def partner(self, seat: int | None = None) -> int | None:
        if self.n != 4:
            return None
        return ((self.seat if seat is None else seat) + 2) % 4

    def same_side(self, a: int, b: int) -> bool:
        return self.side_of[a] == self.side_of[b]

    @property
    def my_side(self) -> int:
        return self.side_of[self.seat]

    @property
    def is_attack(self) -> bool:
        c = self.contract
        return c is not None and self.side_of[c.taker] == self.my_side

    def opponents(self) -> list[int]:
        return [s for s in range(self.n) if not self.same_side(s, self.seat)]

    # ------------------------------------------------------------------ card orders
    def trump_order(self, suit: int) -> bool:
        return self.trump == ALL_TRUMP or suit == self.trump

    def desc(self, suit: int) -> tuple[int, ...]:
        return TRUMP_DESC[suit] if self.trump_order(suit) else PLAIN_DESC[suit]

    def strength(self, card: int) -> int:
        """Strength inside its suit under the contract (higher wins)."""
        return (TRUMP_STRENGTH if self.trump_order(card >> 3) else PLAIN_STRENGTH)[card & 7]

    @property
    def trump_mask(self) -> int:
        return SUIT_MASK[self.trump] if 0 <= self.trump < 4 else 0

    @property
    def unplayed(self) -> int:
        return FULL_DECK & ~self.played

    def outside(self) -> int:
        """Unplayed cards that are not in this seat's hand."""
        return FULL_DECK & ~self.played & ~self.hand & ~self.aside_known

    def master(self, suit: int, exclude: int = 0) -> int:
        """The strongest card of ``suit`` still unplayed (and not in ``exclude``), or -1."""
        free = ~self.played & ~exclude & ~self.aside_known
        for c in self.desc(suit):
            if (free >> c) & 1:
                return c
        return -1

    def is_master(self, card: int) -> bool:
        """No card outside this seat's hand can beat ``card`` in its suit."""
        suit = card >> 3
        out = self.outside() & SUIT_MASK[suit]
        strength = self.strength(card)
        order = TRUMP_STRENGTH if self.trump_order(suit) else PLAIN_STRENGTH
        return all(order[c & 7] < strength for c in card_list(out))

    def could_hold(self, seat: int) -> int:
        """Cards ``seat`` may hold now, as far as this seat can tell."""
        if seat == self.seat:
            return self.hand
        return (self.known[seat] | (self.hidden & ~self.excluded[seat])) & ~self.played

    def is_void(self, seat: int, suit: int) -> bool:
        return not (self.could_hold(seat) & SUIT_MASK[suit])

    def trumps_outside(self) -> int:
        """Unplayed trumps not in this seat's hand (all suits in AT count as trump)."""
        if self.trump == ALL_TRUMP:
            return self.outside()
        return self.outside() & self.trump_mask

    # ------------------------------------------------------------------ current trick
    def trick_cards(self) -> list[int]:
        return [c for _, c in self.trick]

    def trick_winner(self) -> tuple[int, int]:
        """(seat, card) currently winning the trick in progress; (-1, -1) if empty."""
        if not self.trick:
            return -1, -1
        i = trick_winner_index(self.trick_cards(), self.trump)
        return self.trick[i]

    def trick_points(self) -> int:
        return sum(self.points[c] for _, c in self.trick)

    def tricks_left(self) -> int:
        return self.total_tricks - len(self.tricks)

    def to_play_after(self) -> list[int]:
        """Seats still to play in the current trick after this seat."""
        k = len(self.trick)
        return [(self.seat + i) % self.n for i in range(1, self.n - k)]

    def legal_cards(self) -> int:
        """The cards this seat may play (from ``legal``), as a mask."""
        m = 0
        for a in self.legal:
            if a.get("type") == "play":
                m |= 1 << parse_card(a["card"])
        return m

    def side_points(self) -> list[int]:
        """Card points won in tricks so far, per side (public)."""
        out = [0] * self.sides
        for t in self.tricks:
            out[self.side_of[t.winner]] += t.points
        return out


# ====================================================================== reading a view


def _contract(view: dict[str, Any]) -> Contract | None:
    c = view.get("contract")
    if not c:
        return None
    value = c.get("value")
    if value == "capot":
        value = 250
    return Contract(
        denom=c["denom"],
        trump=DENOM_TRUMP[c["denom"]],
        taker=c["taker"],
        value=value,
        multiplier=c.get("multiplier", 1),
    )


def read_view(view: dict[str, Any]) -> Knowledge:
    """Everything a seat can tell from its view (RULES.md §13)."""
    variant = view["variant"]
    n = view["players"]
    rules = get_rules(variant, n, view.get("options") or {})
    seat = view["seat"]
    contract = _contract(view)
    trump = contract.trump if contract else -1
    flags = rules.flags(contract) if contract else None
    points = rules.points(contract) if contract else (0,) * 32
    hand = mask_of_cards(view.get("hand") or [])
    tricks = [
        PastTrick(
            t["leader"],
            [(p["seat"], parse_card(p["card"])) for p in t["plays"]],
            t["winner"],
            t["points"],
        )
        for t in view.get("tricks") or []
    ]
    trick = [(p["seat"], parse_card(p["card"])) for p in view.get("trick") or []]
    played_by = [0] * n
    for t in tricks:
        for s, c in t.plays:
            played_by[s] |= 1 << c
    for s, c in trick:
        played_by[s] |= 1 << c
    played = 0
    for m in played_by:
        played |= m
    upcard_text = view.get("upcard")
    upcard = parse_card(upcard_text) if upcard_text else -1
    bids = []
    for b in view.get("bids") or []:
        try:
            bids.append((b["seat"], action_from_json(b)))
        except Exception:  # noqa: BLE001 - an unknown bid shape only loses a hint
            continue
    k = Knowledge(
        view=view,
        variant=variant,
        n=n,
        seat=seat,
        rules=rules,
        phase=view["phase"],
        dealer=view["dealer"],
        eldest=(view["dealer"] + 1) % n,
        side_of=tuple(view.get("sides") or rules.side_of),
        sides=rules.sides,
        hand=hand,
        contract=contract,
        trump=trump,
        flags=flags,
        points=points,
        total_tricks=rules.total_tricks,
        tricks=tricks,
        trick=trick,
        leader=view.get("leader", (view["dealer"] + 1) % n),
        played=played,
        played_by=played_by,
        excluded=[0] * n,
        known=[0] * n,
        hand_counts=list(view.get("hand_counts") or [0] * n),
        upcard=upcard,
        bids=bids,
        legal=list(view.get("legal") or []),
    )
    k.known[seat] = hand
    _infer_from_taken(k)
    if contract is not None and flags is not None:
        _infer_from_play(k)
        _infer_from_belote(k)
        _infer_from_declarations(k)
    _build_slots(k)
    return k


def _infer_from_taken(k: Knowledge) -> None:
    """The face-up card a seat took into its hand (the classic turn-up by the taker, the
    bela 2p proposal by the exchanger): everyone saw it go there, so it is there until that
    seat plays it."""
    taken = k.view.get("taken")
    if not taken or taken.get("seat") == k.seat:
        return
    card = parse_card(taken["card"])
    if not (k.played >> card) & 1:
        k.known[taken["seat"]] |= 1 << card


# ---------------------------------------------------------------------- play inference


def _infer_from_play(k: Knowledge) -> None:
    """Cards a seat cannot hold, shown by the card it chose (RULES.md §0.6).

    A card ``c`` is excluded for a seat that played ``p`` when ``p`` would have been
    illegal from the hand ``{p, c}``.  The legal-move rule only narrows as a hand grows,
    so this is exact.  In ``duel`` the hidden cards lie face down and are never playable,
    so play says nothing about them.
    """
    if k.variant == "duel":
        return
    assert k.flags is not None
    candidates = FULL_DECK & ~k.hand
    for leader, plays in [(t.leader, t.plays) for t in k.tricks] + [(k.leader, k.trick)]:
        before: list[int] = []
        for seat, card in plays:
            if seat != k.seat and before:
                k.excluded[seat] |= _excluded_by(card, before, seat, leader, k, candidates)
            before.append(card)


def _excluded_by(
    card: int, before: list[int], seat: int, leader: int, k: Knowledge, candidates: int
) -> int:
    assert k.flags is not None
    w = trick_winner_index(before, k.trump)
    partner_master = k.n == 4 and (leader + w) % 4 == (seat + 2) % 4
    led = before[0] >> 3
    return ruled_out(card, led, before[w], k.trump, partner_master, k.flags) & candidates


def _belote_suits(k: Knowledge) -> int:
    assert k.contract is not None
    return k.rules.belote_suits(k.contract)


def _infer_from_belote(k: Knowledge) -> None:
    """An open belote shows the other card of the pair; an automatic belote that did not
    come shows that the seat did not hold the other card when it played the first."""
    for b in k.view.get("belote") or []:
        if b.get("stage") == "belote" and b.get("suit"):
            s = b["seat"]
            suit = "CDHS".index(b["suit"])
            for r in (RK, RQ):
                c = suit * 8 + r
                if not (k.played_by[s] >> c) & 1:
                    k.known[s] |= 1 << c
    if not k.rules.options.get("auto_belote", True):
        return  # a human may forget to announce: no inference
    suits = _belote_suits(k)
    rebelotes: dict[int, int] = {}
    for b in k.view.get("belote") or []:
        if b.get("stage") == "rebelote":
            rebelotes[b["seat"]] = rebelotes.get(b["seat"], 0) + 1
    open_suits = {
        (b["seat"], "CDHS".index(b["suit"]))
        for b in k.view.get("belote") or []
        if b.get("stage") == "belote" and b.get("suit")
    }
    for _leader, plays in [(t.leader, t.plays) for t in k.tricks] + [(k.leader, k.trick)]:
        for i, (seat, card) in enumerate(plays):
            rank, suit = card & 7, card >> 3
            if seat == k.seat or rank not in (RK, RQ) or not (suits >> suit) & 1:
                continue
            other = card ^ (RK ^ RQ)
            if (k.played_by[seat] >> other) & 1:
                continue  # both played: belote or not, nothing is hidden
            if (seat, suit) in open_suits:
                continue
            if k.rules.belote_restricted and i > 0:
                led = plays[0][1] >> 3
                if suit != led and not (k.trump < 4 and suit == k.trump):
                    continue  # §4.6: could not have announced with this card
            k.excluded[seat] |= 1 << other


def _infer_from_declarations(k: Knowledge) -> None:
    """Carrés name their four cards; shown declarations name theirs; a sequence announced
    without its suit becomes a :class:`SeqConstraint` for the sampler."""
    shown: dict[int, int] = {}
    for entry in k.view.get("shown_declarations") or []:
        m = 0
        for combo in entry.get("combos") or []:
            m |= mask_of_cards(combo)
        shown[entry["seat"]] = shown.get(entry["seat"], 0) | m
    for seat, m in shown.items():
        if seat != k.seat:
            k.known[seat] |= m & ~k.played_by[seat]
    for seat, combos in enumerate(k.view.get("declarations") or []):
        if seat == k.seat:
            continue
        for combo in combos:
            if combo.get("kind") == "carre":
                r = RANKS.index(combo["rank"])
                m = sum(1 << (8 * s + r) for s in range(4))
                k.known[seat] |= m & ~k.played_by[seat]
            elif seat not in shown and combo.get("kind") == "sequence":
                k.seq_constraints.append(
                    SeqConstraint(seat, int(combo["length"]), RANKS.index(combo["top"]))
                )


# ---------------------------------------------------------------------- hidden cards


def _build_slots(k: Knowledge) -> None:
    """Where the cards this seat cannot see may lie, per variant and phase.

    Another seat's talon (bela) is merged into its hand slot: it will hold those cards
    blind as well.  This seat's own talon is a slot of its own.
    """
    view = k.view
    n = k.n
    me = k.seat
    for s in range(n):
        if s != me:
            k.known[s] &= ~k.played & ~k.hand
            k.excluded[s] &= ~k.known[s]
    if k.variant == "duel":
        _duel_slots(k)
        return
    known_all = 0
    for s in range(n):
        if s != me:
            known_all |= k.known[s]
    aside = 0
    if k.upcard >= 0 and k.variant in ("classic", "bela"):
        aside |= 1 << k.upcard  # the turn-up / proposal card lies face up
    aside |= mask_of_cards(view.get("discard") or [])
    k.aside_known = aside
    k.hidden = FULL_DECK & ~k.played & ~k.hand & ~known_all & ~aside
    talons = view.get("talon_counts") or [0] * n
    slots: list[Slot] = []
    for s in range(n):
        if s != me:
            size = k.hand_counts[s] + talons[s] - k.known[s].bit_count()
            slots.append(Slot("hand", s, max(size, 0), k.excluded[s]))
    if talons[me]:
        slots.append(Slot("talon", me, talons[me]))
    bidding = k.phase == "bidding"
    if k.variant == "bela" and n == 3:
        if view.get("middle_count"):
            slots.append(Slot("middle", -1, view["middle_count"]))
        c = k.contract
        if c is not None and c.taker != me and view.get("discarded"):
            slots.append(Slot("discard", c.taker, view["discarded"]))
    if k.variant == "bela" and n == 2:
        slots.append(Slot("aside", -1, 11))
    if bidding and k.variant == "classic" and k.upcard >= 0:
        slots.append(Slot("stock", -1, 11))
    if bidding and k.variant == "bulgarian":
        slots.append(Slot("stock", -1, 12))
    k.slots = [s for s in slots if s.size > 0]


def _duel_slots(k: Knowledge) -> None:
    """Duel: both layouts are face up; only the face-down cards are hidden (both sides')."""
    piles = k.view.get("piles") or []
    visible = 0
    covers: list[list[int]] = []
    for s in range(k.n):
        cov: list[int] = []
        in_trick = [c for seat, c in k.trick if seat == s]
        for p in piles[s] if s < len(piles) else []:
            if p.get("up"):
                c = parse_card(p["up"])
                if s != k.seat:
                    k.known[s] |= 1 << c
                visible |= 1 << c
                if p.get("down"):
                    cov.append(c)
            elif p.get("down") and in_trick:
                cov.append(in_trick[0])  # played in this trick: freed when it is complete
        covers.append(cov)
    k.duel_covers = covers
    k.hidden = FULL_DECK & ~k.played & ~visible & ~k.hand
    k.slots = [Slot("down", s, len(covers[s])) for s in range(k.n) if covers[s]]


__all__ = [
    "ALL_TRUMP",
    "NO_TRUMP",
    "PLAIN_DESC",
    "TRUMP_DESC",
    "Knowledge",
    "PastTrick",
    "SeqConstraint",
    "Slot",
    "mask_of_cards",
    "read_view",
]
