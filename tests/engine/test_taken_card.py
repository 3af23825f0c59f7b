"""The face-up card a seat takes into its hand stays in every view for the rest of the deal."""

from __future__ import annotations

from app.engine import Bid, Exchange, Pass, Phase, apply, new_match, seat_view, spectator_view
from app.engine.cards import format_card
from app.engine.game import legal_actions


def _views(state):
    return [seat_view(state, s) for s in range(state.rules.players)] + [spectator_view(state)]


def test_classic_turn_up_taken_by_the_taker() -> None:
    state = new_match("classic", 4, {}, seed=3, first_dealer=0)
    up = state.upcard
    assert all(v["taken"] is None for v in _views(state))
    state, _ = apply(state, Pass())  # seat 1
    state, events = apply(state, Bid(format_card(up)[1]))  # seat 2 takes the turn-up's suit
    assert state.phase is Phase.PLAY
    assert any(e.type == "upcard_taken" for e in events)
    for v in _views(state):
        assert v["upcard"] is None
        assert v["taken"] == {"seat": 2, "card": format_card(up)}
    # it stays through the deal, also after the card is played
    while state.phase is Phase.PLAY:
        state, _ = apply(state, legal_actions(state)[0])
    assert state.phase in (Phase.DEAL_OVER, Phase.MATCH_OVER)
    assert spectator_view(state)["taken"] == {"seat": 2, "card": format_card(up)}


def test_free_bidding_and_coinche_take_nothing() -> None:
    for variant, options in (("classic", {"bidding_mode": "free"}), ("coinche", {})):
        state = new_match(variant, 4, options, seed=1)
        while state.phase is not Phase.PLAY:
            acts = legal_actions(state)
            state, _ = apply(state, next((a for a in acts if not isinstance(a, Pass)), acts[0]))
        assert all(v["taken"] is None for v in _views(state))


def test_bela_two_players_seven_exchange() -> None:
    for seed in range(200):
        state = new_match("bela", 2, {}, seed=seed)
        while state.phase is Phase.BIDDING:
            acts = legal_actions(state)
            state, _ = apply(state, next((a for a in acts if isinstance(a, Bid)), acts[0]))
        exchange = [a for a in legal_actions(state) if isinstance(a, Exchange)]
        if not exchange:
            continue
        seat, proposal = state.to_act, state.upcard
        assert all(v["taken"] is None for v in _views(state))
        state, _ = apply(state, exchange[0])
        for v in _views(state):
            assert v["taken"] == {"seat": seat, "card": format_card(proposal)}
        return
    raise AssertionError("no seven exchange in 200 deals")
