"""Tournaments on the web (docs/tournaments.md, docs/protocol.md "Tournaments"): the JSON API
under ``/api/tournaments`` and the pages ``/tournaments``, ``/t/{id}`` (the event) and
``/t/{id}/boards/{k}`` (a board's traveller). The rules live in app/tournaments/service.py;
this module only maps requests to it and its refusals to statuses.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, FastAPI, Path, Request, WebSocket
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr
from starlette.websockets import WebSocketDisconnect

from app.bots import LEVELS
from app.engine import VARIANTS
from app.tournaments.live import SwissSpec
from app.tournaments.service import EventSpec, TournamentError, Tournaments
from app.web.errors import ApiError
from app.web.identity import IdentityDep, ViewerDep, get_viewer, identity_from_cookie
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
    # the live Swiss (app/tournaments/live.py)
    "not_swiss": 409,
    "not_robot": 409,
    "full": 409,
    "already_registered": 409,
    "link_used": 409,
    "registration_closed": 409,
    "event_started": 409,
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


class CreateSwissBody(BaseModel):
    """``POST /api/tournaments/swiss``: a live duplicate Swiss for pairs."""

    model_config = ConfigDict(extra="forbid")

    variant: Annotated[StrictStr, Field(max_length=16)]
    options: dict[str, Any] = Field(default_factory=dict, max_length=16)
    rounds: Annotated[StrictInt, Field(ge=1, le=12)] = 3
    boards: Annotated[StrictInt, Field(ge=1, le=8)] = 4
    clock: Literal[15, 30, 60, 120] = 30
    starts_at: datetime | None = None
    max_pairs: Annotated[StrictInt, Field(ge=2, le=128)] | None = None
    level: Annotated[StrictStr, Field(max_length=16)] = "medium"
    title: Annotated[StrictStr, Field(max_length=80)] | None = None


class RegisterBody(BaseModel):
    """``POST /api/tournaments/{id}/register``: alone with the house partner, or a pair
    with a partner link."""

    model_config = ConfigDict(extra="forbid")

    partner: Literal["house", "link"]


class RegistrationBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    open: StrictBool


Code = Annotated[str, Path(min_length=8, max_length=24, pattern=r"^[A-Za-z0-9_-]+$")]


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


@api.post("/swiss", status_code=201)
async def create_swiss(
    request: Request, body: CreateSwissBody, identity: IdentityDep
) -> dict[str, Any]:
    settings = request.app.state.settings
    if not settings.tournament_player_swiss:
        raise ApiError(403, "not_allowed", "on this server only the admin creates live events")
    if body.starts_at is not None and body.starts_at.tzinfo is None:
        raise ApiError(422, "invalid_start", "starts_at needs a time zone (e.g. Z)")
    spec = SwissSpec(
        variant=body.variant,
        options=body.options,
        rounds=body.rounds,
        boards=body.boards,
        clock=body.clock,
        starts_at=body.starts_at,
        max_pairs=body.max_pairs,
        level=body.level,
        title=body.title,
    )
    try:
        event_id = await tournaments_of(request).live.create(spec, identity.id)
    except TournamentError as exc:
        raise _error(exc) from None
    return {"id": event_id, "url": f"/t/{event_id}"}


@api.post("/{event_id}/register")
async def register(
    request: Request, event_id: EventId, body: RegisterBody, identity: IdentityDep
) -> dict[str, Any]:
    try:
        got = await tournaments_of(request).live.register(
            event_id, identity.id, identity.name, body.partner
        )
    except TournamentError as exc:
        raise _error(exc) from None
    code = got["code"]
    return {"pair": got["pair"], "link": f"/t/{event_id}/join/{code}" if code else None}


@api.post("/{event_id}/join/{code}")
async def join_pair(
    request: Request, event_id: EventId, code: Code, identity: IdentityDep
) -> dict[str, Any]:
    try:
        return await tournaments_of(request).live.join(event_id, code, identity.id, identity.name)
    except TournamentError as exc:
        raise _error(exc) from None


@api.post("/{event_id}/leave")
async def leave(request: Request, event_id: EventId, identity: IdentityDep) -> dict[str, Any]:
    try:
        await tournaments_of(request).live.leave(event_id, identity.id)
    except TournamentError as exc:
        raise _error(exc) from None
    return {"left": True}


@api.post("/{event_id}/registration")
async def registration(
    request: Request, event_id: EventId, body: RegistrationBody, identity: IdentityDep
) -> dict[str, Any]:
    try:
        await tournaments_of(request).live.set_registration(event_id, identity.id, body.open)
    except TournamentError as exc:
        raise _error(exc) from None
    return {"open": body.open}


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
            "can_create_live": settings.tournament_player_swiss,
            "levels": LEVELS,
            "variant_ids": list(VARIANTS),
        },
    )


@pages.get("/t/{event_id}", response_class=HTMLResponse)
async def event_page(request: Request, event_id: str, code: str | None = None) -> Response:
    viewer = await get_viewer(request)
    try:
        data = await tournaments_of(request).event(event_id, viewer.id)
    except TournamentError:
        return render(request, "not_found.html", status=404)
    if data["event"]["kind"] == "swiss":
        page = {"data": data, "code": code, "me": viewer.id}
        return render(
            request,
            "tournament_live.html",
            {"data": data, "code": code, "page_json": script_json(page)},
        )
    return render(
        request, "tournament.html", {"data": data, "data_json": script_json(data), "me": viewer.id}
    )


@pages.get("/t/{event_id}/join/{code}", response_class=HTMLResponse)
async def join_page(request: Request, event_id: str, code: str) -> Response:
    """A partner link: the event's page, offering to join the pair."""
    if not (8 <= len(code) <= 24 and all(c.isalnum() or c in "-_" for c in code)):
        return render(request, "not_found.html", status=404)
    return await event_page(request, event_id, code)


@pages.websocket("/ws/tournaments/{event_id}")
async def event_socket(websocket: WebSocket, event_id: str) -> None:
    """A live event's page: ``{"type": "tournament", "data": <the event as this browser may
    see it>}`` at once and whenever it changes; the client sends nothing but ``ping``."""
    from app.web.ws import CLOSE_POLICY, Connection, origin_allowed

    settings = websocket.app.state.settings
    await websocket.accept()
    if not origin_allowed(websocket, settings):
        await websocket.close(CLOSE_POLICY, "origin not allowed")
        return
    service: Tournaments = websocket.app.state.tournaments
    try:
        event = await service._event(event_id)
    except TournamentError:
        await websocket.close(4004, "no such event")
        return
    if event.kind != "swiss":
        await websocket.close(4004, "not a live event")
        return
    identity = await identity_from_cookie(websocket)
    conn = Connection(websocket, identity.id if identity is not None else 0, ())
    writer = asyncio.create_task(conn.run_writer(), name="ws-tournament-writer")
    service.live.attach(event_id, conn)
    try:
        await service.live.send_to(event_id, conn)
        while not conn.closing:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text") or ""
            if len(text) > 64 or '"ping"' not in text:
                conn.send_json({"type": "error", "code": "bad_message", "message": "ping only"})
                continue
            conn.send_json({"type": "pong"})
    except WebSocketDisconnect:
        return
    finally:
        service.live.detach(event_id, conn)
        if not conn.closing:
            conn.close(1000, "bye")
        try:
            await asyncio.wait_for(writer, 5)
        except (TimeoutError, asyncio.CancelledError):
            writer.cancel()


@pages.get("/t/{event_id}/boards/{board}", response_class=HTMLResponse)
async def traveller_page(request: Request, event_id: str, board: int) -> Response:
    viewer = await get_viewer(request)
    service = tournaments_of(request)
    data: dict[str, Any] | None = None
    try:
        data = await service.event(event_id, viewer.id)
        trav = await service.traveller(event_id, board, viewer.id)
    except TournamentError as exc:
        if exc.code == "hidden":
            live = data is not None and data["event"]["kind"] == "swiss"
            return render(
                request,
                "tournament_hidden.html",
                {"event_id": event_id, "board": board, "live": live},
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
    app.state.rooms.services.board_over = service.live.board_over
    await service.start()


async def stop(app: FastAPI) -> None:
    service: Tournaments | None = getattr(app.state, "tournaments", None)
    if service is not None:
        await service.stop()
