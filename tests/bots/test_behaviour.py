"""Key behaviours of the computer players (RULES.md §13 visibility, sound bidding and play)."""

from __future__ import annotations

import copy
import itertools
import json
import random
from typing import Any

import pytest

from app.bots import LEVELS, choose_action
from app.bots.knowledge import read_view
from app.engine import Phase, State, current_player, new_match, seat_view
from app.engine.cards import SUIT_MASK, format_card
from app.engine.play import trick_winner_index

from .helpers import CONFIGS, IDS, deck_for, random_chooser, states

FAST = {"budget_ms": 5}


def act(view: dict[str, Any], level: str, seed: int = 0, **kw: Any) -> dict[str, Any]:
    if level == "hard":
        kw = {**FAST, **kw}
    return choose_action(view, level, random.Random(seed), **kw)


# ---------------------------------------------------------------------- the view only


@pytest.mark.parametrize("level", LEVELS)
def test_bots_decide_from_the_seat_view_alone(level: str) -> None:
    """Two deals that look the same from a seat get the same decision: the hidden cards of
    the other seats (swapped here between two opponents) make no difference.  The view is
    also a plain JSON document: a serialised copy gives the same decision."""
    for seed in range(6):
        rng = random.Random(seed)
        deck = list(range(32))
        rng.shuffle(deck)
        s1 = new_match("coinche", seed=seed, first_dealer=3, deck=deck)
        # seat 1 gets D[3..5], seat 2 gets D[6..8]: swap one card between them
        deck2 = deck[:]
        deck2[3], deck2[6] = deck2[6], deck2[3]
        s2 = new_match("coinche", seed=seed, first_dealer=3, deck=deck2)
        v1, v2 = seat_view(s1, 0), seat_view(s2, 0)
        assert v1 == v2
        assert s1.hands != s2.hands
        a1 = act(v1, level, seed)
        a2 = act(json.loads(json.dumps(v2)), level, seed)
        assert a1 == a2


@pytest.mark.parametrize("level", LEVELS)
def test_bots_do_not_change_the_view(level: str) -> None:
    for state in itertools.islice(states("bela", 3, seed=2), 0, 400, 37):
        seat = current_player(state)
        view = seat_view(state, seat)
        before = copy.deepcopy(view)
        act(view, level)
        assert view == before


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_same_random_generator_same_decisions(level: str, variant: str, players: int) -> None:
    for state in itertools.islice(states(variant, players, seed=4), 0, 300, 23):
        view = seat_view(state, current_player(state))
        assert act(view, level, seed=9) == act(view, level, seed=9)


# ---------------------------------------------------------------------- bidding


WEAK = {
    # variant, players: (first dealer, deck positions of the eldest's first cards, its cards, extra)
    ("classic", 4): (3, [0, 1, 2, 12, 13, 20], ["7C", "8C", "7D", "8D", "7H", "8S"]),
    ("coinche", 4): (
        3,
        [0, 1, 2, 12, 13, 20, 21, 22],
        ["7C", "8C", "9C", "7D", "8D", "7H", "8H", "7S"],
    ),
    ("bulgarian", 4): (3, [0, 1, 2, 12, 13], ["7C", "8C", "7D", "8D", "7H"]),
    ("bela", 4): (3, [0, 1, 2, 12, 13, 14], ["7C", "8C", "7D", "8D", "7H", "8H"]),
    ("bela", 3): (2, [0, 1, 2, 9, 10, 11], ["7C", "8C", "7D", "8D", "7H", "8H"]),
    ("bela", 2): (1, [0, 1, 2, 6, 7, 8, 12], ["7C", "8C", "7D", "8D", "7H", "8H", "7S"]),
    ("duel", 2): (
        1,
        [16, 17, 18, 19, 20, 21, 22, 23],
        ["7C", "8C", "9C", "7D", "8D", "9D", "7H", "8H"],
    ),
}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(("variant", "players"), list(WEAK), ids=[f"{v}-{n}p" for v, n in WEAK])
def test_no_bid_with_nothing(level: str, variant: str, players: int) -> None:
    dealer, positions, cards = WEAK[(variant, players)]
    deck = deck_for({0: cards}, positions)
    state = new_match(variant, players, seed=1, first_dealer=dealer, deck=deck)
    assert current_player(state) == 0
    view = seat_view(state, 0)
    assert sorted(view["hand"]) == sorted(c for c in cards if c in view["hand"])
    for seed in range(3):
        assert act(view, level, seed)["type"] == "pass", (variant, view["hand"])


def test_medium_takes_a_strong_hand() -> None:
    deck = deck_for({0: ["JH", "9H", "AH", "AS", "AC", "TH"]}, [0, 1, 2, 12, 13, 20])
    state = new_match("classic", seed=1, first_dealer=3, deck=deck)
    assert act(seat_view(state, 0), "medium") == {"type": "bid", "contract": "H"}


# ---------------------------------------------------------------------- card play


def _partner_master_ace(state: State) -> bool:
    """Seat to act is last in the trick, void in the led suit with trumps and other cards,
    and its partner (second to play) wins the trick with the ace of the led suit."""
    if state.phase is not Phase.PLAY or len(state.trick) != 3 or state.contract.trump > 3:
        return False
    seat = state.to_act
    cards = [c for _, c in state.trick]
    trump = state.contract.trump
    winner = state.trick[trick_winner_index(cards, trump)]
    led = cards[0] >> 3
    hand = state.hands[seat]
    return (
        winner[0] == (seat + 2) % 4
        and winner[1] & 7 == 7
        and led != trump
        and not hand & SUIT_MASK[led]
        and bool(hand & SUIT_MASK[trump])
        and bool(hand & ~SUIT_MASK[trump])
        and all(c >> 3 == led for c in cards)
    )


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_partner_master_ace_is_not_trumped(level: str) -> None:
    """Last to play, partner's ace wins: any card is legal, and the bot does not trump."""
    found = 0
    for variant in ("classic", "coinche", "bulgarian"):
        for state in itertools.islice(states(variant, 4, 21, random_chooser), 30000):
            if _partner_master_ace(state):
                view = seat_view(state, state.to_act)
                a = act(view, level, budget_ms=20)
                trump = state.contract.trump
                assert a["card"][1] != "CDHS"[trump], (view["hand"], view["trick"], a)
                found += 1
                if found >= 4 * (1 + ("classic", "coinche", "bulgarian").index(variant)):
                    break
    assert found >= 6


def test_medium_does_not_overtrump_its_partner() -> None:
    """The partner has trumped (and wins); void too, the medium bot discards instead."""
    found = 0
    for state in itertools.islice(states("classic", 4, 8, random_chooser), 80000):
        if state.phase is not Phase.PLAY or len(state.trick) < 2:
            continue
        seat = state.to_act
        trump = state.contract.trump
        if trump > 3:
            continue
        cards = [c for _, c in state.trick]
        wi = trick_winner_index(cards, trump)
        led = cards[0] >> 3
        if state.trick[wi][0] != (seat + 2) % 4 or led == trump or cards[wi] >> 3 != trump:
            continue
        hand = state.hands[seat]
        if hand & SUIT_MASK[led] or not hand & SUIT_MASK[trump] or not hand & ~SUIT_MASK[trump]:
            continue
        a = act(seat_view(state, seat), "medium")
        assert a["card"][1] != "CDHS"[trump]
        found += 1
        if found >= 10:
            return
    assert found >= 5


def test_medium_throws_points_on_its_partners_trick() -> None:
    found = 0
    for state in itertools.islice(states("coinche", 4, 13, random_chooser), 60000):
        if state.phase is not Phase.PLAY or len(state.trick) != 3:
            continue
        seat = state.to_act
        view = seat_view(state, seat)
        k = read_view(view)
        w, _ = k.trick_winner()
        if w != k.partner():
            continue
        legal = k.legal_cards()
        plain = [c for c in range(32) if (legal >> c) & 1 and not (k.trump_mask >> c) & 1]
        if len(plain) < 2:
            continue
        liability = [c for c in plain if not k.is_master(c)]
        if not liability:
            continue
        a = act(view, "medium")
        played = [c for c in range(32) if format_card(c) == a["card"]][0]
        assert k.points[played] >= max(k.points[c] for c in liability), (view["hand"], a)
        found += 1
        if found >= 15:
            return
    assert found >= 8


def test_easy_keeps_its_master_aces() -> None:
    """On a trick it cannot win, the easy bot never throws a master card worth 10+."""
    checked = 0
    for state in itertools.islice(states("classic", 4, 17, random_chooser), 12000):
        if (
            state.phase is not Phase.PLAY
            or not state.trick
            or state.hands[state.to_act] & SUIT_MASK[state.trick[0][1] >> 3]
        ):
            continue
        seat = state.to_act
        view = seat_view(state, seat)
        k = read_view(view)
        legal = k.legal_cards()
        from app.bots.common import table_of
        from app.bots.sim import beats

        t = table_of(k)
        _, best = k.trick_winner()
        wasted = [
            c
            for c in range(32)
            if (legal >> c) & 1 and k.is_master(c) and t.points[c] >= 10 and not beats(c, best, t)
        ]
        others = [c for c in range(32) if (legal >> c) & 1 and c not in wasted]
        if not wasted or not others:
            continue
        for seed in range(5):
            a = act(view, "easy", seed)
            assert a["card"] not in [format_card(c) for c in wasted]
        checked += 1
    assert checked > 10
