"""The analysis of finished deals: what each decision of a seat was worth.

For every card a seat chose (with more than one legal card):

* **the real deal**: every legal card's exact value with all the cards as they were
  (``dds``: best play by everyone after it), and what the card played cost against the
  best one;
* **what the seat could know**: every legal card's mean exact value over ``worlds`` deals
  drawn consistent with the seat's view at that moment (the hard bot's sampler, auction
  evidence included), each world solved exactly; the fair judge of a decision, since a card
  can be best against the real cards and still be a gamble.

A card's value is the card-play score its party secures (card points, the last trick's 10,
the capot's 90; Bulgarian no-trump doubled; the bela-3p caller's discards counted for him):
"points" below.  The cost of a card is the best card's value minus its own.

Bids get a simpler review: each candidate action's mean outcome over drawn deals, by the
hard bot's bidding simulation (``simbid``: playouts, not the solver), in recorded points
(own side minus the other; three players: own).  The contract's worth is the taker's winning
bid's mean outcome.

The input is a ``belote-record/1`` record (RULES.md §12); the analysis replays it, so a record
that breaks a rule raises the record module's errors.  Everything is a pure function of the
record, the options and the seed.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.engine.actions import Play, action_from_json
from app.engine.cards import format_card
from app.engine.game import legal_play_mask
from app.engine.record import RecordSchemaError, replayed_states
from app.engine.state import Phase, State
from app.engine.views import seat_view

from . import dds
from .bidding import bid_likelihood
from .common import public_voids, table_of
from .hard import world_deal, world_scorer
from .knowledge import read_view
from .sampler import sample_world
from .simbid import bid_review

ANALYSIS_VERSION = 2  # grows when the analysis changes what it says (stored analyses expire)
WORLDS = 100  # deals drawn per decision
BID_WORLDS = 100
COSTLY = 5.0  # a card costing at least this many points on average is "costly"

Progress = Callable[[int, int], None]  # (decisions done, decisions in all)


@dataclass(frozen=True, slots=True)
class Options:
    worlds: int = WORLDS
    bid_worlds: int = BID_WORLDS
    seed: int = 0
    cpu_seconds: float | None = None  # a deal's CPU budget (None: every world drawn)
    chunk_seconds: float | None = None  # the CPU one chunk may spend (None: a decision)


def _names(values: dict[int, float]) -> dict[str, float]:
    return {format_card(c): v for c, v in sorted(values.items())}


def _best(values: dict[int, float]) -> list[str]:
    top = max(values.values())
    return [format_card(c) for c in sorted(values) if values[c] == top]


def card_decision(
    state: State,
    seat: int,
    played: int,
    tt: dds.TT,
    worlds: int,
    rng: random.Random,
) -> dict[str, Any]:
    """The analysis of ``seat`` playing ``played`` in ``state`` (see the module docstring);
    ``tt`` is the real deal's table (``dds.new_table()``), kept from one decision to the next."""
    side = state.rules.side_of[seat]
    sol = dds.solve_position(dds.position_of(state), side, tt=tt)
    real = {c: float(own) for c, (own, _) in sol.scores.items()}
    moves = sorted(real)
    draw = _WorldDraw(state, seat, moves)
    totals = dict.fromkeys(moves, 0.0)
    for _ in range(worlds):
        draw.add(totals, rng)
    expected = {c: round(totals[c] / worlds, 2) for c in moves}
    return _card_entry(seat, len(state.tricks) + 1, played, real, expected, worlds)


def _card_entry(
    seat: int,
    trick: int,
    played: int,
    real: dict[int, float],
    expected: dict[int, float],
    worlds: int,
) -> dict[str, Any]:
    best_exp = max(expected.values())
    return {
        "kind": "card",
        "seat": seat,
        "trick": trick,
        "played": format_card(played),
        "real": {
            "values": _names(real),
            "best": _best(real),
            "cost": max(real.values()) - real[played],
        },
        "expected": {
            "values": _names(expected),
            "best": _best(expected),
            "cost": round(best_exp - expected[played], 2),
            "worlds": worlds,
        },
    }


def bid_decision(
    state: State, seat: int, action: dict[str, Any], worlds: int, rng: random.Random
) -> dict[str, Any] | None:
    """The review of ``seat``'s bidding ``action`` in ``state``: each candidate's mean
    outcome.  None when the seat had a single choice worth simulating."""
    k = read_view(seat_view(state, seat))
    review = [(a, round(v, 2)) for a, v in bid_review(k, rng, worlds)]
    if len(review) <= 1:
        return None
    chosen = next((v for a, v in review if _same_action(a, action)), None)
    if chosen is None:
        return None
    top = max(v for _, v in review)
    return {
        "kind": "bid",
        "seat": seat,
        "action": action,
        "options": [{"action": _bare(a), "value": v} for a, v in review],
        "value": chosen,
        "best": [_bare(a) for a, v in review if v == top],
        "cost": round(top - chosen, 2),
        "worlds": worlds,
    }


def _bare(action: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in action.items() if k != "seat"}


def _same_action(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return _bare(a) == _bare(b)


@dataclass(slots=True)
class _Deal:
    index: int
    states: list[tuple[State, int, dict[str, Any]]]  # (state before, seat, action JSON)
    end: State | None = None  # the state once the deal is over


def _deals(record: Any) -> list[_Deal]:
    """The record's deals with the state before each action (replayed, validated)."""
    deals: list[_Deal] = []
    prev: State | None = None
    for step, state in replayed_states(record):
        if step is None:
            deals.append(_Deal(len(deals), []))
        else:
            assert prev is not None
            action = record["deals"][step.deal]["actions"][step.index]
            bare = {k: v for k, v in action.items() if k not in ("seat", "by")}
            deals[-1].states.append((prev, step.seat, bare))
            if state.phase in (Phase.DEAL_OVER, Phase.MATCH_OVER):
                deals[-1].end = state
        prev = state
    return deals


# The last record replayed in this process, with each deal's real-deal solver table: the
# chunks of one deal's analysis (below) run one after another in the same worker, and each
# would otherwise replay the record and solve the real deal's positions from nothing.
_REPLAYED: dict[str, tuple[list[_Deal], dict[int, dds.TT]]] = {}


def _replayed(record: Any) -> tuple[list[_Deal], dict[int, dds.TT]]:
    key = hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()
    hit = _REPLAYED.get(key)
    if hit is None:
        hit = (_deals(record), {})
        _REPLAYED.clear()
        _REPLAYED[key] = hit
    return hit


def _world_rng(seed: int, deal: int, index: int, world: int) -> random.Random:
    """World ``world`` of decision ``index``: its own generator, so that chunks of worlds
    drawn apart add up to the same draws as one run."""
    return random.Random(f"{seed}:{deal}:{index}:{world}")


def analyse_chunk(
    record: Any,
    deal: int,
    index: int,
    first_world: int,
    worlds: int,
    cpu_seconds: float | None,
    seed: int,
) -> dict[str, Any]:
    """One step of the analysis of action ``index`` of deal ``deal`` (the worker pool's
    function: its arguments and result are plain data).

    A card: the real deal's values when ``first_world`` is 0, and the sums over drawn worlds
    ``first_world``, ``first_world + 1``, ... of each legal card's value: up to ``worlds``
    of them, fewer once ``cpu_seconds`` of this thread's CPU time are spent (at least one).
    A bid: the whole review, ``worlds`` drawn deals.  ``cpu`` says the CPU time it took."""
    started = time.thread_time()
    replayed, tables = _replayed(record)
    state, seat, action = replayed[deal].states[index]
    if state.phase is Phase.BIDDING:
        rng = random.Random(f"{seed}:{deal}:{index}")
        entry = bid_decision(state, seat, action, worlds, rng)
        return {"kind": "bid", "entry": entry, "cpu": time.thread_time() - started}
    side = state.rules.side_of[seat]
    real: dict[int, float] | None = None
    if first_world == 0:
        tt = tables.get(deal)
        if tt is None:
            tt = tables[deal] = dds.new_table()
        sol = dds.solve_position(dds.position_of(state), side, tt=tt)
        real = {c: float(own) for c, (own, _) in sol.scores.items()}
    moves = sorted(real) if real is not None else _legal_cards(state)
    draw = _WorldDraw(state, seat, moves)
    totals = dict.fromkeys(moves, 0.0)
    drawn = 0
    while drawn < worlds:
        draw.add(totals, _world_rng(seed, deal, index, first_world + drawn))
        drawn += 1
        if cpu_seconds is not None and time.thread_time() - started >= cpu_seconds:
            break
    return {
        "kind": "card",
        "real": real,
        "totals": totals,
        "worlds": drawn,
        "cpu": time.thread_time() - started,
    }


def _legal_cards(state: State) -> list[int]:
    legal = legal_play_mask(state)
    return [c for c in range(64) if legal >> c & 1]


class _WorldDraw:
    """Draws worlds consistent with ``seat``'s view of ``state`` and solves each exactly."""

    def __init__(self, state: State, seat: int, moves: list[int]) -> None:
        self.k = read_view(seat_view(state, seat))
        assert self.k.contract is not None
        self.side = state.rules.side_of[seat]
        self.moves = moves
        self.table = table_of(self.k)
        self.scale = dds.card_scale(self.k.variant, self.k.contract.trump)
        self.voids = public_voids(self.k)
        self.cache: dict[Any, Any] = {}

    def add(self, totals: dict[int, float], rng: random.Random) -> None:
        k = self.k
        w = sample_world(k, rng, bid_likelihood)
        d = world_deal(k, w, self.voids)
        _, extra = world_scorer(k, w, self.cache)
        ws = dds.solve(d, self.table, self.side, extra, self.scale, self.moves)
        for c in self.moves:
            totals[c] += ws.scores[c][0]


@dataclass(slots=True)
class _Item:
    """One decision of a deal's analysis while it runs."""

    index: int
    seat: int
    kind: str  # card | bid
    trick: int = 0
    played: int = -1
    real: dict[int, float] | None = None
    totals: dict[int, float] | None = None
    worlds: int = 0
    budget: float | None = None  # CPU seconds it may spend (None: no limit)
    cpu: float = 0.0
    entry: dict[str, Any] | None = None
    finished: bool = False


class DealAnalysis:
    """The analysis of one finished deal for some seats, as a series of chunks.

    ``next_chunk()`` gives the arguments of the next :func:`analyse_chunk` call (None when
    it is over), ``add(result)`` takes its result, ``report()`` gives the deal's analysis.
    The chunks may run anywhere (this process, a worker pool); the caller drives them.

    The bids come first, then the cards from the last to the first: the late ones are
    cheap, and the CPU they leave of ``options.cpu_seconds`` goes to the early ones, where
    one drawn deal costs seconds.  Each decision may spend the CPU left divided by the decisions left; a
    card decision stops drawing when it has ``options.worlds`` worlds or its share is spent
    (it always draws one).  A chunk spends at most ``options.chunk_seconds``, so that the
    pool's other work (the computer players) never waits long behind an analysis.
    """

    def __init__(
        self, record: Any, deal: int, seats: list[int], options: Options | None = None
    ) -> None:
        self.options = opts = options or Options()
        if opts.worlds < 1 or opts.bid_worlds < 1:
            raise ValueError("worlds must be at least 1")
        self.record = record
        replayed, _ = _replayed(record)
        if not 0 <= deal < len(replayed):
            raise RecordSchemaError(f"deal {deal} is not in the record (0..{len(replayed) - 1})")
        self.deal = replayed[deal]
        if self.deal.end is None:
            raise RecordSchemaError(f"deal {deal} is not finished")
        players = self.deal.end.rules.players
        for s in seats:
            if not 0 <= s < players:
                raise RecordSchemaError(f"seat {s} is not a seat of this game (0..{players - 1})")
        self.seats = sorted(set(seats))
        self.items: list[_Item] = []
        for index, (state, seat, action) in enumerate(self.deal.states):
            if seat not in self.seats:
                continue
            if state.phase is Phase.PLAY and action.get("type") == "play":
                if legal_play_mask(state).bit_count() > 1:
                    self.items.append(
                        _Item(index, seat, "card", len(state.tricks) + 1, _card_of(action))
                    )
            elif state.phase is Phase.BIDDING:
                self.items.append(_Item(index, seat, "bid"))
        # the bids first (a review's cost is fixed and small), then the cards from the last
        self.queue = [x for x in self.items if x.kind == "bid"]
        self.queue += reversed([x for x in self.items if x.kind == "card"])
        self.cpu_left = opts.cpu_seconds

    @property
    def total(self) -> int:
        return len(self.items)

    @property
    def done(self) -> int:
        return sum(1 for x in self.items if x.finished)

    def _current(self) -> _Item | None:
        while self.queue and self.queue[0].finished:
            self.queue.pop(0)
        if not self.queue:
            return None
        item = self.queue[0]
        if item.budget is None and self.cpu_left is not None and item.cpu == 0.0:
            item.budget = max(0.0, self.cpu_left) / len(self.queue)
        return item

    def next_chunk(self) -> tuple[Any, ...] | None:
        """The arguments of the next :func:`analyse_chunk` call, None when all is done."""
        item = self._current()
        if item is None:
            return None
        opts = self.options
        if item.kind == "bid":
            return (self.record, self.deal.index, item.index, 0, opts.bid_worlds, None, opts.seed)
        caps = [c for c in (opts.chunk_seconds, _left(item)) if c is not None]
        cpu = min(caps) if caps else None
        worlds = opts.worlds - item.worlds
        return (self.record, self.deal.index, item.index, item.worlds, worlds, cpu, opts.seed)

    def add(self, result: dict[str, Any]) -> None:
        """The result of the chunk :meth:`next_chunk` gave last."""
        item = self._current()
        assert item is not None
        item.cpu += result["cpu"]
        if self.cpu_left is not None:
            self.cpu_left -= result["cpu"]
        if item.kind == "bid":
            item.entry = result["entry"]
            item.finished = True
            return
        if result["real"] is not None:
            item.real = result["real"]
            item.totals = dict.fromkeys(result["real"], 0.0)
        assert item.totals is not None
        for c, v in result["totals"].items():
            item.totals[c] += v
        item.worlds += result["worlds"]
        left = _left(item)
        if item.worlds >= self.options.worlds or (left is not None and left <= 0):
            item.entry = self._card_entry(item)
            item.finished = True

    def _card_entry(self, item: _Item) -> dict[str, Any]:
        assert item.real is not None and item.totals is not None
        expected = {c: round(v / item.worlds, 2) for c, v in item.totals.items()}
        return _card_entry(item.seat, item.trick, item.played, item.real, expected, item.worlds)

    def run(self, progress: Callable[[], None] | None = None) -> dict[str, Any]:
        """Every chunk in this process, then the report; ``progress()`` after each decision."""
        while (chunk := self.next_chunk()) is not None:
            before = self.done
            self.add(analyse_chunk(*chunk))
            if progress is not None and self.done > before:
                progress()
        return self.report()

    def report(self) -> dict[str, Any]:
        """The deal's analysis (see :func:`analyse_record`'s ``deals``)."""
        decisions = []
        for item in self.items:
            if item.entry is None:
                continue
            entry = dict(item.entry)
            entry["index"] = item.index  # the action's index in the deal
            by = self.record["deals"][self.deal.index]["actions"][item.index].get("by")
            if by is not None:  # played for the seat by its stand-in or the server
                entry["by"] = by
            decisions.append(entry)
        report = _deal_report(self.deal, decisions, self.seats)
        report["cpu_seconds"] = round(sum(x.cpu for x in self.items), 2)
        return report


def _left(item: _Item) -> float | None:
    return None if item.budget is None else item.budget - item.cpu


def analyse_record(
    record: Any,
    deals: list[int] | None = None,
    seats: list[int] | None = None,
    options: Options | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The analysis of the finished deals ``deals`` (default: all) of ``record``, for the
    seats ``seats`` (default: all).

    Raises ``RecordSchemaError`` (a malformed record, or a deal or seat that cannot be
    analysed) and ``RecordRuleError`` (a record that breaks a rule), as ``record.replay``.
    """
    opts = options or Options()
    if opts.worlds < 1 or opts.bid_worlds < 1:
        raise ValueError("worlds must be at least 1")
    replayed, _ = _replayed(record)
    players = replayed[0].states[0][0].rules.players if replayed[0].states else record["players"]
    for s in seats or []:
        if not 0 <= s < players:
            raise RecordSchemaError(f"seat {s} is not a seat of this game (0..{players - 1})")
    if deals is None:
        chosen = [d.index for d in replayed if d.end is not None]
    else:
        chosen = list(deals)
    want = sorted(set(seats)) if seats is not None else list(range(players))
    jobs = [DealAnalysis(record, i, want, opts) for i in chosen]
    total = sum(job.total for job in jobs)
    count = 0

    def step() -> None:
        nonlocal count
        count += 1
        if progress is not None:
            progress(count, total)

    out = [job.run(step) for job in jobs]
    rules = replayed[0].states[0][0].rules if replayed[0].states else None
    return {
        "variant": record["variant"],
        "players": players,
        "worlds": opts.worlds,
        "bid_worlds": opts.bid_worlds,
        "seed": opts.seed,
        "costly": COSTLY,
        "deals": out,
        **({"options": rules.options} if rules is not None else {}),
    }


def _card_of(action: dict[str, Any]) -> int:
    a = action_from_json(action)
    assert isinstance(a, Play)
    return a.card


def _deal_report(d: _Deal, decisions: list[dict[str, Any]], seats: list[int]) -> dict[str, Any]:
    assert d.end is not None
    result = d.end.results[-1]
    contract = result.contract
    summary = {}
    for seat in seats:
        cards = [x for x in decisions if x["seat"] == seat and x["kind"] == "card"]
        bids = [x for x in decisions if x["seat"] == seat and x["kind"] == "bid"]
        costly = [x for x in cards if x["expected"]["cost"] >= COSTLY]
        entry: dict[str, Any] = {
            "cards": len(cards),
            "costly_cards": len(costly),
            "cost": round(sum(x["expected"]["cost"] for x in costly), 2),
            "expected_cost": round(sum(x["expected"]["cost"] for x in cards), 2),
            "real_cost": sum(x["real"]["cost"] for x in cards),
            "bid_cost": round(sum(x["cost"] for x in bids), 2),
        }
        if contract is not None and contract.taker == seat:
            last_bid = next(
                (x for x in reversed(bids) if x["action"].get("type") == "bid"),
                None,
            )
            if last_bid is not None:
                entry["contract_worth"] = last_bid["value"]
        summary[str(seat)] = entry
    return {
        "deal": d.index,
        "thrown_in": result.thrown_in,
        "contract": None
        if contract is None
        else {"denom": contract.denom, "taker": contract.taker, "value": contract.value},
        "decisions": decisions,
        "summary": summary,
    }


def format_analysis(report: dict[str, Any]) -> str:
    """The analysis as text tables (``atout analyse`` without ``--json``)."""
    lines = [
        f"{report['variant']}, {report['players']} players: {report['worlds']} drawn deals "
        f"per card, card values in card-play points of the seat's side"
    ]
    for deal in report["deals"]:
        c = deal["contract"]
        head = f"\nDeal {deal['deal']}"
        if c is None:
            lines.append(head + ": thrown in")
        else:
            value = f" {c['value']}" if c["value"] is not None else ""
            lines.append(head + f": {c['denom']}{value} by seat {c['taker']}")
        lines.append(
            f"  {'seat':>4} {'trick':>5} {'played':>6} {'cost':>6} {'real':>5}  best "
            "(drawn deals) / best (real cards); every card: mean (real)"
        )
        for x in deal["decisions"]:
            if x["kind"] == "card":
                e, r = x["expected"], x["real"]
                cards = " ".join(
                    f"{name}:{e['values'][name]:g}({r['values'][name]:g})" for name in e["values"]
                )
                lines.append(
                    f"  {x['seat']:>4} {x['trick']:>5} {x['played']:>6} {e['cost']:6.1f}"
                    f" {r['cost']:5.0f}  {','.join(e['best'])} / {','.join(r['best'])}; {cards}"
                )
            else:
                opts = " ".join(
                    f"{_action_text(o['action'])}:{o['value']:+.1f}" for o in x["options"]
                )
                lines.append(
                    f"  {x['seat']:>4} {'bid':>5} {_action_text(x['action']):>6}"
                    f" {x['cost']:6.1f} {'':>5}  {','.join(_action_text(a) for a in x['best'])};"
                    f" {opts}"
                )
        for seat, s in deal["summary"].items():
            worth = (
                f", the contract was worth {s['contract_worth']:+.1f} on average"
                if "contract_worth" in s
                else ""
            )
            lines.append(
                f"  seat {seat}: {s['costly_cards']} costly cards, {s['cost']:g} points"
                f" (all cards {s['expected_cost']:g} on average, {s['real_cost']:g} against the"
                f" real cards){worth}"
            )
    return "\n".join(lines)


def _action_text(action: dict[str, Any]) -> str:
    t = action.get("type", "?")
    if t == "bid":
        v = action.get("value")
        return f"{action.get('contract', '')}{'' if v is None else v}"
    return str(t)


__all__ = [
    "ANALYSIS_VERSION",
    "COSTLY",
    "DealAnalysis",
    "Options",
    "analyse_chunk",
    "analyse_record",
    "bid_decision",
    "card_decision",
    "format_analysis",
]
