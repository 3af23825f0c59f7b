"""Replay frames: a record replayed by the engine into one picture per step, for the viewer.

``replay_frames(record)`` validates and replays a ``belote-record/1`` (an invalid record raises
the engine's ``RecordSchemaError`` / ``RecordRuleError``, whose message is the one-line reason)
and returns, per deal, the picture at the deal's start and after every action: every hand (a
replay shows the whole deal), the bids, the contract, the cards on the table, the winner of a
trick just completed, tricks won, declarations and belote, the match totals, and at the deal's
end its full score lines (the engine's ``result_json``).

Every hand is visible, so only deals that have ended may be given to this function for a game
still being played (RULES.md §13): the server passes the record of the finished deals only
(``Room.record``). An imported file is shown as it is.
"""

from __future__ import annotations

from typing import Any

from app.engine import Event, Phase, State, action_from_json, apply, new_match, start_deal
from app.engine.cards import format_card, format_mask, parse_card
from app.engine.record import replay
from app.engine.views import spectator_view

# what a frame copies from the engine's public view
VIEW_FIELDS = (
    "phase",
    "to_act",
    "bids",
    "contract",
    "upcard",
    "trick",
    "tricks_won",
    "trick_points",
    "declarations",
    "belote",
    "scores",
    "reserve",
)
MAX_NAME = 24


def _frame(state: State, events: list[Event], seat: int | None, action: Any) -> dict[str, Any]:
    view = spectator_view(state)
    frame: dict[str, Any] = {key: view[key] for key in VIEW_FIELDS}
    frame["hands"] = [format_mask(h) for h in state.hands]
    if state.rules.variant == "duel":
        frame["down"] = [
            [format_card(c) for c in pile if c >= 0] for pile in (state.piles or ((), ()))
        ]
    if state.rules.variant == "bela":
        frame["talons"] = [format_mask(t) for t in state.talons]
        if state.discard:
            frame["discard"] = format_mask(state.discard)
    if seat is not None:
        frame["seat"] = seat
        frame["action"] = action
    for event in events:
        if event.type == "trick_won" and state.tricks:
            trick = state.tricks[-1]
            frame["trick"] = [{"seat": s, "card": format_card(c)} for s, c in trick.plays]
            frame["trick_winner"] = trick.winner
            frame["trick_won_points"] = trick.points
            frame["trick_number"] = len(state.tricks)
        elif event.type == "deal_scored":
            frame["result"] = event.data["result"]
        elif event.type == "deal_thrown_in":
            frame["thrown_in"] = True
        elif event.type == "match_over":
            frame["match_over"] = {"winner": event.data.get("winner")}
    return frame


def _names(record: dict[str, Any], players: int) -> list[str | None]:
    meta = record.get("meta")
    names = meta.get("names") if isinstance(meta, dict) else None
    out: list[str | None] = [None] * players
    if isinstance(names, list):
        for i, name in enumerate(names[:players]):
            if isinstance(name, str) and name.strip():
                out[i] = name.strip()[:MAX_NAME]
    return out


def replay_frames(record: Any) -> dict[str, Any]:
    """The viewer's frames for ``record``; raises the engine's record errors when invalid."""
    final = replay(record)  # validates: the first bad deal/action gives the one-line reason
    rules = final.rules
    deals_out: list[dict[str, Any]] = []
    state: State | None = None
    for number, deal in enumerate(record["deals"]):
        deck = [parse_card(c) for c in deal["deck"]]
        if state is None:
            state = new_match(
                record["variant"],
                record["players"],
                record.get("options", {}),
                first_dealer=record["first_dealer"],
                deck=deck,
            )
        else:
            state, _ = start_deal(state, deck=deck)
        frames = [_frame(state, [], None, None)]
        result = None
        for data in deal["actions"]:
            seat = data["seat"]
            state, events = apply(state, action_from_json(data), seat)
            frame = _frame(state, events, seat, {k: v for k, v in data.items() if k != "seat"})
            result = frame.get("result", result)
            frames.append(frame)
        finished = state.phase in (Phase.DEAL_OVER, Phase.MATCH_OVER)
        deals_out.append(
            {
                "number": number,
                "dealer": deal["dealer"],
                "finished": finished,
                "thrown_in": finished and state.results[-1].thrown_in,
                "result": result,
                "frames": frames,
            }
        )
    return {
        "variant": rules.variant,
        "players": rules.players,
        "options": dict(rules.options),
        "sides": list(rules.side_of),
        "target": rules.target,
        "names": _names(record, rules.players),
        "deals": deals_out,
        "scores": list(final.scores),
        "winner": final.winner,
        "finished": final.phase is Phase.MATCH_OVER,
    }
