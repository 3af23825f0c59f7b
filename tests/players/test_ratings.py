"""Ratings (app/players/ratings.py): team games, fixed bot anchors, display and ranking rules."""

from __future__ import annotations

import pytest

from app.players.ratings import (
    ANCHORS,
    DEFAULT,
    Member,
    Rating,
    bot,
    display,
    family_of,
    plays_like,
    rate,
)


def test_families_group_the_variants() -> None:
    assert family_of("classic") == family_of("coinche") == "classic"
    assert [family_of(v) for v in ("bulgarian", "bela", "duel")] == ["bulgarian", "bela", "duel"]


def test_a_won_team_match_raises_both_partners_and_lowers_the_losers() -> None:
    ana, bob, cy, dee = (Member(k, DEFAULT) for k in ("ana", "bob", "cy", "dee"))
    new = rate([[ana, bob], [cy, dee]], ranks=[0, 1])
    assert set(new) == {"ana", "bob", "cy", "dee"}
    for winner in ("ana", "bob"):
        assert new[winner].mu > DEFAULT.mu and new[winner].sigma < DEFAULT.sigma
    for loser in ("cy", "dee"):
        assert new[loser].mu < DEFAULT.mu and new[loser].sigma < DEFAULT.sigma
    assert display(new["ana"]) > display(DEFAULT)


def test_a_lost_match_against_bots_lowers_the_human_and_leaves_the_anchors_fixed() -> None:
    before = dict(ANCHORS)
    me = Member(7, Rating(25.0, 5.0))
    # a computer game: me and a medium bot against two medium bots
    new = rate([[me, bot("medium")], [bot("medium"), bot("medium")]], ranks=[1, 0])
    assert set(new) == {7}  # bots are anchors: no new rating for them
    assert new[7].mu < 25.0
    won = rate([[me, bot("medium")], [bot("medium"), bot("medium")]], ranks=[0, 1])
    assert won[7].mu > 25.0
    assert ANCHORS == before
    assert [display(ANCHORS[level]) for level in ("easy", "medium", "hard")] == [1400, 1500, 1600]


def test_beating_a_stronger_anchor_is_worth_more() -> None:
    me = Member(1, DEFAULT)
    vs_easy = rate([[me], [bot("easy")]], ranks=[0, 1])[1]
    vs_hard = rate([[me], [bot("hard")]], ranks=[0, 1])[1]
    assert vs_hard.mu > vs_easy.mu


def test_three_players_each_for_himself() -> None:
    new = rate([[Member(1, DEFAULT)], [Member(2, DEFAULT)], [Member(3, DEFAULT)]], [0, 1, 2])
    assert new[1].mu > new[2].mu > new[3].mu


def test_a_player_cannot_play_for_two_teams() -> None:
    me = Member(1, DEFAULT)
    with pytest.raises(ValueError):
        rate([[me], [me]], [0, 1])
    # twice in one team (a local-style seat map) counts once
    assert set(rate([[me, me], [bot("easy")]], [0, 1])) == {1}


def test_plays_like_names_the_nearest_bot_level() -> None:
    assert plays_like(DEFAULT) == "medium"
    assert plays_like(Rating(20.0, 2.0)) == "easy"
    assert plays_like(Rating(33.0, 2.0)) == "hard"
    assert plays_like(Rating(26.9, 2.0)) == "medium"
