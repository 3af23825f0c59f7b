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

import random
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

WORLDS = 100  # deals drawn per decision
BID_WORLDS = 100
COSTLY = 5.0  # a card costing at least this many points on average is "costly"

Progress = Callable[[int, int], None]  # (decisions done, decisions in all)


@dataclass(frozen=True, slots=True)
class Options:
    worlds: int = WORLDS
    bid_worlds: int = BID_WORLDS
    seed: int = 0


def _names(values: dict[int, float]) -> dict[str, float]:
    return {format_card(c): v for c, v in sorted(values.items())}


def _best(values: dict[int, float]) -> list[str]:
    top = max(values.values())
    return [format_card(c) for c in sorted(values) if values[c] == top]


def card_decision(
    state: State,
    seat: int,
    played: int,
    tt: dict[int, tuple[int, int, int]],
    worlds: int,
    rng: random.Random,
) -> dict[str, Any]:
    """The analysis of ``seat`` playing ``played`` in ``state`` (see the module docstring);
    ``tt`` is the real deal's table, kept from one decision to the next."""
    rules = state.rules
    side = rules.side_of[seat]
    pos = dds.position_of(state)
    sol = dds.solve_position(pos, side, tt=tt)
    real = {c: float(own) for c, (own, _) in sol.scores.items()}
    k = read_view(seat_view(state, seat))
    moves = sorted(real)
    table = table_of(k)
    assert k.contract is not None
    scale = dds.card_scale(k.variant, k.contract.trump)
    voids = public_voids(k)
    totals = dict.fromkeys(moves, 0.0)
    cache: dict[Any, Any] = {}
    for _ in range(worlds):
        w = sample_world(k, rng, bid_likelihood)
        d = world_deal(k, w, voids)
        _, extra = world_scorer(k, w, cache)
        ws = dds.solve(d, table, side, extra, scale, moves)
        for c in moves:
            totals[c] += ws.scores[c][0]
    expected = {c: round(totals[c] / worlds, 2) for c in moves}
    best_exp = max(expected.values())
    return {
        "kind": "card",
        "seat": seat,
        "trick": len(state.tricks) + 1,
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
    replayed = _deals(record)
    players = replayed[0].states[0][0].rules.players if replayed[0].states else record["players"]
    for s in seats or []:
        if not 0 <= s < players:
            raise RecordSchemaError(f"seat {s} is not a seat of this game (0..{players - 1})")
    finished = [d for d in replayed if d.end is not None]
    if deals is None:
        chosen = finished
    else:
        chosen = []
        for i in deals:
            if not 0 <= i < len(replayed):
                raise RecordSchemaError(f"deal {i} is not in the record (0..{len(replayed) - 1})")
            if replayed[i].end is None:
                raise RecordSchemaError(f"deal {i} is not finished")
            chosen.append(replayed[i])
    want = set(seats) if seats is not None else set(range(players))
    todo = sum(1 for d in chosen for st, seat, _ in d.states if seat in want)
    done = 0
    out = []
    for d in chosen:
        rng = random.Random(f"{opts.seed}:{d.index}")
        tt: dict[int, tuple[int, int, int]] = {}
        decisions = []
        for index, (state, seat, action) in enumerate(d.states):
            if seat not in want:
                continue
            done += 1
            entry: dict[str, Any] | None = None
            if state.phase is Phase.PLAY and action.get("type") == "play":
                legal = legal_play_mask(state)
                card = _card_of(action)
                if legal.bit_count() > 1:
                    entry = card_decision(state, seat, card, tt, opts.worlds, rng)
            elif state.phase is Phase.BIDDING:
                entry = bid_decision(state, seat, action, opts.bid_worlds, rng)
            if entry is not None:
                entry["index"] = index  # the action's index in the deal
                by = record["deals"][d.index]["actions"][index].get("by")
                if by is not None:  # played for the seat by its stand-in or the server
                    entry["by"] = by
                decisions.append(entry)
            if progress is not None:
                progress(done, todo)
        assert d.end is not None
        out.append(_deal_report(d, decisions, sorted(want)))
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
    "COSTLY",
    "Options",
    "analyse_record",
    "bid_decision",
    "card_decision",
    "format_analysis",
]
