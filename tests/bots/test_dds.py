"""The exact solver (``app.bots.dds``) against a plain minimax, in every variant, and its C
search against its Python one.

The reference knows nothing of the solver's tricks: it plays every legal card (the engine's
``legal_mask`` from the trick's cards, ``trick_winner_index``), scores the deal at the end
by the rules of card play (card points, the last trick's 10, the 90 of a capot when one side
took every trick, Bulgarian no-trump doubled) and takes the max or the min.  Positions come
from deals played at random through the engine.

The C search (``app.bots._dds``) must be the Python search node for node: the same values,
scores, best card and node counts, from whole deals down to the last tricks.  Its tests skip
when the extension is not built, except under CI (``CI`` set), where that is a failure.
"""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
from dataclasses import replace

import pytest

from app.bots import dds
from app.bots.dds import Budget, Position, parties, position_of, solve_position
from app.bots.sim import legal_now
from app.engine import Phase
from app.engine.cards import card_list
from app.engine.play import legal_mask, trick_winner_index
from app.engine.scoring import CAPOT_BONUS

from .helpers import CONFIGS, IDS, random_chooser, states

# Positions per variant; DDS_POSITIONS=2000 (for example) runs a larger check.
POSITIONS = int(os.environ.get("DDS_POSITIONS", "400"))
# Positions per variant where the C search is compared with the Python one (whole deals and
# positions from any trick on); DDS_C_POSITIONS=200 (for example) runs a larger check.
C_POSITIONS = int(os.environ.get("DDS_C_POSITIONS", "16"))

# The C search is tested wherever it is built, and must be built under CI.
C_TESTED = dds.has_c() or bool(os.environ.get("CI"))
needs_c = pytest.mark.skipif(
    not C_TESTED,
    reason="app.bots._dds is not built (pip install -e . builds it with a C compiler)",
)
IMPLS = ["python", pytest.param("c", marks=needs_c)]
# every search built (both under CI): the tests comparing each with the plain minimax
BUILT = ["python", "c"] if C_TESTED else ["python"]


def reference(pos: Position, side: int) -> dict[int, int]:
    """Each legal card's value by plain minimax: the card-play difference of ``side``'s
    party at the end of the deal."""
    t = pos.table
    d = pos.deal
    mx = parties(t, side)
    hands = d.hands[:]
    won = [0] * t.sides
    trk = [0] * t.sides
    for s in range(t.n):
        won[t.side_of[s]] += d.won[s]
        trk[t.side_of[s]] += d.tricks[s]
    for s, p in enumerate(pos.extra):
        won[s] += p

    def final() -> int:
        score = [p * pos.scale for p in won]
        for s in range(t.sides):
            if trk[s] == t.total_tricks:
                score[s] += CAPOT_BONUS
        own = sum(score[s] for s in range(t.sides) if mx[t.side_of.index(s)])
        return 2 * own - sum(score)

    def value(trick: list[int], leader: int, left: int) -> int:
        if left == 0:
            return final()
        seat = (leader + len(trick)) % t.n
        if trick:
            wi = trick_winner_index(trick, t.trump)
            pm = t.partner_exc and (wi - len(trick)) % 4 == 2
            legal = legal_mask(hands[seat], trick, t.trump, pm, t.flags)
        else:
            legal = hands[seat]
        vals = [play(c, seat, trick, leader, left) for c in card_list(legal)]
        return max(vals) if mx[seat] else min(vals)

    def play(c: int, seat: int, trick: list[int], leader: int, left: int) -> int:
        hands[seat] &= ~(1 << c)
        trick = [*trick, c]
        if len(trick) < t.n:
            v = value(trick, leader, left)
        else:
            w = (leader + trick_winner_index(trick, t.trump)) % t.n
            p = sum(t.points[x] for x in trick) + (10 if left == 1 else 0)
            ws = t.side_of[w]
            won[ws] += p
            trk[ws] += 1
            freed = [d.reveal[x] for x in trick if x in d.reveal]
            for f in freed:
                hands[d.owner[f]] |= 1 << f
            v = value([], w, left - 1)
            for f in freed:
                hands[d.owner[f]] &= ~(1 << f)
            won[ws] -= p
            trk[ws] -= 1
        hands[seat] |= 1 << c
        return v

    seat = pos.seat
    trick = d.trick
    if trick:
        wi = trick_winner_index(trick, t.trump)
        legal = legal_mask(
            hands[seat], trick, t.trump, t.partner_exc and (wi - len(trick)) % 4 == 2, t.flags
        )
    else:
        legal = hands[seat]
    return {c: play(c, seat, trick, d.leader, d.tricks_left) for c in card_list(legal)}


def deal_total(pos: Position) -> int:
    """The card-play points of both parties together, without a capot."""
    d = pos.deal
    out = 0
    for h in d.hands:
        out |= h
    out |= sum(1 << c for c in d.trick) | sum(1 << f for f in d.reveal.values())
    raw = sum(pos.table.points[c] for c in card_list(out)) + sum(d.won) + sum(pos.extra)
    return (raw + 10) * pos.scale


def cards_left(pos: Position) -> int:
    return sum(h.bit_count() for h in pos.deal.hands) + len(pos.deal.reveal)


# the largest positions the plain minimax settles quickly, per player count
SMALL = {4: 12, 3: 12, 2: 10}


def small_positions(variant: str, players: int, seed: int):  # type: ignore[no-untyped-def]
    limit = SMALL[players]
    for state in states(variant, players, seed, random_chooser):
        if state.phase is not Phase.PLAY:
            continue
        pos = position_of(state)
        if cards_left(pos) <= limit:
            yield pos


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_solver_is_exact_against_plain_minimax(variant: str, players: int, impl: str) -> None:
    rng = random.Random(7)
    checked = 0
    for pos in itertools.islice(small_positions(variant, players, 11), POSITIONS):
        side = rng.randrange(pos.table.sides)
        sol = solve_position(pos, side, impl=impl)
        ref = reference(pos, side)
        assert sol.values == ref, (variant, players, pos)
        assert sol.value == max(ref.values())
        for c, (own, other) in sol.scores.items():
            assert own - other == sol.values[c]
        checked += 1
    assert checked == POSITIONS


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_solver_counts_the_capot(variant: str, players: int) -> None:
    """The tricks already played given to one seat, so that its side may still take them
    all: the capot is in play, and its 90 points show in the scores."""
    rng = random.Random(8)
    capots = 0
    for pos in itertools.islice(small_positions(variant, players, 12), POSITIONS // 2):
        d = pos.deal
        sweeper = rng.randrange(pos.table.n)
        done = pos.table.total_tricks - d.tricks_left
        won = [sum(d.won) if s == sweeper else 0 for s in range(pos.table.n)]
        tricks = [done if s == sweeper else 0 for s in range(pos.table.n)]
        deal = replace(d, won=won, tricks=tricks)
        swept = Position(deal, pos.table, pos.extra, pos.scale)
        side = rng.randrange(pos.table.sides)
        ref = reference(swept, side)
        for impl in BUILT:
            sol = solve_position(swept, side, impl=impl)
            assert sol.values == ref, impl
        total = deal_total(swept)
        for own, other in sol.scores.values():
            assert own + other in (total, total + CAPOT_BONUS)
            capots += own + other == total + CAPOT_BONUS
    assert capots > 0


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_a_table_kept_through_a_deal_gives_the_same_values(
    variant: str, players: int, impl: str
) -> None:
    """Every decision of one deal's last tricks solved with one table kept between them
    (for one side, then the other) equals a fresh solve."""
    rng = random.Random(9)
    deals = 0
    tt = dds.new_table(impl)
    first = None
    for state in states(variant, players, 13, random_chooser):
        if state.phase is not Phase.PLAY:
            continue
        pos = position_of(state)
        if cards_left(pos) > SMALL[players] + players:
            continue
        if first is None or state.tricks[:1] != first:
            first = state.tricks[:1]
            tt = dds.new_table(impl)
            deals += 1
            if deals > 3:
                break
        side = rng.randrange(pos.table.sides)
        kept = solve_position(pos, side, tt=tt, impl=impl)
        fresh = solve_position(pos, side, impl=impl)
        assert kept.values == fresh.values
        assert kept.scores == fresh.scores
        assert len(tt) > 0
    assert deals > 3


def best_trump_run(pos: Position, side: int) -> int:
    """The card points of the run of trumps from the best one out that one party holds
    (positive for ``side``'s party, negative for the other), 0 without a trump suit."""
    t = pos.table
    if t.trump >= 4:
        return 0
    mx = parties(t, side)
    out = 0
    for h in pos.deal.hands:
        out |= h
    out |= sum(1 << f for f in pos.deal.reveal.values())
    run = [c for c in t.desc[t.trump] if (out >> c) & 1]
    if not run:
        return 0

    def party(c: int) -> bool:
        seat = next(
            s for s in range(t.n) if (pos.deal.hands[s] >> c) & 1 or pos.deal.owner.get(c) == s
        )
        return mx[seat]

    who = party(run[0])
    pts = 0
    for c in run:
        if party(c) != who:
            break
        pts += t.points[c]
    return pts if who else -pts


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_a_run_of_best_trumps_held_by_one_party_is_valued_exactly(
    variant: str, players: int
) -> None:
    """Positions where one party holds the best trumps still out, worth 14 points or more:
    the bound their tricks give each lead (that party's points at least, no capot for the
    other) leaves every value as the plain minimax finds it."""
    rng = random.Random(10)
    checked = 0
    for pos in itertools.islice(small_positions(variant, players, 14), 8 * POSITIONS):
        side = rng.randrange(pos.table.sides)
        if abs(best_trump_run(pos, side)) < 14:
            continue
        ref = reference(pos, side)
        for impl in BUILT:
            sol = solve_position(pos, side, impl=impl)
            assert sol.values == ref, (variant, players, pos, impl)
        checked += 1
        if checked == POSITIONS // 4:
            break
    assert checked >= 5  # Bulgarian deals are often played in no-trump or all-trump


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_values_of_either_parity_are_found_exactly(variant: str, players: int) -> None:
    """The root's searches probe only values of the parity of the points still out (the
    first one at 0, whatever the value): positions with an odd and an even number of points
    still out both get the plain minimax's values."""
    rng = random.Random(11)
    seen = [0, 0]
    for pos in itertools.islice(small_positions(variant, players, 15), POSITIONS // 2):
        out = deal_total(pos) - (sum(pos.deal.won) + sum(pos.extra)) * pos.scale
        side = rng.randrange(pos.table.sides)
        ref = reference(pos, side)
        for impl in BUILT:
            sol = solve_position(pos, side, impl=impl)
            assert sol.values == ref, (variant, players, pos, impl)
        assert all((v - deal_total(pos)) % 2 == 0 for v in ref.values())
        seen[out & 1] += 1
    assert min(seen) > 0


# ----- the C search against the Python one

# the most cards left in the positions compared after the first card (the Python search's
# time), per player count; whole deals are compared besides, but for the duel's (a whole duel
# deal takes the Python search about a minute)
C_LIMIT = {4: 24, 3: 24, 2: 20}


def c_positions(variant: str, players: int, seed: int):  # type: ignore[no-untyped-def]
    """Positions of deals played at random: the first card of every third deal (but in the
    duel), and a few positions of every deal at any card of the play with at most ``C_LIMIT``
    cards left, in the middle of a trick as well as at its start."""
    rng = random.Random(seed)
    deals = 0
    for state in states(variant, players, seed, random_chooser):
        if state.phase is not Phase.PLAY:
            continue
        pos = position_of(state)
        if not state.tricks and not state.trick:
            deals += 1
            if variant != "duel" and deals % 3 == 1:
                yield pos
            continue
        if deals and cards_left(pos) <= C_LIMIT[players] and rng.random() < 0.2:
            yield pos


def same_solution(pos: Position, side: int, moves: list[int] | None = None) -> dds.Solution:
    py = solve_position(pos, side, moves, impl="python")
    c = solve_position(pos, side, moves, impl="c")
    assert (c.values, c.scores, c.best, c.nodes) == (py.values, py.scores, py.best, py.nodes), pos
    return c


@needs_c
@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_the_c_search_is_the_python_search(variant: str, players: int) -> None:
    """The same values, scores, best card and node counts, from whole deals to the last
    tricks, for either party, every legal card or a few of them."""
    rng = random.Random(21)
    kinds = {"deal": 0, "trick": 0, "middle": 0}
    for i, pos in enumerate(itertools.islice(c_positions(variant, players, 22), C_POSITIONS)):
        side = rng.randrange(pos.table.sides)
        moves = None
        if i % 3 == 2:  # a few of the legal cards, as the hard bot asks
            legal = card_list(legal_now(pos.deal, pos.table))
            moves = legal[::2]
        same_solution(pos, side, moves)
        d = pos.deal
        kinds[
            "middle" if d.trick else "deal" if d.tricks_left == pos.table.total_tricks else "trick"
        ] += 1
    assert kinds["middle"] and kinds["trick"]
    assert kinds["deal"] or variant == "duel"


@needs_c
@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_a_node_budget_ends_both_searches_alike(variant: str, players: int) -> None:
    """``max_nodes`` raises Budget in both searches at the same node counts."""
    pos = next(p for p in c_positions(variant, players, 23) if 12 <= cards_left(p) <= 20)
    side = pos.table.side_of[pos.seat]
    full = same_solution(pos, side)
    assert full.nodes > 100
    for limit in (1, full.nodes // 3, full.nodes - 1, full.nodes):
        outcomes: list[dds.Solution | None] = []
        for impl in ("python", "c"):
            try:
                outcomes.append(solve_position(pos, side, max_nodes=limit, impl=impl))
            except Budget:
                outcomes.append(None)
        assert outcomes[0] == outcomes[1], limit
        if limit == full.nodes // 3:
            assert outcomes[0] is None
        if limit == full.nodes:
            assert outcomes[0] == full


@needs_c
def test_a_c_table_kept_through_a_whole_deal_gives_the_python_values() -> None:
    """One C table kept from a classic deal's first card to its last gives, at every card,
    the values and scores of the Python search with its own table."""
    rng = random.Random(24)
    tc = dds.new_table("c")
    tp = dds.new_table("python")
    first = None
    for state in states("classic", 4, 30, random_chooser):
        if state.phase is not Phase.PLAY:
            if first is not None:
                break
            continue
        pos = position_of(state)
        first = first or state
        side = rng.randrange(pos.table.sides)
        c = solve_position(pos, side, tt=tc, impl="c")
        py = solve_position(pos, side, tt=tp, impl="python")
        assert (c.values, c.scores, c.best, c.nodes) == (py.values, py.scores, py.best, py.nodes)
    assert first is not None
    assert len(tc) == len(tp) > 1000
    for key, entry in tp.items():
        assert tc.get(key) == entry


@needs_c
def test_a_table_of_the_other_search_is_refused() -> None:
    pos = next(small_positions("classic", 4, 26))
    with pytest.raises(TypeError):
        solve_position(pos, tt={}, impl="c")
    with pytest.raises(TypeError):
        solve_position(pos, tt=dds.new_table("c"), impl="python")
    with pytest.raises(ValueError):
        solve_position(pos, impl="fortran")
    table = dds.new_table("c")
    solve_position(pos, tt=table, impl="c")
    assert len(table) > 0
    table.clear()
    assert len(table) == 0


@needs_c
def test_the_c_search_refuses_bad_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad argument raises, never crashes: the search's arguments as ``solve`` makes them,
    each spoiled in turn."""
    from app.bots import _dds

    pos = next(small_positions("classic", 4, 27))
    made: list[dict[str, object]] = []
    search = _dds.Search

    def capture(**kwargs: object) -> object:
        made.append(kwargs)
        return search(**kwargs)

    monkeypatch.setattr(_dds, "Search", capture)
    solve_position(pos, impl="c")
    monkeypatch.undo()
    good = made[0]
    bad: list[tuple[str, object, type[Exception]]] = [
        ("n", 5, ValueError),
        ("trump", 6, ValueError),
        ("scale", 0, ValueError),
        ("beats", b"\x01", ValueError),
        ("beats", "no bytes", TypeError),
        ("points", (1,) * 31, ValueError),
        ("points", (-1,) * 32, ValueError),
        ("above", (1 << 33,) * 32, ValueError),
        ("desc", ((0,) * 8,) * 4, ValueError),
        ("desc", 3, TypeError),
        ("mx", (True,) * 3, ValueError),
        ("side_of", (0, 1, 0, 7), ValueError),
        ("side_max", (), ValueError),
        ("side_card", [9] * 32, ValueError),
        ("hands", [-1, 0, 0, 0], OverflowError),
        ("hands", [1 << 32, 0, 0, 0], ValueError),
        ("reveal", {40: 1}, ValueError),
        ("reveal", {3: 4}, ValueError),  # a freed card without an owner
        ("reveal", [], TypeError),
        ("owner", {4: 9}, ValueError),
        ("trick", [0, 1, 2, 3], ValueError),
        ("trick", [32], ValueError),
        ("leader", 4, ValueError),
        ("left", 0, ValueError),
        ("sweep", 8, ValueError),
        ("table", {}, TypeError),
        ("budget", 3, TypeError),
    ]
    for name, value, error in bad:
        with pytest.raises(error):
            _dds.Search(**(good | {name: value}))
    with pytest.raises(TypeError):
        _dds.Search(**(good | {"unknown": 1}))
    s = _dds.Search(**good)
    with pytest.raises(ValueError):
        s.after(32, -1, 0)
    with pytest.raises(TypeError):
        s.after("C7", -1, 0)
    # a position no deal has: the seats after the first have no card
    empty = _dds.Search(**(good | {"hands": [0xFF, 0, 0, 0], "trick": [], "leader": 0}))
    with pytest.raises(ValueError):
        empty.after(0, -1, 0)
    assert _dds.Table().get(1 << 50) is None


@needs_c
def test_atout_dds_python_picks_the_python_search() -> None:
    code = "from app.bots import dds; print(dds.IMPL, dds.has_c())"
    env = os.environ | {"ATOUT_DDS": "python"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["python", "True"]
    env = {k: v for k, v in os.environ.items() if k != "ATOUT_DDS"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["c", "True"]
