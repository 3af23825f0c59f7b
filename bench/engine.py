"""``atout bench engine``: complete random deals and random playouts per second.

Two measures per variant: whole deals through the public API (deal, bidding, tricks and
scoring), and random playouts of the card play on bare bitmasks.  A ``Position`` is a plain
description of the card play from some point on; ``playout`` plays it to the end with random
legal cards and returns the card points each seat won.  It implements exactly the rules of
``play.legal_mask`` (tested against it, ``tests/bench/test_engine_bench.py``), inlined: a measure of
what the rules cost at their barest.  The computer players have their own playouts
(``app/bots/sim.py``), with a policy and knowledge this one has not.
"""

from __future__ import annotations

import json
import platform
import random
import time
from dataclasses import dataclass, field
from typing import Any

from app.engine.cards import ABOVE_PLAIN, ABOVE_TRUMP, PLAIN_STRENGTH, SUIT_MASK, TRUMP_STRENGTH
from app.engine.game import apply, legal_actions, new_match
from app.engine.play import ALL_TRUMP, NO_TRUMP, PlayFlags, legal_mask, trick_winner_index
from app.engine.state import Phase, State
from app.engine.variants import VARIANTS


@dataclass(slots=True)
class Position:
    hands: list[int]  # playable cards per seat
    trick: list[int]  # cards of the trick in progress, in play order
    leader: int  # seat that led the trick in progress
    trump: int  # suit 0..3, NO_TRUMP or ALL_TRUMP
    flags: PlayFlags
    points: tuple[int, ...]  # card points per card for the contract
    tricks_left: int  # tricks still to complete, the one in progress included
    n: int
    reveal: dict[int, int] = field(default_factory=dict)  # duel: played card -> freed card
    owner: dict[int, int] = field(default_factory=dict)  # duel: freed card -> seat


def position_of(state: State) -> Position:
    """The fast-path position of a state in the play phase (full information)."""
    assert state.phase is Phase.PLAY and state.contract is not None
    rules = state.rules
    reveal: dict[int, int] = {}
    owner: dict[int, int] = {}
    for cover, (seat, down) in rules.covered_cards(state).items():
        reveal[cover] = down
        owner[down] = seat
    return Position(
        hands=list(state.hands),
        trick=[c for _, c in state.trick],
        leader=state.leader,
        trump=state.contract.trump,
        flags=rules.flags(state.contract),
        points=rules.points(state.contract),
        tricks_left=rules.total_tricks - len(state.tricks),
        n=rules.players,
        reveal=reveal,
        owner=owner,
    )


def _pick(mask: int, r: float) -> int:
    """A uniformly chosen card of ``mask`` given ``r`` in [0, 1): its k-th lowest card."""
    if not mask:
        raise ValueError("empty mask")
    k = int(r * mask.bit_count())
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1


def legal(hands: list[int], seat: int, trick: list[int], leader: int, pos: Position) -> int:
    """Legal cards of ``seat``; same result as ``play.legal_mask`` (kept for clarity)."""
    partner_master = False
    if pos.n == 4 and trick and pos.flags.partner_exception:
        w = (leader + trick_winner_index(trick, pos.trump)) % 4
        partner_master = w == (seat + 2) % 4
    return legal_mask(hands[seat], trick, pos.trump, partner_master, pos.flags)


def playout(pos: Position, rng: random.Random) -> list[int]:
    """Play ``pos`` to the end with random legal cards; return card points per seat.

    The last trick's 10 is included.  ``pos`` is not changed.  The trick's current winner
    is tracked card by card, so each legal set is a few mask operations.
    """
    n = pos.n
    hands = pos.hands[:]
    trump = pos.trump
    table = pos.points
    overtake_plain = pos.flags.overtake_plain
    partner_exc = pos.flags.partner_exception and n == 4
    undertrump = pos.flags.must_undertrump
    reveal = pos.reveal
    owner = pos.owner
    rand = rng.random
    suit_mask = SUIT_MASK
    above_trump = ABOVE_TRUMP
    above_plain = ABOVE_PLAIN
    suit_trump = trump < 4
    plain_strength = TRUMP_STRENGTH if trump == ALL_TRUMP else PLAIN_STRENGTH
    trump_mask = SUIT_MASK[trump] if suit_trump else 0
    won = [0] * n
    leader = pos.leader
    tricks_left = pos.tricks_left
    trick = pos.trick[:]
    while tricks_left:
        # the state of the trick so far: led suit, winning card and its index
        played = len(trick)
        pts = 0
        if played:
            led = trick[0] >> 3
            best_i, best, best_trump = 0, trick[0], suit_trump and led == trump
            for i in range(played):
                c = trick[i]
                pts += table[c]
                if i == 0:
                    continue
                if suit_trump and c >> 3 == trump:
                    if not best_trump or TRUMP_STRENGTH[c & 7] > TRUMP_STRENGTH[best & 7]:
                        best_i, best, best_trump = i, c, True
                elif c >> 3 == led and not best_trump:
                    if plain_strength[c & 7] > plain_strength[best & 7]:
                        best_i, best = i, c
        seat = (leader + played) % n
        while played < n:
            hand = hands[seat]
            if not played:
                allowed = hand
            else:
                follow = hand & suit_mask[led]
                if trump == NO_TRUMP:
                    allowed = follow or hand
                elif trump == ALL_TRUMP:
                    allowed = ((follow & above_trump[best]) or follow) if follow else hand
                elif follow:
                    if led == trump:
                        allowed = (follow & above_trump[best]) or follow
                    elif overtake_plain and not best_trump:
                        allowed = (follow & above_plain[best]) or follow
                    else:
                        allowed = follow
                elif led == trump or (partner_exc and best_i == played - 2):
                    allowed = hand  # void on a trump lead, or the partner is master
                else:
                    trumps = hand & trump_mask
                    if not trumps:
                        allowed = hand
                    elif best_trump:
                        allowed = (trumps & above_trump[best]) or (trumps if undertrump else hand)
                    else:
                        allowed = trumps
            # a uniformly random card of ``allowed``: its k-th lowest card
            k = int(rand() * allowed.bit_count())
            while k:
                allowed &= allowed - 1
                k -= 1
            card = (allowed & -allowed).bit_length() - 1
            hands[seat] = hand & ~(1 << card)
            pts += table[card]
            if not played:
                led = card >> 3
                best_i, best, best_trump = 0, card, suit_trump and led == trump
            elif suit_trump and card >> 3 == trump:
                if not best_trump or TRUMP_STRENGTH[card & 7] > TRUMP_STRENGTH[best & 7]:
                    best_i, best, best_trump = played, card, True
            elif card >> 3 == led and not best_trump:
                if plain_strength[card & 7] > plain_strength[best & 7]:
                    best_i, best = played, card
            trick.append(card)
            played += 1
            seat = (seat + 1) % n
        w = (leader + best_i) % n
        tricks_left -= 1
        if not tricks_left:
            pts += 10
        won[w] += pts
        if reveal:
            for c in trick:
                freed = reveal.get(c)
                if freed is not None:
                    hands[owner[freed]] |= 1 << freed
        trick = []
        leader = w
    return won


# ----------------------------------------------------------------------------- the benchmark

CONFIGS: list[tuple[str, int | None, dict[str, Any]]] = [
    ("classic", 4, {}),
    ("coinche", 4, {}),
    ("bulgarian", 4, {}),
    ("bela", 2, {}),
    ("bela", 3, {}),
    ("bela", 4, {}),
    ("duel", 2, {}),
]


def random_deal(
    variant: str, players: int | None, options: dict[str, Any], rng: random.Random
) -> State:
    """One complete deal through the public API: deal, bidding, tricks and scoring."""
    state = new_match(variant, players, options, rng=rng)
    rand = rng.random  # a uniform pick: legal[int(rand() * n)]
    play = Phase.PLAY
    while True:
        phase = state.phase
        if phase is not play and phase in _ENDS:
            return state
        legal = legal_actions(state)
        state, _ = apply(state, legal[int(rand() * len(legal))])


_ENDS = (Phase.DEAL_OVER, Phase.MATCH_OVER)


def _play_phase_state(variant: str, players: int | None, rng: random.Random) -> State:
    while True:
        state = new_match(variant, players, rng=rng)
        while state.phase not in (Phase.PLAY, Phase.DEAL_OVER, Phase.MATCH_OVER):
            state, _ = apply(state, rng.choice(legal_actions(state)))
        if state.phase is Phase.PLAY:
            return state


def measure(seconds: float, fn: Any) -> float:
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            fn()
        count += 20
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start)


def bench_config(
    seconds: float, variant: str, players: int | None, options: dict[str, Any]
) -> tuple[float, float]:
    """(complete deals per second, fast-path playouts per second) for one configuration."""
    rng = random.Random(1)
    deals = measure(seconds, lambda: random_deal(variant, players, options, rng))
    starts = [position_of(_play_phase_state(variant, players, rng)) for _ in range(64)]
    i = 0

    def one_playout() -> None:
        nonlocal i
        playout(starts[i & 63], rng)
        i += 1

    return deals, measure(seconds, one_playout)


def run_engine_bench(seconds: float = 2.0, variants: list[str] | None = None) -> int:
    rows = []
    for variant, players, options in CONFIGS:
        if variants and variant not in variants:
            continue
        deals, playouts = bench_config(seconds, variant, players, options)
        several = len(VARIANTS[variant].player_counts) > 1
        name = f"{variant}-{players}p" if several else variant
        rows.append(
            {"variant": name, "deals_per_s": round(deals), "playouts_per_s": round(playouts)}
        )
        print(f"{name:12s} {deals:10.0f} deals/s {playouts:12.0f} playouts/s", flush=True)
    print(
        json.dumps(
            {
                "python": platform.python_version(),
                "machine": platform.machine(),
                "processor": platform.processor() or platform.machine(),
                "results": rows,
            }
        )
    )
    return 0


def add_bench(bench: Any) -> None:
    """Add ``engine`` under ``atout bench``."""
    be = bench.add_parser("engine", help="deals and playouts per second, per variant")
    be.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    be.add_argument("--variant", action="append", default=None)
    be.set_defaults(func=_cmd_bench_engine)


def _cmd_bench_engine(args: Any) -> int:
    return run_engine_bench(args.seconds, args.variant)
