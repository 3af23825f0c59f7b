"""The JSON API of docs/protocol.md (``/api/...``) and what the HTML pages ask the rooms.

Errors are ``{"error": {"code", "message"}}`` with a 4xx status (``ApiError``). The pages use
``page_access`` (join or reclaim a seat, or see whether the table is full).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from app.dependencies import IdentitiesDep, RoomsDep, SettingsDep, rooms_of
from app.rooms import CommandError, GameSpec, RoomManager, SeatSpec
from app.rooms.room import JoinResult
from app.web.identity import CurrentIdentity, IdentityDep, get_identity
from app.web.messages import CreateGameBody, JoinBody, NameBody, SeatsBody

router = APIRouter(prefix="/api", tags=["api"])

STATUS_OF = {
    "not_found": 404,
    "not_allowed": 403,
    "not_host": 403,
    "table_full": 403,
    "busy": 503,
}


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _from_command(exc: CommandError) -> ApiError:
    return ApiError(STATUS_OF.get(exc.code, 422), exc.code, exc.message)


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
    """For ``/g/{id}``: join or reclaim, then ``ok`` (seat or spectator), ``full`` or ``missing``."""
    identity = await get_identity(request)
    result = await join_game(rooms_of(request), game_id, identity)
    if result is None:
        return "missing"
    return "full" if result.role == "full" else "ok"


# ---------------------------------------------------------------------------- me


@router.get("/me")
async def me(identity: IdentityDep, rooms: RoomsDep) -> dict[str, Any]:
    grouped = await list_games(rooms, identity)
    games = [g for mode in ("computer", "local", "friends") for g in grouped.get(mode, [])]
    return {"name": identity.name, "games": games, "grouped": grouped}


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
    if body.clock != "none" and body.mode != "friends":
        raise ApiError(400, "invalid_options", "only games with friends have a clock")
    spec = GameSpec(
        variant=body.variant,
        players=body.players,
        options=dict(body.options),
        mode=body.mode,
        seats=[SeatSpec(s.kind, s.level) for s in body.seats] if body.seats else None,
        level=body.level,
        spectators=body.spectators,
        settings=body.table_settings(),
    )
    try:
        room = await rooms.create_game(identity.id, identity.name, spec)
    except CommandError as exc:
        raise _from_command(exc) from None
    url = settings.game_url(room.game_id, str(request.base_url))
    return {"game_id": room.game_id, "url": url, "seat": 0, "status": room.status}


async def _room_or_404(rooms: RoomManager, game_id: str) -> Any:
    room = await rooms.get(game_id)
    if room is None:
        raise ApiError(404, "not_found", "no such game")
    return room


@router.get("/games/{game_id}")
async def game_summary(game_id: str, identity: IdentityDep, rooms: RoomsDep) -> dict[str, Any]:
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
        raise _from_command(exc) from None
    return {"room": room_json}


@router.get("/games/{game_id}/record")
async def record(game_id: str, identity: IdentityDep, rooms: RoomsDep) -> dict[str, Any]:
    room = await _room_or_404(rooms, game_id)
    try:
        result: dict[str, Any] = room.record(identity.id)
    except CommandError as exc:
        raise _from_command(exc) from None
    return result


@router.get("/stats", include_in_schema=False)
async def stats(request: Request, rooms: RoomsDep) -> dict[str, Any]:
    """Counters for `atout bench load`: rooms, connections, commits (localhost only)."""
    client = request.client.host if request.client else ""
    if client not in ("127.0.0.1", "::1"):
        raise ApiError(404, "not_found", "not found")
    return rooms.stats()


# ---------------------------------------------------------------------------- errors


def install(app: FastAPI) -> None:
    """Add the API router and its error format to ``app``."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(
            {"error": {"code": exc.code, "message": exc.message}}, status_code=exc.status
        )

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Any:
        if not request.url.path.startswith("/api/"):
            return await request_validation_exception_handler(request, exc)
        errors = exc.errors()
        first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(p) for p in first.get("loc", ())[1:]) or "body"
        code = "invalid_options" if "options" in where else "invalid_request"
        if "name" in where:
            code = "invalid_name"
        message = str(first.get("msg", "invalid request")).removeprefix("Value error, ")
        return JSONResponse(
            {"error": {"code": code, "message": f"{where}: {message}"[:300]}}, status_code=422
        )

    app.include_router(router)
