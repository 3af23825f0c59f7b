"""The learned model of the hidden cards (``app.bots.beliefs``): its inputs come from the seat
view alone, it runs with numpy alone, and the hard level that weighs its worlds by it decides
from the view alone."""

from __future__ import annotations

import argparse
import itertools
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.bots import beliefs
from app.bots.hard import model_world_weights
from app.engine import Phase, State, current_player, seat_view
from bench.levels import choose_action

from .helpers import states

FAMILIES = [("classic", 4), ("coinche", 4), ("bulgarian", 4), ("bela", 4)]


def redealt(state: State, seat: int, rng: random.Random) -> State:
    """``state`` with the other seats' unplayed cards dealt again among them, each seat
    keeping its number of cards (a different deal, if there is one)."""
    others = [s for s in range(4) if s != seat]
    pool = [c for s in others for c in range(32) if (state.hands[s] >> c) & 1]
    hands = list(state.hands)
    for _ in range(50):
        rng.shuffle(pool)
        i = 0
        for s in others:
            n = state.hands[s].bit_count()
            hands[s] = sum(1 << c for c in pool[i : i + n])
            i += n
        if tuple(hands) != state.hands:
            break
    out = state.copy()
    out.hands = tuple(hands)
    return out


def play_states(variant: str, seed: int, count: int) -> list[State]:
    out = []
    for state in itertools.islice(states(variant, 4, seed=seed), 0, 2000):
        if state.phase == Phase.PLAY and state.contract is not None:
            out.append(state)
            if len(out) == count:
                break
    return out


@pytest.mark.parametrize(("variant", "players"), FAMILIES)
def test_features_are_a_function_of_the_seat_view(variant: str, players: int) -> None:
    """Dealing the other seats' hidden cards again leaves the view, and so the features,
    unchanged; and the features read nothing but the view (a JSON copy gives the same)."""
    rng = random.Random(3)
    checked = 0
    for state in play_states(variant, 5, 60)[::6]:
        if sum(1 for s, h in enumerate(state.hands) if s != current_player(state) and h) < 2:
            continue
        seat = current_player(state)
        view = seat_view(state, seat)
        assert beliefs.supported(view)
        other = redealt(state, seat, rng)
        assert other.hands != state.hands
        view2 = seat_view(other, seat)
        assert view2 == view
        x = beliefs.features(view)
        assert x.shape == (beliefs.N_FEATURES,)
        assert np.array_equal(x, beliefs.features(view2))
        checked += 1
    assert checked >= 5


def test_features_do_not_see_the_other_hands() -> None:
    """The features of a view name the seat's own cards and played cards, never an unplayed
    card of another seat."""
    for state in play_states("classic", 8, 40)[::4]:
        seat = current_player(state)
        view = seat_view(state, seat)
        x = beliefs.features(view)
        hand = x[beliefs.OFFSET["hand"] : beliefs.OFFSET["hand"] + 32]
        order = beliefs.suit_order(view)
        own = {beliefs.canonical(c, order) for c in range(32) if (state.hands[seat] >> c) & 1}
        assert {i for i in range(32) if hand[i]} == own


def test_the_committed_model_predicts_a_distribution_over_the_other_seats() -> None:
    model = beliefs.load()
    assert model is not None, "app/bots/beliefs.npz is committed"
    meta = beliefs.metadata()
    for key in ("command", "date", "data", "held_out_deals"):
        assert key in meta
    for state in play_states("coinche", 2, 10):
        view = seat_view(state, current_player(state))
        p = model.predict(view)
        assert p.shape == (32, 3)
        assert np.allclose(p.sum(axis=1), 1.0, atol=1e-5)
        assert (p >= 0).all()


def test_world_weights_keep_a_floor_of_uniform_worlds() -> None:
    probs = np.full((32, 3), 1 / 3)
    probs[0] = [0.98, 0.01, 0.01]  # card 0: almost surely the next seat's
    hands_a = [1 << 5, 1 << 0, 0, 0]  # seat 1 holds card 0
    hands_b = [1 << 5, 0, 1 << 0, 0]  # seat 2 holds it
    w = model_world_weights(probs, 0, [hands_a, hands_b], 0.5)
    assert sum(w) == pytest.approx(1.0)
    assert w[0] == pytest.approx(0.25 + 0.5 * 0.98 / 0.99)
    assert w[1] >= 0.25  # the floor: half the weight is shared alike
    assert model_world_weights(probs, 0, [hands_a, hands_b], 0.0) == [0.5, 0.5]


@pytest.mark.parametrize(("variant", "players"), FAMILIES)
def test_hard_model_decides_from_the_seat_view_alone(variant: str, players: int) -> None:
    """The swap test for the level that weighs its worlds by the model: the same view with
    the hidden cards dealt again gives the same card."""
    rng = random.Random(11)
    for state in play_states(variant, 7, 30)[::10]:
        seat = current_player(state)
        view = seat_view(state, seat)
        if len(view["legal"]) < 2:
            continue
        other = seat_view(redealt(state, seat, rng), seat)
        a = choose_action(view, "hard-model", random.Random(4), budget_ms=10)
        b = choose_action(other, "hard-model", random.Random(4), budget_ms=10)
        assert a == b


def test_inference_imports_no_training_library() -> None:
    """The server's bots run the model with numpy alone."""
    code = (
        "import random, sys\n"
        "from app.bots import HardStyle, choose_action, beliefs\n"
        "from app.engine import new_match, seat_view, current_player\n"
        "from tests.bots.test_beliefs import play_states\n"
        "s = play_states('classic', 1, 3)[-1]\n"
        "v = seat_view(s, current_player(s))\n"
        "assert beliefs.load() is not None\n"
        "choose_action(v, 'hard', random.Random(1), budget_ms=5, style=HardStyle(model_mix=0.5))\n"
        "bad = [m for m in ('sklearn', 'torch', 'scipy') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_training_data_has_every_card_once(tmp_path: Path) -> None:
    """``atout bench train data``: at each kept decision every card is in the seat's hand,
    played, or held by exactly one other seat (the target); and the importance command reads
    such files with the committed model (numpy only: the fitting's library is not needed)."""
    from bench import train

    x, y, _ = train.generate("classic", 6, 3, "medium", 4, 1)
    assert len(x) == len(y) > 0
    o = beliefs.OFFSET
    for xi, yi in zip(x, y, strict=True):
        hand = xi[o["hand"] : o["hand"] + 32].astype(bool)
        played = xi[o["played_by"] : o["played_by"] + 128].reshape(4, 32).any(axis=0)
        hidden = yi != train.NONE
        assert not (hand & played).any() and not (hand & hidden).any()
        assert not (played & hidden).any()
        assert (hand | played | hidden).all()
    np.savez_compressed(tmp_path / "d.npz", x=x, y=y)
    args = argparse.Namespace(
        data=[str(tmp_path / "d.npz")], model=str(beliefs.WEIGHTS), holdout=0.5, seed=1
    )
    assert train.cmd_importance(args) == 0


def test_hard_v3_is_hard_under_another_name() -> None:
    """The arena's reference for ``hard-model`` is the table's hard level, decision for
    decision."""
    for state in play_states("classic", 12, 40)[::8]:
        view = seat_view(state, current_player(state))
        if len(view["legal"]) < 2:
            continue
        a = choose_action(view, "hard", random.Random(2), budget_ms=10)
        assert a == choose_action(view, "hard-v3", random.Random(2), budget_ms=10)
