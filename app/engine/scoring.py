"""Deal scoring's shared part: the facts of a played deal, what each side records, and the
machinery every variant's scoring uses (RULES.md §0.3, §14 Scoring and Match end).

The state machine gathers the facts of a played deal into a :class:`DealFacts`; the variant's
``Rules.score_facts`` (``variants/<id>.py``) turns them into what each side records
(:class:`DealScore`), including the reserve (classic litige, bulgarian hanging points, bela
``tie_rule = "hang"``), and ``Rules.match_end`` applies the end of the match.

``score_deal`` and ``match_winner``, which reach a variant's scoring by its name (the bots
score imagined deals this way), are beside the registry, in ``variants/__init__.py``.

Side indices are those of the state machine: 0/1 for partnerships and two players, the
seat itself in three-player bela.
"""

from __future__ import annotations

from typing import Any, NamedTuple

SUIT_DENOMS = ("C", "D", "H", "S")
DENOMS = SUIT_DENOMS + ("NT", "AT")

CAPOT_BONUS = 90  # §0.3 capot / valat / štiglja

MADE = "made"
FAILED = "failed"
LITIGE = "litige"
HANGING = "hanging"


class DealFacts(NamedTuple):
    """What a variant's scoring needs to know of a played deal.

    A named tuple (like ``DealScore``): immutable, compared field by field, and about four
    times cheaper to build than a frozen dataclass; the bots' scorer builds many.
    """

    variant: str  # the variant's id (a key of the registry)
    taker_side: int  # side index of the attack / caller / taker
    denom: str  # "C" "D" "H" "S" "NT" "AT"
    bid_value: int | None  # coinche only: 80..160, or 250 for a capot bid
    multiplier: int  # 1, 2 (coinche/contra), 4 (surcoinche/recontra)
    # Per side: raw card points of its tricks (+ bela-3p discards for the caller) + 10 for
    # the last trick.  Not doubled (bulgarian NT doubling is its scoring's), no capot bonus.
    card_points: tuple[int, ...]
    tricks_won: tuple[int, ...]  # per side
    total_tricks: int  # 8, 10 (bela 2p/3p) or 16 (duel)
    # Per side: declaration points the comparison awarded it, before the "a side with no
    # trick loses its declarations" rule, which the scoring applies per variant (D-5).
    decl_points: tuple[int, ...]
    belote_points: tuple[int, ...]  # per side: belote/bela points scored (20 per pair)
    reserve: int  # reserve (litige / hanging / bela hang) carried into this deal
    tie_rule: str = "fall"  # bela option: "fall" | "hang"


class DealScore(NamedTuple):
    """What each side records for a deal, with the figures that decided it (a named tuple)."""

    outcome: str  # "made" | "failed" | "litige" (classic) | "hanging" (bulgarian, bela hang)
    capot_side: int | None  # side that took every trick, else None
    card_points: tuple[int, ...]  # per side after the capot bonus and NT doubling
    decl_points: tuple[int, ...]  # per side actually counted (after the no-trick rule)
    belote_points: tuple[int, ...]
    totals: tuple[int, ...]  # raw totals per side that decided the outcome
    # Points each side records for this deal, INCLUDING a reserve paid out in it (C3, B6).
    recorded: tuple[int, ...]
    reserve_paid: int  # reserve paid out in this deal (0 if none)
    # Side that received it; None when nothing was paid, and also when a bela-3p fall
    # splits it between the two opponents (the shares are in ``recorded``).
    reserve_paid_to: int | None
    reserve: int  # reserve carried to the next deal
    # The rounding applied, as data (docs/engine.md, "Rounding notes"), else None: a dict
    # with a "kind" ("round10", "bg_whole", "bg_split") and its figures.  Treat it as
    # immutable: result_json hands out copies.
    rounding: dict[str, Any] | None


def top_at_target(totals: tuple[int, ...], target: int | None) -> int | None:
    """The usual end of a match (§2.7, §3.6, §4.12, §5.1, §14): a side has reached the target
    (``>=``) and there is a single highest total.  ``target=None`` is ONE_DEAL: any played
    deal ends the match if there is a single highest total."""
    if not totals:
        raise ValueError("no sides")
    top = max(totals)
    if target is not None and top < target:
        return None
    leaders = [s for s, x in enumerate(totals) if x == top]
    return leaders[0] if len(leaders) == 1 else None


# --------------------------------------------------------------------------- deal


class ScoreWork:
    """The figures a variant's scoring starts from, and how it freezes its DealScore.

    Made from the facts once checked: the side that took every trick (``capot_side``) and its
    capot bonus on top of ``cards`` (§0.3: +90, never doubled; with all 32 cards in play this
    is the 252 of §2.6 / §3.5 / §6.4), the declarations after the no-trick rule of D-5 when
    the variant applies it, and the raw totals per side that decide the outcome.
    """

    __slots__ = ("f", "capot_side", "cards", "decl", "bel", "tot")

    def __init__(self, f: DealFacts, cards: list[int], trickless_lose_declarations: bool) -> None:
        self.f = f
        won = f.tricks_won
        self.capot_side = capot_side = won.index(f.total_tricks) if f.total_tricks in won else None
        if capot_side is not None:
            cards[capot_side] += CAPOT_BONUS
        self.cards = cards
        decl = list(f.decl_points)
        if trickless_lose_declarations and min(won) <= 0:
            # D-5: a side that won no trick loses its declarations (not transferred).
            decl = [d if t > 0 else 0 for d, t in zip(decl, won, strict=True)]
        self.decl = decl
        self.bel = bel = list(f.belote_points)
        self.tot = [c + d + b for c, d, b in zip(cards, decl, bel, strict=True)]

    @property
    def n(self) -> int:
        return len(self.cards)

    def result(
        self,
        outcome: str,
        recorded: list[int],
        reserve_to: int | tuple[int, ...] | None,
        reserve_out: int,
        rounding: dict[str, Any] | None = None,
    ) -> DealScore:
        """Pay the incoming reserve to ``reserve_to`` (a side, or split shares) and freeze."""
        rec = list(recorded)
        paid = 0
        paid_to: int | None = None
        if reserve_to is not None and self.f.reserve:
            paid = self.f.reserve
            if isinstance(reserve_to, int):
                paid_to = reserve_to
                rec[reserve_to] += paid
            else:
                for side, share in enumerate(reserve_to):
                    rec[side] += share
        return DealScore(  # by position (twice as fast as by keyword), fields named
            outcome,  # outcome
            self.capot_side,  # capot_side
            tuple(self.cards),  # card_points
            tuple(self.decl),  # decl_points
            tuple(self.bel),  # belote_points
            tuple(self.tot),  # totals
            tuple(rec),  # recorded
            paid,  # reserve_paid
            paid_to,  # reserve_paid_to
            reserve_out,  # reserve
            rounding,  # rounding
        )


def check_facts(f: DealFacts, side_counts: tuple[int, ...], doubling: bool) -> None:
    """The checks every variant's facts pass: ``side_counts`` are the numbers of sides the
    variant plays with, ``doubling`` whether it has any (the variant checks the rest)."""
    # the fields as locals, read once (the bots' scorer and every deal's end come here)
    (variant, taker_side, denom, bid_value, multiplier, card_points, tricks_won, total_tricks,
     decl_points, belote_points, reserve, tie_rule) = f  # fmt: skip
    if denom not in DENOMS:
        raise ValueError(f"unknown denomination: {denom!r}")
    n = len(card_points)
    if n not in side_counts:
        raise ValueError(f"{variant}: {n} sides")
    if not len(tricks_won) == len(decl_points) == len(belote_points) == n:
        for name in ("tricks_won", "decl_points", "belote_points"):
            if len(getattr(f, name)) != n:
                raise ValueError(f"{name} must have one entry per side ({n})")
    if not 0 <= taker_side < n:
        raise ValueError(f"taker_side {taker_side} out of range")
    if sum(tricks_won) != total_tricks:
        raise ValueError(f"tricks_won {tricks_won} do not add up to {total_tricks}")
    if multiplier != 1:
        if multiplier not in (2, 4):
            raise ValueError(f"multiplier must be 1, 2 or 4, not {multiplier}")
        if not doubling:
            raise ValueError(f"{variant} has no doubling")
    if tie_rule != "fall" and tie_rule != "hang":
        raise ValueError(f"unknown tie_rule: {tie_rule!r}")
    if reserve < 0:
        raise ValueError("negative reserve")
