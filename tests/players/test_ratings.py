"""Ratings (app/players/ratings.py): team games, fixed bot anchors, display and ranking rules."""

from __future__ import annotations

import pytest

from app.players.ratings import (
    ANCHOR_SIGMA,
    ANCHORS,
    FAMILIES,
    MEDIUM_MU,
    NEWCOMER_SIGMA,
    Member,
    Rating,
    bot,
    display,
    family_of,
    newcomer,
    plays_like,
    rate,
)

FRESH = newcomer("classic")


def test_families_group_the_variants() -> None:
    assert family_of("classic") == family_of("coinche") == "classic"
    assert [family_of(v) for v in ("bulgarian", "bela", "duel")] == ["bulgarian", "bela", "duel"]


def test_a_won_team_match_raises_both_partners_and_lowers_the_losers() -> None:
    ana, bob, cy, dee = (Member(k, FRESH) for k in ("ana", "bob", "cy", "dee"))
    new = rate([[ana, bob], [cy, dee]], ranks=[0, 1])
    assert set(new) == {"ana", "bob", "cy", "dee"}
    for winner in ("ana", "bob"):
        assert new[winner].mu > FRESH.mu and new[winner].sigma < FRESH.sigma
    for loser in ("cy", "dee"):
        assert new[loser].mu < FRESH.mu and new[loser].sigma < FRESH.sigma
    assert display(new["ana"]) > display(FRESH) > display(new["cy"])


def test_a_lost_match_against_bots_lowers_the_human_and_leaves_the_anchors_fixed() -> None:
    before = {family: dict(levels) for family, levels in ANCHORS.items()}
    me = Member(7, Rating(25.0, 5.0))
    medium = bot("medium", "classic")
    # a computer game: me and a medium bot against two medium bots
    new = rate([[me, medium], [medium, medium]], ranks=[1, 0])
    assert set(new) == {7}  # bots are anchors: no new rating for them
    assert new[7].mu < 25.0
    won = rate([[me, medium], [medium, medium]], ranks=[0, 1])
    assert won[7].mu > 25.0
    assert ANCHORS == before


def test_every_family_anchors_every_level_in_order_with_medium_at_the_default() -> None:
    assert set(ANCHORS) == set(FAMILIES)
    for family, levels in ANCHORS.items():
        assert list(levels) == ["easy", "medium", "hard"]
        assert levels["medium"] == Rating(MEDIUM_MU, ANCHOR_SIGMA)
        assert levels["easy"].mu < levels["medium"].mu < levels["hard"].mu
        assert display(levels["medium"]) == 1500
        for level, rating in levels.items():
            assert bot(level, family).rating == rating and bot(level, family).bot == level


def test_beating_a_stronger_anchor_is_worth_more() -> None:
    for family in FAMILIES:
        me = Member(1, newcomer(family))
        vs_easy = rate([[me], [bot("easy", family)]], ranks=[0, 1])[1]
        vs_hard = rate([[me], [bot("hard", family)]], ranks=[0, 1])[1]
        assert vs_hard.mu > vs_easy.mu


def test_three_players_each_for_himself() -> None:
    new = rate([[Member(1, FRESH)], [Member(2, FRESH)], [Member(3, FRESH)]], [0, 1, 2])
    assert new[1].mu > new[2].mu > new[3].mu


def test_a_player_cannot_play_for_two_teams() -> None:
    me = Member(1, FRESH)
    with pytest.raises(ValueError):
        rate([[me], [me]], [0, 1])
    # twice in one team (a local-style seat map) counts once
    assert set(rate([[me, me], [bot("easy", "duel")]], [0, 1])) == {1}


def test_plays_like_names_the_nearest_bot_level_of_the_family() -> None:
    for family, levels in ANCHORS.items():
        assert plays_like(newcomer(family), family) == "easy"
        assert plays_like(Rating(MEDIUM_MU, NEWCOMER_SIGMA), family) == "medium"
        easy, medium, hard = (levels[lv].mu for lv in ("easy", "medium", "hard"))
        assert plays_like(Rating(easy - 1, 2.0), family) == "easy"
        assert plays_like(Rating(hard + 1, 2.0), family) == "hard"
        assert plays_like(Rating((medium + hard) / 2 - 0.01, 2.0), family) == "medium"
        assert plays_like(Rating((medium + hard) / 2 + 0.01, 2.0), family) == "hard"
        assert plays_like(Rating((easy + medium) / 2 + 0.01, 2.0), family) == "medium"
