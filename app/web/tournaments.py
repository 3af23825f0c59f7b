"""Tournaments on the web (docs/tournaments.md, docs/protocol.md "Tournaments"): the JSON API
under ``/api/tournaments`` and the pages ``/tournaments``, ``/t/{id}`` (the event) and
``/t/{id}/boards/{k}`` (a board's traveller). The rules live in app/tournaments/service.py;
this module only maps requests to it and its refusals to statuses.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Path, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from app.bots import LEVELS
from app.engine import VARIANTS
from app.tournaments.service import EventSpec, TournamentError, Tournaments
from app.web.errors import ApiError
from app.web.identity import IdentityDep, ViewerDep, get_viewer
from app.web.pages import render, script_json

api = APIRouter(prefix="/api/tournaments", tags=["tournaments"])
pages = APIRouter(tags=["pages"])

STATUS_OF = {
    "not_found": 404,
    "no_such_board": 404,
    "hidden": 403,
    "not_allowed": 403,
    "not_entered": 403,
    "event_closed": 409,
    "play_in_order": 409,
    "event_running": 409,
    "finish_your_boards": 409,
    "busy": 503,
}

EventId = Annotated[str, Path(min_length=1, max_length=16, pattern=r"^[A-Za-z0-9_-]+$")]
Board = Annotated[int, Path(ge=1, le=64)]


class CreateEventBody(BaseModel):
    """``POST /api/tournaments``: a robot duplicate event."""

    model_config = ConfigDict(extra="forbid")

    variant: Annotated[StrictStr, Field(max_length=16)]
    players: StrictInt | None = None
    options: dict[str, Any] = Field(default_factory=dict, max_length=16)
    boards: Annotated[StrictInt, Field(ge=1, le=32)] = 8
    hours: Annotated[float, Field(ge=0.1, le=744)] = 24.0
    starts_at: datetime | None = None
    level: Annotated[StrictStr, Field(max_length=16)] = "hard"
    title: Annotated[StrictStr, Field(max_length=80)] | None = None


def tournaments_of(request: Request) -> Tournaments:
    service: Tournaments = request.app.state.tournaments
    return service


def _error(exc: TournamentError) -> ApiError:
    return ApiError(STATUS_OF.get(exc.code, 422), exc.code, exc.message)


# ---------------------------------------------------------------------------- API


@api.get("")
async def list_events(request: Request) -> dict[str, Any]:
    return await tournaments_of(request).listing()


@api.post("", status_code=201)
async def create_event(
    request: Request, body: CreateEventBody, identity: IdentityDep
) -> dict[str, Any]:
    settings = request.app.state.settings
    if not settings.tournament_player_events:
        raise ApiError(403, "not_allowed", "on this server only the admin creates events")
    if body.starts_at is not None and body.starts_at.tzinfo is None:
        raise ApiError(422, "invalid_window", "starts_at needs a time zone (e.g. Z)")
    spec = EventSpec(
        variant=body.variant,
        players=body.players,
        options=body.options,
        boards=body.boards,
        starts_at=body.starts_at,
        hours=body.hours,
        level=body.level,
        title=body.title,
    )
    service = tournaments_of(request)
    try:
        event_id = await service.create(spec, identity.id)
    except TournamentError as exc:
        raise _error(exc) from None
    return {"id": event_id, "url": f"/t/{event_id}"}


@api.get("/{event_id}")
async def event(request: Request, event_id: EventId, identity: ViewerDep) -> dict[str, Any]:
    try:
        return await tournaments_of(request).event(event_id, identity.id)
    except TournamentError as exc:
        raise _error(exc) from None


@api.post("/{event_id}/enter")
async def enter(request: Request, event_id: EventId, identity: IdentityDep) -> dict[str, Any]:
    try:
        table = await tournaments_of(request).enter(event_id, identity.id, identity.name)
    except TournamentError as exc:
        raise _error(exc) from None
    return {"table": table}


@api.post("/{event_id}/boards/{board}/play")
async def play(
    request: Request, event_id: EventId, board: Board, identity: IdentityDep
) -> dict[str, Any]:
    try:
        game_id = await tournaments_of(request).play_board(
            event_id, identity.id, identity.name, board
        )
    except TournamentError as exc:
        raise _error(exc) from None
    return {"game_id": game_id, "url": f"/g/{game_id}"}


@api.get("/{event_id}/boards/{board}")
async def traveller(
    request: Request, event_id: EventId, board: Board, identity: ViewerDep
) -> dict[str, Any]:
    try:
        return await tournaments_of(request).traveller(event_id, board, identity.id)
    except TournamentError as exc:
        raise _error(exc) from None


@api.get("/{event_id}/results.csv", response_class=Response)
async def results_csv(request: Request, event_id: EventId, identity: ViewerDep) -> Response:
    try:
        text = await tournaments_of(request).results_csv(event_id, identity.id)
    except TournamentError as exc:
        raise _error(exc) from None
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="atout-{event_id}.csv"'},
    )


@api.get("/{event_id}/archive.zip", response_class=Response)
async def archive(request: Request, event_id: EventId, identity: ViewerDep) -> Response:
    try:
        data = await tournaments_of(request).archive(event_id, identity.id)
    except TournamentError as exc:
        raise _error(exc) from None
    return Response(
        data,
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="atout-{event_id}.zip"'},
    )


# ---------------------------------------------------------------------------- pages


@pages.get("/tournaments", response_class=HTMLResponse)
async def tournaments_page(request: Request) -> Response:
    listing = await tournaments_of(request).listing()
    settings = request.app.state.settings
    return render(
        request,
        "tournaments.html",
        {
            "listing": listing,
            "can_create": settings.tournament_player_events,
            "levels": LEVELS,
            "variant_ids": list(VARIANTS),
        },
    )


@pages.get("/t/{event_id}", response_class=HTMLResponse)
async def event_page(request: Request, event_id: str) -> Response:
    viewer = await get_viewer(request)
    try:
        data = await tournaments_of(request).event(event_id, viewer.id)
    except TournamentError:
        return render(request, "not_found.html", status=404)
    return render(
        request, "tournament.html", {"data": data, "data_json": script_json(data), "me": viewer.id}
    )


@pages.get("/t/{event_id}/boards/{board}", response_class=HTMLResponse)
async def traveller_page(request: Request, event_id: str, board: int) -> Response:
    viewer = await get_viewer(request)
    service = tournaments_of(request)
    try:
        data = await service.event(event_id, viewer.id)
        trav = await service.traveller(event_id, board, viewer.id)
    except TournamentError as exc:
        if exc.code == "hidden":
            return render(
                request,
                "tournament_hidden.html",
                {"event_id": event_id, "board": board},
                status=403,
            )
        return render(request, "not_found.html", status=404)
    return render(request, "tournament_board.html", {"data": data, "trav": trav})


# ---------------------------------------------------------------------------- life cycle


def install(app: FastAPI) -> None:
    app.include_router(api)
    app.include_router(pages)


async def start(app: FastAPI) -> None:
    """After ``runtime.start``: the service (on ``app.state.tournaments``), the rooms' hook
    that lets a revealed board's records be read, and the daily events' loop."""
    service = Tournaments(
        app.state.settings, app.state.sessionmaker, app.state.writer, app.state.rooms
    )
    app.state.tournaments = service
    app.state.rooms.services.board_reader = service.may_read
    await service.start()


async def stop(app: FastAPI) -> None:
    service: Tournaments | None = getattr(app.state, "tournaments", None)
    if service is not None:
        await service.stop()
