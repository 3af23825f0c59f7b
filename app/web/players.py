"""The player side over HTTP (docs/players.md, docs/protocol.md "Players"): profile, ranking,
history, replays and imports, the transfer code, leaving a table, what a match earned.

Pages: ``/profile``, ``/ranking/{family}``, ``/replay`` (import a record) and
``/replay/{game_id}`` (a game's finished deals). JSON: ``/api/me/profile``,
``/api/me/history``, ``/api/me/transfer``, ``/api/me/claim``, ``/api/ranking/{family}``,
``/api/games/{id}/awards``, ``/api/games/{id}/replay``, ``/api/games/{id}/leave``,
``/api/replay``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.ext.asyncio import AsyncSession

from app.engine.record import RecordRuleError, RecordSchemaError
from app.persistence import players as store
from app.persistence.repository import hash_token
from app.players import service
from app.players.frames import game_id_in_meta, replay_frames, seats_in_meta
from app.players.identities import TOKEN_BYTES
from app.players.ratings import FAMILIES
from app.rooms import CommandError, RoomManager
from app.web.deps import IdentitiesDep, RoomsDep, SessionDep, WriterDep
from app.web.errors import ApiError
from app.web.identity import SCOPE_KEY, IdentityDep, ViewerDep
from app.web.pages import render, script_json

log = logging.getLogger("atout.players")

api = APIRouter(prefix="/api", tags=["players"])
pages = APIRouter(include_in_schema=False)

MAX_RECORD_BYTES = 2_000_000  # an imported record (a 5000-point match is about 150 KB)
MAX_RECORD_DEALS = 400
CLOSE_POLICY = 1008


class ClaimBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str = Field(min_length=1, max_length=64)


# ---------------------------------------------------------------------------- me


@api.get("/me/profile")
async def my_profile(identity: ViewerDep, session: SessionDep) -> dict[str, Any]:
    if not identity.id:
        return service.new_profile_json()
    return await session.run_sync(lambda s: service.profile_json(s, identity.id))


@api.get("/me/history")
async def my_history(identity: ViewerDep, session: SessionDep) -> dict[str, Any]:
    games = await session.run_sync(lambda s: service.history_json(s, identity.id))
    return {"games": games}


@api.post("/me/transfer", status_code=201)
async def create_transfer_code(identity: IdentityDep, writer: WriterDep) -> dict[str, Any]:
    """A one-time code that moves this browser's identity to another browser (24 hours)."""
    code = service.new_code()
    expires = service.code_expiry()
    raw = service.normalize_code(code)
    assert raw is not None
    await writer.submit(store.create_transfer_code(identity.id, service.hash_code(raw), expires))
    return {"code": code, "expires_at": service.iso(expires)}


@api.post("/me/claim")
async def claim_transfer_code(
    body: ClaimBody,
    request: Request,
    rooms: RoomsDep,
    writer: WriterDep,
    identities: IdentitiesDep,
    session: SessionDep,
) -> dict[str, Any]:
    """Take the identity of a transfer code: this browser becomes that player; the browser
    that made the code gets a fresh identity on its next visit. A code works once."""
    raw = service.normalize_code(body.code)
    if raw is None:
        raise ApiError(422, "invalid_code", "a transfer code has 12 letters and digits")
    token = secrets.token_urlsafe(TOKEN_BYTES)
    identity_id = await writer.submit(
        store.claim_transfer_code(service.hash_code(raw), hash_token(token))
    )
    if identity_id is None:
        raise ApiError(404, "invalid_code", "this code is unknown, expired or already used")
    await identities.transferred(identity_id)  # here and in the other processes
    holder = request.scope.get(SCOPE_KEY)
    if holder is not None:
        holder["token"] = token  # IdentityMiddleware sets the cookie
    _close_sockets_of(rooms, identity_id)
    log.info("identity moved", extra={"event": "identity_transferred", "identity": identity_id})
    profile = await session.run_sync(lambda s: service.profile_json(s, identity_id))
    return {"name": profile["name"], "progress": profile["progress"]}


def _close_sockets_of(rooms: RoomManager, identity_id: int) -> None:
    """The old browser's open tables: its sockets no longer belong to anyone."""
    for room in list(rooms.rooms.values()):
        for listener in list(room.listeners):
            if listener.identity_id == identity_id:
                listener.close(CLOSE_POLICY, "this player moved to another browser")


# ---------------------------------------------------------------------------- ranking


@api.get("/ranking/{family}")
async def ranking(family: str, session: SessionDep) -> dict[str, Any]:
    if family not in FAMILIES:
        raise ApiError(404, "not_found", f"family must be one of {', '.join(FAMILIES)}")
    return await session.run_sync(lambda s: service.ranking_json(s, family))


# ---------------------------------------------------------------------------- games


@api.get("/games/{game_id}/awards")
async def game_awards(game_id: str, identity: ViewerDep, session: SessionDep) -> dict[str, Any]:
    """What this browser earned in this game (nothing until a match or duel game ends)."""
    return await session.run_sync(lambda s: service.awards_json(s, game_id, identity.id))


@api.post("/games/{game_id}/leave")
async def leave_game(game_id: str, identity: IdentityDep, rooms: RoomsDep) -> dict[str, Any]:
    try:
        room: dict[str, Any] = await rooms.with_room(game_id, lambda room: room.leave(identity.id))
    except CommandError as exc:
        status = 404 if exc.code == "not_found" else 403 if exc.code == "not_allowed" else 422
        raise ApiError(status, exc.code, exc.message) from None
    return {"room": room}


@api.post("/games/{game_id}/abandon")
async def abandon_game(
    game_id: str, identity: IdentityDep, rooms: RoomsDep, writer: WriterDep
) -> dict[str, Any]:
    """Give up a game against the computer or on one device: it leaves "Your games" (a
    friends game is left with ``/leave``, where the stand-in plays on)."""
    outcome = await writer.submit(store.abandon_game(game_id, identity.id))
    if outcome == "not_found":
        raise ApiError(404, "not_found", "no such game")
    if outcome != "ok":
        raise ApiError(403, "not_allowed", "only your own unfinished computer or local game")
    room = rooms.rooms.get(game_id)
    if room is not None:  # nobody holds it any more: it leaves memory
        await rooms.evict(room)
    return {"abandoned": game_id}


async def game_replay(rooms: RoomManager, game_id: str, identity_id: int) -> dict[str, Any]:
    """The frames of a game's finished deals (never the deal in progress, RULES.md §13)."""
    room = await rooms.get(game_id)
    if room is None:
        raise ApiError(404, "not_found", "no such game")
    try:
        record = await room.record_for(identity_id)
    except CommandError as exc:
        raise ApiError(403, exc.code, exc.message) from None
    info = {
        "game_id": game_id,
        "mode": room.mode,
        "status": room.status,
        "record_url": f"/api/games/{game_id}/record",
        "seats": [{"kind": s.kind, "level": s.level} for s in room.seats],
        # the seats this browser holds: the replay marks them "You"
        "yours": list(room.seats_of(identity_id)) if identity_id else [],
    }
    if not record["deals"]:
        return {
            "variant": room.variant,
            "players": room.players,
            "names": list(record.get("meta", {}).get("names", [])),
            "deals": [],
            "game": info,
        }
    frames = await asyncio.to_thread(replay_frames, record)
    frames["game"] = info
    return frames


@api.get("/games/{game_id}/replay")
async def replay_game(game_id: str, identity: ViewerDep, rooms: RoomsDep) -> dict[str, Any]:
    return await game_replay(rooms, game_id, identity.id)


@api.post("/replay")
async def replay_import(request: Request, session: SessionDep) -> dict[str, Any]:
    """Replay an imported ``belote-record/1`` (the JSON body) into viewer frames; an invalid
    record gets the engine's one-line reason (``invalid_record``).

    The frames' ``game.seats`` says which seats were computer players (and their level): from
    the record's ``meta.seats``, or else from the stored game of its ``meta.game_id`` when that
    game was played on this server. Absent when neither says."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > MAX_RECORD_BYTES:
        raise ApiError(413, "record_too_large", f"a record is at most {MAX_RECORD_BYTES} bytes")
    body = await request.body()
    if len(body) > MAX_RECORD_BYTES:
        raise ApiError(413, "record_too_large", f"a record is at most {MAX_RECORD_BYTES} bytes")
    try:
        record = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(422, "invalid_record", f"not JSON: {exc}"[:300]) from None
    deals = record.get("deals") if isinstance(record, dict) else None
    if isinstance(deals, list) and len(deals) > MAX_RECORD_DEALS:
        raise ApiError(422, "invalid_record", f"a record has at most {MAX_RECORD_DEALS} deals")
    try:
        frames = await asyncio.to_thread(replay_frames, record)
    except RecordRuleError as exc:
        # the deal, the action and the rule as data: the page says them in its language
        raise ApiError(422, "invalid_record", str(exc)[:300], {"record": exc.as_json()}) from None
    except RecordSchemaError as exc:
        raise ApiError(422, "invalid_record", str(exc)[:300]) from None
    seats = seats_in_meta(record, frames["players"]) or await _stored_seats(
        session, game_id_in_meta(record), frames["players"]
    )
    if seats is not None:
        frames["game"] = {"seats": seats}
    return frames


async def _stored_seats(
    session: AsyncSession, game_id: str | None, players: int
) -> list[dict[str, Any]] | None:
    if game_id is None:
        return None
    kinds = await session.run_sync(lambda s: store.seat_kinds(s, game_id))
    if len(kinds) != players:
        return None
    return [{"kind": kind, "level": level} for kind, level in kinds]


# ---------------------------------------------------------------------------- pages


@pages.get("/profile", response_class=HTMLResponse)
async def profile_page(request: Request, identity: ViewerDep, session: SessionDep) -> Response:
    def both(session: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        if not identity.id:
            return service.new_profile_json(), []
        return service.profile_json(session, identity.id), service.history_json(
            session, identity.id
        )

    profile, games = await session.run_sync(both)
    return render(
        request,
        "profile.html",
        {"profile": profile, "history": games, "families": FAMILIES},
    )


@pages.get("/ranking")
async def ranking_home() -> Response:
    return RedirectResponse("/ranking/classic", status_code=307)


@pages.get("/ranking/{family}", response_class=HTMLResponse)
async def ranking_page(
    request: Request, family: str, identity: ViewerDep, session: SessionDep
) -> Response:
    if family not in FAMILIES:
        return render(request, "not_found.html", status=404)
    data = await session.run_sync(lambda s: service.ranking_json(s, family))
    rows: list[dict[str, Any]] = [{"kind": "player", **p} for p in data["players"]]
    for anchor in data["anchors"]:
        rows.append({"kind": "bot", **anchor})
    # the bots' anchors stand among the players at their rating
    rows.sort(key=lambda r: (-r["rating"], r["kind"] == "player"))
    return render(
        request,
        "ranking.html",
        {
            "family": family,
            "families": FAMILIES,
            "rows": rows,
            "me": identity.id,
            "min_games": data["min_games"],
            "has_players": bool(data["players"]),
            "newcomer": data["newcomer"],
            "anchors": {a["level"]: a["rating"] for a in data["anchors"]},
            "full_targets": data["full_targets"],
        },
    )


@pages.get("/replay", response_class=HTMLResponse)
async def import_page(request: Request) -> Response:
    return render(request, "replay.html", {"game_id": None, "config_json": script_json({})})


@pages.get("/replay/{game_id}", response_class=HTMLResponse)
async def replay_page(request: Request, game_id: str) -> Response:
    if len(game_id) > 64 or not game_id.replace("-", "").replace("_", "").isalnum():
        return render(request, "not_found.html", status=404)
    config = {"game_id": game_id}
    return render(request, "replay.html", {"game_id": game_id, "config_json": script_json(config)})


def install(app: FastAPI) -> None:
    app.include_router(api)
    app.include_router(pages)
