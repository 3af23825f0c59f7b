"""The JSON Schema (draft 2020-12) of the tournaments' HTTP API (docs/protocol.md,
"Tournaments"), generated from the typed models below and checked into
``docs/schema/tournaments-api.json``.

Regenerate it after changing an answer: ``python -m app.web.tournament_schema --write``;
``--check`` says whether the file is current (tests/web/test_tournaments.py fails when it is
not). Each request and answer is one entry of ``$defs``; ``endpoints`` maps each route to the
definitions of its body and its answer.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from app.web.schema import DIALECT

FILE = Path(__file__).resolve().parents[2] / "docs" / "schema" / "tournaments-api.json"

Phase = Literal["open", "running", "finished", "cancelled"]
Level = Literal["easy", "medium", "hard"]
Pct = Annotated[float, Field(ge=0, le=100)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class House(_Model):
    level: Level
    version: Annotated[StrictStr, Field(description="<level>@<fingerprint of the bots' code>")]


class Event(_Model):
    id: StrictStr
    kind: Literal["robot", "swiss"]
    title: StrictStr | None
    variant: Literal["classic", "coinche", "bulgarian", "bela", "duel"]
    players: Annotated[StrictInt, Field(ge=2, le=4)]
    options: dict[str, Any]
    boards: Annotated[StrictInt, Field(ge=1, le=32)]
    starts_at: StrictStr
    ends_at: StrictStr
    phase: Phase
    house: House
    daily: StrictBool
    entrants: Annotated[StrictInt, Field(ge=0)]
    url: StrictStr
    rounds: Annotated[StrictInt, Field(ge=1, le=12)] | None = Field(
        default=None, description="a live Swiss (kind swiss): its rounds; boards is per round"
    )
    clock: Literal[15, 30, 60, 120] | None = Field(
        default=None, description="a live Swiss: the tables' seconds per decision"
    )


class Listing(_Model):
    """``GET /api/tournaments``."""

    open: list[Event]
    running: list[Event]
    finished: list[Event]


class CreateEvent(_Model):
    """``POST /api/tournaments`` (the body)."""

    variant: Annotated[StrictStr, Field(max_length=16)]
    players: StrictInt | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    boards: Annotated[StrictInt, Field(ge=1, le=32)] = 8
    hours: Annotated[float, Field(ge=0.1, le=744)] = 24.0
    starts_at: StrictStr | None = Field(default=None, description="ISO 8601 with a zone")
    level: Level = "hard"
    title: Annotated[StrictStr, Field(max_length=80)] | None = None


class Created(_Model):
    id: StrictStr
    url: StrictStr


class Entered(_Model):
    """``POST /api/tournaments/{id}/enter``."""

    table: Annotated[StrictInt, Field(ge=1)]


class BoardGame(_Model):
    """``POST /api/tournaments/{id}/boards/{k}/play``."""

    game_id: StrictStr
    url: StrictStr


class Matchpoints(_Model):
    points: Annotated[StrictInt, Field(ge=0)]
    top: Annotated[StrictInt, Field(ge=0)]
    percent: Pct


class YourBoard(_Model):
    board: Annotated[StrictInt, Field(ge=1)]
    status: Literal["not_started", "playing", "played"]
    game_id: StrictStr | None = None
    url: StrictStr | None = None
    matchpoints: Matchpoints | None = None


class You(_Model):
    table: Annotated[StrictInt, Field(ge=1)]
    boards: list[YourBoard]
    played: Annotated[StrictInt, Field(ge=0)]
    percent: Pct | None
    next_board: Annotated[StrictInt, Field(ge=1)] | None
    rank: Annotated[StrictInt, Field(ge=1)] | None = None


class BoardInfo(_Model):
    board: Annotated[StrictInt, Field(ge=1)]
    revealed: StrictBool
    tables: Annotated[StrictInt, Field(ge=0)] | None
    traveller_url: StrictStr | None


class Standing(_Model):
    rank: Annotated[StrictInt, Field(ge=1)]
    table: Annotated[StrictInt, Field(ge=1)]
    name: StrictStr | None
    boards: Annotated[StrictInt, Field(ge=1)]
    points: Annotated[StrictInt, Field(ge=0)]
    top: Annotated[StrictInt, Field(ge=0)]
    percent: Pct
    you: StrictBool


class Exports(_Model):
    csv: StrictStr
    archive: StrictStr


class EventView(_Model):
    """``GET /api/tournaments/{id}``, as the asking browser may see it."""

    event: Event
    house_current: StrictBool
    you: You | None
    boards: list[BoardInfo]
    standings: list[Standing] | None
    exports: Exports | None


class Contract(_Model):
    denom: Literal["C", "D", "H", "S", "NT", "AT"]
    taker: Annotated[StrictInt, Field(ge=0, le=3)]
    multiplier: Annotated[StrictInt, Field(ge=1)]
    value: StrictInt | Literal["capot"] | None = None


class Par(_Model):
    taker: StrictInt
    defence: StrictInt


class TravellerRow(_Model):
    table: Annotated[StrictInt, Field(ge=0, description="0: the datum table")]
    datum: StrictBool
    name: StrictStr | None
    you: StrictBool
    contract: Contract | None
    outcome: Literal["made", "failed", "litige", "hanging", "thrown_in"]
    taker_side: StrictInt | None
    scores: list[StrictInt]
    net: float
    par: Par | None
    stand_in: Annotated[StrictInt, Field(ge=0)]
    matchpoints: Matchpoints | None
    game_id: StrictStr
    replay_url: StrictStr
    analysis_url: StrictStr


class Traveller(_Model):
    """``GET /api/tournaments/{id}/boards/{k}``."""

    event: StrictStr
    board: Annotated[StrictInt, Field(ge=1)]
    dealer: Annotated[StrictInt, Field(ge=0, le=3)]
    variant: StrictStr
    players: Annotated[StrictInt, Field(ge=2, le=4)]
    direction: Literal["NS", "S"]
    tables: list[TravellerRow]


# ---------------------------------------------------------------------------- the live Swiss


class CreateSwiss(_Model):
    """``POST /api/tournaments/swiss`` (the body): a live duplicate Swiss for pairs."""

    variant: Literal["classic", "coinche", "bulgarian", "bela"]
    options: dict[str, Any] = Field(default_factory=dict)
    rounds: Annotated[StrictInt, Field(ge=1, le=12)] = 3
    boards: Annotated[StrictInt, Field(ge=1, le=8, description="per round")] = 4
    clock: Literal[15, 30, 60, 120] = 30
    starts_at: StrictStr | None = Field(default=None, description="ISO 8601 with a zone")
    max_pairs: Annotated[StrictInt, Field(ge=2, le=128)] | None = None
    level: Level = "medium"
    title: Annotated[StrictStr, Field(max_length=80)] | None = None


class Register(_Model):
    """``POST /api/tournaments/{id}/register`` (the body)."""

    partner: Literal["house", "link"]


class Registered(_Model):
    pair: Annotated[StrictInt, Field(ge=1)]
    link: StrictStr | None = Field(description="the partner link (partner: link), spent once")


class Joined(_Model):
    """``POST /api/tournaments/{id}/join/{code}``."""

    pair: Annotated[StrictInt, Field(ge=1)]


class Left(_Model):
    """``POST /api/tournaments/{id}/leave`` (before the start)."""

    left: Literal[True]


class Registration(_Model):
    """``POST /api/tournaments/{id}/registration``: the organiser opens or closes it (the
    body and the answer)."""

    open: StrictBool


Names = list[StrictStr | None]  # a pair's players, registrant first; null: the house player


class SwissEvent(Event):
    round: Annotated[StrictInt, Field(ge=0, description="the round being played; 0 before")]
    registration: StrictBool
    max_pairs: Annotated[StrictInt, Field(ge=2)] | None
    pairs: Annotated[StrictInt, Field(ge=0)]


class SwissPair(_Model):
    pair: Annotated[StrictInt, Field(ge=1)]
    names: Names
    house_partner: StrictBool
    complete: StrictBool
    joined_round: Annotated[StrictInt, Field(ge=1)]
    withdrawn_round: Annotated[StrictInt, Field(ge=1)] | None
    you: StrictBool


class SwissYou(_Model):
    pair: Annotated[StrictInt, Field(ge=1)]
    link: StrictStr | None = Field(description="the partner link, to its registrant, unspent")
    table: Annotated[StrictInt, Field(ge=1)] | None
    direction: Literal["NS", "EW"] | None
    board: Annotated[StrictInt, Field(ge=1)] | None
    game_id: StrictStr | None
    url: StrictStr | None
    board_over: StrictBool | None = None


class SwissTable(_Model):
    table: Annotated[StrictInt, Field(ge=1)]
    ns: Annotated[StrictInt, Field(ge=0, description="0: a pair of house players")]
    ew: Annotated[StrictInt, Field(ge=0)]
    ns_names: Names
    ew_names: Names
    boards_done: Annotated[StrictInt, Field(ge=0)]


class SwissRound(_Model):
    round: Annotated[StrictInt, Field(ge=1)]
    finished: StrictBool
    board: Annotated[StrictInt, Field(ge=1)] | None
    boards: list[Annotated[StrictInt, Field(ge=1)]]
    tables: list[SwissTable]


class SwissStanding(_Model):
    rank: Annotated[StrictInt, Field(ge=1)]
    pair: Annotated[StrictInt, Field(ge=1)]
    names: Names
    house_partner: StrictBool
    vp: float
    mp: float
    tiebreak: float
    rounds: Annotated[StrictInt, Field(ge=0)]
    byes: Annotated[StrictInt, Field(ge=0)]
    withdrawn: StrictBool
    you: StrictBool


class SwissBoard(_Model):
    board: Annotated[StrictInt, Field(ge=1)]
    round: Annotated[StrictInt, Field(ge=1)]
    revealed: StrictBool
    traveller_url: StrictStr | None


class SwissView(_Model):
    """``GET /api/tournaments/{id}`` of a live Swiss, as the asking browser may see it; the
    same is the ``data`` of the event socket's ``tournament`` message (without ``now``)."""

    event: SwissEvent
    now: StrictStr | None = None
    organiser: StrictBool = Field(description="the browser created the event")
    pairs: list[SwissPair]
    you: SwissYou | None
    round: SwissRound | None
    standings: list[SwissStanding]
    boards: list[SwissBoard]
    exports: Exports | None


class BoardScore(_Model):
    table: Annotated[StrictInt, Field(ge=0)]
    top: Annotated[StrictInt, Field(ge=0)]
    ns_mp: float
    ew_mp: float
    ns_percent: Pct
    ew_percent: Pct
    adjusted: StrictBool


class SwissTravellerRow(_Model):
    table: Annotated[StrictInt, Field(ge=0, description="0: the datum table")]
    datum: StrictBool
    ns: Annotated[StrictInt, Field(ge=0)]
    ew: Annotated[StrictInt, Field(ge=0)]
    ns_names: Names
    ew_names: Names
    name: StrictStr | None
    you: StrictBool
    contract: Contract | None
    outcome: Literal["made", "failed", "litige", "hanging", "thrown_in"]
    taker_side: StrictInt | None
    scores: list[StrictInt]
    net: float
    par: Par | None
    stand_in: Annotated[StrictInt, Field(ge=0)]
    score: BoardScore | None
    matchpoints: dict[str, float] | None = Field(description="North-South's: points, top, percent")
    game_id: StrictStr
    replay_url: StrictStr
    analysis_url: StrictStr


class SwissTraveller(_Model):
    """``GET /api/tournaments/{id}/boards/{k}`` of a live Swiss (k counts over the rounds),
    once the board's round is over."""

    event: StrictStr
    round: Annotated[StrictInt, Field(ge=1)]
    board: Annotated[StrictInt, Field(ge=1)]
    dealer: Annotated[StrictInt, Field(ge=0, le=3)] | None
    variant: StrictStr
    players: Literal[4]
    direction: Literal["NS"]
    tables: list[SwissTravellerRow]


class TournamentMessage(_Model):
    """What ``/ws/tournaments/{id}`` sends, at once and whenever the event changes."""

    type: Literal["tournament"]
    data: SwissView


class ErrorBody(_Model):
    code: StrictStr
    message: StrictStr


class Error(_Model):
    error: ErrorBody


ENDPOINTS: dict[str, tuple[str | None, str]] = {
    "GET /api/tournaments": (None, "Listing"),
    "POST /api/tournaments": ("CreateEvent", "Created"),
    "GET /api/tournaments/{id}": (None, "EventView"),
    "POST /api/tournaments/{id}/enter": (None, "Entered"),
    "POST /api/tournaments/{id}/boards/{k}/play": (None, "BoardGame"),
    "GET /api/tournaments/{id}/boards/{k}": (None, "Traveller"),
    "POST /api/tournaments/swiss": ("CreateSwiss", "Created"),
    "GET /api/tournaments/{id} (swiss)": (None, "SwissView"),
    "GET /api/tournaments/{id}/boards/{k} (swiss)": (None, "SwissTraveller"),
    "POST /api/tournaments/{id}/register": ("Register", "Registered"),
    "POST /api/tournaments/{id}/join/{code}": (None, "Joined"),
    "POST /api/tournaments/{id}/leave": (None, "Left"),
    "POST /api/tournaments/{id}/registration": ("Registration", "Registration"),
    "WS /ws/tournaments/{id}": (None, "TournamentMessage"),
}
MODELS: tuple[type[BaseModel], ...] = (
    Listing,
    CreateEvent,
    Created,
    EventView,
    Entered,
    BoardGame,
    Traveller,
    CreateSwiss,
    Register,
    Registered,
    Joined,
    Left,
    Registration,
    SwissView,
    SwissTraveller,
    TournamentMessage,
    Error,
)


def schema() -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for model in MODELS:
        doc = model.model_json_schema(ref_template="#/$defs/{model}")
        defs.update(doc.pop("$defs", {}))
        defs[model.__name__] = doc
    return {
        "$schema": DIALECT,
        "title": "Atout tournaments API",
        "description": "Requests and answers of /api/tournaments (docs/protocol.md, "
        "'Tournaments'); an error is 'Error' with a 4xx status. 'endpoints' names the "
        "definitions of each route's body and answer.",
        "endpoints": {
            route: {"body": body, "answer": answer} for route, (body, answer) in ENDPOINTS.items()
        },
        "$defs": dict(sorted(defs.items())),
    }


def text() -> str:
    return json.dumps(schema(), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if args.write:
        FILE.write_text(text(), encoding="utf-8")
        print(f"wrote {FILE}")
        return 0
    current = FILE.exists() and FILE.read_text(encoding="utf-8") == text()
    print("current" if current else f"stale: run python -m {__spec__.name} --write")
    return 0 if current else 1


if __name__ == "__main__":
    sys.exit(main())
