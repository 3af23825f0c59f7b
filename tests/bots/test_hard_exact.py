"""The hard bot's exact middle game (the arena's ``hard-v2``): the solver's card-play scores
turned into the deal's recorded points, and the level's decisions."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import pytest

from app.bots import LEVELS, dds
from app.bots.hard import dds_values
from app.bots.knowledge import Knowledge
from app.bots.score import Scorer
from app.bots.sim import legal_now, play_card
from app.engine import Phase, seat_view
from app.engine.cards import SUITS, card_list
from bench.arena import run
from bench.levels import ARENA_LEVELS, choose_action

from .helpers import card, random_chooser, states

TWO_SIDES = [("classic", 4), ("coinche", 4), ("bulgarian", 4), ("bela", 2), ("bela", 4)]


def best_line(pos: dds.Position, first: int) -> tuple[list[int], list[int]]:
    """Play ``first``, then every seat the card the solver finds best for its own party, to
    the end of the deal on the bots' simulator: the points and tricks won per seat."""
    d = pos.deal.copy()
    t = pos.table
    play_card(d, first, t)
    while d.tricks_left:
        p = dds.Position(d, t, pos.extra, pos.scale)
        seat = p.seat
        legal = card_list(legal_now(d, t))
        sol = dds.solve_position(p, t.side_of[seat], moves=legal)
        play_card(d, sol.best, t)
    return d.won, d.tricks


@pytest.mark.parametrize(("variant", "players"), TWO_SIDES, ids=[f"{v}-{n}p" for v, n in TWO_SIDES])
def test_the_solvers_scores_become_what_best_play_scores(variant: str, players: int) -> None:
    """For every legal card, ``dds_values`` is exactly the recorded-points value the deal's
    scoring gives when that card is played and everyone then plays the solver's best card to
    the end: capots, failed contracts and Bulgarian's doubled no-trump points included."""
    checked = 0
    for state in itertools.islice(states(variant, players, 7, random_chooser), 0, 4000, 13):
        if state.phase is not Phase.PLAY or len(state.tricks) < 3 or state.contract is None:
            continue
        pos = dds.position_of(state)
        t = pos.table
        seat = pos.seat
        side = t.side_of[seat]
        legal = card_list(legal_now(pos.deal, t))
        sol = dds.solve_position(pos, side, moves=legal)
        scorer = Scorer(
            variant, state.contract, t.side_of, t.total_tricks, (0,) * 2, (0,) * 2, extra=(0, 0)
        )
        values = dds_values(sol, pos.deal, t, scorer, side, pos.extra, pos.scale, legal)
        for c, v in zip(legal, values, strict=True):
            won, tricks = best_line(pos, c)
            assert v == pytest.approx(scorer.value(won, tricks, side)), (variant, c)
        checked += 1
        if checked >= 12:
            break
    assert checked >= 12


def test_hard_v2_is_an_arena_level_not_a_table_level() -> None:
    assert "hard-v2" in ARENA_LEVELS and "hard-v2" not in LEVELS


@pytest.mark.parametrize(("variant", "players"), [("classic", 4), ("bela", 2), ("duel", 2)])
def test_hard_v2_plays_legal_cards_and_the_same_ones_from_the_same_seed(
    variant: str, players: int
) -> None:
    seen = 0
    for state in itertools.islice(states(variant, players, 3, random_chooser), 0, 2000, 11):
        if state.phase is not Phase.PLAY or not 1 <= len(state.tricks) <= 4:
            continue
        view = seat_view(state, state.to_act)
        if len(view["legal"]) < 2:
            continue
        one = choose_action(view, "hard-v2", random.Random(5), budget_ms=40)
        two = choose_action(view, "hard-v2", random.Random(5), budget_ms=40)
        assert one in view["legal"] and one == two
        seen += 1
        if seen >= 6:
            break
    assert seen >= 6


def test_the_arena_fields_hard_v2_against_hard() -> None:
    report = run("classic", 4, {}, "hard-v2", "hard", deals=1, seed=3, budget_ms=30)
    assert set(report["decision_cpu_ms"]) == {"hard-v2", "hard"}
    assert report["deals"] == 1


def test_hard_v1_decides_as_hard_without_the_taken_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """The arena's ``hard-v1`` is the reference for reading ``taken``: in a view where another
    seat took the turn-up, it makes hard's decision on that view with ``taken`` removed."""
    from app.bots import hard

    # only the work units count, not a loaded machine's clock
    monkeypatch.setattr(hard, "MIN_DEADLINE_S", 3600.0)
    monkeypatch.setattr(hard, "MAX_DEADLINE_S", 3600.0)
    assert "hard-v1" in ARENA_LEVELS and "hard-v1" not in LEVELS
    checked = 0
    for state in itertools.islice(states("classic", 4, 21, random_chooser), 0, 3000, 7):
        if state.phase is not Phase.PLAY:
            continue
        view = seat_view(state, state.to_act)
        taken = view.get("taken")
        if not taken or taken["seat"] == state.to_act or len(view["legal"]) < 2:
            continue
        blind = {**view, "taken": None}
        v1 = choose_action(view, "hard-v1", random.Random(9), budget_ms=20)
        assert v1 == choose_action(blind, "hard", random.Random(9), budget_ms=20)
        checked += 1
        if checked == 4:
            break
    assert checked == 4


# ---------------------------------------------------------------------- reading the play


def _policy_chooser(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Bids as medium; plays the rollout policy's card, from the seat's own view."""
    from app.bots.common import decide, public_voids, table_of
    from app.bots.hard import read_view
    from app.bots.sim import Deal, policy_card, trick_best

    def card(k: Knowledge, r: random.Random) -> int:
        t = table_of(k)
        hands = [k.hand if s == k.seat else 0 for s in range(k.n)]
        won = [0] * k.n
        d = Deal(hands, k.trick_cards(), k.leader, k.played, won, won[:], k.tricks_left())
        d.voids = public_voids(k)
        allowed = k.legal_cards()
        best_i, best = trick_best(d.trick, t) if d.trick else (0, -1)
        return policy_card(d, k.seat, allowed, best_i, best, t, 0.5)

    if view["phase"] != "play":
        return choose_action(view, "medium", rng)
    medium_bid = lambda k, r: choose_action(view, "medium", r)  # noqa: E731
    return decide(read_view(view), rng, card=card, bid=medium_bid, discard=medium_bid)


def _reads(state: Any) -> tuple[float, int]:
    from app.bots.common import table_of
    from app.bots.hard import play_likelihood, read_view
    from app.bots.sampler import World

    k = read_view(seat_view(state, state.to_act))
    return play_likelihood(k, World([], list(state.hands)), table_of(k))


def test_a_world_where_every_card_is_the_policys_choice_weighs_one() -> None:
    """Deals whose cards are all the rollout policy's choices: in the real world, every seat's
    reading of the others' play finds no choice the policy would not have made."""
    checked = 0
    for state in states("classic", 4, 31, _policy_chooser):
        if state.phase is not Phase.PLAY or len(state.tricks) < 3:
            continue
        weight, calls = _reads(state)
        assert calls > 0
        assert weight == 1.0
        checked += 1
        if checked == 12:
            break


def test_cards_the_policy_would_not_choose_lower_the_worlds_weight() -> None:
    """Random play often differs from the policy's choice: the real world's weight is then
    ``READ_MISS`` to the power of the differing choices, below one."""
    from app.bots.hard import READ_MISS

    weights = []
    for state in itertools.islice(states("classic", 4, 32, random_chooser), 0, 4000, 5):
        if state.phase is Phase.PLAY and len(state.tricks) >= 4:
            weights.append(_reads(state)[0])
        if len(weights) == 20:
            break
    assert len(weights) == 20
    assert all(0 < w <= 1 for w in weights)
    assert min(weights) <= READ_MISS**2
    for w in weights:
        misses = round(math.log(w) / math.log(READ_MISS))
        assert w == pytest.approx(READ_MISS**misses)


def test_equivalent_cards_are_one_choice() -> None:
    from app.bots.common import table_of
    from app.bots.hard import _same_choice
    from app.bots.knowledge import read_view

    state = next(s for s in states("classic", 4, 33, random_chooser) if s.phase is Phase.PLAY)
    t = table_of(read_view(seat_view(state, state.to_act)))
    trump = t.trump
    plain = (trump + 1) % 4
    seven, eight, nine = (
        card(f"7{SUITS[plain]}"),
        card(f"8{SUITS[plain]}"),
        card(f"9{SUITS[plain]}"),
    )
    assert [seven >> 3, eight >> 3, nine >> 3] == [plain] * 3
    both = (1 << seven) | (1 << nine)
    # the 8 lies between the 7 and the 9: out, it tells them apart; held or played, it does not
    assert not _same_choice(seven, nine, both, 0, t)
    assert _same_choice(seven, nine, both | (1 << eight), 0, t)
    assert _same_choice(seven, nine, both, 1 << eight, t)
    assert _same_choice(seven, eight, (1 << seven) | (1 << eight), 0, t)
    # a ten and a king have other points; another suit is another choice
    ten, king = card(f"T{SUITS[plain]}"), card(f"K{SUITS[plain]}")
    assert not _same_choice(ten, king, (1 << ten) | (1 << king), 0, t)
    other = card(f"7{SUITS[(plain + 1) % 4]}")
    assert not _same_choice(seven, other, (1 << seven) | (1 << other), 0, t)


def test_hard_reads_plays_legal_cards_the_same_from_the_same_seed() -> None:
    assert "hard-reads" in ARENA_LEVELS and "hard-reads" not in LEVELS
    seen = 0
    for state in itertools.islice(states("coinche", 4, 34, random_chooser), 0, 3000, 7):
        if state.phase is not Phase.PLAY or len(state.tricks) < 2:
            continue
        view = seat_view(state, state.to_act)
        if len(view["legal"]) < 2:
            continue
        one = choose_action(view, "hard-reads", random.Random(5), budget_ms=30)
        assert one in view["legal"]
        assert one == choose_action(view, "hard-reads", random.Random(5), budget_ms=30)
        seen += 1
        if seen == 6:
            break
    assert seen == 6


def test_hard_bid0_bids_with_no_margin_in_classic_and_coinche(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The arena's hard-bid0 leaves the medium bid whenever the simulations favour another
    # action by one standard error: the margin its bidding gets is 0 in classic and coinche,
    # the variant's own elsewhere (None).
    from app.bots import hard, simbid

    seen: dict[tuple[str, str], float | None] = {}

    def spy(k, rng, budget, margin=None, noise=simbid.NOISE):  # type: ignore[no-untyped-def]
        seen[(level, k.variant)] = margin
        return simbid.hard_bid(k, rng, budget, margin, noise)

    monkeypatch.setattr(hard, "hard_bid", spy)
    for variant in ("classic", "coinche", "bela"):
        for level in ("hard", "hard-bid0"):
            state = next(
                s
                for s in states(variant, 4, 36, random_chooser)
                if s.phase is Phase.BIDDING and len(seat_view(s, s.to_act)["legal"]) > 1
            )
            view = seat_view(state, state.to_act)
            assert choose_action(view, level, random.Random(1), budget_ms=20) in view["legal"]
    assert seen == {
        ("hard", "classic"): None,
        ("hard-bid0", "classic"): 0.0,
        ("hard", "coinche"): None,
        ("hard-bid0", "coinche"): 0.0,
        ("hard", "bela"): None,
        ("hard-bid0", "bela"): None,
    }


def test_the_bidding_margin_decides_when_the_medium_bid_is_left() -> None:
    # A margin far below zero lets the simulations' best other action replace the medium bid
    # everywhere; with the variant's margin the medium bid mostly stands.
    from app.bots.hard import make_budget
    from app.bots.knowledge import read_view
    from app.bots.simbid import hard_bid

    differ = 0
    for state in itertools.islice(states("classic", 4, 37, random_chooser), 0, 4000):
        if state.phase is not Phase.BIDDING:
            continue
        view = seat_view(state, state.to_act)
        if len(view["legal"]) < 2:
            continue
        k = read_view(view)
        default = hard_bid(k, random.Random(3), make_budget(30))
        eager = hard_bid(k, random.Random(3), make_budget(30), margin=-1000.0)
        assert default in view["legal"] and eager in view["legal"]
        differ += default != eager
        if differ >= 3:
            break
    assert differ >= 3


def test_hard_n0_plays_out_its_cards_and_contracts_without_random_cards(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The arena's hard-n0: its playouts, of the card play and of the bidding, get a table whose
    # share of random cards is 0; hard's keep the rollout policy's own (sim.NOISE).
    from app.bots import hard, simbid
    from app.bots.sim import NOISE, playout

    seen: set[tuple[str, str, float]] = set()

    def spy(where: str):  # type: ignore[no-untyped-def]
        def played_out(d, t, rnd, start=0):  # type: ignore[no-untyped-def]
            seen.add((level, where, t.noise))
            return playout(d, t, rnd, start)

        return played_out

    monkeypatch.setattr(hard, "playout", spy("card"))
    monkeypatch.setattr(simbid, "playout", spy("bid"))
    bidding = next(
        s
        for s in states("classic", 4, 38, random_chooser)
        if s.phase is Phase.BIDDING and len(seat_view(s, s.to_act)["legal"]) > 1
    )
    playing = next(
        s
        for s in states("classic", 4, 38, random_chooser)
        if s.phase is Phase.PLAY and len(s.tricks) == 1 and len(seat_view(s, s.to_act)["legal"]) > 1
    )
    for level in ("hard", "hard-n0"):
        for state in (bidding, playing):
            view = seat_view(state, state.to_act)
            assert choose_action(view, level, random.Random(2), budget_ms=20) in view["legal"]
    assert seen == {
        ("hard", "bid", NOISE),
        ("hard", "card", NOISE),
        ("hard-n0", "bid", 0.0),
        ("hard-n0", "card", 0.0),
    }


def test_the_tables_noise_is_the_share_of_random_cards_in_the_rollout_policy() -> None:
    # policy_card plays a card drawn by its random number r when r < the table's noise: with a
    # noise of 1 every choice is cards[int(r * len(cards))]; with 0 none is, and the heuristic
    # choice differs from the drawn one somewhere.
    from app.bots.common import public_voids, table_of
    from app.bots.hard import world_deal
    from app.bots.knowledge import read_view
    from app.bots.sampler import sample_world
    from app.bots.sim import legal_now, policy_card, to_move, trick_best

    rng = random.Random(5)
    checked = differ = 0
    for state in states("classic", 4, 39, random_chooser):
        if state.phase is not Phase.PLAY or len(seat_view(state, state.to_act)["legal"]) < 3:
            continue
        k = read_view(seat_view(state, state.to_act))
        d = world_deal(k, sample_world(k, rng), public_voids(k))
        t = table_of(k)
        seat = to_move(d, t)
        allowed = legal_now(d, t)
        best_i, best = trick_best(d.trick, t) if d.trick else (0, -1)
        cards = card_list(allowed)
        for r in (0.0, 0.3, 0.7, 0.99):
            t.noise = 1.0
            drawn = policy_card(d, seat, allowed, best_i, best, t, r)
            assert drawn == cards[int(r * len(cards))]
            t.noise = 0.0
            chosen = policy_card(d, seat, allowed, best_i, best, t, r)
            assert (allowed >> chosen) & 1
            differ += chosen != drawn
        checked += 1
        if checked >= 40:
            break
    assert differ > 0
