"""Declarations: RULES.md §1.1-§1.3, §8.1-§8.3 and §14 (Manual declarations)."""

from __future__ import annotations

import json

import pytest

from app.engine.cards import CLUBS, HEARTS, R9, RA, RJ, RK, RQ, RT, SPADES, mask_of, parse_cards
from app.engine.declarations import (
    Combo,
    DeclarationError,
    auto_declaration,
    best_bulgarian,
    best_unified,
    carres_in,
    declarable_sets,
    make_carre,
    make_sequence,
    parse_declaration,
    runs_in,
)

TEAMS = (0, 1, 0, 1)
ORDER = (0, 1, 2, 3)


def h(text: str) -> int:
    return mask_of(parse_cards(text.split()))


def labels(combos: tuple[Combo, ...] | list[Combo]) -> list[str]:
    return [c.label() for c in combos]


# --------------------------------------------------------------------------- §1.1 runs


def test_runs_are_maximal_per_suit() -> None:
    runs = runs_in(h("7H 8H 9H JH QH KH AH 7S"))
    assert labels(runs) == ["9-8-7H", "A-K-Q-JH"]
    assert [r.points for r in runs] == [20, 50]
    assert runs[1].top == RA and runs[1].suit == HEARTS and runs[1].length == 4


def test_run_values_tierce_quarte_quinte_and_longer() -> None:
    assert runs_in(h("9C TC JC"))[0].points == 20
    assert runs_in(h("9C TC JC QC"))[0].points == 50
    assert runs_in(h("9C TC JC QC KC"))[0].points == 100
    six = runs_in(h("8C 9C TC JC QC KC"))
    assert len(six) == 1 and six[0].length == 6 and six[0].points == 100  # not 3+3


def test_eight_card_run_is_one_combo_of_length_8() -> None:
    (run,) = runs_in(h("7D 8D 9D TD JD QD KD AD"))
    assert run.length == 8 and run.points == 100


def test_no_wrap_around_from_ace_to_seven() -> None:
    assert runs_in(h("KS AS 7S 8S")) == []
    assert labels(runs_in(h("QS KS AS 7S 8S"))) == ["A-K-QS"]


def test_two_cards_or_gaps_make_no_run() -> None:
    assert runs_in(h("7C 8C TC JC KD AD")) == []


# --------------------------------------------------------------------------- §1.1 carrés


@pytest.mark.parametrize(
    ("rank", "points"),
    [("J", 200), ("9", 150), ("A", 100), ("T", 100), ("K", 100), ("Q", 100)],
)
def test_carre_values(rank: str, points: int) -> None:
    (carre,) = carres_in(h(" ".join(rank + s for s in "CDHS")))
    assert carre.kind == "carre" and carre.points == points and carre.length == 4
    assert carre.suit == -1


@pytest.mark.parametrize("rank", ["7", "8"])
def test_four_sevens_or_eights_are_no_carre(rank: str) -> None:
    assert carres_in(h(" ".join(rank + s for s in "CDHS"))) == []


def test_two_carres_strongest_first() -> None:
    carres = carres_in(h("QC QD QH QS JC JD JH JS"))
    assert [c.top for c in carres] == [RJ, RQ]


# --------------------------------------------------------------------------- §8.3, §14


QUEENS_AND_QUINTE = "QC QD QH QS KS JS TS 9S"


def test_one_card_one_declaration_declarable_sets_of_the_section_14_example() -> None:
    options = {tuple(labels(o)) for o in declarable_sets(h(QUEENS_AND_QUINTE))}
    assert options == {
        (),
        ("K-Q-J-T-9S",),
        ("carre QQQQ",),
        ("carre QQQQ", "J-T-9S"),
    }
    assert len(declarable_sets(h(QUEENS_AND_QUINTE))) == 4  # no duplicates


def test_manual_declare_accepts_the_three_legal_choices() -> None:
    hand = h(QUEENS_AND_QUINTE)
    quinte = parse_declaration(hand, [h("KS QS JS TS 9S")])
    assert labels(quinte) == ["K-Q-J-T-9S"] and quinte[0].points == 100
    both = parse_declaration(hand, [h("QC QD QH QS"), h("JS TS 9S")])
    assert labels(both) == ["carre QQQQ", "J-T-9S"]
    assert labels(parse_declaration(hand, [h("QC QD QH QS")])) == ["carre QQQQ"]
    assert parse_declaration(hand, []) == ()


def test_manual_declare_refuses_jt9_alone() -> None:
    with pytest.raises(DeclarationError, match=r"sequence must be a maximal run: J-T-9S"):
        parse_declaration(h(QUEENS_AND_QUINTE), [h("JS TS 9S")])


def test_manual_declare_refuses_a_card_in_a_carre_and_a_sequence() -> None:
    with pytest.raises(DeclarationError, match=r"card used twice: QS"):
        parse_declaration(h(QUEENS_AND_QUINTE), [h("QC QD QH QS"), h("KS QS JS TS 9S")])


def test_manual_declare_refuses_a_non_combination() -> None:
    with pytest.raises(DeclarationError, match=r"not a combination: 7H 8H"):
        parse_declaration(h("7H 8H 9H"), [h("7H 8H")])
    with pytest.raises(DeclarationError, match=r"not a combination: 7C 7D 7H 7S"):
        parse_declaration(h("7C 7D 7H 7S"), [h("7C 7D 7H 7S")])
    with pytest.raises(DeclarationError, match=r"not a combination"):
        parse_declaration(h("7H 8H 9H"), [0])


def test_manual_declare_refuses_cards_not_held() -> None:
    with pytest.raises(DeclarationError, match=r"not held: JS"):
        parse_declaration(h("QS KS 7C"), [h("JS QS KS")])


def test_manual_declare_refuses_the_same_combination_twice() -> None:
    with pytest.raises(DeclarationError, match=r"card used twice"):
        parse_declaration(h("JS QS KS"), [h("JS QS KS"), h("JS QS KS")])


def test_manual_declare_refuses_part_of_a_longer_run() -> None:
    with pytest.raises(DeclarationError, match=r"maximal run: K-Q-JS"):
        parse_declaration(h("AS KS QS JS"), [h("KS QS JS")])


def test_every_declarable_set_parses_back() -> None:
    for hand_text in (QUEENS_AND_QUINTE, "JC JD JH JS 9S TS QS KS", "7H 8H 9H JH QH KH AH 7S"):
        hand = h(hand_text)
        for option in declarable_sets(hand):
            assert parse_declaration(hand, [c.mask for c in option]) == option


# --------------------------------------------------------------------------- §1.2 auto


def test_auto_declare_most_points_carre_and_tierce_beat_the_quinte() -> None:
    assert labels(auto_declaration(h(QUEENS_AND_QUINTE))) == ["carre QQQQ", "J-T-9S"]


def test_auto_declare_carre_of_jacks_beats_the_quinte_through_it() -> None:
    assert labels(auto_declaration(h("JC JD JH JS 9S TS QS KS"))) == ["carre JJJJ"]


def test_auto_declare_equal_points_strongest_single_key_carre_beats_quinte() -> None:
    # Carré of queens (100) or A-K-Q-J-T♣ (100): the carré has the stronger key.
    assert labels(auto_declaration(h("TC JC QC KC AC QD QH QS"))) == ["carre QQQQ"]
    assert labels(auto_declaration(h("8C 9C TC JC QC TD TH TS"))) == ["carre TTTT"]


def test_auto_declare_takes_every_run_and_nothing_when_nothing_held() -> None:
    assert labels(auto_declaration(h("7H 8H 9H JH QH KH AH 7S"))) == ["9-8-7H", "A-K-Q-JH"]
    assert auto_declaration(h("7C 9C JC KC 7D 9D JD KD")) == ()


# --------------------------------------------------------------------------- §1.3 unified


def test_unified_single_best_declaration_decides_not_the_sum() -> None:
    # Seat 1: tierce to the ace; seat 0: two lower tierces (more points in total).
    announced = [
        (make_sequence(CLUBS, RJ, 3), make_sequence(HEARTS, RJ, 3)),
        (make_sequence(SPADES, RA, 3),),
        (),
        (),
    ]
    assert best_unified(announced, TEAMS, HEARTS, ORDER) == 1


def test_unified_carre_beats_quinte_section_8_2() -> None:
    announced = [(make_sequence(SPADES, RA, 5),), (make_carre(RQ),), (), ()]
    assert best_unified(announced, TEAMS, SPADES, ORDER) == 1


def test_unified_longer_run_and_higher_top_win() -> None:
    six = make_sequence(CLUBS, RK, 6)
    five = make_sequence(SPADES, RA, 5)
    assert best_unified([(five,), (six,), (), ()], TEAMS, None, ORDER) == 1
    akq = make_sequence(CLUBS, RA, 3)
    kqj = make_sequence(HEARTS, RK, 3)
    assert best_unified([(kqj,), (), (), (akq,)], TEAMS, HEARTS, ORDER) == 1


def test_unified_full_tie_trump_sequence_wins_section_8_1() -> None:
    plain = make_sequence(CLUBS, RK, 4)
    trump = make_sequence(SPADES, RK, 4)
    # The trump quarte wins even though its holder plays later.
    assert best_unified([(plain,), (), (), (trump,)], TEAMS, SPADES, ORDER) == 1
    assert best_unified([(trump,), (), (), (plain,)], TEAMS, SPADES, ORDER) == 0


def test_unified_full_tie_no_trump_earlier_player_from_eldest_wins_section_8_1() -> None:
    a = make_sequence(CLUBS, RK, 4)
    b = make_sequence(HEARTS, RK, 4)
    announced = [(a,), (b,), (), ()]
    assert best_unified(announced, TEAMS, SPADES, (0, 1, 2, 3)) == 0
    # Seat 2 is eldest: order 2, 3, 0, 1 - seat 0 still plays before seat 1.
    assert best_unified(announced, TEAMS, SPADES, (2, 3, 0, 1)) == 0
    # Seat 1 is eldest.
    assert best_unified(announced, TEAMS, SPADES, (1, 2, 3, 0)) == 1


def test_unified_all_trumps_no_trump_priority_play_order_decides() -> None:
    a = make_sequence(CLUBS, RK, 4)
    b = make_sequence(HEARTS, RK, 4)
    assert best_unified([(), (b,), (a,), ()], TEAMS, None, (2, 3, 0, 1)) == 0


def test_unified_nobody_declared() -> None:
    assert best_unified([(), (), (), ()], TEAMS, HEARTS, ORDER) is None


def test_unified_three_players_each_for_himself() -> None:
    announced = [(make_sequence(CLUBS, RT, 3),), (), (make_sequence(SPADES, RQ, 3),)]
    assert best_unified(announced, (0, 1, 2), HEARTS, (1, 2, 0)) == 2


# --------------------------------------------------------------------------- §1.3 bulgarian


def test_bulgarian_equal_best_sequences_cancel_but_carres_still_contested() -> None:
    announced = [
        (make_sequence(HEARTS, RK, 4), make_carre(R9)),
        (make_sequence(SPADES, RK, 4), make_carre(RJ)),
        (make_sequence(CLUBS, RT, 3),),
        (),
    ]
    assert best_bulgarian(announced, TEAMS) == (None, 1)


def test_bulgarian_carre_and_quinte_score_for_different_teams_section_8_2() -> None:
    announced = [(make_sequence(SPADES, RA, 5),), (make_carre(RQ),), (), ()]
    assert best_bulgarian(announced, TEAMS) == (0, 1)


def test_bulgarian_sequences_compare_by_length_then_top() -> None:
    announced = [(make_sequence(SPADES, RA, 4),), (), (), (make_sequence(CLUBS, RJ, 5),)]
    assert best_bulgarian(announced, TEAMS) == (1, None)
    announced = [(make_sequence(SPADES, RA, 4),), (), (), (make_sequence(CLUBS, RK, 4),)]
    assert best_bulgarian(announced, TEAMS) == (0, None)


def test_bulgarian_equal_sequences_of_partners_do_not_cancel() -> None:
    announced = [(make_sequence(SPADES, RK, 3),), (), (make_sequence(CLUBS, RK, 3),), ()]
    assert best_bulgarian(announced, TEAMS) == (0, None)


def test_bulgarian_nothing_declared() -> None:
    assert best_bulgarian([(), (), (), ()], TEAMS) == (None, None)


# --------------------------------------------------------------------------- describe


def test_describe_never_contains_card_identities() -> None:
    hand = h("QC QD QH QS KS JS TS 9S")
    seen = []
    for option in declarable_sets(hand) + declarable_sets(h("7D 8D 9D TD JD QD KD AD")):
        for combo in option:
            d = combo.describe()
            json.dumps(d)
            assert "mask" not in d and "cards" not in d
            text = json.dumps(d)
            for card in ("QC", "QD", "QH", "QS", "KS", "JS", "TS", "9S", "7D", "AD"):
                assert card not in text
            seen.append(d)
    assert {"kind": "carre", "rank": "Q", "points": 100} in seen
    assert {"kind": "sequence", "length": 5, "top": "K", "suit": "S", "points": 100} in seen


def test_describe_formats() -> None:
    assert make_sequence(HEARTS, RK, 4).describe() == {
        "kind": "sequence",
        "length": 4,
        "top": "K",
        "suit": "H",
        "points": 50,
    }
    assert make_carre(R9).describe() == {"kind": "carre", "rank": "9", "points": 150}
    assert make_sequence(CLUBS, RT, 3).describe()["top"] == "T"


def test_unified_keys() -> None:
    assert make_carre(RJ).key() == (200, 1, 4, 5)
    assert make_carre(RQ).key() == (100, 1, 4, 0)
    assert make_sequence(SPADES, RK, 5).key() == (100, 0, 5, RK)
    assert make_carre(RT).key() > make_sequence(SPADES, RA, 8).key()
