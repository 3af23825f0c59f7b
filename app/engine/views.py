"""What each seat and each spectator may see (RULES.md §13), derived on demand.

Views are plain JSON-able dicts: the server sends them as they are and the bots
read the same dict a human's client gets.  Nothing here is stored.
"""

from __future__ import annotations

from typing import Any

from .actions import Bid, Double, Pass, Redouble, action_to_json
from .cards import format_card, format_mask
from .claims import can_claim, claim_json
from .declarations import public_combo
from .game import current_player, legal_actions, out_of_turn_actions, result_json
from .state import Phase, State
from .variants.base import contract_json

_BID_TYPES = (Pass, Bid, Double, Redouble)


def spectator_view(state: State, previous: State | None = None) -> dict[str, Any]:
    """What every seat sees in common; no hand, no legal moves.

    A state never changes, so the common view is computed once per state (a server sends it to
    every seat of a table) and each call returns a fresh top-level dict over it. ``previous``, a
    state whose common view is cached (the state this one came from), lets the fields whose
    sources did not change be taken from that view as they are (the same objects: a server
    comparing the two views finds them equal at once); the result is the same view.
    """
    # read through the dict: a state whose key was dropped (rather than cleared by
    # clear_view_cache) is simply one without a cached view
    cached: dict[str, Any] | None = state.__dict__.get("_view")
    if cached is None:
        before = previous.__dict__.get("_view") if previous is not None else None
        if before is not None and previous is not None and previous.rules is state.rules:
            cached = _common_view(state, previous, before)
        else:
            cached = _common_view(state)
        state._view = cached
    return dict(cached)


def clear_view_cache(state: State) -> None:
    """Forget the common view cached on ``state`` (memory: a state kept only to compare with;
    benchmarks: a state as fresh as the engine makes it).  The next view is built again."""
    state._view = None


def _common_view(
    state: State, prev: State | None = None, pv: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The common view of ``state``; with ``prev`` (same rules) and its view ``pv``, each
    costly field whose sources are the same objects in both states is taken from ``pv``."""
    rules = state.rules
    n = rules.players
    contract = state.contract
    tricks = state.tricks
    if prev is None or pv is None:
        options: dict[str, Any] = dict(rules.options)
        traits = rules.traits()
        sides = list(rules.side_of)
        bids = _bids(state)
        contract_view = contract_json(contract) if contract else None
        trick_list = [_trick_json(t) for t in tricks]
        last_trick = _trick_json(tricks[-1]) if tricks else None
        results = _results_json(state)
        declarations = _declarations(state)
        shown = _shown(state)
        belote = _belote(state)
    else:
        options, traits, sides = pv["options"], pv["traits"], pv["sides"]
        bids = pv["bids"] if _same_bids(prev, state) else _bids(state)
        if contract is prev.contract:
            contract_view = pv["contract"]
        else:
            contract_view = contract_json(contract) if contract else None
        if tricks is prev.tricks:
            trick_list, last_trick = pv["tricks"], pv["last_trick"]
        else:
            if len(tricks) == len(prev.tricks) + 1 and all(
                a is b for a, b in zip(tricks, prev.tricks, strict=False)
            ):
                trick_list = [*pv["tricks"], _trick_json(tricks[-1])]
            else:
                trick_list = [_trick_json(t) for t in tricks]
            last_trick = _trick_json(tricks[-1]) if tricks else None
        results = pv["results"] if state.results is prev.results else _results_json(state)
        same_announced = state.announced is prev.announced
        declarations = pv["declarations"] if same_announced else _declarations(state)
        shown = (
            pv["shown_declarations"]
            if same_announced
            and contract is prev.contract
            and state.dealer == prev.dealer
            and bool(tricks) == bool(prev.tricks)
            and _in_deal(state) == _in_deal(prev)
            else _shown(state)
        )
        belote = (
            pv["belote"]
            if state.belote_seats is prev.belote_seats and state.belote_open is prev.belote_open
            else _belote(state)
        )
    view: dict[str, Any] = {
        "variant": rules.variant,
        "players": n,
        "traits": traits,
        "options": options,
        "sides": sides,
        "target": rules.target,
        "phase": state.phase.value,
        "deal_number": len(state.results) - (0 if _in_deal(state) else 1),
        "dealer": state.dealer,
        "to_act": current_player(state),
        "hand_counts": [h.bit_count() for h in state.hands],
        "bids": bids,
        "contract": contract_view,
        "upcard": format_card(state.upcard) if state.upcard >= 0 else None,
        "taken": _taken(state),
        "trick": [{"seat": s, "card": format_card(c)} for s, c in state.trick],
        "leader": state.leader,
        "last_trick": last_trick,
        "tricks": trick_list,
        "tricks_played": len(tricks),
        "tricks_won": list(state.tricks_won),
        "trick_points": _trick_points(state),
        "declarations": declarations,
        "shown_declarations": shown,
        "belote": belote,
        "scores": list(state.scores),
        "reserve": state.reserve,
        "reserve_discarded": state.reserve_discarded,
        "results": results,
        "winner": state.winner,
        "claim": claim_json(state),
    }
    view.update(rules.view_fields(state))
    return view


def _bids(state: State) -> list[dict[str, Any]]:
    length = _bidding_length(state)
    return [
        {"seat": seat, **action_to_json(a)}
        for i, (seat, a) in enumerate(state.actions)
        if isinstance(a, _BID_TYPES) and i < length
    ]


def _same_bids(prev: State, state: State) -> bool:
    """Both states (consecutive ones) are past the same auction: the contract is set once per
    deal, and a new deal starts in the bidding with no contract."""
    contract = state.contract
    return (
        contract is not None
        and contract is prev.contract
        and state.phase is not Phase.BIDDING
        and prev.phase is not Phase.BIDDING
        and state.bid_count == prev.bid_count
    )


def _declarations(state: State) -> list[list[dict[str, Any]]]:
    return [[public_combo(c) for c in combos] for combos in state.announced]


def _results_json(state: State) -> list[dict[str, Any]]:
    """The score sheet, made once per deal: the list is kept with the results tuple it was made
    from and handed on by ``State.copy`` until a deal ends (then the tuple is a new one)."""
    cached = state._results
    if cached is None or cached[0] is not state.results:
        rules = state.rules
        cached = (state.results, [result_json(r, rules) for r in state.results])
        state._results = cached
    return cached[1]


def _taken(state: State) -> dict[str, Any] | None:
    """The face-up card a seat took into its hand this deal (the classic turn-up by the taker,
    the bela 2p proposal by the seven's exchanger): everyone saw it, so everyone keeps it."""
    if state.taken < 0:
        return None
    if state.exchanged >= 0:
        seat = state.exchanged
    else:
        assert state.contract is not None
        seat = state.contract.taker
    return {"seat": seat, "card": format_card(state.taken)}


def seat_view(state: State, seat: int) -> dict[str, Any]:
    """What ``seat`` may see: the common view plus its own hand and its own legal actions."""
    view = spectator_view(state)
    view.update(seat_fields(state, seat))
    return view


def seat_fields(
    state: State, seat: int, previous: tuple[State, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The fields a seat's view adds to the common one: ``seat``, its ``hand``, its ``legal``
    actions (on its turn; else what it may do out of turn, ``out_of_turn_actions``: the bela-2p
    seven exchange while the leader thinks; nothing while a claim is played out), ``can_claim`` (it may claim every remaining trick
    now, RULES.md §15: ``claims.can_claim``), and ``discard`` (always present, so that a seat view's fields are the same all
    game long: the bela-3p taker's own discards, else None).

    ``previous``: a state and this seat's fields in it; they are returned as they are when
    nothing they are made of changed (the seat neither acts nor acted, same hand and discard).
    """
    if not 0 <= seat < state.rules.players:
        raise ValueError(f"no seat {seat}")
    to_act = current_player(state)
    if previous is not None:
        prev, fields = previous
        if (
            to_act != seat
            and current_player(prev) != seat
            and state.hands[seat] == prev.hands[seat]
            and state.discard == prev.discard
            and state.contract is prev.contract
            and state.exchange_seat == prev.exchange_seat
        ):
            return fields
    return {
        "seat": seat,
        "hand": format_mask(state.hands[seat]),
        "legal": (
            []  # a claim is being played out: the server plays every card (RULES.md §15)
            if state.claimer >= 0
            else [action_to_json(a) for a in legal_actions(state)]
            if to_act == seat
            else [action_to_json(a) for a in out_of_turn_actions(state, seat)]
        ),
        "can_claim": to_act == seat and can_claim(state, seat),
        "discard": (
            format_mask(state.discard)
            if state.discard and state.contract is not None and state.contract.taker == seat
            else None
        ),
    }


def _in_deal(state: State) -> bool:
    return state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER)


def _bidding_length(state: State) -> int:
    """How many of the deal's actions belong to the auction."""
    if state.phase is Phase.BIDDING or state.contract is None:
        return len(state.actions)
    return state.bid_count


def _trick_json(trick: Any) -> dict[str, Any]:
    return {
        "leader": trick.leader,
        "plays": [{"seat": s, "card": format_card(c)} for s, c in trick.plays],
        "winner": trick.winner,
        "points": trick.points,
    }


def _trick_points(state: State) -> list[int]:
    """Card points won in tricks per side (public: bela-3p discards are not included)."""
    out = [0] * state.rules.sides
    for seat, pts in enumerate(state.points):
        out[state.rules.side_of[seat]] += pts
    return out


def _shown(state: State) -> list[dict[str, Any]]:
    """The declared cards shown to everyone once trick 1 is over, while the deal lasts (§1.2,
    ``Rules.shown_declarations``)."""
    if not state.tricks or not any(state.announced) or not _in_deal(state):
        return []
    return state.rules.shown_declarations(state)


def _belote(state: State) -> list[dict[str, Any]]:
    out = [{"seat": s, "stage": "rebelote"} for s in state.belote_seats]
    for seat, suits in enumerate(state.belote_open):
        for suit in range(4):
            if (suits >> suit) & 1:
                out.append({"seat": seat, "stage": "belote", "suit": "CDHS"[suit]})
    return out
