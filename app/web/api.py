"""The JSON API of docs/protocol.md (``/api/...``) and what the HTML pages ask the rooms.

Errors are ``{"error": {"code", "message"}}`` with a 4xx status (``app.web.errors.ApiError``). The pages use
``page_access`` (join or reclaim a seat, or see whether the table is full).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from app import metrics
from app.players.identities import CurrentIdentity
from app.rooms import CommandError, GameSpec, RoomManager, SeatSpec
from app.rooms.room import JoinResult
from app.web.deps import IdentitiesDep, RoomsDep, SettingsDep, rooms_of
from app.web.errors import ApiError, from_command
from app.web.identity import IdentityDep, ViewerDep, get_identity, identity_from_cookie
from app.web.messages import CreateGameBody, JoinBody, NameBody, SeatsBody

router = APIRouter(prefix="/api", tags=["api"])

# A body field refused by its model → the error code of that field (docs/protocol.md,
# "CreateGame"); any other malformed request is ``invalid_request``.
FIELD_ERRORS = {
    "variant": "invalid_options",
    "players": "invalid_options",
    "options": "invalid_options",
    "mode": "invalid_mode",
    "seats": "invalid_seats",
    "level": "invalid_seats",
    "name": "invalid_name",
    "names": "invalid_name",
}


def _join_json(result: JoinResult) -> dict[str, Any]:
    return {"role": result.role, "seats": list(result.seats), "room": result.room}


async def join_game(
    rooms: RoomManager, game_id: str, identity: CurrentIdentity
) -> JoinResult | None:
    """Join or reclaim a seat of ``game_id`` for this browser: (role, seats, room), or None."""
    return await rooms.join(game_id, identity.id, identity.name)


async def list_games(rooms: RoomManager, identity: CurrentIdentity) -> dict[str, list[Any]]:
    """This browser's unfinished games grouped by mode: computer, local, friends."""
    return await rooms.games_of(identity.id)


async def page_access(request: Request, game_id: str) -> str:
    """For ``/g/{id}``: join or reclaim, then ``ok`` (seat or spectator), ``full`` or ``missing``.
    A browser without an identity gets one only when the game exists (opening a link joins)."""
    rooms = rooms_of(request)
    identity = await identity_from_cookie(request)
    if identity is None:
        if await rooms.get(game_id) is None:
            return "missing"
        identity = await get_identity(request)
    result = await join_game(rooms, game_id, identity)
    if result is None:
        return "missing"
    return "full" if result.role == "full" else "ok"


# ---------------------------------------------------------------------------- me


async def _me_json(rooms: RoomManager, identity: CurrentIdentity) -> dict[str, Any]:
    grouped = await list_games(rooms, identity) if identity.id else {}
    games = [g for mode in ("computer", "local", "friends") for g in grouped.get(mode, [])]
    return {"name": identity.name, "games": games, "grouped": grouped}


@router.get("/me")
async def me(identity: ViewerDep, rooms: RoomsDep) -> dict[str, Any]:
    """This browser's name and unfinished games (none, and no identity created, if it has
    none yet)."""
    return await _me_json(rooms, identity)


@router.post("/me")
async def start_identity(identity: IdentityDep, rooms: RoomsDep) -> dict[str, Any]:
    """The same as ``GET /api/me``, creating this browser's identity (and cookie) if new."""
    return await _me_json(rooms, identity)


@router.post("/me/name")
async def set_name(
    body: NameBody, identity: IdentityDep, identities: IdentitiesDep, rooms: RoomsDep
) -> dict[str, Any]:
    renamed = await identities.rename(identity, body.name)
    await rooms.rename(identity.id, body.name)
    return {"name": renamed.name}


# ---------------------------------------------------------------------------- games


@router.post("/games", status_code=201)
async def create_game(
    body: CreateGameBody,
    identity: IdentityDep,
    identities: IdentitiesDep,
    request: Request,
    rooms: RoomsDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    if body.name is not None and body.name != identity.name:
        identity = await identities.rename(identity, body.name)
        await rooms.rename(identity.id, body.name)
    if body.names is not None and body.mode != "local":
        raise ApiError(400, "invalid_name", "only games on one device name their players")
    if body.clock != "none" and body.mode != "friends":
        raise ApiError(400, "invalid_options", "only games with friends have a clock")
    if body.public and body.mode != "friends":
        raise ApiError(400, "invalid_options", "only games with friends can be public")
    if body.public:
        from app.web.lobby import check_public_limit

        await check_public_limit(settings, rooms.sessionmaker, identity.id)
    spec = GameSpec(
        variant=body.variant,
        players=body.players,
        options=dict(body.options),
        mode=body.mode,
        seats=[SeatSpec(s.kind, s.level) for s in body.seats] if body.seats else None,
        level=body.level,
        spectators=body.spectators,
        settings=body.table_settings(),
        public=body.public,
        names=body.names,
    )
    try:
        room = await rooms.create_game(identity.id, identity.name, spec)
    except CommandError as exc:
        raise from_command(exc) from None
    url = settings.game_url(room.game_id, str(request.base_url))
    return {"game_id": room.game_id, "url": url, "seat": 0, "status": room.status}


async def _room_or_404(rooms: RoomManager, game_id: str) -> Any:
    room = await rooms.get(game_id)
    if room is None:
        raise ApiError(404, "not_found", "no such game")
    return room


@router.get("/games/{game_id}")
async def game_summary(game_id: str, identity: ViewerDep, rooms: RoomsDep) -> dict[str, Any]:
    room = await _room_or_404(rooms, game_id)
    if not room.seats_of(identity.id) and not room.spectators_allowed and room.status != "waiting":
        raise ApiError(403, "not_allowed", "this table is full")
    summary: dict[str, Any] = room.summary(identity.id)
    return summary


@router.post("/games/{game_id}/join")
async def join(
    game_id: str,
    identity: IdentityDep,
    identities: IdentitiesDep,
    rooms: RoomsDep,
    body: JoinBody | None = None,
) -> dict[str, Any]:
    if body is not None and body.name is not None and body.name != identity.name:
        identity = await identities.rename(identity, body.name)
        await rooms.rename(identity.id, body.name)
    result = await join_game(rooms, game_id, identity)
    if result is None:
        raise ApiError(404, "not_found", "no such game")
    return _join_json(result)


@router.post("/games/{game_id}/seats")
async def move_seats(
    game_id: str, body: SeatsBody, identity: IdentityDep, rooms: RoomsDep
) -> dict[str, Any]:
    pairs = [(a, b) for a, b in body.swaps]
    try:
        room_json: dict[str, Any] = await rooms.with_room(
            game_id, lambda room: room.swap_seats(identity.id, pairs)
        )
    except CommandError as exc:
        raise from_command(exc) from None
    return {"room": room_json}


@router.get("/games/{game_id}/record")
async def record(game_id: str, identity: ViewerDep, rooms: RoomsDep) -> dict[str, Any]:
    room = await _room_or_404(rooms, game_id)
    try:
        result: dict[str, Any] = await room.record_for(identity.id)
    except CommandError as exc:
        raise from_command(exc) from None
    return result


@router.get("/schema")
async def protocol_schema() -> JSONResponse:
    """The WebSocket protocol's JSON Schema, both directions (the files of docs/schema/)."""
    return JSONResponse(_schema_documents())


@cache
def _schema_documents() -> dict[str, Any]:
    from app.web.schema import schemas

    return schemas()


# ---------------------------------------------------------------------------- errors


def install(app: FastAPI) -> None:
    """Add the API router and its error format to ``app``."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        metrics.ERRORS.labels(code=exc.code, transport="http").inc()
        body: dict[str, Any] = {"code": exc.code, "message": exc.message}
        if exc.data is not None:
            body.update(exc.data)
        return JSONResponse({"error": body}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Any:
        if not request.url.path.startswith("/api/"):
            return await request_validation_exception_handler(request, exc)
        errors = exc.errors()
        first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
        loc = tuple(first.get("loc", ()))[1:]
        where = ".".join(str(p) for p in loc) or "body"
        code = FIELD_ERRORS.get(str(loc[0]), "invalid_request") if loc else "invalid_request"
        message = str(first.get("msg", "invalid request")).removeprefix("Value error, ")
        metrics.ERRORS.labels(code=code, transport="http").inc()
        return JSONResponse(
            {"error": {"code": code, "message": f"{where}: {message}"[:300]}}, status_code=422
        )

    app.include_router(router)
