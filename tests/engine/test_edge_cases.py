"""RULES.md §8 edge cases that concern dealing, bidding and play, built from exact decks.

The scoring-only edge cases (§8.1-3, 7-14, 23-24, 30) are in test_scoring.py and
test_declarations.py; §8.7 and §8.25 also have state-machine tests here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.engine import (
    IllegalAction,
    Phase,
    action_from_json,
    action_to_json,
    apply,
    next_to_move,
    out_of_turn_actions,
    seat_view,
    spectator_view,
    start_deal,
)
from app.engine.cards import format_card
from app.engine.cli import random_record
from app.engine.record import replay, replayed_states, summary

from .dealing import hand_strs
from .helpers import deal, do, finish_randomly, legal_cards, legal_json, passes, play

FREE = {"bidding_mode": "free"}


def classic_free(hands, bidder=0, contract="H", dealer=3, options=None):
    """Classic free mode; ``bidder`` bids ``contract`` and the others pass."""
    state = deal("classic", hands, dealer=dealer, options={**FREE, **(options or {})}, free=True)
    eldest = (dealer + 1) % 4
    before = (bidder - eldest) % 4
    return do(state, *passes(before), {"type": "bid", "contract": contract}, *passes(3))


UNDERTRUMP_HANDS = {
    0: ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S"],
    1: ["JH", "AC", "KC", "QC", "JC", "TC", "9C", "8C"],
    2: ["7H", "7C", "AD", "KD", "QD", "JD", "TD", "9D"],
    3: ["AH", "KH", "QH", "TH", "9H", "8H", "8D", "7D"],
}


def test_8_15_undertrump_required_in_classic():
    state = classic_free(UNDERTRUMP_HANDS)
    state = do(state, *play("AS", "JH"))
    assert legal_cards(state) == {"7H"}
    with pytest.raises(IllegalAction, match="must undertrump: holds 7H"):
        do(state, *play("AD"))


def test_8_15_undertrump_option_off_allows_a_discard():
    state = classic_free(UNDERTRUMP_HANDS, options={"undertrump_required": False})
    state = do(state, *play("AS", "JH"))
    assert "AD" in legal_cards(state) and "7H" in legal_cards(state)


def test_8_15_bulgarian_may_discard_instead_of_undertrumping():
    hands = {
        0: UNDERTRUMP_HANDS[0][:5],
        ("rest", 0): UNDERTRUMP_HANDS[0][5:],
        1: UNDERTRUMP_HANDS[1][:5],
        ("rest", 1): UNDERTRUMP_HANDS[1][5:],
        2: UNDERTRUMP_HANDS[2][:5],
        ("rest", 2): UNDERTRUMP_HANDS[2][5:],
        3: UNDERTRUMP_HANDS[3][:5],
        ("rest", 3): UNDERTRUMP_HANDS[3][5:],
    }
    state = deal("bulgarian", hands, dealer=3)
    state = do(state, {"type": "bid", "contract": "H"}, *passes(3), *play("AS", "JH"))
    assert legal_cards(state) == hand_strs(state.hands[2])
    state = do(state, *play("AD"))
    assert state.trick[-1] == (2, state.trick[-1][1])


def test_must_trump_when_void_and_opponent_master():
    hands = {
        0: ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "AD"],
        1: ["7H", "AC", "KC", "QC", "JC", "TC", "9C", "8C"],
        2: ["7S", "7C", "KD", "QD", "JD", "TD", "9D", "8D"],
        3: ["AH", "KH", "QH", "TH", "9H", "8H", "JH", "7D"],
    }
    state = classic_free(hands)
    state = do(state, *play("AS"))
    assert legal_cards(state) == {"7H"}
    with pytest.raises(IllegalAction, match="must trump: holds 7H"):
        do(state, *play("AC"))


def test_must_overtrump_names_the_higher_trumps():
    hands = {
        0: ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "AD"],
        1: ["8H", "AC", "KC", "QC", "JC", "TC", "9C", "8C"],
        2: ["JH", "7H", "KD", "QD", "JD", "TD", "9D", "8D"],
        3: ["AH", "KH", "QH", "TH", "9H", "7S", "7C", "7D"],
    }
    # seat 3 is to play after 0, 1, 2 -- make seat 1 the one who overtrumps instead:
    state = classic_free(hands)
    state = do(state, *play("AS", "8H"))  # seat 1 trumps (opponent master)
    assert legal_cards(state) == {"JH"}  # seat 2 must overtrump, not undertrump with 7H
    with pytest.raises(IllegalAction, match="must overtrump: holds JH"):
        do(state, *play("7H"))


def test_must_follow_suit_names_the_cards():
    hands = dict(UNDERTRUMP_HANDS)
    hands[0] = ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "AD"]
    hands[1] = ["7S", "AC", "KC", "QC", "JC", "TC", "9C", "8C"]
    hands[3] = ["AH", "KH", "QH", "TH", "9H", "8H", "7D", "JH"]
    hands[2] = ["7H", "7C", "KD", "QD", "JD", "TD", "9D", "8D"]
    state = classic_free(hands, contract="H")
    state = do(state, *play("AS"))
    assert legal_cards(state) == {"7S"}
    with pytest.raises(IllegalAction, match="must follow suit: holds 7S"):
        do(state, *play("AC"))


PARTNER_HANDS = {
    0: ["AS", "KD", "QD", "JD", "TD", "9D", "8D", "7D"],
    1: ["7S", "AC", "KC", "QC", "JC", "TC", "9C", "8C"],
    2: ["7H", "8H", "7C", "AH", "KH", "QH", "JH", "TH"],
    3: ["9S", "8S", "KS", "QS", "JS", "TS", "9H", "AD"],
}


def test_8_16_partner_master_frees_the_void_player_in_classic():
    state = classic_free(PARTNER_HANDS, contract="H")
    state = do(state, *play("AS", "7S"))
    assert legal_cards(state) == hand_strs(state.hands[2])  # void in spades, partner master


def test_8_28_partner_master_and_choosing_a_lower_trump():
    hands = {
        1: ["7S", "AC", "KC", "QC", "JC", "TC", "9C", "8C"],
        2: ["AH", "KD", "QD", "JD", "TD", "9D", "8D", "7D"],
        3: ["8S", "9S", "TS", "JS", "QS", "KS", "AS", "AD"],
        0: ["7H", "8H", "9H", "TH", "JH", "QH", "KH", "7C"],
    }
    state = classic_free(hands, bidder=1, contract="H", dealer=0)
    state = do(state, *play("7S", "AH", "8S"))  # seat 2 trumps with AH, seat 3 follows
    legal = legal_cards(state)
    assert "7H" in legal and "7C" in legal and legal == hand_strs(state.hands[0])


def test_8_17_trump_lead_must_be_overtaken_even_over_the_partner():
    hands = {
        0: ["8H", "AS", "KS", "QS", "JS", "TS", "9S", "8S"],
        1: ["9C", "AC", "KC", "QC", "JC", "TC", "8C", "7S"],
        2: ["JH", "7H", "7C", "AD", "KD", "QD", "JD", "TD"],
        3: ["AH", "KH", "QH", "TH", "9H", "9D", "8D", "7D"],
    }
    state = classic_free(hands, contract="H")
    state = do(state, *play("8H", "9C"))  # seat 1 is void in trumps: anything goes
    assert legal_cards(state) == {"JH"}  # the partner's 8H must be overtaken
    with pytest.raises(IllegalAction, match="must overtake in the led suit: holds JH"):
        do(state, *play("7H"))
    with pytest.raises(IllegalAction, match="must follow suit and overtake: holds JH"):
        do(state, *play("7C"))


def test_8_29_void_on_a_trump_lead_plays_anything():
    state = classic_free(UNDERTRUMP_HANDS, bidder=0, contract="S")
    state = do(state, *play("7S"))
    assert legal_cards(state) == hand_strs(state.hands[1])


def bela4(hands6, talons, dealer=3, caller=0, contract="H", options=None):
    wanted = {**{s: h for s, h in hands6.items()}, **{("talon", s): t for s, t in talons.items()}}
    state = deal("bela", wanted, dealer=dealer, players=4, options=options)
    eldest = (dealer + 1) % 4
    return do(state, *passes((caller - eldest) % 4), {"type": "bid", "contract": contract})


BELA_HANDS = {
    0: ["9S", "KD", "QD", "JD", "TD", "9D"],
    1: ["7S", "AC", "KC", "QC", "JC", "TC"],
    2: ["7H", "8H", "KS", "8S", "AD", "8D"],
    3: ["AS", "TS", "QS", "JS", "AH", "KH"],
}
BELA_TALONS = {0: ["7D", "9C"], 1: ["8C", "7C"], 2: ["QH", "JH"], 3: ["TH", "9H"]}


def test_8_16_bela_must_beat_the_partner_in_the_led_suit():
    state = bela4(BELA_HANDS, BELA_TALONS)
    assert state.phase is Phase.PLAY
    state = do(state, *play("9S", "7S"))
    assert legal_cards(state) == {"KS"}  # must beat 9S, even though the partner is master
    with pytest.raises(IllegalAction, match="must beat the highest card of the led suit: holds KS"):
        do(state, *play("8S"))


def test_8_16_bela_must_trump_even_when_the_partner_is_master():
    hands = dict(BELA_HANDS)
    hands[2] = ["7H", "8H", "AD", "8D", "7C", "9H"]
    hands[1] = ["7S", "AC", "KC", "QC", "JC", "TC"]
    hands[0] = ["AS", "KD", "QD", "JD", "TD", "9D"]
    hands[3] = ["9S", "TS", "QS", "JS", "AH", "KH"]
    talons = {0: ["7D", "9C"], 1: ["8C", "KS"], 2: ["QH", "JH"], 3: ["TH", "8S"]}
    state = bela4(hands, talons)
    state = do(state, *play("AS", "7S"))  # partner (seat 0) is master with AS
    legal = legal_cards(state)
    assert legal == {c for c in hand_strs(state.hands[2]) if c.endswith("H")}


def test_8_18_bela_after_the_trick_was_trumped_only_follow_suit():
    hands = {
        0: ["9S", "KD", "QD", "JD", "TD", "9D"],
        1: ["7H", "AC", "KC", "QC", "JC", "TC"],
        2: ["KS", "8S", "AD", "8D", "7C", "8H"],
        3: ["AS", "TS", "QS", "JS", "AH", "KH"],
    }
    talons = {0: ["7D", "9C"], 1: ["8C", "JH"], 2: ["QH", "7S"], 3: ["TH", "9H"]}
    state = bela4(hands, talons)
    state = do(state, *play("9S", "7H"))  # seat 1 void in spades, trumps
    assert {"KS", "8S", "7S"} <= legal_cards(state)  # no need to beat 9S any more
    assert legal_cards(state) == {"KS", "8S", "7S"}


def test_8_21_bela_dealer_is_forced_to_name_trump():
    state = deal("bela", {}, dealer=3, players=4)
    state = do(state, *passes(3))
    assert state.to_act == 3
    assert {"type": "pass"} not in legal_json(state)
    with pytest.raises(IllegalAction, match="the dealer must name a trump"):
        do(state, {"type": "pass"})
    state = do(state, {"type": "bid", "contract": "S"})
    assert state.contract.taker == 3 and state.phase is Phase.PLAY


def test_8_21_bela_2p_dealer_forced_in_the_second_round():
    state = deal("bela", {("up",): ["AH"]}, dealer=1, players=2)
    state = do(state, *passes(3))
    assert all(a["type"] == "bid" and a["contract"] != "H" for a in legal_json(state))


def bela2(first_six, up, talons=None, dealer=1):
    wanted = {("hand", s): c for s, c in first_six.items()}
    wanted[("up",)] = [up]
    for s, t in (talons or {}).items():
        wanted[("talon", s)] = t
    return deal("bela", wanted, dealer=dealer, players=2)


def test_8_20_seven_exchange_when_trump_is_the_proposal_suit():
    state = bela2({0: ["7H", "AS", "KS", "QS", "JS", "TS"]}, "AH")
    state = do(state, {"type": "bid", "contract": "H"})
    # the card play begins: the holder (seat 0 leads) may exchange before his first card
    assert state.phase is Phase.PLAY and state.to_act == 0
    assert len(hand_strs(state.hands[0])) == 10  # talons picked up
    assert {"type": "exchange", "card": "7H"} in legal_json(state)
    after = do(state, {"type": "exchange", "card": "7H"})
    assert after.phase is Phase.PLAY and after.to_act == 0
    hand = hand_strs(after.hands[0])
    assert "AH" in hand and "7H" not in hand and len(hand) == 10
    assert format_card(after.upcard) == "7H"
    assert not any(a["type"] == "exchange" for a in legal_json(after))
    with pytest.raises(IllegalAction, match="already exchanged"):
        do(after, {"type": "exchange", "card": "7H"})  # only once


def test_8_20_declining_the_exchange_writes_nothing():
    state = bela2({0: ["7H", "AS", "KS", "QS", "JS", "TS"]}, "AH")
    state = do(state, {"type": "bid", "contract": "H"})
    assert {"type": "pass"} not in legal_json(state)
    with pytest.raises(IllegalAction):
        do(state, {"type": "pass"})  # no pass: the holder declines by playing
    after = do(state, *play("AS"))
    assert [a.type for _, a in after.actions] == ["bid", "play"]
    assert "7H" in hand_strs(after.hands[0]) and format_card(after.upcard) == "AH"
    assert after.exchange_seat == -1  # closed by his first card
    with pytest.raises(IllegalAction, match="only before the first declare or play"):
        apply(after, action_from_json({"type": "exchange", "card": "7H"}), 0)


def test_8_20_declining_by_declaring_closes_the_exchange():
    state = bela2({0: ["7H", "AS", "KS", "QS", "JS", "9C"]}, "AH")
    state = do(state, {"type": "bid", "contract": "H"})
    declare = next(a for a in legal_json(state) if a["type"] == "declare")
    after = do(state, declare)
    assert {"type": "exchange", "card": "7H"} not in legal_json(after)
    with pytest.raises(IllegalAction):
        do(after, {"type": "exchange", "card": "7H"})


def test_8_20_seven_exchange_by_the_player_who_does_not_lead():
    state = bela2({1: ["7H", "AS", "KS", "QS", "JS", "TS"]}, "AH")
    state = do(state, {"type": "bid", "contract": "H"})  # seat 0 takes, seat 1 holds the seven
    assert state.phase is Phase.PLAY and state.to_act == 0
    # the leader is not offered it; the holder is, out of turn, while the leader thinks
    assert not any(a["type"] == "exchange" for a in legal_json(state))
    assert [action_to_json(a) for a in out_of_turn_actions(state, 1)] == [
        {"type": "exchange", "card": "7H"}
    ]
    assert seat_view(state, 1)["legal"] == [{"type": "exchange", "card": "7H"}]
    assert seat_view(state, 0)["legal"] == legal_json(state)
    assert next_to_move(state) == 1
    with pytest.raises(IllegalAction, match="only the holder"):
        apply(state, action_from_json({"type": "exchange", "card": "7H"}), 0)
    after, _ = apply(state, action_from_json({"type": "exchange", "card": "7H"}), 1)
    assert after.to_act == 0 and "AH" in hand_strs(after.hands[1]) and after.exchanged == 1
    assert next_to_move(after) == 0 and seat_view(after, 1)["legal"] == []


def test_8_20_the_first_lead_closes_the_exchange_for_the_other_player():
    # "before the first lead", "before any declare or play" (§5.4, §8.20, §14): once the
    # leader has played, the holder may no longer exchange, not even on his own turn
    state = bela2({1: ["7H", "AS", "KS", "QS", "JS", "TS"]}, "AH")
    state = do(state, {"type": "bid", "contract": "H"})
    led = do(state, {"type": "play", "card": sorted(legal_cards(state))[0]})
    assert led.to_act == 1 and led.exchange_seat == -1
    assert not any(a["type"] == "exchange" for a in legal_json(led))
    assert out_of_turn_actions(led, 1) == [] and seat_view(led, 0)["legal"] == []
    with pytest.raises(IllegalAction, match="only before the first declare or play"):
        do(led, {"type": "exchange", "card": "7H"})
    # declining writes nothing: the holder simply plays
    kept = do(led, {"type": "play", "card": legal_cards(led).pop()})
    assert [a.type for _, a in kept.actions] == ["bid", "play", "play"]
    assert kept.exchanged == kept.exchange_seat == -1 and format_card(kept.upcard) == "AH"


def test_8_20_the_holder_may_exchange_out_of_turn_before_the_first_lead():
    state = bela2({1: ["7H", "AS", "KS", "QS", "JS", "TS"]}, "AH")
    state = do(state, {"type": "bid", "contract": "H"})
    after, events = apply(state, action_from_json({"type": "exchange", "card": "7H"}), 1)
    assert after.to_act == 0 and after.exchanged == 1 and "AH" in hand_strs(after.hands[1])
    assert after.actions[-1][0] == 1 and [e.type for e in events] == ["exchanged", "hand"]
    # once anyone has declared or played, the exchange is closed
    declare = {"type": "declare", "combos": []}
    state0 = bela2(
        {0: ["AC", "KC", "QC", "9D", "8D", "7D"], 1: ["7H", "AS", "KS", "QS", "JS", "TS"]}, "AH"
    )
    state0 = do(state0, {"type": "bid", "contract": "H"})
    declared = do(state0, declare)
    assert declared.to_act == 0 and out_of_turn_actions(declared, 1) == []
    with pytest.raises(IllegalAction, match="only before the first declare or play"):
        apply(declared, action_from_json({"type": "exchange", "card": "7H"}), 1)


def test_8_20_no_exchange_when_trump_named_in_the_second_round():
    state = bela2({0: ["7S", "AS", "KS", "QS", "JS", "TS"]}, "AH")
    state = do(state, *passes(2), {"type": "bid", "contract": "S"})
    assert state.phase is Phase.PLAY


def test_8_20_no_exchange_when_the_proposal_is_the_trump_seven():
    state = bela2({0: ["AS", "KS", "QS", "JS", "TS", "9S"]}, "7H")
    state = do(state, {"type": "bid", "contract": "H"})
    assert state.phase is Phase.PLAY


def test_8_20_no_exchange_with_the_seven_in_the_talon():
    state = bela2({0: ["AS", "KS", "QS", "JS", "TS", "9S"]}, "AH", {0: ["7H", "8C", "9C", "TC"]})
    state = do(state, {"type": "bid", "contract": "H"})
    assert state.phase is Phase.PLAY


def bela3(first_six, talons, middle, caller=0, dealer=2, contract="H"):
    wanted = {("hand", s): c for s, c in first_six.items()}
    for s, t in talons.items():
        wanted[("talon", s)] = t
    wanted[("middle",)] = middle
    state = deal("bela", wanted, dealer=dealer, players=3)
    eldest = (dealer + 1) % 3
    return do(state, *passes((caller - eldest) % 3), {"type": "bid", "contract": contract})


def test_8_19_bela_3p_discard_of_the_trump_king_kills_bela():
    state = bela3(
        {0: ["QH", "AS", "KS", "QS", "JS", "TS"]}, {0: ["9S", "8S", "7S", "AC"]}, ["KH", "TC"]
    )
    assert state.phase is Phase.DISCARD and state.to_act == 0
    assert state.hands[0].bit_count() == 12
    state = do(state, {"type": "discard", "cards": ["KH", "TC"]})
    assert state.phase is Phase.PLAY and state.hands[0].bit_count() == 10
    # seat 0 leads: QH can never be announced as bela now
    assert {"type": "play", "card": "QH", "belote": True} not in legal_json(state)
    with pytest.raises(IllegalAction, match="cannot make belote"):
        do(state, {"type": "play", "card": "QH", "belote": True})


def test_8_19_bela_3p_discards_count_for_the_caller_even_without_a_trick():
    state = bela3(
        {0: ["7S", "8S", "7C", "8C", "7D", "8D"]},
        {0: ["9S", "9C", "9D", "TS"]},
        ["AS", "AC"],
    )
    state = do(state, {"type": "discard", "cards": ["AS", "AC"]})
    end = finish_randomly(state, seed=3)
    result = end.results[-1]
    assert sum(result.score.card_points) == 162 or result.score.capot_side is not None
    assert result.score.card_points[0] >= 22  # the two discarded aces


def test_8_22_duel_reveals_after_the_trick_and_follows_with_face_up_cards_only():
    # dealer 0, non-dealer 1 leads. Non-dealer piles: down D[0..7], up D[16..23].
    wanted = {
        ("down", 1): ["AS", "8C", "9C", "TC", "JC", "QC", "KC", "AC"],
        ("faceup", 1): ["KS", "7D", "8D", "9D", "TD", "JD", "QD", "KD"],
        ("down", 0): ["QS", "7H", "8H", "9H", "TH", "JH", "QH", "KH"],
        ("faceup", 0): ["AD", "7C", "AH", "7S", "8S", "9S", "TS", "JS"],
    }
    state = deal("duel", wanted, dealer=0, players=2)
    assert format_card(state.upcard) == "JS"  # proposal: the dealer's pile 7
    state = do(state, {"type": "bid", "contract": "S"})  # non-dealer accepts spades
    assert "JS" in hand_strs(state.hands[0])  # the proposal card stays with the dealer
    state = do(state, *play("KS"))  # pile 0 of seat 1: frees AS, not yet visible
    assert "AS" not in hand_strs(state.hands[1])
    with pytest.raises(IllegalAction, match="must overtake in the led suit: holds 9S TS JS"):
        do(state, *play("7S"))
    state = do(state, *play("9S"))
    assert "AS" in hand_strs(state.hands[1])  # revealed once the trick is complete


def test_8_22_duel_obligations_look_at_face_up_cards_only():
    wanted = {
        ("down", 1): ["AS", "8C", "9C", "TC", "JC", "QC", "KC", "AC"],
        ("faceup", 1): ["AH", "7D", "8D", "9D", "TD", "JD", "QD", "KD"],
        ("down", 0): ["QS", "7S", "8H", "9H", "TH", "JH", "QH", "KH"],
        ("faceup", 0): ["AD", "7C", "7H", "KS", "8S", "9S", "TS", "JS"],
    }
    state = deal("duel", wanted, dealer=0, players=2)
    state = do(state, *passes(2), {"type": "bid", "contract": "C"})
    state = do(state, *play("AH"))
    # the dealer's 8H..KH are face down: only 7H follows
    assert legal_cards(state) == {"7H"}


def test_8_25_thrown_in_deal_scores_nothing_and_the_deal_passes_on():
    state = deal("classic", {}, dealer=2, taker=0)
    state.reserve = 81  # as if a litige were pending
    state = do(state, *passes(8))
    assert state.phase is Phase.DEAL_OVER and state.results[-1].thrown_in
    assert state.scores == (0, 0) and state.reserve == 81
    nxt, _ = start_deal(state)
    assert nxt.dealer == 3 and nxt.reserve == 81


def test_8_26_bulgarian_escape_from_contra():
    state = deal("bulgarian", {}, dealer=3)
    state = do(state, {"type": "bid", "contract": "H"}, {"type": "double"})
    assert state.auction.multiplier == 2
    state = do(state, {"type": "bid", "contract": "S"})
    assert state.auction.multiplier == 1
    assert {"type": "double"} in legal_json(state)  # seat 3 may contra again


def test_8_27_coinche_bid_ladder():
    state = deal("coinche", {}, dealer=3, free=True)
    state = do(state, {"type": "bid", "contract": "H", "value": 100})
    with pytest.raises(IllegalAction, match="must bid more than 100"):
        do(state, {"type": "bid", "contract": "S", "value": 100})
    state = do(state, {"type": "bid", "contract": "S", "value": 110})
    state = do(state, {"type": "bid", "contract": "C", "value": "capot"})
    assert all(a["type"] != "bid" for a in legal_json(state))
    with pytest.raises(IllegalAction, match="nothing can be bid above capot"):
        do(state, {"type": "bid", "contract": "D", "value": "capot"})


def test_8_10_coinche_on_capot_is_allowed():
    state = deal("coinche", {}, dealer=3, free=True)
    state = do(state, {"type": "bid", "contract": "H", "value": "capot"}, {"type": "double"})
    assert state.auction.multiplier == 2


def test_8_4_belote_counts_with_king_and_queen_in_a_declared_sequence():
    hands = {
        0: ["KH", "QH", "JH", "7C", "8C", "7D", "8D", "7S"],
        1: ["AC", "KC", "QC", "JC", "TC", "9C", "AD", "KD"],
        2: ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "QD"],
    }
    state = classic_free(hands, contract="H")
    end = finish_randomly(state, seed=1)
    result = end.results[-1]
    assert [c.describe()["kind"] for c in result.declarations[0]] == ["sequence"]
    assert 0 in result.belote_seats


def test_8_5_belote_through_the_turn_up():
    hands = {0: ["KH", "7C", "8C", "7D", "8D"], ("up",): ["QH"]}
    state = deal("classic", hands, dealer=3, taker=0)
    state = do(state, {"type": "bid", "contract": "H"})
    assert {"KH", "QH"} <= hand_strs(state.hands[0])
    end = finish_randomly(state, seed=2)
    assert 0 in end.results[-1].belote_seats


def test_8_6_bulgarian_all_trumps_belote_discarded_on_another_suit_is_lost():
    hands = {
        0: ["AH", "KH", "QH", "JH", "TH"],
        ("rest", 0): ["9H", "8H", "7H"],
        1: ["KS", "QS", "AC", "KC", "QC"],
        ("rest", 1): ["JC", "TC", "9C"],
    }
    state = deal("bulgarian", hands, dealer=3)
    state = do(state, {"type": "bid", "contract": "AT"}, *passes(3))
    state = do(state, *play("JH"))  # seat 0 leads hearts; seat 1 is void in hearts
    state = do(state, *play("KS"))  # a K discarded on another suit: no belote in spades
    assert state.belote_open[1] == 0
    end = finish_randomly(state, seed=5)
    assert 1 not in end.results[-1].belote_seats or end.results[-1].belote_seats.count(1) == 0


def test_manual_belote_flag_required_in_bela():
    hands = dict(BELA_HANDS)
    hands[0] = ["KH", "QH", "JD", "TD", "9D", "7D"]
    hands[2] = ["7H", "8H", "KS", "8S", "AD", "8D"]
    hands[3] = ["AS", "TS", "QS", "JS", "AH", "9S"]
    talons = {0: ["KD", "9C"], 1: ["8C", "7C"], 2: ["QD", "JH"], 3: ["TH", "9H"]}
    state = bela4(hands, talons, options={"declarations": False})
    assert {"type": "play", "card": "KH", "belote": True} in legal_json(state)
    silent = do(state, *play("KH"))
    assert silent.belote_open[0] == 0  # not announced: the pair can no longer score
    loud = do(state, {"type": "play", "card": "KH", "belote": True})
    assert loud.belote_open[0] == 1 << 2


def test_state_is_unchanged_by_a_refused_action():
    state = classic_free(UNDERTRUMP_HANDS)
    state = do(state, *play("AS", "JH"))
    before = (state.hands, state.trick, state.to_act, state.actions)
    with pytest.raises(IllegalAction):
        apply(state, action_from_json({"type": "play", "card": "AD"}))
    assert (state.hands, state.trick, state.to_act, state.actions) == before


# RULES.md §14: with ``auto_belote`` off the flag is required on the first card of the pair
# and optional on the second; a flag on a card that cannot make belote is illegal.

BELOTE_SEAT0 = ["KH", "QH", "AS", "KS", "QS", "JS"]
BELOTE_SEAT1 = ["AC", "KC", "QC", "JC", "TC", "9C"]  # no trump, no spade: seat 0 keeps the lead
BELOTE_TALONS = {0: ["8C", "7C", "TD", "9D"], 1: ["AD", "KD", "QD", "JD"]}


def belote_match(options=None):
    """Bela 2p, the proposal 8H: seat 0 (who leads) holds K-Q of hearts, seat 1 neither a
    heart nor a spade."""
    wanted = {("hand", 0): BELOTE_SEAT0, ("hand", 1): BELOTE_SEAT1, ("up",): ["8H"]}
    wanted.update({("talon", s): t for s, t in BELOTE_TALONS.items()})
    return deal("bela", wanted, dealer=1, players=2, options=options)


def belote_deal(first):
    """Hearts: seat 0 leads ``first`` of his pair, seat 1 discards, and seat 0 has the lead
    again with the other card of the pair."""
    state = do(belote_match(), {"type": "bid", "contract": "H"}, {"type": "declare", "combos": []})
    state = do(state, first, *play("9C"))
    assert state.to_act == 0 and not state.trick
    return state


def test_belote_second_card_offered_with_and_without_the_flag_after_a_flagged_first():
    state = belote_deal({"type": "play", "card": "KH", "belote": True})
    assert state.belote_open[0] == 1 << 2
    legal = legal_json(state)
    assert {"type": "play", "card": "QH"} in legal
    assert {"type": "play", "card": "QH", "belote": True} in legal
    for second in ({"type": "play", "card": "QH"}, {"type": "play", "card": "QH", "belote": True}):
        after = do(state, second)
        assert after.belote_seats == (0,) and after.belote_open[0] == 0


def test_belote_flag_on_the_second_card_refused_after_an_unflagged_first():
    state = belote_deal({"type": "play", "card": "KH"})
    assert state.belote_open[0] == 0
    assert {"type": "play", "card": "QH", "belote": True} not in legal_json(state)
    assert {"type": "play", "card": "QH"} in legal_json(state)
    with pytest.raises(IllegalAction, match="QH cannot make belote now") as info:
        do(state, {"type": "play", "card": "QH", "belote": True})
    assert info.value.reason == {"code": "no_belote", "card": "QH"}
    assert do(state, *play("QH")).belote_seats == ()


def test_belote_flag_on_the_second_card_refused_when_belote_is_automatic():
    state = belote_match({"auto_belote": True, "declarations": False})
    state = do(state, {"type": "bid", "contract": "H"}, *play("KH", "9C"))
    assert state.belote_open[0] == 1 << 2  # announced automatically
    assert {"type": "play", "card": "QH", "belote": True} not in legal_json(state)
    with pytest.raises(IllegalAction, match="automatically"):
        do(state, {"type": "play", "card": "QH", "belote": True})
    assert do(state, *play("QH")).belote_seats == (0,)


# RULES.md §14 (match end) and D-8: a reserve still waiting when the match ends is discarded.


def _c9_one_deal():
    """Worked example C9 (a litige: 71 points wait in the reserve) as a one-deal match."""
    path = Path(__file__).resolve().parent.parent / "data" / "examples" / "C9.json"
    record = json.loads(path.read_text())
    record["options"] = {"target": "one_deal"}
    return record


def test_match_end_discards_the_reserve():
    steps = [s for s, _ in replayed_states(_c9_one_deal()) if s is not None]
    state = steps[-1].state
    assert state.phase is Phase.MATCH_OVER
    assert state.results[-1].score.outcome == "litige" and state.results[-1].score.reserve == 71
    assert state.reserve == 0 and state.reserve_discarded == 71
    over = next(e for e in steps[-1].events if e.type == "match_over")
    assert over.data["reserve_discarded"] == 71
    for view in (spectator_view(state), seat_view(state, 0)):
        assert view["reserve"] == 0 and view["reserve_discarded"] == 71
    assert summary(state)["reserve"] == 0 and summary(state)["reserve_discarded"] == 71


def test_a_reserve_carried_on_is_not_discarded_before_the_match_ends():
    record = _c9_one_deal()
    record["options"] = {}
    state = replay(record)
    assert state.phase is Phase.DEAL_OVER
    assert state.reserve == 71 and state.reserve_discarded == 0


def test_a_match_ending_without_a_reserve_discards_nothing():
    state = replay(random_record("bela", 2, {}, 3, None))
    assert state.phase is Phase.MATCH_OVER and state.reserve == state.reserve_discarded == 0
