"""Deal and match scoring for the five variants (RULES.md §2.6-2.7, §3.4-3.6, §4.7-4.12,
§5.1-5.4, §6.4, §7, §8, §14 Scoring and Match end).

:func:`score_deal` turns the facts of a played deal (:class:`DealFacts`, gathered by the
state machine) into what each side records (:class:`DealScore`), including the reserve
(classic litige, bulgarian hanging points, bela ``tie_rule = "hang"``).
:func:`match_winner` applies the end-of-match rules after a deal has been recorded.

Side indices are those of the state machine: 0/1 for partnerships and two players, the
seat itself in three-player bela.
"""

from __future__ import annotations

from typing import NamedTuple

CLASSIC = "classic"
COINCHE = "coinche"
BULGARIAN = "bulgarian"
BELA = "bela"
DUEL = "duel"
VARIANTS = (CLASSIC, COINCHE, BULGARIAN, BELA, DUEL)

SUIT_DENOMS = ("C", "D", "H", "S")
DENOMS = SUIT_DENOMS + ("NT", "AT")

CAPOT_BONUS = 90  # §0.3 capot / valat / štiglja
CAPOT_BID = 250  # coinche capot bid value in formulas (§3.2)
CLASSIC_DEAL_POINTS = 162  # cards* of §2.6 when the defence did not sweep
CLASSIC_SWEEP_POINTS = 252  # cards* of §2.6 when it did
COINCHE_BASE = 160  # 160 + B of §3.5
DUEL_MAKE = 82  # §6.4
DUEL_FAILED = 162
DUEL_SWEEP = 252
VALAT_GAME_POINTS = 9  # §4.12 valat bonus in game points (§14: never 9 x m)

MADE = "made"
FAILED = "failed"
LITIGE = "litige"
HANGING = "hanging"


class DealFacts(NamedTuple):
    """What ``score_deal`` needs to know of a played deal.

    A named tuple (like ``DealScore``): immutable, compared field by field, and about four
    times cheaper to build than a frozen dataclass; the bots' scorer builds many.
    """

    variant: str  # "classic" | "coinche" | "bulgarian" | "bela" | "duel"
    taker_side: int  # side index of the attack / caller / taker
    denom: str  # "C" "D" "H" "S" "NT" "AT"
    bid_value: int | None  # coinche only: 80..160, or 250 for a capot bid
    multiplier: int  # 1, 2 (coinche/contra), 4 (surcoinche/recontra)
    # Per side: raw card points of its tricks (+ bela-3p discards for the caller) + 10 for
    # the last trick.  Not doubled (bulgarian NT doubling is done here), no capot bonus.
    card_points: tuple[int, ...]
    tricks_won: tuple[int, ...]  # per side
    total_tricks: int  # 8, 10 (bela 2p/3p) or 16 (duel)
    # Per side: declaration points the comparison awarded it, before the "a side with no
    # trick loses its declarations" rule, which score_deal applies per variant (D-5).
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
    rounding: str | None  # human-readable note of the rounding applied, else None


# --------------------------------------------------------------------------- rounding


def round10(x: int) -> int:
    """Coinche rounding (§3.5): nearest multiple of 10, a units digit of 5 rounds up."""
    return (x + 5) // 10 * 10


def _theta(denom: str) -> int:
    if denom in SUIT_DENOMS:
        return 6
    if denom in ("NT", "AT"):
        return 5
    raise ValueError(f"unknown denomination: {denom!r}")


def bg_round(x: int, denom: str) -> int:
    """R_c of §4.9: ``x div 10``, plus one if ``x mod 10 >= θ`` (6 for suits, 5 for NT/AT)."""
    return x // 10 + (1 if x % 10 >= _theta(denom) else 0)


def _bg_special(p: int, o: int, denom: str) -> bool:
    if denom in SUIT_DENOMS:
        return p % 10 == 6 and o % 10 == 6
    return denom == "AT" and p % 10 == 4 and o % 10 == 4


def bg_split(p: int, o: int, denom: str) -> tuple[int, int]:
    """§4.9 pair rounding: (bidders' game points, defenders' game points).

    In the "problem" cases (suit: both end in 6; AT: both end in 4) the team with fewer
    raw points rounds up and the other down; on equal raw points the bidders' (hanging)
    value is the one rounded up.  Otherwise each team gets R_c of its own raw points.
    """
    _theta(denom)
    if not _bg_special(p, o, denom):
        return bg_round(p, denom), bg_round(o, denom)
    if p < o:
        return p // 10 + 1, o // 10
    if p > o:
        return p // 10, o // 10 + 1
    return p // 10 + 1, o // 10


# --------------------------------------------------------------------------- deal


class _Work:
    """Mutable scratch of score_deal, frozen into a DealScore at the end."""

    __slots__ = ("f", "capot_side", "cards", "decl", "bel", "tot")

    def __init__(
        self, f: DealFacts, capot_side: int | None, cards: list[int], decl: list[int]
    ) -> None:
        self.f = f
        self.capot_side = capot_side
        self.cards = cards
        self.decl = decl
        self.bel = bel = list(f.belote_points)
        # the raw totals per side that decide the outcome
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
        rounding: str | None = None,
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


_COINCHE_VALUES = (*range(80, 161, 10), CAPOT_BID)


def _validate(f: DealFacts) -> None:
    # the fields as locals, read once (the bots' scorer and every deal's end come here)
    (variant, taker_side, denom, bid_value, multiplier, card_points, tricks_won, total_tricks,
     decl_points, belote_points, reserve, tie_rule) = f  # fmt: skip
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant: {variant!r}")
    if denom not in DENOMS:
        raise ValueError(f"unknown denomination: {denom!r}")
    n = len(card_points)
    if n != 2 and not (n == 3 and variant == BELA):
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
        if variant not in (COINCHE, BULGARIAN):
            raise ValueError(f"{variant} has no doubling")
    if variant == COINCHE and bid_value not in _COINCHE_VALUES:
        raise ValueError(f"coinche bid_value must be 80..160 or 250, not {bid_value!r}")
    if tie_rule != "fall" and tie_rule != "hang":
        raise ValueError(f"unknown tie_rule: {tie_rule!r}")
    if reserve < 0:
        raise ValueError("negative reserve")
    if variant == DUEL and (any(decl_points) or any(belote_points)):
        raise ValueError("duel has no declarations and no belote")


def score_deal(f: DealFacts) -> DealScore:
    """Score one played deal (thrown-in deals are never scored: the reserve just waits)."""
    _validate(f)
    won = f.tricks_won
    capot_side = won.index(f.total_tricks) if f.total_tricks in won else None
    cards = list(f.card_points)
    if f.variant == BULGARIAN and f.denom == "NT":
        cards = [2 * c for c in cards]  # §4.3: NT card points and last trick doubled
    if capot_side is not None:
        # §0.3: +90 on top of the card points, never doubled.  With all 32 cards in play
        # this is the 252 of §2.6 / §3.5 / §6.4 (162 + 90).
        cards[capot_side] += CAPOT_BONUS
    decl = list(f.decl_points)
    if min(won) <= 0 and f.variant in (CLASSIC, COINCHE, BELA):
        # D-5: a side that won no trick loses its declarations (not transferred).
        decl = [d if t > 0 else 0 for d, t in zip(decl, won, strict=True)]
    w = _Work(f, capot_side, cards, decl)
    if f.variant == CLASSIC:
        return _score_classic(w)
    if f.variant == COINCHE:
        return _score_coinche(w)
    if f.variant == BULGARIAN:
        return _score_bulgarian(w)
    if f.variant == BELA:
        return _score_bela(w)
    return _score_duel(w)


def _score_classic(w: _Work) -> DealScore:
    """§2.6: made / failed ("dedans") / litige with the reserve of D-8."""
    t = w.f.taker_side
    d = 1 - t
    tot = w.tot
    rec = [0, 0]
    if tot[t] > tot[d]:
        rec[t], rec[d] = tot[t], tot[d]
        return w.result(MADE, rec, t, 0)
    if tot[t] < tot[d]:
        swept = w.capot_side == d
        cards_star = CLASSIC_SWEEP_POINTS if swept else CLASSIC_DEAL_POINTS
        rec[t] = w.bel[t]  # belote stays with its holder
        rec[d] = cards_star + w.decl[t] + w.decl[d] + w.bel[d]
        return w.result(FAILED, rec, d, 0)
    # Litige: the attack records its belote now; its cards and declarations are held.
    rec[t], rec[d] = w.bel[t], tot[d]
    held = w.cards[t] + w.decl[t]
    return w.result(LITIGE, rec, None, w.f.reserve + held)


def _score_coinche(w: _Work) -> DealScore:
    """§3.4-§3.5 (D-12: a tie fails, no litige; belote never multiplied)."""
    f = w.f
    a = f.taker_side
    d = 1 - a
    bid = f.bid_value
    assert bid is not None
    m = f.multiplier
    tot = w.tot
    if bid == CAPOT_BID:
        made = f.tricks_won[a] == f.total_tricks
    else:
        made = tot[a] >= bid and tot[a] > tot[d]
    decl_all = w.decl[a] + w.decl[d]
    rec = [0, 0]
    rounding = None
    if m == 1 and made:
        rec[a], rec[d] = bid + round10(tot[a]), round10(tot[d])
        rounding = f"round10: {tot[a]} -> {round10(tot[a])}, {tot[d]} -> {round10(tot[d])}"
    elif m == 1:
        rec[a], rec[d] = w.bel[a], COINCHE_BASE + bid + decl_all + w.bel[d]
    elif made:
        rec[a], rec[d] = (COINCHE_BASE + bid) * m + decl_all + w.bel[a], w.bel[d]
    else:
        rec[a], rec[d] = w.bel[a], (COINCHE_BASE + bid) * m + decl_all + w.bel[d]
    # There is no reserve in coinche (§3.6): whatever came in is carried unchanged.
    return w.result(MADE if made else FAILED, rec, None, f.reserve, rounding)


def _score_bulgarian(w: _Work) -> DealScore:
    """§4.7-§4.11: raw totals, Bulgarian rounding, contra, hanging points."""
    f = w.f
    c = f.denom
    pi = f.taker_side
    oi = 1 - pi
    m = f.multiplier
    tot = w.tot
    p, o = tot[pi], tot[oi]
    whole = bg_round(p + o, c)
    split_p, split_o = bg_split(p, o, c)
    note_whole = f"R({p}+{o}) = R({p + o}) = {whole}"
    note_split = f"split({p}, {o}) = {split_p}/{split_o}"
    if _bg_special(p, o, c):
        note_split += " (problem case: the lower raw total rounds up)"
    rec = [0, 0]
    if p > o:
        if m == 1:
            rec[pi], rec[oi] = split_p, split_o
            return w.result(MADE, rec, pi, 0, note_split)
        rec[pi] = whole * m  # §14: the defenders record 0, valat or not
        return w.result(MADE, rec, pi, 0, f"{note_whole}, x{m}")
    if p < o:
        rec[oi] = whole * m  # everything, P's declarations and belote included
        return w.result(FAILED, rec, oi, 0, note_whole + (f", x{m}" if m > 1 else ""))
    if m == 1:
        rec[oi] = split_o
        return w.result(HANGING, rec, None, f.reserve + split_p, note_split)
    return w.result(HANGING, rec, None, f.reserve + whole * m, f"{note_whole}, x{m}")


def _d17_shares(amount: int, caller: int, own: list[int]) -> tuple[int, ...]:
    """D-17: half of ``amount`` to each opponent of a 3-player caller; the odd point to
    the opponent with the larger own total, or to next(caller) on equal totals."""
    n = len(own)
    first, second = (caller + 1) % n, (caller + 2) % n
    odd_to = second if own[second] > own[first] else first
    shares = [0] * n
    shares[first] = shares[second] = amount // 2
    shares[odd_to] += amount % 2
    return tuple(shares)


def _score_bela(w: _Work) -> DealScore:
    """§5.1-§5.4 and §14 (bela hang): the caller must beat every opponent."""
    f = w.f
    caller = f.taker_side
    tot = w.tot
    n = w.n
    opponents = [s for s in range(n) if s != caller]
    best_opp = max(tot[s] for s in opponents)
    if tot[caller] > best_opp:
        return w.result(MADE, tot, caller, 0)
    rec = [0] * n
    if tot[caller] == best_opp and f.tie_rule == "hang":
        # §14: the caller records 0 and all his points (bela included) hang.
        for s in opponents:
            rec[s] = tot[s]
        return w.result(HANGING, rec, None, f.reserve + tot[caller])
    # Fall ("pad"): the opponents take everything; the caller records 0.
    if n == 2:
        opp = opponents[0]
        rec[opp] = tot[opp] + tot[caller]
        return w.result(FAILED, rec, opp, 0)
    shares = _d17_shares(tot[caller], caller, tot)
    for s in opponents:
        rec[s] = tot[s] + shares[s]
    reserve_to = _d17_shares(f.reserve, caller, tot)
    return w.result(FAILED, rec, reserve_to, 0)


def _score_duel(w: _Work) -> DealScore:
    """§6.4: made iff the taker has at least 82; a failed taker gives the defender 162."""
    t = w.f.taker_side
    d = 1 - t
    tot = w.tot
    rec = [0, 0]
    if tot[t] >= DUEL_MAKE:
        rec[t], rec[d] = tot[t], tot[d]  # a taker sweep is 252 / 0 here
        return w.result(MADE, rec, t, 0)
    rec[d] = DUEL_SWEEP if w.capot_side == d else DUEL_FAILED
    return w.result(FAILED, rec, d, 0)


# --------------------------------------------------------------------------- match


def match_winner(
    variant: str,
    totals: tuple[int, ...],
    target: int | None,
    valat_in_deal: bool = False,
    valat_side: int | None = None,
    valat_can_end_without_bonus: bool = False,
    last_deal_recorded: tuple[int, ...] | None = None,
) -> int | None:
    """The side that wins the match after a recorded deal, or None (play another deal).

    ``totals`` are the match totals after the deal.  A side reaches the target at
    ``>=``; the match ends when one has and there is a single highest total (§2.7, §3.6,
    §4.12, §5.1, §14).  ``target=None`` is ONE_DEAL: any played deal ends the match if
    there is a single highest total.

    Bulgarian valat exception (§4.12): no end on a deal with a valat, unless
    ``valat_can_end_without_bonus`` and the valat side still reaches the target without
    the 9-point bonus (9, never 9 x m, §14).  When ``last_deal_recorded`` is given, the
    bonus removed is at most what the valat side recorded in that deal (a valat team that
    failed its contract recorded no bonus).  ``valat_*`` arguments matter only for
    ``bulgarian``; the French and Croatian capot never delays the end.

    ``duel`` has no match (§6.4, §14 Match end): each deal is a separate game whose
    winner is the taker if the deal is "made", else the defender.  Calling this for
    ``duel`` raises ValueError.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant: {variant!r}")
    if variant == DUEL:
        raise ValueError("duel has no match: each deal is a game (the deal's outcome decides)")
    if not totals:
        raise ValueError("no sides")
    if variant == BULGARIAN and valat_in_deal:
        if not valat_can_end_without_bonus:
            return None
        if valat_side is None or not 0 <= valat_side < len(totals):
            raise ValueError("valat_side is required when the option is on")
        bonus = VALAT_GAME_POINTS
        if last_deal_recorded is not None:
            bonus = max(0, min(bonus, last_deal_recorded[valat_side]))
        if target is not None and totals[valat_side] - bonus < target:
            return None
    top = max(totals)
    if target is not None and top < target:
        return None
    leaders = [s for s, x in enumerate(totals) if x == top]
    return leaders[0] if len(leaders) == 1 else None
