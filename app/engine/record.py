"""The game record, ``belote-record/1`` (RULES.md §12): dump, validate, replay.

Kept apart from the state machine, as python-chess keeps PGN apart from the board.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .actions import action_from_json, action_to_json
from .cards import format_card, parse_card
from .claims import mark_claim
from .errors import IllegalAction, InvalidAction
from .game import apply, new_match, result_json, start_deal
from .state import Event, Phase, State
from .variants import VARIANTS, get_rules

FORMAT = "belote-record/1"

# Who played an action for its seat (RULES.md §12): the seat's stand-in (D-22), the server
# playing the seat's only legal action (D-23), or the server playing out a valid claim (D-24,
# §15). Absent: the seat's own player (or bot).
BY = ("stand_in", "auto", "claim")

# ``(deal index, action index) -> by`` of the actions that carry a ``by``
ByMap = Mapping[tuple[int, int], str]


class RecordSchemaError(ValueError):
    """The record is not a well-formed ``belote-record/1`` document (CLI exit 2)."""


class RecordRuleError(ValueError):
    """The record breaks a rule at a deal and an action (CLI exit 1), both counted from 0.

    ``rule`` is the one-line English reason; ``code`` and ``params`` say the same as data for
    a page to put in its own words: ``dealer`` (``expected``), ``match_over``, ``unfinished``,
    ``deal_over``, ``not_to_act`` (``seat``, ``to_act``), ``invalid_action`` (``seat``) and
    ``illegal`` (``seat``, ``type``: the action's, ``reason``: the ``IllegalAction.reason``,
    or None when its message alone names the rule).
    """

    def __init__(
        self,
        deal: int,
        action: int,
        rule: str,
        code: str = "illegal",
        params: dict[str, Any] | None = None,
    ):
        self.deal, self.action, self.rule = deal, action, rule
        self.code, self.params = code, dict(params or {})
        super().__init__(f"deal {deal}, action {action}: {rule}")

    def as_json(self) -> dict[str, Any]:
        """The error as data: ``{"deal", "action", "rule", "code", **params}``."""
        return {
            "deal": self.deal,
            "action": self.action,
            "rule": self.rule,
            "code": self.code,
            **self.params,
        }


def in_deal(state: State) -> bool:
    return state.phase not in (Phase.DEAL_OVER, Phase.MATCH_OVER)


def _actions_json(
    deal: int, actions: tuple[tuple[int, Any], ...], by: ByMap | None
) -> list[dict[str, Any]]:
    out = [{"seat": s, **action_to_json(a)} for s, a in actions]
    if by:
        for j, entry in enumerate(out):
            who = by.get((deal, j))
            if who is not None:
                entry["by"] = who
    return out


def dump(
    state: State,
    *,
    meta: dict[str, Any] | None = None,
    include_current: bool = True,
    by: ByMap | None = None,
) -> dict[str, Any]:
    """The record of ``state``: finished deals, plus the deal in progress if asked.

    ``by`` names who played an action for its seat (``record_by``); the engine's state does
    not keep it, since it never changes what is legal.
    """
    rules = state.rules
    logs = list(state.logs)
    deals = [
        {
            "dealer": log.dealer,
            "deck": [format_card(c) for c in log.deck],
            "actions": _actions_json(i, log.actions, by),
        }
        for i, log in enumerate(logs)
    ]
    if include_current and in_deal(state):
        deals.append(
            {
                "dealer": state.dealer,
                "deck": [format_card(c) for c in state.deck],
                "actions": _actions_json(len(logs), state.actions, by),
            }
        )
    record: dict[str, Any] = {
        "format": FORMAT,
        "variant": rules.variant,
        "players": rules.players,
        "options": rules.non_default_options(),
        "first_dealer": state.first_dealer,
        "deals": deals,
    }
    if meta is not None:
        record["meta"] = meta
    return record


def record_by(record: dict[str, Any]) -> dict[tuple[int, int], str]:
    """The ``by`` of a (valid) record's actions, for ``dump(by=...)``: keyed by the deal and
    the action's index among the actions replay keeps (an old-form exchange ``pass`` is
    dropped, ``is_old_exchange_pass``)."""
    return replay_by(record)[1]


def replay_by(record: Any) -> tuple[State, dict[tuple[int, int], str]]:
    """``replay(record)``, and the ``by`` of its actions as ``record_by`` gives it."""
    by: dict[tuple[int, int], str] = {}
    kept: dict[int, int] = {}

    def note(step: Step) -> None:
        index = kept.get(step.deal, 0)
        kept[step.deal] = index + 1
        if step.by is not None:
            by[(step.deal, index)] = step.by

    return replay(record, note), by


def is_old_exchange_pass(state: State, seat: int, action: dict[str, Any]) -> bool:
    """``action`` by ``seat`` is a ``pass`` declining the bela-2p seven exchange, which
    records once carried (RULES.md §12): the holder's, before any ``declare`` or ``play``."""
    return (
        action.get("type") == "pass"
        and state.phase is Phase.PLAY
        and state.exchange_seat == seat
        and not any(state.declared)
    )


def _declined(state: State) -> State:
    """``state`` once its exchange holder declined with an old-form ``pass``."""
    new = state.copy()
    new.exchange_seat = -1
    return new


def _without_by(action: dict[str, Any]) -> dict[str, Any]:
    if "by" not in action:
        return action
    return {k: v for k, v in action.items() if k != "by"}


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise RecordSchemaError(message)


def validate_schema(record: Any) -> None:
    """Check the shape of a record (types, fields, decks); not the rules."""
    _require(isinstance(record, dict), "a record must be a JSON object")
    allowed = {"format", "variant", "players", "options", "first_dealer", "deals", "meta"}
    extra = set(record) - allowed
    _require(not extra, f"unknown field(s): {', '.join(sorted(extra))}")
    _require(record.get("format") == FORMAT, f'format must be "{FORMAT}"')
    _require(record.get("variant") in VARIANTS, f"variant must be one of {', '.join(VARIANTS)}")
    players = record.get("players")
    _require(
        isinstance(players, int) and not isinstance(players, bool), "players must be an integer"
    )
    options = record.get("options", {})
    _require(isinstance(options, dict), "options must be an object")
    try:
        rules = get_rules(record["variant"], players, options)
    except InvalidAction as exc:
        raise RecordSchemaError(str(exc)) from None
    first = record.get("first_dealer")
    _require(
        isinstance(first, int) and not isinstance(first, bool) and 0 <= first < rules.players,
        f"first_dealer must be a seat 0..{rules.players - 1}",
    )
    deals = record.get("deals")
    _require(isinstance(deals, list), "deals must be a list")
    for i, deal in enumerate(deals):
        where = f"deal {i}"
        _require(isinstance(deal, dict), f"{where}: must be an object")
        extra = set(deal) - {"dealer", "deck", "actions"}
        _require(not extra, f"{where}: unknown field(s): {', '.join(sorted(extra))}")
        dealer = deal.get("dealer")
        _require(
            isinstance(dealer, int) and not isinstance(dealer, bool),
            f"{where}: dealer must be an integer",
        )
        deck = deal.get("deck")
        _require(isinstance(deck, list) and len(deck) == 32, f"{where}: deck must list 32 cards")
        try:
            cards = [parse_card(c) for c in deck]
        except ValueError as exc:
            raise RecordSchemaError(f"{where}: deck: {exc}") from None
        _require(len(set(cards)) == 32, f"{where}: deck must hold each card exactly once")
        actions = deal.get("actions")
        _require(isinstance(actions, list), f"{where}: actions must be a list")
        for j, action in enumerate(actions):
            _require(isinstance(action, dict), f"{where}, action {j}: must be an object")
            seat = action.get("seat")
            _require(
                isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < rules.players,
                f"{where}, action {j}: seat must be 0..{rules.players - 1}",
            )
            if "by" in action:
                _require(
                    action["by"] in BY,
                    f"{where}, action {j}: by must be one of {', '.join(BY)}",
                )
            try:
                action_from_json(_without_by(action))
            except InvalidAction as exc:
                raise RecordSchemaError(f"{where}, action {j}: {exc}") from None
    if "meta" in record:
        _require(isinstance(record["meta"], dict), "meta must be an object")


@dataclass
class Step:
    """One replayed action: where it is, the state after it and its events."""

    deal: int
    index: int
    seat: int
    state: State
    events: list[Event]
    by: str | None = None  # who played it for the seat (RULES.md §12), if not its player


def replay(record: Any, on_step: Callable[[Step], None] | None = None) -> State:
    """Validate and replay a record; return the last state.

    ``on_step`` sees every applied action.  Raises ``RecordSchemaError`` for a malformed
    record and ``RecordRuleError`` at the first deal and action that break a rule.
    """
    last: State | None = None
    for step, state in replayed_states(record):
        last = state
        if step is not None and on_step is not None:
            on_step(step)
    assert last is not None
    return last


def replayed_states(record: Any) -> Iterator[tuple[Step | None, State]]:
    """Validate and replay a record lazily: ``(None, state)`` at each deal's start (the cards
    as dealt), then ``(step, step.state)`` after each of its actions.

    Raises as ``replay`` does, when the iteration reaches the first deal or action that
    breaks a rule (a malformed record: at the first ``next``).
    """
    validate_schema(record)
    deals = record["deals"]
    _require(bool(deals), "a record needs at least one deal")
    state: State | None = None
    for i, deal in enumerate(deals):
        deck = [parse_card(c) for c in deal["deck"]]
        if state is None:
            if deal["dealer"] != record["first_dealer"]:
                raise RecordRuleError(
                    i,
                    0,
                    f"dealer must be {record['first_dealer']}",
                    "dealer",
                    {"expected": record["first_dealer"]},
                )
            state = new_match(
                record["variant"],
                record["players"],
                record.get("options", {}),
                first_dealer=record["first_dealer"],
                deck=deck,
            )
        else:
            # a fault of a whole deal is named at its first action (an unfinished deal: at
            # the first action it lacks)
            if state.phase is Phase.MATCH_OVER:
                raise RecordRuleError(i, 0, "the match is already over", "match_over")
            if state.phase is not Phase.DEAL_OVER:
                missing = len(deals[i - 1]["actions"])
                raise RecordRuleError(
                    i - 1, missing, "the deal is unfinished but another follows", "unfinished"
                )
            expected = (state.dealer + 1) % state.rules.players
            if deal["dealer"] != expected:
                raise RecordRuleError(
                    i, 0, f"dealer must be {expected}", "dealer", {"expected": expected}
                )
            state, _ = start_deal(state, deck=deck)
        yield None, state
        for j, data in enumerate(deal["actions"]):
            if not in_deal(state):
                raise RecordRuleError(i, j, "the deal is over", "deal_over")
            seat = data["seat"]
            if is_old_exchange_pass(state, seat, data):
                state = _declined(state)  # read, and not written again (RULES.md §12)
                continue
            # the seven's holder may exchange out of turn before the play (RULES.md §14)
            if seat != state.to_act and data["type"] != "exchange":
                raise RecordRuleError(
                    i,
                    j,
                    f"seat {seat} is not to act (seat {state.to_act} is)",
                    "not_to_act",
                    {"seat": seat, "to_act": state.to_act},
                )
            claimed: list[Event] = []
            if (
                data.get("by") == "claim"
                and state.claimer < 0
                and state.phase is Phase.PLAY
                and not state.trick
            ):
                # the first play of a claim's play-out: the claim is made just before it (its
                # cards shown, as at the table), unchecked: replay checks the plays (§15)
                state, claimed = mark_claim(state, state.to_act)
            try:
                # ``by`` never changes what is legal: checked exactly as without it
                state, events = apply(state, action_from_json(_without_by(data)), seat)
            except IllegalAction as exc:
                params = {"seat": seat, "type": data["type"], "reason": exc.reason}
                raise RecordRuleError(i, j, f"seat {seat}: {exc}", "illegal", params) from None
            except InvalidAction as exc:
                raise RecordRuleError(
                    i, j, f"seat {seat}: {exc}", "invalid_action", {"seat": seat}
                ) from None
            yield Step(i, j, seat, state, claimed + events, data.get("by")), state


def summary(state: State) -> dict[str, Any]:
    """Each deal's breakdown and the running and final match score, as JSON."""
    rules = state.rules
    return {
        "variant": rules.variant,
        "players": rules.players,
        "options": rules.options,
        "deals": [result_json(r, rules) for r in state.results],
        "scores": list(state.scores),
        "reserve": state.reserve,
        "reserve_discarded": state.reserve_discarded,
        "finished": state.phase is Phase.MATCH_OVER,
        "winner": state.winner,
        "phase": state.phase.value,
    }
