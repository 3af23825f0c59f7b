"""Deal and match scoring: every worked example of RULES.md §7 and the scoring edge cases
of §8 (7-14, 23, 24), plus the §4.9 rounding property.

Readings of RULES.md this suite pins down.  No two passages give different numbers for a
worked example; these are the places where the text pulls two ways or says nothing:

* Bela ``tie_rule = "hang"``: §5.1 says the caller's points go to the next winner "as the
  French reserve" (where the attack keeps its belote, §2.6), §14 says "the caller records
  0, and all his points go to the reserve".  Implemented as §14: the bela hangs too.
* §4.12 "without the 9-point valat bonus" vs contra: under contra the bonus is worth
  9 x m game points, but §14 says subtract 9.  Implemented as §14.  The option only
  decides whether the match MAY end; the winner is the single highest real total.  The 9
  is capped by what the valat side recorded in the deal (a valat team that still failed
  its contract recorded no bonus).
* Bela 3p fall with a reserve: the reserve is split between the opponents as D-17 on its
  own (odd point decided like the deal's), not added to the caller's total first;
  ``reserve_paid_to`` is None then and the shares are in ``recorded``.  With 162 points
  in play and declarations in tens, equal opponent totals leave the caller an even
  total, so D-17's "if equal, to next(caller)" can only matter for an odd reserve.
* Capot: the sweeping side's card points + 90, i.e. the 252 of §2.6/§3.5/§6.4 whenever
  all 162 points are in play; bela 2p capot = the points in play + 90 (§5.1 raw total).
* Coinche has no reserve (§3.6): a reserve handed to ``score_deal`` is carried unchanged.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.scoring import DealFacts, DealScore
from app.engine.variants import get_rules, match_winner, score_deal
from app.engine.variants.bulgarian import bg_round, bg_split
from app.engine.variants.coinche import round10

A, B = 0, 1


def facts(
    variant: str,
    cards: tuple[int, ...],
    *,
    taker: int = A,
    denom: str = "H",
    bid: int | None = None,
    m: int = 1,
    tricks: tuple[int, ...] | None = None,
    total_tricks: int | None = None,
    decl: tuple[int, ...] | None = None,
    bel: tuple[int, ...] | None = None,
    reserve: int = 0,
    tie_rule: str = "fall",
) -> DealFacts:
    n = len(cards)
    if total_tricks is None:
        total_tricks = {"duel": 16}.get(variant, 8 if n == 2 else 10)
    if tricks is None:
        # Enough tricks for everyone, none a sweep: split evenly-ish.
        base = [total_tricks // n] * n
        base[0] += total_tricks - sum(base)
        tricks = tuple(base)
    return DealFacts(
        variant=variant,
        taker_side=taker,
        denom=denom,
        bid_value=bid,
        multiplier=m,
        card_points=cards,
        tricks_won=tricks,
        total_tricks=total_tricks,
        decl_points=decl if decl is not None else (0,) * n,
        belote_points=bel if bel is not None else (0,) * n,
        reserve=reserve,
        tie_rule=tie_rule,
    )


def score(*args: object, **kwargs: object) -> DealScore:
    return score_deal(facts(*args, **kwargs))


def winner(
    variant: str,
    totals: tuple[int, ...],
    target: int | None,
    valat_side: int | None = None,
    recorded: tuple[int, ...] | None = None,
    can_end: bool = False,
) -> int | None:
    """The match's winner (``match_winner``, the variant's ``match_end``) after a deal that
    was a capot/valat of ``valat_side`` if given, recording ``recorded`` (by default, 27 to
    the valat side: more than its 9-point bonus), in a match to ``target`` (None: one deal)."""
    options: dict[str, object] = {"target": "one_deal" if target is None else target}
    if can_end:
        options["valat_can_end_without_bonus"] = True
    deal = None
    if valat_side is not None:
        n = len(totals)
        rec = recorded or tuple(27 if s == valat_side else 0 for s in range(n))
        zero = (0,) * n
        deal = DealScore("made", valat_side, zero, zero, zero, zero, rec, 0, None, 0, None)
    return match_winner(variant, totals, deal, 3 if len(totals) == 3 else None, options)


# =========================================================================== §7.1 classic


def test_C1_made_each_side_records_its_points() -> None:
    s = score("classic", (92, 70))
    assert s.outcome == "made" and s.recorded == (92, 70) and s.reserve == 0


def test_C2_failed_defence_takes_162_attack_keeps_belote() -> None:
    s = score("classic", (61, 101), bel=(20, 0))
    assert s.totals == (81, 101)
    assert s.outcome == "failed" and s.recorded == (20, 162)


def test_C3_litige_then_reserve_paid_to_next_winner() -> None:
    s = score("classic", (81, 81))
    assert s.outcome == "litige" and s.recorded == (0, 81) and s.reserve == 81
    # Next deal: B takes and makes with 100 vs 62.
    nxt = score("classic", (62, 100), taker=B, reserve=s.reserve)
    assert nxt.outcome == "made"
    assert nxt.recorded == (62, 181)
    assert nxt.reserve == 0 and nxt.reserve_paid == 81 and nxt.reserve_paid_to == B


def test_C4_best_declaration_side_scores_all_its_declarations() -> None:
    # A: quarte + tierce = 70 (A's quarte is best); B's tierce to the ace scores nothing.
    s = score("classic", (75, 87), decl=(70, 0))
    assert s.totals == (145, 87)
    assert s.outcome == "made" and s.recorded == (145, 87)


def test_C5_failed_defence_gets_162_plus_its_carre_of_jacks() -> None:
    s = score("classic", (62, 100), decl=(0, 200))
    assert s.totals == (62, 300)
    assert s.outcome == "failed" and s.recorded == (0, 362)


def test_C6_failed_attack_declarations_go_to_the_defence() -> None:
    s = score("classic", (60, 102), decl=(20, 0))
    assert s.totals == (80, 102)
    assert s.outcome == "failed" and s.recorded == (0, 182)


def test_C7_capot_swept_side_loses_its_declarations() -> None:
    s = score("classic", (162, 0), tricks=(8, 0), decl=(0, 100), bel=(20, 0))
    assert s.capot_side == A
    assert s.card_points == (252, 0) and s.decl_points == (0, 0)
    assert s.outcome == "made" and s.recorded == (272, 0)


def test_C8_defence_capot_attack_keeps_only_its_belote() -> None:
    s = score("classic", (0, 162), tricks=(0, 8), decl=(0, 20), bel=(20, 0))
    assert s.capot_side == B and s.card_points == (0, 252)
    assert s.outcome == "failed" and s.recorded == (20, 272)


def test_C9_litige_belote_recorded_now_never_held() -> None:
    s = score("classic", (71, 91), bel=(20, 0))
    assert s.totals == (91, 91)
    assert s.outcome == "litige" and s.recorded == (20, 91) and s.reserve == 71


def test_C10_match_both_over_target_higher_wins_equal_plays_on() -> None:
    s = score("classic", (92, 70))
    totals = (990 + s.recorded[A], 950 + s.recorded[B])
    assert totals == (1082, 1020)
    assert winner("classic", totals, 1000) == A
    assert winner("classic", (1020, 1020), 1000) is None


def test_C11_free_mode_tout_atout_two_belotes() -> None:
    s = score("classic", (96, 66), denom="AT", bel=(40, 0))
    assert s.outcome == "made" and s.recorded == (136, 66)


# =========================================================================== §7.2 coinche


def test_K1_made_bid_plus_rounded_points() -> None:
    s = score("coinche", (113, 49), denom="S", bid=100)
    assert s.outcome == "made" and s.recorded == (210, 50)
    assert s.rounding == {"kind": "round10", "raw": [113, 49], "rounded": [110, 50]}


def test_K2_made_with_belote() -> None:
    s = score("coinche", (104, 58), bid=120, bel=(20, 0))
    assert s.totals == (124, 58)
    assert s.outcome == "made" and s.recorded == (240, 60)


def test_K3_failed_below_bid_attack_keeps_belote() -> None:
    s = score("coinche", (87, 75), denom="D", bid=110, bel=(20, 0))
    assert s.totals == (107, 75)
    assert s.outcome == "failed" and s.recorded == (20, 270)


def test_K4_coinched_made() -> None:
    s = score("coinche", (101, 61), denom="C", bid=90, m=2)
    assert s.outcome == "made" and s.recorded == (500, 0)


def test_K5_surcoinched_failed() -> None:
    s = score("coinche", (120, 42), denom="S", bid=130, m=4)
    assert s.outcome == "failed" and s.recorded == (0, 1160)


def test_K6_capot_bid_made() -> None:
    s = score("coinche", (162, 0), bid=250, tricks=(8, 0), bel=(20, 0))
    assert s.card_points == (252, 0) and s.totals == (272, 0)
    assert s.outcome == "made" and s.recorded == (520, 0)


def test_K7_coinched_capot_bid_failed_with_seven_tricks() -> None:
    s = score("coinche", (152, 10), denom="S", bid=250, m=2, tricks=(7, 1))
    assert s.outcome == "failed" and s.recorded == (0, 820)


def test_K8_tie_fails_no_litige() -> None:
    s = score("coinche", (81, 81), denom="C", bid=80)
    assert s.outcome == "failed" and s.recorded == (0, 240) and s.reserve == 0


def test_K9_made_rounds_125_up() -> None:
    s = score("coinche", (125, 37), denom="D", bid=80)
    assert s.outcome == "made" and s.recorded == (210, 40)


def test_K10_bid_reached_but_not_above_defence_fails() -> None:
    s = score("coinche", (70, 92), bid=90, decl=(20, 0))
    assert s.totals == (90, 92)
    assert s.outcome == "failed" and s.recorded == (0, 270)


# =========================================================================== §7.3 bulgarian


def test_B1_both_end_in_6_lower_rounds_up() -> None:
    s = score("bulgarian", (96, 66), bel=(20, 0))
    assert s.totals == (116, 66)
    assert s.outcome == "made" and s.recorded == (11, 7)
    assert sum(s.recorded) == bg_round(182, "H") == 18


def test_B2_made_plain_rounding() -> None:
    s = score("bulgarian", (92, 70), denom="S")
    assert s.outcome == "made" and s.recorded == (9, 7)


def test_B3_failed_everything_to_defenders() -> None:
    # P's tierce lost to O's quarte: O is awarded its 50.
    s = score("bulgarian", (72, 90), denom="D", decl=(0, 50))
    assert s.totals == (72, 140)
    assert s.outcome == "failed" and s.recorded == (0, 21)


def test_B4_no_trumps_card_points_doubled() -> None:
    s = score("bulgarian", (78, 52), denom="NT")
    assert s.card_points == (156, 104)
    assert s.outcome == "made" and s.recorded == (16, 10)


def test_B5_all_trumps_both_end_in_4() -> None:
    s = score("bulgarian", (134, 124), denom="AT")
    assert s.outcome == "made" and s.recorded == (13, 13)


def test_B6_hanging_then_reserve_to_next_winner() -> None:
    s = score("bulgarian", (81, 81), denom="C")
    assert s.outcome == "hanging" and s.recorded == (0, 8) and s.reserve == 8
    # Next deal: the other team (B) bids and makes 100 / 62.
    nxt = score("bulgarian", (62, 100), taker=B, reserve=s.reserve)
    assert nxt.outcome == "made" and nxt.recorded == (6, 18)
    assert nxt.reserve_paid == 8 and nxt.reserve_paid_to == B and nxt.reserve == 0


def test_B7_contra_and_recontra() -> None:
    s = score("bulgarian", (90, 72), denom="S", m=2)
    assert s.outcome == "made" and s.recorded == (32, 0)
    s = score("bulgarian", (90, 72), denom="S", m=4)
    assert s.recorded == (64, 0)
    s = score("bulgarian", (70, 92), denom="S", m=2)
    assert s.outcome == "failed" and s.recorded == (0, 32)


def test_B8_valat_swept_team_keeps_its_carre_and_match_cannot_end() -> None:
    s = score("bulgarian", (162, 0), tricks=(8, 0), bel=(20, 0), decl=(0, 100))
    assert s.capot_side == A and s.decl_points == (0, 100)
    assert s.totals == (272, 100)
    assert s.outcome == "made" and s.recorded == (27, 10)
    assert winner("bulgarian", (160, 40), 151, valat_side=A) is None


def test_B9_no_trumps_valat_bonus_not_doubled() -> None:
    s = score("bulgarian", (130, 0), denom="NT", tricks=(8, 0))
    assert s.card_points == (350, 0)
    assert s.recorded == (35, 0)


def test_B10_hanging_both_end_in_6_bidders_value_rounds_up() -> None:
    s = score("bulgarian", (56, 106), denom="C", decl=(50, 0))
    assert s.totals == (106, 106)
    assert s.outcome == "hanging" and s.recorded == (0, 10) and s.reserve == 11


def test_B11_all_trumps_valat() -> None:
    s = score("bulgarian", (258, 0), denom="AT", tricks=(8, 0))
    assert s.totals == (348, 0) and s.recorded == (35, 0)


def test_B12_all_trumps_hanging_both_end_in_4() -> None:
    s = score("bulgarian", (104, 154), denom="AT", decl=(50, 0))
    assert s.totals == (154, 154)
    assert s.outcome == "hanging" and s.recorded == (0, 15) and s.reserve == 16


def test_B13_seed_examples_16_to_2_and_34_to_3() -> None:
    s = score("bulgarian", (146, 16), denom="D")
    assert s.outcome == "made" and s.recorded == (14, 2)
    s = score("bulgarian", (128, 34), denom="D")
    assert s.recorded == (13, 3)


def test_B14_match_target_151_higher_wins_equal_plays_on() -> None:
    s = score("bulgarian", (92, 70), denom="S", bel=(20, 0))  # 112 / 70 -> 11 / 7
    assert s.recorded == (11, 7)
    totals = (145 + s.recorded[A], 140 + s.recorded[B])
    assert totals == (156, 147)
    assert winner("bulgarian", totals, 151) == A
    assert winner("bulgarian", (151, 151), 151) is None


# =========================================================================== §7.4 bela


def test_H1_fall_opponents_take_everything_including_bela() -> None:
    s = score("bela", (95, 67), denom="C", bel=(20, 0), decl=(0, 50))
    assert s.totals == (115, 117)
    assert s.outcome == "failed" and s.recorded == (0, 232)


def test_H2_made_each_side_records_its_total() -> None:
    s = score("bela", (90, 72), decl=(100, 0))
    assert s.outcome == "made" and s.recorded == (190, 72)


def test_H3_tie_falls_or_hangs_with_the_option() -> None:
    s = score("bela", (81, 81))
    assert s.outcome == "failed" and s.recorded == (0, 162)
    s = score("bela", (81, 81), tie_rule="hang")
    assert s.outcome == "hanging" and s.recorded == (0, 81) and s.reserve == 81


def test_H4_stiglja_capot_bonus() -> None:
    s = score("bela", (162, 0), tricks=(8, 0), bel=(20, 0))
    assert s.capot_side == A and s.recorded == (272, 0)


def test_H5_three_players_made() -> None:
    s = score("bela", (70, 52, 40), tricks=(4, 3, 3))
    assert s.outcome == "made" and s.recorded == (70, 52, 40)


def test_H6_three_players_fall_caller_total_split_odd_point_to_larger() -> None:
    s = score("bela", (61, 62, 39), tricks=(4, 4, 2))
    assert s.outcome == "failed" and s.recorded == (0, 93, 69)


def test_H7_two_players_made_with_fewer_points_in_play() -> None:
    s = score("bela", (68, 47), decl=(20, 0), tricks=(6, 4), total_tricks=10)
    assert s.outcome == "made" and s.recorded == (88, 47)


def test_H8_two_players_fall() -> None:
    s = score("bela", (50, 74), bel=(20, 0), tricks=(4, 6), total_tricks=10)
    assert s.totals == (70, 74)
    assert s.outcome == "failed" and s.recorded == (0, 144)


# =========================================================================== §7.5 duel


def test_R1_made_taker_wins_the_game() -> None:
    s = score("duel", (95, 67))
    assert s.outcome == "made" and s.recorded == (95, 67)


def test_R2_82_makes() -> None:
    s = score("duel", (82, 80))
    assert s.outcome == "made" and s.recorded == (82, 80)


def test_R3_81_81_fails_defender_162() -> None:
    s = score("duel", (81, 81))
    assert s.outcome == "failed" and s.recorded == (0, 162)


def test_R4_taker_sweeps_16_tricks() -> None:
    s = score("duel", (162, 0), tricks=(16, 0))
    assert s.outcome == "made" and s.capot_side == A and s.recorded == (252, 0)


def test_R5_defender_sweeps_16_tricks() -> None:
    s = score("duel", (0, 162), tricks=(0, 16))
    assert s.outcome == "failed" and s.capot_side == B and s.recorded == (0, 252)


def test_duel_taker_may_be_side_1() -> None:
    s = score("duel", (90, 72), taker=B)
    assert s.outcome == "failed" and s.recorded == (162, 0)


def test_duel_has_no_match() -> None:
    # each deal is a game: whatever the totals, no match ends
    assert get_rules("duel").match_end((95, 67), score("duel", (90, 72))) is None
    assert match_winner("duel", (1000, 0)) is None


# =========================================================================== §8.7 litige carry-over


def test_edge7_second_litige_accumulates_then_paid_to_defence_on_failure() -> None:
    first = score("classic", (81, 81))
    second = score("classic", (71, 91), taker=A, bel=(20, 0), reserve=first.reserve)
    assert second.outcome == "litige" and second.reserve == 81 + 71
    assert second.reserve_paid == 0 and second.recorded == (20, 91)
    third = score("classic", (60, 102), taker=A, reserve=second.reserve)
    assert third.outcome == "failed"
    assert third.recorded == (0, 162 + 152) and third.reserve == 0 and third.reserve_paid_to == B


def test_edge7_belote_is_never_held_in_the_reserve() -> None:
    s = score("classic", (61, 81), bel=(20, 0), decl=(0, 0))
    assert s.outcome == "litige" and s.recorded == (20, 81) and s.reserve == 61


def test_edge7_litige_holds_attack_declarations_with_its_cards() -> None:
    s = score("classic", (61, 101), decl=(20, 0), bel=(20, 0))
    assert s.totals == (101, 101)
    assert s.outcome == "litige" and s.recorded == (20, 101) and s.reserve == 81


def test_edge7_reserve_is_not_part_of_the_match_decision() -> None:
    # The reserve is simply dropped at match end: match_winner looks at totals only.
    assert winner("classic", (1010, 990), 1000) == A


# =========================================================================== §8.8 .. §8.14


def test_edge8_bulgarian_hanging_under_contra_whole_hangs_paid_unmultiplied() -> None:
    s = score("bulgarian", (81, 81), denom="C", m=2)
    assert s.outcome == "hanging" and s.recorded == (0, 0) and s.reserve == 32
    nxt = score("bulgarian", (90, 72), denom="S", m=2, reserve=s.reserve)
    assert nxt.recorded == (32 + 32, 0) and nxt.reserve == 0
    grown = score("bulgarian", (81, 81), denom="C", m=4, reserve=s.reserve)
    assert grown.recorded == (0, 0) and grown.reserve == 32 + 64


def test_edge8_bulgarian_reserve_to_defenders_on_failure() -> None:
    s = score("bulgarian", (70, 92), denom="S", reserve=11)
    assert s.recorded == (0, 16 + 11) and s.reserve_paid_to == B


def test_edge9_capot_swept_side_loses_declarations_classic_coinche_bela() -> None:
    s = score("coinche", (162, 0), bid=80, tricks=(8, 0), decl=(0, 50), bel=(0, 20))
    assert s.decl_points == (0, 0) and s.totals == (252, 20)
    assert s.recorded == (80 + 250, 20)
    s = score("bela", (162, 0), tricks=(8, 0), decl=(0, 50))
    assert s.decl_points == (0, 0) and s.recorded == (252, 0)
    s = score("classic", (0, 162), tricks=(0, 8), decl=(100, 0))
    assert s.decl_points == (0, 0) and s.recorded == (0, 252)


def test_edge9_bulgarian_valat_side_keeps_declarations() -> None:
    s = score("bulgarian", (0, 162), tricks=(0, 8), decl=(50, 0))
    assert s.decl_points == (50, 0) and s.totals == (50, 252)
    assert s.outcome == "failed" and s.recorded == (0, 30)


def test_edge10_coinche_on_capot_made_and_failed() -> None:
    s = score("coinche", (162, 0), bid=250, m=2, tricks=(8, 0), bel=(20, 0))
    assert s.outcome == "made" and s.recorded == (820 + 20, 0)
    s = score("coinche", (162, 0), bid=250, m=4, tricks=(8, 0), decl=(50, 0))
    assert s.recorded == (1640 + 50, 0)
    s = score("coinche", (150, 12), bid=250, m=4, tricks=(7, 1), bel=(0, 20))
    assert s.outcome == "failed" and s.recorded == (0, 1640 + 20)


def test_edge10_coinche_capot_bid_fails_at_m1_even_with_every_point_but_one_trick() -> None:
    s = score("coinche", (152, 10), bid=250, tricks=(7, 1), decl=(50, 0), bel=(20, 0))
    assert s.outcome == "failed" and s.recorded == (20, 160 + 250 + 50)


def test_edge11_bid_met_but_tie_or_lower_fails() -> None:
    tie = score("coinche", (81, 81), bid=80)
    assert tie.outcome == "failed"
    lower = score("coinche", (50, 112), bid=100, decl=(50, 0))
    assert lower.totals == (100, 112)
    assert lower.outcome == "failed" and lower.recorded == (0, 160 + 100 + 50)


def test_edge12_round10_five_rounds_up() -> None:
    assert round10(113) == 110
    assert round10(115) == 120
    assert round10(125) == 130
    assert round10(49) == 50
    assert round10(0) == 0
    assert round10(272) == 270


def test_edge12_rounding_never_decides_success() -> None:
    s = score("coinche", (79, 83), bid=80)
    assert round10(79) == 80 and s.outcome == "failed" and s.recorded == (0, 240)
    s = score("coinche", (85, 77), bid=80)
    assert s.outcome == "made" and s.recorded == (80 + 90, 80)


def test_edge12_coinche_teams_rounded_independently() -> None:
    s = score("coinche", (115, 47), bid=80)
    assert s.recorded == (80 + 120, 50)  # 120 + 50 = 170, not 160


def test_edge13_bulgarian_rounding_16_to_2_and_34_to_3() -> None:
    assert bg_round(16, "H") == 2
    assert bg_round(34, "H") == 3


def test_edge13_bulgarian_rounding_85_77() -> None:
    assert bg_split(85, 77, "S") == (8, 8)


def test_edge13_bulgarian_rounding_86_76_special() -> None:
    assert bg_split(86, 76, "S") == (8, 8)
    assert bg_split(76, 86, "S") == (8, 8)


def test_edge13_bulgarian_rounding_106_106_tie() -> None:
    assert bg_split(106, 106, "C") == (11, 10)


def test_edge13_bulgarian_rounding_at_134_124() -> None:
    assert bg_split(134, 124, "AT") == (13, 13)
    assert bg_split(124, 134, "AT") == (13, 13)


def test_edge13_bulgarian_rounding_at_154_154_tie() -> None:
    assert bg_split(154, 154, "AT") == (16, 15)


def test_edge13_bulgarian_rounding_nt_values_even_no_special_case() -> None:
    for p in range(0, 261, 2):
        o = 260 - p
        assert bg_split(p, o, "NT") == (bg_round(p, "NT"), bg_round(o, "NT"))
        assert sum(bg_split(p, o, "NT")) == 26
    assert bg_split(156, 104, "NT") == (16, 10)


def test_edge13_thresholds_suit_5_down_at_5_up() -> None:
    assert bg_round(85, "D") == 8 and bg_round(86, "D") == 9
    assert bg_round(85, "AT") == 9 and bg_round(84, "AT") == 8
    assert bg_round(85, "NT") == 9


def test_edge14_bulgarian_nt_valat_350_to_35_and_no_match_end() -> None:
    s = score("bulgarian", (130, 0), denom="NT", tricks=(8, 0))
    assert s.totals == (350, 0) and s.recorded == (35, 0)
    assert winner("bulgarian", (180, 100), 151, valat_side=A) is None
    # The other team over the target does not end it either.
    assert winner("bulgarian", (60, 170), 151, valat_side=A) is None


def test_edge14_option_valat_can_end_without_bonus_subtracts_9() -> None:
    kw = {"valat_side": A, "can_end": True}
    assert winner("bulgarian", (160, 100), 151, **kw) == A
    assert winner("bulgarian", (159, 100), 151, **kw) is None


def test_edge14_option_subtracts_9_not_9_times_m() -> None:
    # Contra made with valat: P recorded 25 x 2 = 50, of which 18 came from the bonus.
    kw = {"valat_side": A, "can_end": True}
    assert winner("bulgarian", (165, 40), 151, recorded=(50, 0), **kw) == A


def test_edge14_option_failed_valat_team_recorded_no_bonus() -> None:
    kw = {"valat_side": A, "can_end": True}
    assert winner("bulgarian", (155, 160), 151, recorded=(0, 45), **kw) == B
    assert winner("bulgarian", (155, 160), 151, **kw) is None


def test_bulgarian_contra_made_with_valat_defenders_record_zero() -> None:
    # §14: §4.10 prevails over §4.11 - the swept defenders' carré is not recorded.
    s = score("bulgarian", (162, 0), m=2, tricks=(8, 0), decl=(0, 100))
    assert s.totals == (252, 100)
    assert s.recorded == (35 * 2, 0)  # R(352) x 2


def test_classic_capot_does_not_delay_the_match_end() -> None:
    assert winner("classic", (1100, 300), 1000, valat_side=A) == A


# =========================================================================== §8.23, §8.24


@pytest.mark.parametrize(
    ("variant", "totals", "target"),
    [
        ("classic", (1020, 1020), 1000),
        ("classic", (510, 510), 501),
        ("coinche", (1200, 1200), 1000),
        ("bulgarian", (151, 151), 151),
        ("bela", (1010, 1010), 1001),
        ("bela", (520, 520), 501),
        ("bela", (720, 720, 650), 701),
    ],
)
def test_edge23_match_tie_at_or_above_target_plays_another_deal(
    variant: str, totals: tuple[int, ...], target: int
) -> None:
    assert winner(variant, totals, target) is None


def test_edge23_target_reached_at_ge_single_highest_wins() -> None:
    assert winner("classic", (1000, 400), 1000) == A
    assert winner("classic", (999, 400), 1000) is None
    assert winner("coinche", (950, 1240), 1000) == B
    assert winner("bela", (700, 720, 705), 701) == 1
    assert winner("bela", (720, 720, 730), 701) == 2
    assert winner("bela", (300, 501), 501) == B


def test_edge24_one_deal_litige_defence_points_reserve_discarded_higher_wins() -> None:
    s = score("classic", (71, 91), bel=(20, 0))
    assert s.outcome == "litige" and s.recorded == (20, 91)
    assert winner("classic", s.recorded, None) == B


def test_edge24_one_deal_equal_totals_play_another_deal() -> None:
    assert winner("classic", (81, 81), None) is None
    assert winner("coinche", (0, 240), None) == B


# =========================================================================== §14 Scoring


def test_coinche_m1_failed_defence_gets_160_plus_bid_even_with_every_trick() -> None:
    s = score("coinche", (0, 162), bid=90, tricks=(0, 8), decl=(20, 0), bel=(20, 20))
    assert s.decl_points == (0, 0)  # the attack took no trick
    assert s.outcome == "failed" and s.recorded == (20, 160 + 90 + 20)


def test_coinche_belote_never_multiplied_stays_with_its_team() -> None:
    s = score("coinche", (101, 61), bid=90, m=2, bel=(0, 20), decl=(50, 0))
    assert s.outcome == "made" and s.recorded == (500 + 50, 20)
    s = score("coinche", (60, 102), bid=90, m=2, bel=(20, 0), decl=(0, 20))
    assert s.outcome == "failed" and s.recorded == (20, 500 + 20)


def test_coinche_made_defence_declarations_counted_when_it_won_a_trick() -> None:
    s = score("coinche", (112, 50), bid=80, decl=(0, 50))
    assert s.outcome == "made" and s.recorded == (80 + 110, 100)


def test_bulgarian_failed_bidders_belote_and_declarations_go_to_defenders() -> None:
    s = score("bulgarian", (60, 102), bel=(20, 0), decl=(50, 0))
    assert s.totals == (130, 102)
    assert s.outcome == "made"
    s = score("bulgarian", (40, 122), bel=(20, 0), decl=(20, 0))
    assert s.totals == (80, 122)
    assert s.outcome == "failed" and s.recorded == (0, 20)


def test_bela_hang_caller_records_zero_and_bela_hangs_too() -> None:
    s = score("bela", (61, 81), bel=(20, 0), tie_rule="hang")
    assert s.outcome == "hanging" and s.recorded == (0, 81) and s.reserve == 81
    nxt = score("bela", (100, 62), taker=B, reserve=s.reserve, tie_rule="hang")
    assert nxt.outcome == "failed" and nxt.recorded == (162 + 81, 0)
    assert nxt.reserve_paid_to == A
    made = score("bela", (62, 100), taker=B, reserve=s.reserve, tie_rule="hang")
    assert made.recorded == (62, 100 + 81) and made.reserve_paid_to == B


def test_bela_hang_three_players_tie_with_highest_opponent() -> None:
    s = score("bela", (60, 60, 42), tricks=(4, 4, 2), tie_rule="hang")
    assert s.outcome == "hanging" and s.recorded == (0, 60, 42) and s.reserve == 60
    # Below the highest opponent is a fall, hang option or not.
    fall = score("bela", (59, 61, 42), tricks=(4, 4, 2), tie_rule="hang")
    assert fall.outcome == "failed"


def test_bela_hang_three_players_reserve_split_d17_on_a_fall() -> None:
    s = score("bela", (70, 50, 42), taker=1, tricks=(4, 4, 2), reserve=61, tie_rule="hang")
    assert s.outcome == "failed"
    # Caller P1's 50 -> 25 / 25; reserve 61 -> 31 to P0 (larger own total) and 30 to P2.
    assert s.recorded == (70 + 25 + 31, 0, 42 + 25 + 30)
    assert s.reserve == 0 and s.reserve_paid == 61 and s.reserve_paid_to is None


def test_bela_three_players_odd_point_to_the_larger_own_total() -> None:
    s = score("bela", (61, 60, 41), taker=2, tricks=(4, 4, 2))
    assert s.outcome == "failed" and s.recorded == (61 + 21, 60 + 20, 0)
    s = score("bela", (60, 61, 41), taker=2, tricks=(4, 4, 2))
    assert s.recorded == (60 + 20, 61 + 21, 0)


def test_bela_three_players_odd_point_to_next_caller_on_equal_totals() -> None:
    # With 162 points in play equal opponents leave the caller an even total, so the
    # next(caller) rule only bites on an odd reserve.
    s = score(
        "bela",
        (61, 41, 60),
        taker=2,
        tricks=(4, 3, 3),
        decl=(0, 20, 0),
        reserve=81,
        tie_rule="hang",
    )
    assert s.totals == (61, 61, 60)
    assert s.outcome == "failed" and s.recorded == (61 + 30 + 41, 61 + 30 + 40, 0)


def test_bela_three_players_caller_without_trick_keeps_discards_loses_declarations() -> None:
    s = score("bela", (15, 80, 67), tricks=(0, 6, 4), decl=(50, 0, 0))
    assert s.decl_points == (0, 0, 0) and s.card_points == (15, 80, 67)
    assert s.outcome == "failed" and s.recorded == (0, 80 + 8, 67 + 7)


def test_bela_three_players_capot_bonus() -> None:
    s = score("bela", (12, 150, 0), taker=1, tricks=(0, 10, 0))
    assert s.capot_side == 1 and s.recorded == (12, 240, 0)


def test_bela_two_players_capot_is_points_in_play_plus_90() -> None:
    s = score("bela", (115, 0), tricks=(10, 0), total_tricks=10)
    assert s.recorded == (205, 0)


# =========================================================================== validation


def test_invalid_facts_are_refused() -> None:
    with pytest.raises(ValueError):
        score("belote", (92, 70))
    with pytest.raises(ValueError):
        score("classic", (92, 70), m=2)
    with pytest.raises(ValueError):
        score("coinche", (92, 70))
    with pytest.raises(ValueError):
        score("classic", (92, 70), tricks=(4, 3))
    with pytest.raises(ValueError):
        score("classic", (50, 50, 62), tricks=(3, 3, 2))
    with pytest.raises(ValueError):
        score("duel", (92, 70), bel=(20, 0))


# =========================================================================== §4.9 property

EXTRA_TENS = st.integers(min_value=0, max_value=80)  # declarations and belote / 10


@st.composite
def real_bulgarian_raw_pairs(draw: st.DrawFn) -> tuple[int, int, str]:
    denom = draw(st.sampled_from(["C", "D", "H", "S", "AT", "NT"]))
    valat = draw(st.booleans())
    if denom == "NT":  # no declarations, no belote; doubled cards are even
        total = 260 + (90 if valat else 0)
        p = 2 * draw(st.integers(min_value=0, max_value=total // 2))
    else:
        base = (162 if denom != "AT" else 258) + (90 if valat else 0)
        total = base + 10 * draw(EXTRA_TENS)
        p = draw(st.integers(min_value=0, max_value=total))
    return p, total - p, denom


@given(real_bulgarian_raw_pairs())
def test_bg_split_sums_to_rounded_whole(case: tuple[int, int, str]) -> None:
    p, o, denom = case
    assert sum(bg_split(p, o, denom)) == bg_round(p + o, denom)


def test_bg_split_typical_totals() -> None:
    assert bg_round(162, "S") == 16 and bg_round(258, "AT") == 26 and bg_round(260, "NT") == 26
    assert bg_round(252, "S") == 25 and bg_round(348, "AT") == 35 and bg_round(350, "NT") == 35


# =========================================================================== rounding notes as data


def test_round10_note_is_indexed_by_side_not_by_role() -> None:
    s = score("coinche", (49, 113), taker=B, denom="S", bid=100)
    assert s.outcome == "made" and s.recorded == (50, 210)
    assert s.rounding == {"kind": "round10", "raw": [49, 113], "rounded": [50, 110]}


def test_no_rounding_note_when_nothing_is_rounded() -> None:
    assert score("coinche", (70, 92), denom="S", bid=80).rounding is None  # failed
    assert score("coinche", (113, 49), denom="S", bid=100, m=2).rounding is None  # coinched
    assert score("classic", (92, 70)).rounding is None
    assert score("bela", (95, 67), denom="C").rounding is None
    assert score("duel", (100, 62), tricks=(9, 7), total_tricks=16).rounding is None


def test_bg_split_note_made() -> None:
    s = score("bulgarian", (85, 77), denom="S")
    assert s.recorded == (8, 8)
    assert s.rounding == {
        "kind": "bg_split",
        "raw": [85, 77],
        "split": [8, 8],
        "problem_case": False,
    }


def test_bg_split_note_problem_case_taker_on_side_b() -> None:
    s = score("bulgarian", (76, 86), taker=B, denom="S")
    assert s.outcome == "made" and s.recorded == (8, 8)
    assert s.rounding == {
        "kind": "bg_split",
        "raw": [76, 86],
        "split": [8, 8],
        "problem_case": True,
    }


def test_bg_split_note_hanging() -> None:
    s = score("bulgarian", (81, 81), denom="C")
    assert s.outcome == "hanging"
    assert s.rounding == {
        "kind": "bg_split",
        "raw": [81, 81],
        "split": [8, 8],
        "problem_case": False,
    }


def test_bg_whole_note_failed_and_contra() -> None:
    s = score("bulgarian", (60, 102), denom="H")
    assert s.outcome == "failed" and s.recorded == (0, 16)
    assert s.rounding == {
        "kind": "bg_whole",
        "raw": [60, 102],
        "total": 162,
        "rounded_total": 16,
        "multiplier": 1,
    }
    s = score("bulgarian", (90, 72), denom="S", m=2)
    assert s.outcome == "made" and s.recorded == (32, 0)
    assert s.rounding == {
        "kind": "bg_whole",
        "raw": [90, 72],
        "total": 162,
        "rounded_total": 16,
        "multiplier": 2,
    }


def test_score_deal_needs_no_other_import_to_find_a_variant() -> None:
    # score_deal sits beside the registry: importing it alone, in a fresh interpreter, scores
    # a deal (no registry filled by another module's import)
    code = (
        "from app.engine.scoring import DealFacts\n"
        "from app.engine.variants import score_deal\n"
        "f = DealFacts('classic', 0, 'H', None, 1, (92, 70), (4, 4), 8, (0, 0), (0, 0), 0)\n"
        "print(score_deal(f).recorded)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "(92, 70)"
