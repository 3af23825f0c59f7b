"""One rating scale for people and bots, and a match weighed by how much of a match it was
(app/players/ratings.py, docs/players.md "Ratings and the ranking")."""

from __future__ import annotations

import copy
import math

import pytest
from openskill.models import PlackettLuce

from app.engine import get_rules
from app.engine.record import dump
from app.players.ratings import (
    ANCHOR_SIGMA,
    ANCHORS,
    FAMILIES,
    NEWCOMER_SIGMA,
    Member,
    Rating,
    bot,
    display,
    match_share,
    newcomer,
    rate,
)
from app.players.xp import full_target, full_targets, match_outcome, outcomes
from tests.players.test_xp import play_match

# the bots' displayed ratings are those of docs/players.md (the table of anchors)
SHOWN = {
    "classic": (1430, 1500, 1546),
    "bulgarian": (1409, 1500, 1552),
    "bela": (1458, 1500, 1553),
    "duel": (1433, 1500, 1571),
}


def computer_game(me: Member, level: str, family: str, won: bool, share: float = 1.0) -> Rating:
    """``me`` plays a computer game of ``family``: with a partner of ``level`` against two of
    ``level`` (in the duel: against one); his rating after it."""
    partner = [bot(level, family)] if family != "duel" else []
    others = [bot(level, family)] * (2 if family != "duel" else 1)
    return rate([[me, *partner], others], [0, 1] if won else [1, 0], share)[me.key]


def test_people_and_bots_share_one_scale_and_newcomers_start_level_with_easy() -> None:
    for family in FAMILIES:
        levels = ANCHORS[family]
        assert tuple(display(levels[lv]) for lv in ("easy", "medium", "hard")) == SHOWN[family]
        start = newcomer(family)
        assert start == Rating(levels["easy"].mu, NEWCOMER_SIGMA)
        assert display(start) == display(levels["easy"])  # a newcomer reads easy's number
        # the number is mu on the bots' scale: the uncertainty does not lower it
        assert display(Rating(start.mu, ANCHOR_SIGMA)) == display(start)


def test_a_new_player_who_beats_medium_ends_above_one_who_only_lost_to_easy() -> None:
    for family in FAMILIES:
        easy = display(ANCHORS[family]["easy"])
        winner = computer_game(Member("a", newcomer(family)), "medium", family, won=True)
        loser = computer_game(Member("b", newcomer(family)), "easy", family, won=False)
        assert display(winner) > easy > display(loser), family
        # one full match against medium is enough to read "above easy", and losing to easy
        # to read "below easy": the old conservative number showed both far below easy
    # the figures of docs/players.md (classic)
    classic = newcomer("classic")
    assert display(computer_game(Member("a", classic), "medium", "classic", True)) == 1523
    assert display(computer_game(Member("b", classic), "easy", "classic", False)) == 1348


def test_a_one_deal_match_moves_a_rating_less_than_a_full_one() -> None:
    one_deal, _ = play_match("classic", 4, {"target": "one_deal"}, seed=11)
    full, _ = play_match("classic", 4, {"target": 1000}, seed=11)
    short = [o for o in outcomes(dump(one_deal))][-1]
    whole = [o for o in outcomes(dump(full))][-1]
    assert len(one_deal.results) < len(full.results)
    assert 0 < short.share < 0.5 and whole.share == 1.0
    assert short.share == max(short.scores) / 1000
    start = Member("me", newcomer("classic"))
    for won in (True, False):
        after_short = computer_game(start, "medium", "classic", won, short.share)
        after_whole = computer_game(start, "medium", "classic", won, whole.share)
        moved_short = abs(display(after_short) - display(start.rating))
        moved_whole = abs(display(after_whole) - display(start.rating))
        assert 0 < moved_short < moved_whole / 2, (won, moved_short, moved_whole)
        assert after_short.sigma > after_whole.sigma  # and it teaches less about him


def test_the_share_of_a_match_is_its_leading_total_against_a_full_match() -> None:
    assert match_share((1000, 500), 1000) == 1.0
    assert match_share((2040, 1800), 1000) == 1.0  # a longer match counts once
    assert match_share((162, 0), 1000) == pytest.approx(0.162)
    assert match_share((80, 511), 1000) == pytest.approx(0.511)
    assert match_share((0, 0), 1000) == 0.0  # nothing scored (the eight-card belot at once)
    assert match_share((-20, 0), 1000) == 0.0
    assert match_share((3, 16), None) == 1.0  # each deal a game: the duel
    assert match_share((), 1000) == 0.0
    with pytest.raises(ValueError):
        match_share((100, 0), 0)


def test_the_full_target_is_the_default_of_the_variant_and_its_players() -> None:
    for options in ({}, {"target": 501}, {"target": "one_deal"}, {"target": 5000}):
        assert full_target(get_rules("classic", 4, options)) == 1000
        assert full_target(get_rules("coinche", 4, options)) == 1000
    assert full_target(get_rules("bulgarian", 4)) == 151
    assert [full_target(get_rules("bela", n)) for n in (2, 3, 4)] == [501, 701, 1001]
    assert full_target(get_rules("duel", 2)) is None
    assert full_targets("classic") == [1000] and full_targets("bela") == [501, 701, 1001]
    assert full_targets("duel") == []


@pytest.mark.parametrize(
    ("variant", "players", "options", "low", "high"),
    [
        ("classic", 4, {"target": 501}, 0.5, 0.9),  # a short match: about half
        ("coinche", 4, {"target": 501}, 0.5, 1.0),
        ("bulgarian", 4, {}, 1.0, 1.0),
        ("bela", 2, {}, 1.0, 1.0),
        ("bela", 3, {}, 1.0, 1.0),
        ("bela", 4, {"target": 501}, 0.5, 0.8),
        ("duel", 2, {}, 1.0, 1.0),
    ],
)
def test_played_matches_carry_their_share(
    variant: str, players: int, options: dict, low: float, high: float
) -> None:
    state, _ = play_match(variant, players, options, seed=5)
    found = outcomes(dump(state))
    assert found and all(low <= o.share <= high for o in found), [o.share for o in found]


def test_a_claimed_deal_weighs_what_its_points_say() -> None:
    """Claimed tricks are ordinary plays marked ``"by": "claim"`` (RULES.md §15): the match
    scores, and so weighs, the same as if they had been played one by one."""
    state, _ = play_match("classic", 4, {"target": "one_deal"}, seed=3)
    record = dump(state)
    claimed = copy.deepcopy(record)
    last = claimed["deals"][-1]["actions"]
    for action in last[-8:]:  # the last two tricks, played out after a claim
        assert action["type"] == "play"
        action["by"] = "claim"
    [plain], [marked] = outcomes(record), outcomes(claimed)
    assert marked.share == plain.share == max(plain.scores) / 1000
    assert marked.ranks == plain.ranks


def test_a_weighed_update_is_that_share_of_the_full_one() -> None:
    me = Member("me", newcomer("classic"))
    teams = [[me, bot("medium", "classic")], [bot("medium", "classic")] * 2]
    full = rate(teams, [0, 1])["me"]
    # the library's own update, unweighed
    model = PlackettLuce()
    raw = model.rate(
        [
            [model.rating(mu=me.rating.mu, sigma=me.rating.sigma), model.rating(25, 5 / 3)],
            [model.rating(25, 5 / 3), model.rating(25, 5 / 3)],
        ],
        ranks=[0, 1],
    )[0][0]
    assert (full.mu, full.sigma) == pytest.approx((raw.mu, raw.sigma))
    half = rate(teams, [0, 1], 0.5)["me"]
    assert half.mu == pytest.approx(me.rating.mu + (full.mu - me.rating.mu) / 2)
    assert half.sigma**2 == pytest.approx((me.rating.sigma**2 + full.sigma**2) / 2)
    assert rate(teams, [0, 1], 0.0)["me"] == me.rating
    for bad in (-0.1, 1.5, math.nan):
        with pytest.raises(ValueError):
            rate(teams, [0, 1], bad)


def test_a_match_to_the_default_target_counts_in_full() -> None:
    state, _ = play_match("classic", 4, {}, seed=8)
    tricks = [[0] * 4 for _ in state.results]
    outcome = match_outcome(state, tricks)
    assert outcome is not None and outcome.share == 1.0
