"""Every worked example of RULES.md §7, played as a whole deal through the public engine API.

``tests/engine/test_scoring.py`` checks the §7 figures at the scoring-function level.  Here
each example is a ``belote-record/1`` record in ``tests/data/examples/<ID>.json``: the deck
order of each deal and every action (bids, coinche/contra, manual declarations, manual
belote flags, discards, each card).  The test replays it with ``app.engine.record.replay``
and checks the example's figures on ``state.results``: contract, multiplier, taker side,
card points per side (last trick included), declarations announced and awarded, belote,
outcome, recorded scores, reserve, match totals and winner.  Independently of the engine, it
also deals the record's deck with the canonical dealing maps of ``tests/engine/dealing.py``
and checks the hands the example depends on (who held the belote pair, the declarations,
the cards in play in bela for two).

The records are found by ``python -m tests.engine.examples_builder`` (a seeded search over
decks and card play; see its docstring) and are committed; rerunning it rewrites the same
files.

Team A = seats {0, 2}, team B = {1, 3}; the attack / caller / taker is seat 0 unless said.

Examples that cannot occur as stated, and what is tested instead:

* **C7** and **B8** cannot happen in a legal deal.  In both, the sweeping side scores belote
  (the king and queen of trump held by one of its players) while the swept side holds a
  carré of queens, which contains the queen of trump: a card cannot be in both places (in
  TA the same holds for every suit).  Their figures stay tested at the scoring level
  (``test_C7_...`` and ``test_B8_...`` in test_scoring.py).  The records here substitute a
  carré of aces, which has the same value (100) and the same standing (the best, resp. the
  only, declaration of the swept side), so every number of the example is unchanged; the
  record's ``meta.note`` says so.

Examples that start from match totals (C10: A 990 / B 950; B14: A 145 / B 140) are reached
for real: the record's first deals are ordinary deals (played at random by the builder)
whose recorded scores add up exactly to those totals without ending the match; the
example's deal follows.  Their "if both had ..." halves (C10: 1020 / 1020, B14: 151 / 151)
are the records ``C10_tie`` and ``B14_tie``: equal totals at or above the target, the match
goes on, and the next deal decides.  B8's "the match cannot end on this deal" is also
played: team A reaches 157 >= 151 with the valat deal, the match goes on, and the next deal
ends it.  Several-case examples keep their cases in one record, one deal each (B7: contra,
recontra, failed contra; B13: 146/16 and 128/34) or in a second record (H3_hang).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.engine import DealResult, State
from app.engine.record import dump, replay
from app.engine.scoring import DealScore

from .dealing import destinations

EXAMPLES = Path(__file__).resolve().parent.parent / "data" / "examples"
A, B = 0, 1
IDS = (
    [f"C{i}" for i in range(1, 12)]
    + [f"K{i}" for i in range(1, 11)]
    + [f"B{i}" for i in range(1, 15)]
    + [f"H{i}" for i in range(1, 9)]
    + [f"R{i}" for i in range(1, 6)]
)
EXTRA = ["C10_tie", "B14_tie", "H3_hang"]

# ----------------------------------------------------------------------------- helpers


def load(name: str) -> tuple[dict[str, Any], State]:
    record = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    return record, replay(record)


def deal(state: State, i: int = 0) -> tuple[DealResult, DealScore]:
    result = state.results[i]
    assert not result.thrown_in and result.score is not None and result.contract is not None
    return result, result.score


def taker_in_record(record: dict[str, Any], i: int = 0) -> int:
    """The seat of the deal's last bid, read from the record itself."""
    bids = [a for a in record["deals"][i]["actions"] if a["type"] == "bid"]
    return bids[-1]["seat"]


def dealt(record: dict[str, Any], i: int = 0) -> list[set[str]]:
    """Each seat's cards, dealt from the record's deck with the canonical maps of RULES.md
    (the classic turn-up and the bela-3p middle cards go to the taker; bela-2p cards laid
    aside and the proposal card go to nobody)."""
    d = record["deals"][i]
    variant, players = record["variant"], record["players"]
    taker = taker_in_record(record, i)
    free = record["options"].get("bidding_mode") == "free"
    dests = destinations(variant, d["dealer"], players, taker=taker, free=free)
    hands: list[set[str]] = [set() for _ in range(players)]
    for card, dest in zip(d["deck"], dests, strict=True):
        if dest[0] in ("hand", "rest", "talon", "down", "faceup"):
            hands[dest[1]].add(card)
        elif dest == ("up",) and variant == "classic" or dest == ("middle",):
            hands[taker].add(card)
    return hands


NATURAL = "789TJQKA"
CARRE_RANKS = "9TJQKA"


def runs(hand: set[str]) -> list[str]:
    """The maximal runs of 3+ cards of one suit in NATURAL order, e.g. ``"7-9H"``."""
    out = []
    for suit in "CDHS":
        held = [f"{r}{suit}" in hand for r in NATURAL]
        i = 0
        while i < 8:
            j = i
            while j < 8 and held[j]:
                j += 1
            if j - i >= 3:
                out.append(f"{NATURAL[i]}-{NATURAL[j - 1]}{suit}")
            i = j + 1
    return out


def carres(hand: set[str]) -> list[str]:
    return [r for r in CARRE_RANKS if all(f"{r}{s}" in hand for s in "CDHS")]


def has_combo(hand: set[str]) -> bool:
    return bool(runs(hand) or carres(hand))


def pairs(hand: set[str], suits: str) -> list[str]:
    """Suits of ``suits`` whose king and queen are both in ``hand``."""
    return [s for s in suits if {f"K{s}", f"Q{s}"} <= hand]


def no_belote_pairs(hands: list[set[str]], suits: str) -> bool:
    return not any(pairs(h, suits) for h in hands)


def announced(result: DealResult, seat: int) -> list[tuple[str, int]]:
    """What ``seat`` announced: (kind, points) per combination."""
    return [(c.kind, c.points) for c in result.declarations[seat]]


PLAIN_STD = dict(zip("789TJQKA", (0, 0, 0, 10, 2, 3, 4, 11), strict=True))
TRUMP_STD = dict(zip("789TJQKA", (0, 0, 14, 10, 20, 3, 4, 11), strict=True))


def points_of(cards: set[str], trump: str) -> int:
    return sum((TRUMP_STD if c[1] == trump else PLAIN_STD)[c[0]] for c in cards)


# ----------------------------------------------------------------------------- the records


def test_every_example_has_a_record() -> None:
    names = {p.stem for p in EXAMPLES.glob("*.json")}
    assert names == set(IDS) | set(EXTRA)


@pytest.mark.parametrize("name", IDS + EXTRA)
def test_record_replays_round_trips_and_names_its_example(name: str) -> None:
    record, state = load(name)
    assert record["meta"]["example"] == name.split("_")[0]
    section = {"C": "7.1", "K": "7.2", "B": "7.3", "H": "7.4", "R": "7.5"}[name[0]]
    assert record["meta"]["rules"] == f"RULES.md §{section}"
    assert dump(state, meta=record["meta"]) == record
    assert all(not r.thrown_in for r in state.results)


# ----------------------------------------------------------------------------- §7.1 classic


def test_C1_made_92_70() -> None:
    record, state = load("C1")
    r, s = deal(state)
    assert r.contract.denom == "H" and r.contract.taker == 0 and r.taker_side == A
    assert s.card_points == (92, 70)
    assert s.decl_points == (0, 0) and s.belote_points == (0, 0) and r.belote_seats == ()
    assert all(announced(r, seat) == [] for seat in range(4))
    assert s.outcome == "made" and s.recorded == (92, 70) and s.reserve == 0
    assert state.scores == (92, 70)
    hands = dealt(record)
    assert not any(has_combo(h) for h in hands)
    assert no_belote_pairs(hands, "H")


def test_C2_failed_attack_keeps_belote_20_defence_162() -> None:
    record, state = load("C2")
    r, s = deal(state)
    assert r.taker_side == A and r.contract.multiplier == 1
    assert s.card_points == (61, 101) and s.belote_points == (20, 0) and s.decl_points == (0, 0)
    assert s.totals == (81, 101)
    assert s.outcome == "failed" and s.recorded == (20, 162)
    trump = r.contract.denom
    hands = dealt(record)
    assert pairs(hands[0], trump) == [trump] and r.belote_seats == (0,)
    assert not any(has_combo(h) for h in hands)


def test_C3_litige_81_81_then_reserve_to_next_winner() -> None:
    record, state = load("C3")
    r, s = deal(state, 0)
    assert r.taker_side == A and s.card_points == (81, 81) and s.totals == (81, 81)
    assert s.outcome == "litige" and s.recorded == (0, 81) and s.reserve == 81
    assert r.totals_after == (0, 81)
    r2, s2 = deal(state, 1)
    assert r2.taker_side == B and r2.contract.taker in (1, 3)
    assert s2.card_points == (62, 100) and s2.totals == (62, 100)
    assert s2.outcome == "made" and s2.recorded == (62, 181)
    assert s2.reserve_paid == 81 and s2.reserve_paid_to == B and s2.reserve == 0
    assert state.scores == (62, 262) and state.reserve == 0
    for i in (0, 1):
        hands = dealt(record, i)
        assert not any(has_combo(h) for h in hands)
        assert no_belote_pairs(hands, state.results[i].contract.denom)


def test_C4_attack_quarte_and_tierce_beat_defence_tierce_to_the_ace() -> None:
    record, state = load("C4")
    r, s = deal(state)
    assert r.taker_side == A
    assert sorted(announced(r, 0)) == [("sequence", 20), ("sequence", 50)]
    assert announced(r, 1) == [("sequence", 20)]
    assert announced(r, 2) == announced(r, 3) == []
    assert s.card_points == (75, 87) and s.decl_points == (70, 0) and s.belote_points == (0, 0)
    assert s.totals == (145, 87)
    assert s.outcome == "made" and s.recorded == (145, 87)
    hands = dealt(record)
    assert sorted(runs(hands[0])) == ["7-9D", "T-KC"]
    assert runs(hands[1]) == ["Q-AH"]
    assert not has_combo(hands[2]) and not has_combo(hands[3])


def test_C5_carre_of_jacks_beats_carre_of_tens_failed_0_362() -> None:
    record, state = load("C5")
    r, s = deal(state)
    assert r.taker_side == A
    assert announced(r, 0) == [("carre", 100)] and announced(r, 1) == [("carre", 200)]
    assert s.card_points == (62, 100) and s.decl_points == (0, 200) and s.belote_points == (0, 0)
    assert s.totals == (62, 300)
    assert s.outcome == "failed" and s.recorded == (0, 362)
    hands = dealt(record)
    assert carres(hands[0]) == ["T"] and carres(hands[1]) == ["J"]


def test_C6_failed_attack_tierce_goes_to_defence_182() -> None:
    record, state = load("C6")
    r, s = deal(state)
    assert r.taker_side == A and announced(r, 0) == [("sequence", 20)]
    assert all(announced(r, seat) == [] for seat in (1, 2, 3))
    assert s.card_points == (60, 102) and s.decl_points == (20, 0) and s.totals == (80, 102)
    assert s.outcome == "failed" and s.recorded == (0, 182)
    assert runs(dealt(record)[0]) == ["7-9C"]


def test_C7_substitute_capot_with_belote_swept_side_loses_its_carre() -> None:
    """C7 with B's carré of aces instead of queens (impossible as stated: see the module
    docstring).  Same value, same figures: A 252 + 20 = 272, B 0."""
    record, state = load("C7")
    assert "substitution" in record["meta"]["note"]
    r, s = deal(state)
    assert r.taker_side == A and r.tricks_won == (8, 0)
    assert announced(r, 1) == [("carre", 100)]  # B's best declaration ...
    assert all(announced(r, seat) == [] for seat in (0, 2, 3))
    assert s.capot_side == A and s.card_points == (252, 0)
    assert s.decl_points == (0, 0)  # ... lost: B won no trick
    assert s.belote_points == (20, 0) and r.belote_seats == (0,)
    assert s.outcome == "made" and s.recorded == (272, 0)
    trump = r.contract.denom
    hands = dealt(record)
    assert carres(hands[1]) == ["A"] and pairs(hands[0], trump) == [trump]


def test_C8_defence_capot_attack_keeps_its_belote_20_272() -> None:
    record, state = load("C8")
    r, s = deal(state)
    assert r.taker_side == A and r.tricks_won == (0, 8)
    assert announced(r, 1) == [("sequence", 20)]
    assert s.capot_side == B and s.card_points == (0, 252)
    assert s.decl_points == (0, 20) and s.belote_points == (20, 0)
    assert s.outcome == "failed" and s.recorded == (20, 272)
    trump = r.contract.denom
    hands = dealt(record)
    assert pairs(hands[0], trump) == [trump] and runs(hands[1]) == ["7-9H"]


def test_C9_litige_belote_recorded_now_71_to_reserve() -> None:
    record, state = load("C9")
    r, s = deal(state)
    assert r.taker_side == A
    assert s.card_points == (71, 91) and s.belote_points == (20, 0) and s.totals == (91, 91)
    assert s.outcome == "litige" and s.recorded == (20, 91) and s.reserve == 71
    assert state.reserve == 71
    trump = r.contract.denom
    assert pairs(dealt(record)[0], trump) == [trump]


def test_C10_target_1000_both_over_higher_wins() -> None:
    """The deals before the last one are ordinary deals that bring the match to exactly
    A 990 / B 950 (nobody at 1000 yet); the last deal is made 92 / 70."""
    record, state = load("C10")
    assert record["options"] == {} and state.rules.target == 1000
    last = len(state.results) - 1
    assert state.results[last - 1].totals_after == (990, 950)
    assert all(max(x.totals_after) < 1000 for x in state.results[:last])
    assert all(x.score.reserve == 0 for x in state.results[:last])
    r, s = deal(state, last)
    assert r.taker_side == A and s.card_points == (92, 70) and s.recorded == (92, 70)
    assert s.outcome == "made"
    assert state.scores == (1082, 1020) and state.winner == A
    assert state.phase.value == "match_over"


def test_C10_tie_1020_1020_plays_another_deal() -> None:
    record, state = load("C10_tie")
    n = len(state.results)
    assert state.results[n - 3].totals_after == (928, 950)
    r, s = deal(state, n - 2)
    assert s.recorded == (92, 70) and r.totals_after == (1020, 1020)
    assert r.winner_side == A  # the deal's winner, not the match's
    r, s = deal(state, n - 1)  # the match went on: another deal decides
    assert s.recorded == (92, 70)
    assert state.scores == (1112, 1090) and state.winner == A


def test_C11_free_mode_tout_atout_two_belotes_136_66() -> None:
    record, state = load("C11")
    assert record["options"] == {"bidding_mode": "free"}
    r, s = deal(state)
    assert r.contract.denom == "AT" and r.taker_side == A
    assert s.card_points == (96, 66) and s.decl_points == (0, 0)
    assert s.belote_points == (40, 0) and r.belote_seats == (0, 0)
    assert s.totals == (136, 66)
    assert s.outcome == "made" and s.recorded == (136, 66)
    hands = dealt(record)
    assert sorted(pairs(hands[0], "CDHS")) == ["D", "S"]
    assert not any(pairs(h, "CDHS") for h in hands[1:])
    assert not any(has_combo(h) for h in hands)


# ----------------------------------------------------------------------------- §7.2 coinche


def coinche(name: str) -> tuple[dict[str, Any], State, DealResult, DealScore]:
    record, state = load(name)
    r, s = deal(state)
    assert r.taker_side == A and r.contract.taker == 0
    return record, state, r, s


def test_K1_100_spades_made_210_50() -> None:
    record, state, r, s = coinche("K1")
    assert (r.contract.denom, r.contract.value, r.contract.multiplier) == ("S", 100, 1)
    assert s.card_points == (113, 49) and s.decl_points == (0, 0) and s.belote_points == (0, 0)
    assert s.outcome == "made" and s.recorded == (210, 50)
    assert not any(has_combo(h) for h in dealt(record))


def test_K2_120_hearts_made_with_belote_240_60() -> None:
    record, state, r, s = coinche("K2")
    assert (r.contract.denom, r.contract.value, r.contract.multiplier) == ("H", 120, 1)
    assert s.card_points == (104, 58) and s.belote_points == (20, 0) and s.totals == (124, 58)
    assert s.outcome == "made" and s.recorded == (240, 60)
    assert pairs(dealt(record)[0], "H") == ["H"]


def test_K3_110_diamonds_failed_107_20_270() -> None:
    record, state, r, s = coinche("K3")
    assert (r.contract.denom, r.contract.value, r.contract.multiplier) == ("D", 110, 1)
    assert s.card_points == (87, 75) and s.belote_points == (20, 0) and s.totals == (107, 75)
    assert s.outcome == "failed" and s.recorded == (20, 270)
    assert pairs(dealt(record)[0], "D") == ["D"]


def test_K4_90_clubs_coinched_made_500_0() -> None:
    record, state, r, s = coinche("K4")
    assert (r.contract.denom, r.contract.value, r.contract.multiplier) == ("C", 90, 2)
    assert r.contract.doubler == 1
    assert s.card_points == (101, 61) and s.decl_points == (0, 0) and s.belote_points == (0, 0)
    assert s.outcome == "made" and s.recorded == (500, 0)


def test_K5_130_spades_surcoinched_failed_1160() -> None:
    record, state, r, s = coinche("K5")
    assert (r.contract.denom, r.contract.value, r.contract.multiplier) == ("S", 130, 4)
    assert s.card_points == (120, 42) and s.decl_points == (0, 0) and s.belote_points == (0, 0)
    assert s.outcome == "failed" and s.recorded == (0, 1160)


def test_K6_capot_bid_made_with_belote_520() -> None:
    record, state, r, s = coinche("K6")
    assert (r.contract.denom, r.contract.value, r.contract.multiplier) == ("H", 250, 1)
    assert r.tricks_won == (8, 0) and s.capot_side == A
    assert s.card_points == (252, 0) and s.belote_points == (20, 0) and s.totals == (272, 0)
    assert s.outcome == "made" and s.recorded == (520, 0)
    assert pairs(dealt(record)[0], "H") == ["H"]


def test_K7_coinched_capot_bid_seven_tricks_failed_820() -> None:
    record, state, r, s = coinche("K7")
    assert (r.contract.denom, r.contract.value, r.contract.multiplier) == ("S", 250, 2)
    assert r.tricks_won == (7, 1) and s.capot_side is None
    assert s.decl_points == (0, 0) and s.belote_points == (0, 0)
    assert s.outcome == "failed" and s.recorded == (0, 820)


def test_K8_80_clubs_81_81_tie_fails_240() -> None:
    record, state, r, s = coinche("K8")
    assert (r.contract.denom, r.contract.value, r.contract.multiplier) == ("C", 80, 1)
    assert s.card_points == (81, 81) and s.totals == (81, 81)
    assert s.outcome == "failed" and s.recorded == (0, 240) and s.reserve == 0


def test_K9_80_diamonds_125_rounds_up_210_40() -> None:
    record, state, r, s = coinche("K9")
    assert (r.contract.denom, r.contract.value, r.contract.multiplier) == ("D", 80, 1)
    assert s.card_points == (125, 37) and s.totals == (125, 37)
    assert s.outcome == "made" and s.recorded == (210, 40)
    assert s.rounding == {"kind": "round10", "raw": [125, 37], "rounded": [130, 40]}


def test_K10_90_hearts_reached_but_not_above_defence_fails_270() -> None:
    record, state, r, s = coinche("K10")
    assert (r.contract.denom, r.contract.value, r.contract.multiplier) == ("H", 90, 1)
    assert announced(r, 0) == [("sequence", 20)]
    assert all(announced(r, seat) == [] for seat in (1, 2, 3))
    assert s.card_points == (70, 92) and s.decl_points == (20, 0) and s.totals == (90, 92)
    assert s.outcome == "failed" and s.recorded == (0, 270)
    assert runs(dealt(record)[0]) == ["7-9C"]


# ----------------------------------------------------------------------------- §7.3 bulgarian


def test_B1_hearts_116_66_both_end_in_6_11_7() -> None:
    record, state = load("B1")
    r, s = deal(state)
    assert r.contract.denom == "H" and r.taker_side == A and r.contract.multiplier == 1
    assert s.card_points == (96, 66) and s.belote_points == (20, 0) and s.totals == (116, 66)
    assert s.outcome == "made" and s.recorded == (11, 7)
    assert pairs(dealt(record)[0], "H") == ["H"]


def test_B2_spades_92_70_made_9_7() -> None:
    record, state = load("B2")
    r, s = deal(state)
    assert r.contract.denom == "S" and r.taker_side == A
    assert s.totals == (92, 70) and s.belote_points == (0, 0)
    assert s.outcome == "made" and s.recorded == (9, 7)


def test_B3_tierce_cancelled_by_quarte_failed_21() -> None:
    record, state = load("B3")
    r, s = deal(state)
    assert r.contract.denom == "D" and r.taker_side == A
    assert announced(r, 0) == [("sequence", 20)] and announced(r, 1) == [("sequence", 50)]
    assert s.card_points == (72, 90) and s.decl_points == (0, 50) and s.totals == (72, 140)
    assert s.outcome == "failed" and s.recorded == (0, 21)
    declares = [a for a in record["deals"][0]["actions"] if a["type"] == "declare"]
    assert [d["seat"] for d in declares] == [0, 1]  # bulgarian declares by hand


def test_B4_no_trumps_doubled_156_104_made_16_10() -> None:
    record, state = load("B4")
    r, s = deal(state)
    assert r.contract.denom == "NT" and r.taker_side == A
    assert s.card_points == (156, 104) and s.totals == (156, 104)
    assert s.outcome == "made" and s.recorded == (16, 10)


def test_B5_all_trumps_134_124_both_end_in_4_13_13() -> None:
    record, state = load("B5")
    r, s = deal(state)
    assert r.contract.denom == "AT" and r.taker_side == A
    assert s.totals == (134, 124) and s.belote_points == (0, 0) and s.decl_points == (0, 0)
    assert s.outcome == "made" and s.recorded == (13, 13)
    assert no_belote_pairs(dealt(record), "CDHS")


def test_B6_hanging_8_then_other_team_makes_18_6() -> None:
    record, state = load("B6")
    r, s = deal(state, 0)
    assert r.contract.denom == "C" and r.taker_side == A and s.totals == (81, 81)
    assert s.outcome == "hanging" and s.recorded == (0, 8) and s.reserve == 8
    r2, s2 = deal(state, 1)
    assert r2.taker_side == B and s2.totals == (62, 100)
    assert s2.outcome == "made" and s2.recorded == (6, 18)
    assert s2.reserve_paid == 8 and s2.reserve_paid_to == B and s2.reserve == 0
    assert state.scores == (6, 26)


def test_B7_contra_32_recontra_64_failed_contra_32() -> None:
    record, state = load("B7")
    r, s = deal(state, 0)
    assert (r.contract.denom, r.contract.multiplier, r.taker_side) == ("S", 2, A)
    assert s.totals == (90, 72) and s.outcome == "made" and s.recorded == (32, 0)
    r, s = deal(state, 1)
    assert (r.contract.denom, r.contract.multiplier, r.taker_side) == ("S", 4, A)
    assert s.totals == (90, 72) and s.outcome == "made" and s.recorded == (64, 0)
    r, s = deal(state, 2)
    assert (r.contract.denom, r.contract.multiplier, r.taker_side) == ("S", 2, A)
    assert s.totals == (70, 92) and s.outcome == "failed" and s.recorded == (0, 32)
    assert state.scores == (96, 32)


def test_B8_substitute_valat_with_belote_swept_team_keeps_its_carre_27_10() -> None:
    """B8 with O's carré of aces instead of queens (impossible as stated: see the module
    docstring).  Same value, same figures: P 27, O 10, and the match does not end on this
    deal although P passes 151; it ends on the next one."""
    record, state = load("B8")
    assert "substitution" in record["meta"]["note"]
    n = len(state.results)
    i = n - 2
    assert state.results[i - 1].totals_after == (130, 90)
    r, s = deal(state, i)
    assert r.contract.denom == "H" and r.taker_side == A and r.tricks_won == (8, 0)
    assert announced(r, 1) == [("carre", 100)]
    assert s.capot_side == A and s.card_points == (252, 0)
    assert s.decl_points == (0, 100) and s.belote_points == (20, 0) and s.totals == (272, 100)
    assert s.outcome == "made" and s.recorded == (27, 10)
    assert r.totals_after == (157, 100)  # A >= 151, yet the match went on
    hands = dealt(record, i)
    assert carres(hands[1]) == ["A"] and pairs(hands[0], "H") == ["H"]
    r, s = deal(state, n - 1)
    assert s.recorded == (11, 7) and state.scores == (168, 107) and state.winner == A


def test_B9_no_trumps_valat_350_35() -> None:
    record, state = load("B9")
    r, s = deal(state)
    assert r.contract.denom == "NT" and r.taker_side == A and r.tricks_won == (8, 0)
    assert s.capot_side == A and s.card_points == (350, 0) and s.totals == (350, 0)
    assert s.outcome == "made" and s.recorded == (35, 0)


def test_B10_clubs_106_106_hanging_10_reserve_11() -> None:
    record, state = load("B10")
    r, s = deal(state)
    assert r.contract.denom == "C" and r.taker_side == A
    assert announced(r, 0) == [("sequence", 50)]
    assert s.card_points == (56, 106) and s.decl_points == (50, 0) and s.totals == (106, 106)
    assert s.outcome == "hanging" and s.recorded == (0, 10) and s.reserve == 11


def test_B11_all_trumps_valat_348_35() -> None:
    record, state = load("B11")
    r, s = deal(state)
    assert r.contract.denom == "AT" and r.taker_side == A and r.tricks_won == (8, 0)
    assert s.capot_side == A and s.card_points == (348, 0) and s.belote_points == (0, 0)
    assert s.outcome == "made" and s.recorded == (35, 0)


def test_B12_all_trumps_154_154_hanging_15_reserve_16() -> None:
    record, state = load("B12")
    r, s = deal(state)
    assert r.contract.denom == "AT" and r.taker_side == A
    assert announced(r, 0) == [("sequence", 50)]
    assert s.card_points == (104, 154) and s.decl_points == (50, 0) and s.totals == (154, 154)
    assert s.belote_points == (0, 0)
    assert s.outcome == "hanging" and s.recorded == (0, 15) and s.reserve == 16


def test_B13_seed_roundings_146_16_and_128_34() -> None:
    record, state = load("B13")
    r, s = deal(state, 0)
    assert r.contract.denom == "D" and r.taker_side == A and s.totals == (146, 16)
    assert s.outcome == "made" and s.recorded == (14, 2)
    r, s = deal(state, 1)
    assert r.contract.denom == "D" and r.taker_side == A and s.totals == (128, 34)
    assert s.outcome == "made" and s.recorded == (13, 3)


def test_B14_match_145_140_then_11_7_A_wins() -> None:
    """The first deals are ordinary deals bringing the match to exactly A 145 / B 140."""
    record, state = load("B14")
    n = len(state.results)
    assert state.results[n - 2].totals_after == (145, 140)
    assert all(max(x.totals_after) < 151 for x in state.results[: n - 1])
    r, s = deal(state, n - 1)
    assert s.recorded == (11, 7)
    assert state.scores == (156, 147) and state.winner == A


def test_B14_tie_151_151_plays_another_deal() -> None:
    record, state = load("B14_tie")
    n = len(state.results)
    assert state.results[n - 3].totals_after == (140, 144)
    r, s = deal(state, n - 2)
    assert s.recorded == (11, 7) and r.totals_after == (151, 151)
    r, s = deal(state, n - 1)
    assert s.recorded == (11, 7)
    assert state.scores == (162, 158) and state.winner == A


# ----------------------------------------------------------------------------- §7.4 bela


def test_H1_fall_opponents_take_everything_232() -> None:
    record, state = load("H1")
    r, s = deal(state)
    assert r.contract.denom == "C" and r.taker_side == A
    assert announced(r, 0) == [("sequence", 20)] and announced(r, 1) == [("sequence", 50)]
    assert s.card_points == (95, 67) and s.decl_points == (0, 50) and s.belote_points == (20, 0)
    assert s.totals == (115, 117)
    assert s.outcome == "failed" and s.recorded == (0, 232)
    actions = record["deals"][0]["actions"]
    assert [a["seat"] for a in actions if a.get("belote")] == [0]  # bela called by hand
    assert pairs(dealt(record)[0], "C") == ["C"]


def test_H2_carre_of_kings_made_190_72() -> None:
    record, state = load("H2")
    r, s = deal(state)
    assert r.taker_side == A and announced(r, 0) == [("carre", 100)]
    assert s.card_points == (90, 72) and s.decl_points == (100, 0) and s.belote_points == (0, 0)
    assert s.outcome == "made" and s.recorded == (190, 72)
    assert carres(dealt(record)[0]) == ["K"]


def test_H3_81_81_falls_162() -> None:
    record, state = load("H3")
    r, s = deal(state)
    assert r.taker_side == A and s.card_points == (81, 81)
    assert s.outcome == "failed" and s.recorded == (0, 162) and s.reserve == 0


def test_H3_hang_option_81_81_hangs_81() -> None:
    record, state = load("H3_hang")
    assert record["options"] == {"tie_rule": "hang"}
    r, s = deal(state)
    assert r.taker_side == A and s.card_points == (81, 81)
    assert s.outcome == "hanging" and s.recorded == (0, 81) and s.reserve == 81


def test_H4_stiglja_with_bela_272() -> None:
    record, state = load("H4")
    r, s = deal(state)
    assert r.taker_side == A and r.tricks_won == (8, 0)
    assert s.capot_side == A and s.card_points == (252, 0) and s.belote_points == (20, 0)
    assert s.outcome == "made" and s.recorded == (272, 0)
    trump = r.contract.denom
    assert pairs(dealt(record)[0], trump) == [trump]


def test_H5_three_players_made_70_52_40() -> None:
    record, state = load("H5")
    r, s = deal(state)
    assert state.rules.players == 3 and r.contract.taker == 0 and r.taker_side == 0
    discard = [a for a in record["deals"][0]["actions"] if a["type"] == "discard"]
    assert [d["seat"] for d in discard] == [0]
    assert s.card_points == (70, 52, 40)  # the caller's discards included
    assert s.outcome == "made" and s.recorded == (70, 52, 40)
    assert len(dealt(record)[0]) == 12


def test_H6_three_players_fall_0_93_69() -> None:
    record, state = load("H6")
    r, s = deal(state)
    assert state.rules.players == 3 and r.taker_side == 0
    assert s.card_points == (61, 62, 39)
    assert s.outcome == "failed" and s.recorded == (0, 93, 69)


def test_H7_two_players_made_88_47_with_115_points_in_play() -> None:
    record, state = load("H7")
    r, s = deal(state)
    assert state.rules.players == 2 and r.taker_side == 0
    assert announced(r, 0) == [("sequence", 20)]
    assert s.card_points == (68, 47) and s.decl_points == (20, 0) and s.totals == (88, 47)
    assert s.outcome == "made" and s.recorded == (88, 47)
    hands = dealt(record)
    assert len(hands[0]) == len(hands[1]) == 10  # 20 cards in play
    in_play = points_of(hands[0] | hands[1], r.contract.denom) + 10
    assert in_play == 115 == sum(s.card_points)
    assert runs(hands[0]) == ["7-9D"]


def test_H8_two_players_fall_144() -> None:
    record, state = load("H8")
    r, s = deal(state)
    assert state.rules.players == 2 and r.taker_side == 0
    assert s.card_points == (50, 74) and s.belote_points == (20, 0) and s.totals == (70, 74)
    assert s.outcome == "failed" and s.recorded == (0, 144)
    hands = dealt(record)
    assert points_of(hands[0] | hands[1], "H") + 10 == 124 == sum(s.card_points)
    assert pairs(hands[0], "H") == ["H"]


# ----------------------------------------------------------------------------- §7.5 duel


def duel(name: str) -> tuple[State, DealResult, DealScore]:
    record, state = load(name)
    r, s = deal(state)
    assert r.contract.taker == 0 and r.taker_side == 0
    return state, r, s


def test_R1_taker_95_67_made_wins_the_game() -> None:
    state, r, s = duel("R1")
    assert s.card_points == (95, 67) and s.outcome == "made" and s.recorded == (95, 67)
    assert r.winner_side == 0 and state.scores == (1, 0)


def test_R2_taker_82_80_made() -> None:
    state, r, s = duel("R2")
    assert s.card_points == (82, 80) and s.outcome == "made" and s.recorded == (82, 80)
    assert r.winner_side == 0 and state.scores == (1, 0)


def test_R3_81_81_fails_defender_162() -> None:
    state, r, s = duel("R3")
    assert s.card_points == (81, 81) and s.outcome == "failed" and s.recorded == (0, 162)
    assert r.winner_side == 1 and state.scores == (0, 1)


def test_R4_taker_sweeps_16_tricks_252() -> None:
    state, r, s = duel("R4")
    assert r.tricks_won == (16, 0) and s.capot_side == 0 and s.card_points == (252, 0)
    assert s.outcome == "made" and s.recorded == (252, 0) and state.scores == (1, 0)


def test_R5_defender_sweeps_16_tricks_252() -> None:
    state, r, s = duel("R5")
    assert r.tricks_won == (0, 16) and s.capot_side == 1 and s.card_points == (0, 252)
    assert s.outcome == "failed" and s.recorded == (0, 252) and state.scores == (0, 1)


def test_records_use_the_default_options_unless_the_example_says_otherwise() -> None:
    options = {
        path.stem: json.loads(path.read_text(encoding="utf-8"))["options"]
        for path in EXAMPLES.glob("*.json")
    }
    assert {k: v for k, v in options.items() if v} == {
        "C11": {"bidding_mode": "free"},
        "H3_hang": {"tie_rule": "hang"},
    }
