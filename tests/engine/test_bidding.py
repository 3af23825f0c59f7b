"""Every bidding rule: the illegal bid is refused, names the rule, and changes nothing."""

from __future__ import annotations

import pytest

from app.engine import IllegalAction, InvalidAction, Phase, action_from_json, apply
from app.engine.cards import format_card

from .helpers import deal, do, legal_json, passes


def refused(state, action, match):
    before = (state.auction, state.to_act, state.actions, state.phase)
    with pytest.raises(IllegalAction, match=match):
        apply(state, action_from_json(action))
    assert (state.auction, state.to_act, state.actions, state.phase) == before


def test_classic_round_one_takes_only_the_turn_up_suit():
    state = deal("classic", {("up",): ["9H"]}, dealer=3, taker=0)
    assert legal_json(state) == [{"type": "pass"}, {"type": "bid", "contract": "H"}]
    refused(state, {"type": "bid", "contract": "S"}, "only the turn-up's suit H")


def test_classic_round_two_names_another_suit():
    state = deal("classic", {("up",): ["9H"]}, dealer=3, taker=0)
    state = do(state, *passes(4))
    refused(state, {"type": "bid", "contract": "H"}, "name a suit other than H")
    state = do(state, {"type": "bid", "contract": "C"})
    assert state.contract.denom == "C" and state.contract.taker == 0
    assert "9H" in {format_card(c) for c in range(32) if state.hands[0] >> c & 1}


def test_classic_eight_passes_throw_the_deal_in():
    state = do(deal("classic", {}, dealer=0, taker=1), *passes(8))
    assert state.phase is Phase.DEAL_OVER and state.results[-1].thrown_in


def test_classic_has_no_doubling():
    state = deal("classic", {}, dealer=0, taker=1)
    refused(state, {"type": "double"}, "no doubling in classic")


def test_cards_cannot_be_played_during_the_bidding():
    state = deal("classic", {}, dealer=0, taker=1)
    refused(state, {"type": "play", "card": "7C"}, "the bidding is not over")


def test_free_ladder_must_climb_and_ends_after_three_passes():
    state = deal("classic", {}, dealer=3, options={"bidding_mode": "free"}, free=True)
    state = do(state, {"type": "bid", "contract": "S"})
    refused(state, {"type": "bid", "contract": "H"}, "must bid higher than S")
    state = do(state, {"type": "pass"}, {"type": "bid", "contract": "NT"}, *passes(2))
    assert state.phase is Phase.BIDDING  # only two passes after the NT bid
    state = do(state, {"type": "pass"})
    assert state.contract.denom == "NT" and state.contract.taker == 2


def test_free_ladder_without_sa_ta():
    state = deal(
        "classic", {}, dealer=3, options={"bidding_mode": "free", "allow_sa_ta": False}, free=True
    )
    refused(state, {"type": "bid", "contract": "AT"}, "AT is not a contract here")


def test_coinche_needs_a_value_and_a_legal_denomination():
    state = deal("coinche", {}, dealer=3, free=True)
    refused(state, {"type": "bid", "contract": "H"}, "needs a value")
    refused(state, {"type": "bid", "contract": "NT", "value": 80}, "allow_sa_ta is off")
    with pytest.raises(InvalidAction, match="80, 90"):
        action_from_json({"type": "bid", "contract": "H", "value": 85})


def test_coinche_only_on_opponents_and_surcoinche_only_after():
    state = deal("coinche", {}, dealer=3, free=True)
    refused(state, {"type": "double"}, "no bid to coinche")
    state = do(state, {"type": "bid", "contract": "H", "value": 80}, {"type": "pass"})
    refused(state, {"type": "double"}, "only on the opponents' bid")
    refused(state, {"type": "redouble"}, "only after a coinche")


def test_coinche_then_attackers_speak_and_the_partner_is_skipped():
    state = deal("coinche", {}, dealer=3, free=True)
    state = do(state, {"type": "bid", "contract": "H", "value": 80}, {"type": "double"})
    assert state.to_act == 2  # the attacker after the coincher
    assert legal_json(state) == [{"type": "pass"}, {"type": "redouble"}]
    refused(state, {"type": "bid", "contract": "S", "value": 90}, "only surcoinche or pass")
    state = do(state, {"type": "pass"})
    assert state.to_act == 0  # seat 3 (the coincher's partner) is skipped
    state = do(state, {"type": "pass"})
    assert state.contract.multiplier == 2 and state.phase is Phase.PLAY


def test_coinche_surcoinche_ends_the_auction():
    state = deal("coinche", {}, dealer=3, free=True)
    state = do(state, {"type": "bid", "contract": "H", "value": 80}, {"type": "double"})
    state = do(state, {"type": "redouble"})
    assert state.contract.multiplier == 4 and state.contract.doubler == 1


def test_coinche_after_passing_is_still_allowed():
    state = deal("coinche", {}, dealer=3, free=True)
    state = do(state, {"type": "pass"}, {"type": "bid", "contract": "S", "value": 90})
    state = do(state, {"type": "pass"}, {"type": "pass"})
    assert {"type": "double"} in legal_json(state)  # seat 0 passed before, may coinche now


def test_bulgarian_contra_and_recontra_rules():
    state = deal("bulgarian", {}, dealer=3)
    refused(state, {"type": "double"}, "no bid to contra")
    state = do(state, {"type": "bid", "contract": "D"})
    refused(state, {"type": "redouble"}, "own team's contra'd bid")
    state = do(state, {"type": "double"})
    refused(state, {"type": "double"}, "only on the opponents' bid")
    state = do(state, {"type": "redouble"})  # seat 2: the bidder's partner
    assert state.auction.multiplier == 4
    state = do(state, *passes(3))
    assert state.contract.multiplier == 4 and state.contract.taker == 0


def test_bulgarian_four_passes_throw_in():
    state = do(deal("bulgarian", {}, dealer=3), *passes(4))
    assert state.phase is Phase.DEAL_OVER and state.results[-1].thrown_in


def test_bela_first_naming_ends_the_bidding():
    state = deal("bela", {}, dealer=3, players=4)
    state = do(state, {"type": "pass"}, {"type": "bid", "contract": "D"})
    assert state.contract.taker == 1 and state.phase is Phase.PLAY


def test_bela_2p_rounds():
    state = deal("bela", {("up",): ["KC"]}, dealer=1, players=2)
    refused(state, {"type": "bid", "contract": "H"}, "only the proposal's suit C")
    state = do(state, *passes(2))
    refused(state, {"type": "bid", "contract": "C"}, "other than C")


def test_duel_rounds_and_four_passes_redeal():
    state = deal(
        "duel",
        {("faceup", 0): ["8C", "9C", "TC", "JC", "QC", "KC", "AC", "7H"]},
        dealer=0,
        players=2,
    )
    assert format_card(state.upcard) == "7H"
    refused(state, {"type": "bid", "contract": "S"}, "only the proposal's suit H")
    state = do(state, *passes(2))
    refused(state, {"type": "bid", "contract": "H"}, "other than H")
    state = do(state, *passes(2))
    assert state.phase is Phase.DEAL_OVER and state.results[-1].thrown_in


def test_not_your_turn_is_refused():
    state = deal("bela", {}, dealer=3, players=4)
    with pytest.raises(IllegalAction, match="not your turn: seat 0 is to act"):
        apply(state, action_from_json({"type": "pass"}), seat=2)


def test_malformed_actions_are_invalid_not_illegal():
    for bad in [
        None,
        [],
        {"type": "jump"},
        {"type": "play"},
        {"type": "play", "card": "1Z"},
        {"type": "play", "card": "AS", "extra": 1},
        {"type": "discard", "cards": ["AS"]},
        {"type": "bid", "contract": "X"},
        {"type": "play", "card": "AS", "belote": "y"},
    ]:
        with pytest.raises(InvalidAction):
            action_from_json(bad)
