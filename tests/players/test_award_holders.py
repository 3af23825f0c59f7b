"""Who answers for a seat when a game ends: a leaver of a game whose deals are games of their
own (``Rules.deal_is_game``, the duel) answers only for the deal he left."""

from __future__ import annotations

from app.persistence.players import LeaverRow
from app.players.awards import SeatInfo, holders

SEATS = [SeatInfo(0, "human", 10, None), SeatInfo(1, "human", 11, None)]
LEFT_IN_DEAL_0 = [LeaverRow(seat=1, identity_id=11, deal_number=0)]


def test_a_duel_leaver_answers_only_for_the_deal_he_left() -> None:
    left = holders(SEATS, LEFT_IN_DEAL_0, None, variant="duel", part=0)
    assert [h.left_early for h in left] == [False, True]
    later = holders(SEATS, LEFT_IN_DEAL_0, None, variant="duel", part=1)
    assert [h.left_early for h in later] == [False, False]
    assert later[1].identity_id == 11


def test_a_match_leaver_answers_for_the_match_whatever_deal_he_left() -> None:
    for variant in ("bela", "classic"):
        seats = (
            SEATS
            if variant == "bela"
            else [*SEATS, *(SeatInfo(s, "bot", None, "easy") for s in (2, 3))]
        )
        found = holders(seats, LEFT_IN_DEAL_0, None, variant=variant, part=3)
        assert found[1].left_early and found[1].identity_id == 11
        assert not found[0].left_early
