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

from app.bots import LEVELS
from app.engine import Event, Phase, State
from app.engine.cards import format_card, format_mask
from app.engine.record import replayed_states
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
    frame.update(state.rules.replay_fields(state))
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


def seats_in_meta(record: dict[str, Any], players: int) -> list[dict[str, Any]] | None:
    """The seats a record says it was played by, ``meta.seats``: one ``{"kind": "human"|"bot",
    "level"}`` per seat (a bot's level one of the bots' levels, or null). None when the record
    does not say, or says it in another shape (``meta`` is free-form, RULES.md §12)."""
    meta = record.get("meta")
    seats = meta.get("seats") if isinstance(meta, dict) else None
    if not isinstance(seats, list) or len(seats) != players:
        return None
    out: list[dict[str, Any]] = []
    for seat in seats:
        if not isinstance(seat, dict) or seat.get("kind") not in ("human", "bot"):
            return None
        level = seat.get("level") if seat["kind"] == "bot" else None
        out.append({"kind": seat["kind"], "level": level if level in LEVELS else None})
    return out


def game_id_in_meta(record: dict[str, Any]) -> str | None:
    """``meta.game_id``: the game of the server that exported the record, if it says."""
    meta = record.get("meta")
    game_id = meta.get("game_id") if isinstance(meta, dict) else None
    if isinstance(game_id, str) and 0 < len(game_id) <= 64:
        return game_id
    return None


def replay_frames(record: Any) -> dict[str, Any]:
    """The viewer's frames for ``record``; raises the engine's record errors when invalid."""
    deals: list[tuple[list[dict[str, Any]], dict[str, Any] | None]] = []  # (frames, result)
    ends: list[State] = []  # each deal's last state
    for step, state in replayed_states(record):
        if step is None:  # a deal starts: the cards as dealt
            deals.append(([_frame(state, [], None, None)], None))
            ends.append(state)
            continue
        data = record["deals"][step.deal]["actions"][step.index]
        action = {k: v for k, v in data.items() if k != "seat"}
        frame = _frame(state, step.events, step.seat, action)
        frames, result = deals[-1]
        frames.append(frame)
        deals[-1] = (frames, frame.get("result", result))
        ends[-1] = state
    deals_out: list[dict[str, Any]] = []
    for number, ((frames, result), end) in enumerate(zip(deals, ends, strict=True)):
        finished = end.phase in (Phase.DEAL_OVER, Phase.MATCH_OVER)
        deals_out.append(
            {
                "number": number,
                "dealer": record["deals"][number]["dealer"],
                "finished": finished,
                "thrown_in": finished and end.results[-1].thrown_in,
                "result": result,
                "frames": frames,
            }
        )
    final = ends[-1]
    rules = final.rules
    return {
        "variant": rules.variant,
        "players": rules.players,
        "traits": rules.traits(),
        "options": dict(rules.options),
        "sides": list(rules.side_of),
        "target": rules.target,
        "names": _names(record, rules.players),
        "deals": deals_out,
        "scores": list(final.scores),
        "winner": final.winner,
        "finished": final.phase is Phase.MATCH_OVER,
    }
