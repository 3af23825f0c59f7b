"""Why a card is refused, as data: ``IllegalAction.reason`` and ``explain_illegal_card``.

One test per code of docs/engine.md ("Why a card is refused"), on the positions of the §8 edge
cases, and a property over seeded games of every variant: the reason ``explain_illegal_card``
gives for any card and seat is the one ``apply`` refuses it with, and None exactly when
``apply`` accepts the card.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.engine import (
    IllegalAction,
    Phase,
    State,
    apply,
    explain_illegal_card,
    legal_actions,
    new_match,
    start_deal,
)
from app.engine.actions import PLAYS, Play, action_from_json
from app.engine.cards import parse_card

from .helpers import deal, do, legal_cards, play
from .test_edge_cases import BELA_HANDS, BELA_TALONS, UNDERTRUMP_HANDS, bela4, classic_free


def refusal(state: State, card: str, *, belote: bool = False) -> IllegalAction:
    """The refusal of ``card`` by the seat to act, checked against explain_illegal_card."""
    with pytest.raises(IllegalAction) as info:
        apply(state, action_from_json({"type": "play", "card": card, "belote": belote}))
    if not belote:
        assert explain_illegal_card(state, state.to_act, parse_card(card)) == info.value.reason
    return info.value


def test_must_follow() -> None:
    hands = dict(UNDERTRUMP_HANDS)
    hands[0] = ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "AD"]
    hands[1] = ["7S", "AC", "KC", "QC", "JC", "TC", "9C", "8C"]
    hands[3] = ["AH", "KH", "QH", "TH", "9H", "8H", "7D", "JH"]
    hands[2] = ["7H", "7C", "KD", "QD", "JD", "TD", "9D", "8D"]
    state = do(classic_free(hands, contract="H"), *play("AS"))
    exc = refusal(state, "AC")
    assert str(exc) == "must follow suit: holds 7S"
    assert exc.reason == {"code": "must_follow", "suit": "S", "card": "AC", "legal": ["7S"]}


TRUMP_LEAD_HANDS = {
    0: ["8H", "AS", "KS", "QS", "JS", "TS", "9S", "8S"],
    1: ["9C", "AC", "KC", "QC", "JC", "TC", "8C", "7S"],
    2: ["JH", "7H", "7C", "AD", "KD", "QD", "JD", "TD"],
    3: ["AH", "KH", "QH", "TH", "9H", "9D", "8D", "7D"],
}


def test_must_overtake_on_a_trump_lead() -> None:
    state = do(classic_free(TRUMP_LEAD_HANDS, contract="H"), *play("8H", "9C"))
    exc = refusal(state, "7H")
    assert str(exc) == "must overtake in the led suit: holds JH"
    assert exc.reason == {
        "code": "must_overtake",
        "suit": "H",
        "over": "8H",
        "card": "7H",
        "legal": ["JH"],
    }


def test_must_overtake_also_refuses_another_suit() -> None:
    state = do(classic_free(TRUMP_LEAD_HANDS, contract="H"), *play("8H", "9C"))
    exc = refusal(state, "7C")
    assert str(exc) == "must follow suit and overtake: holds JH"
    assert exc.reason is not None and exc.reason["code"] == "must_overtake"
    assert exc.reason["card"] == "7C" and exc.reason["over"] == "8H"


def test_must_overtake_in_a_plain_suit_in_bela() -> None:
    state = do(bela4(BELA_HANDS, BELA_TALONS), *play("9S", "7S"))
    exc = refusal(state, "8S")
    assert str(exc) == "must beat the highest card of the led suit: holds KS"
    assert exc.reason == {
        "code": "must_overtake",
        "suit": "S",
        "over": "9S",
        "card": "8S",
        "legal": ["KS"],
    }


def test_must_trump() -> None:
    hands = {
        0: ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "AD"],
        1: ["7H", "AC", "KC", "QC", "JC", "TC", "9C", "8C"],
        2: ["7S", "7C", "KD", "QD", "JD", "TD", "9D", "8D"],
        3: ["AH", "KH", "QH", "TH", "9H", "8H", "JH", "7D"],
    }
    state = do(classic_free(hands), *play("AS"))
    exc = refusal(state, "AC")
    assert str(exc) == "must trump: holds 7H"
    assert exc.reason == {"code": "must_trump", "suit": "H", "card": "AC", "legal": ["7H"]}


def test_must_overtrump() -> None:
    hands = {
        0: ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "AD"],
        1: ["8H", "AC", "KC", "QC", "JC", "TC", "9C", "8C"],
        2: ["JH", "7H", "KD", "QD", "JD", "TD", "9D", "8D"],
        3: ["AH", "KH", "QH", "TH", "9H", "7S", "7C", "7D"],
    }
    state = do(classic_free(hands), *play("AS", "8H"))
    for card in ("7H", "KD"):  # a lower trump, or no trump at all
        exc = refusal(state, card)
        assert str(exc) == "must overtrump: holds JH"
        assert exc.reason == {
            "code": "must_overtrump",
            "suit": "H",
            "over": "8H",
            "card": card,
            "legal": ["JH"],
        }


def test_must_undertrump() -> None:
    state = do(classic_free(UNDERTRUMP_HANDS), *play("AS", "JH"))
    exc = refusal(state, "AD")
    assert str(exc) == "must undertrump: holds 7H"
    assert exc.reason == {
        "code": "must_undertrump",
        "suit": "H",
        "over": "JH",
        "card": "AD",
        "legal": ["7H"],
    }


def test_not_your_turn() -> None:
    state = classic_free(UNDERTRUMP_HANDS)
    assert state.to_act == 0
    with pytest.raises(IllegalAction) as info:
        apply(state, PLAYS[parse_card("JH")], seat=1)
    assert str(info.value) == "not your turn: seat 0 is to act"
    assert info.value.reason == {"code": "not_your_turn", "seat": 0}
    assert explain_illegal_card(state, 1, parse_card("JH")) == info.value.reason


def test_not_your_turn_in_the_bidding() -> None:
    state = new_match("coinche", seed=1)
    other = (state.to_act + 1) % 4
    with pytest.raises(IllegalAction) as info:
        apply(state, action_from_json({"type": "pass"}), seat=other)
    assert info.value.reason == {"code": "not_your_turn", "seat": state.to_act}


def test_not_in_hand() -> None:
    state = classic_free(UNDERTRUMP_HANDS)
    exc = refusal(state, "JH")  # seat 1's
    assert str(exc) == "not in hand: JH"
    assert exc.reason == {"code": "not_in_hand", "card": "JH"}


def test_face_down() -> None:
    wanted = {
        ("down", 1): ["AS", "8C", "9C", "TC", "JC", "QC", "KC", "AC"],
        ("faceup", 1): ["KS", "7D", "8D", "9D", "TD", "JD", "QD", "KD"],
        ("down", 0): ["QS", "7H", "8H", "9H", "TH", "JH", "QH", "KH"],
        ("faceup", 0): ["AD", "7C", "AH", "7S", "8S", "9S", "TS", "JS"],
    }
    state = deal("duel", wanted, dealer=0, players=2)
    state = do(state, {"type": "bid", "contract": "S"}, *play("KS"))
    exc = refusal(state, "QS")
    assert str(exc) == "QS is face down and cannot be played"
    assert exc.reason == {"code": "face_down", "card": "QS"}
    exc = refusal(state, "7S")  # and the play rule as in every variant
    assert exc.reason is not None and exc.reason["code"] == "must_overtake"
    assert exc.reason["legal"] == ["9S", "TS", "JS"]


def test_no_card_play_outside_the_card_play() -> None:
    state = new_match("classic", seed=3)
    assert state.phase is Phase.BIDDING
    hand_card = next(c for c in range(32) if state.hands[state.to_act] >> c & 1)
    assert explain_illegal_card(state, state.to_act, hand_card) == {
        "code": "no_card_play",
        "phase": "bidding",
    }
    with pytest.raises(IllegalAction) as info:
        apply(state, Play(hand_card))
    assert str(info.value) == "play: the bidding is not over"
    assert info.value.reason == {"code": "no_card_play", "phase": "bidding"}


def test_belote_automatic() -> None:
    state = classic_free(UNDERTRUMP_HANDS)
    exc = refusal(state, "AS", belote=True)
    assert str(exc) == "belote: belote is announced automatically"
    assert exc.reason == {"code": "belote_automatic", "card": "AS"}


def test_no_belote() -> None:
    state = bela4(BELA_HANDS, BELA_TALONS)  # bela: belote is announced by hand
    exc = refusal(state, "9S", belote=True)
    assert str(exc) == "belote: 9S cannot make belote now"
    assert exc.reason == {"code": "no_belote", "card": "9S"}


def test_a_legal_card_has_no_reason() -> None:
    state = do(classic_free(UNDERTRUMP_HANDS), *play("AS", "JH"))
    assert legal_cards(state) == {"7H"}
    assert explain_illegal_card(state, state.to_act, parse_card("7H")) is None


CONFIGS: list[tuple[str, int | None, dict[str, Any]]] = [
    ("classic", None, {}),
    ("classic", None, {"bidding_mode": "free"}),
    ("coinche", None, {"allow_sa_ta": True}),
    ("bulgarian", None, {}),
    ("bela", 2, {}),
    ("bela", 3, {}),
    ("bela", 4, {}),
    ("duel", None, {}),
]


@pytest.mark.parametrize("variant,players,options", CONFIGS)
def test_explain_illegal_card_agrees_with_apply(
    variant: str, players: int | None, options: dict[str, Any]
) -> None:
    rng = random.Random(11)
    state = new_match(variant, players, options, rng=rng)
    codes: set[str] = set()
    for _ in range(400):
        if state.phase is Phase.MATCH_OVER:
            state = new_match(variant, players, options, rng=rng)
        if state.phase is Phase.DEAL_OVER:
            state, _ = start_deal(state, rng)
            continue
        seats = range(state.rules.players) if state.phase is Phase.PLAY else [state.to_act]
        for seat in seats:
            for card in range(32):
                reason = explain_illegal_card(state, seat, card)
                try:
                    apply(state, PLAYS[card], seat)
                except IllegalAction as exc:
                    assert exc.reason is not None and exc.reason == reason
                    codes.add(exc.reason["code"])
                    if "legal" in exc.reason:
                        assert set(exc.reason["legal"]) == legal_cards(state)
                else:
                    assert reason is None
        state, _ = apply(state, rng.choice(legal_actions(state)))
    assert {"not_your_turn", "not_in_hand", "no_card_play"} <= codes
