"""A player's own data: take it (``GET /api/me/export``) and delete it (``POST /api/me/delete``).

The export is one zip archive of everything this browser's identity owns: ``identity.json``
(name, dates), ``profile.json`` (experience, ratings, and the XP history: every result with its
XP), ``chat.json`` (every chat line it wrote) and ``games/<id>.json``, each game it sat in as a
``belote-record/1`` record, as the table would give it (never a deal in progress: RULES.md §13).

Deleting the identity (``{"confirm": true}``) writes, in one transaction: the name
``Former player N`` (N: the identity's number) on the identity and on every seat it held, in
every game and so in every record, replay and ranking; its chat lines removed; its token
replaced by a random one and its transfer codes deleted, so the cookie and any code are dead;
its blocks removed. Its games stay, so the other players' replays still work. The answer
clears the cookie, and the rooms in memory, the caches and the other processes follow.
"""

from __future__ import annotations

import io
import json
import secrets
import zipfile
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from app.persistence import models
from app.persistence import repository as repo
from app.persistence.admin_tables import Block
from app.persistence.models import (
    ChatMessage,
    GameSeat,
    Identity,
    PlayerProfile,
    PlayerRating,
    PlayerResult,
    TransferCode,
)
from app.persistence.players import read
from app.web.deps import rooms_of, sessionmaker_of, writer_of
from app.web.errors import ApiError
from app.web.identity import COOKIE, ViewerDep

router = APIRouter(prefix="/api", tags=["api"])

FORMER = "Former player {n}"


def former_name(identity_id: int) -> str:
    return FORMER.format(n=identity_id)


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.isoformat()


def _owned(session: Session, identity_id: int) -> dict[str, Any]:
    identity = session.get(Identity, identity_id)
    assert identity is not None
    profile = session.get(PlayerProfile, identity_id)
    ratings = session.scalars(select(PlayerRating).where(PlayerRating.identity_id == identity_id))
    results = session.scalars(
        select(PlayerResult)
        .where(PlayerResult.identity_id == identity_id)
        .order_by(PlayerResult.created_at)
    )
    chat = session.scalars(
        select(ChatMessage).where(ChatMessage.identity_id == identity_id).order_by(ChatMessage.id)
    )
    games = session.scalars(
        select(GameSeat.game_id).where(GameSeat.identity_id == identity_id).distinct()
    )
    return {
        "identity": {
            "number": identity.id,
            "name": identity.display_name,
            "created_at": _iso(identity.created_at),
            "last_seen_at": _iso(identity.last_seen_at),
        },
        "profile": {
            "xp": profile.xp if profile else 0,
            "games": profile.games if profile else 0,
            "wins": profile.wins if profile else 0,
            "ratings": [
                {"family": r.family, "mu": r.mu, "sigma": r.sigma, "games": r.games, "wins": r.wins}
                for r in ratings
            ],
            "xp_history": [
                {
                    "game_id": r.game_id,
                    "part": r.part,
                    "seat": r.seat,
                    "family": r.family,
                    "mode": r.mode,
                    "won": r.won,
                    "left_early": r.left_early,
                    "xp": r.xp,
                    "xp_detail": r.xp_detail,
                    "rating_before": r.rating_before,
                    "rating_after": r.rating_after,
                    "at": _iso(r.created_at),
                }
                for r in results
            ],
        },
        "chat": [
            {
                "game_id": c.game_id,
                "seat": c.seat,
                "kind": c.kind,
                "text": c.text,
                "at": _iso(c.created_at),
            }
            for c in chat
        ],
        "games": sorted(str(g) for g in games),
    }


@router.get("/me/export")
async def export(request: Request, identity: ViewerDep) -> Response:
    """Everything this browser's identity owns, as one zip archive."""
    if identity.id == 0:
        raise ApiError(404, "not_found", "this browser has no identity yet")
    owned = await read(sessionmaker_of(request), lambda s: _owned(s, identity.id))
    rooms = rooms_of(request)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("identity.json", json.dumps(owned["identity"], indent=2))
        archive.writestr("profile.json", json.dumps(owned["profile"], indent=2))
        archive.writestr("chat.json", json.dumps(owned["chat"], indent=2, ensure_ascii=False))
        for game_id in owned["games"]:
            try:
                room = await rooms.get(game_id)
                if room is None:
                    continue
                record = await room.record_for(identity.id)
            except Exception:  # a game that cannot be read now is left out, not the archive
                continue
            archive.writestr(f"games/{game_id}.json", json.dumps(record, indent=2))
    stamp = datetime.now(UTC).strftime("%Y%m%d")
    return Response(
        buffer.getvalue(),
        media_type="application/zip",
        headers={
            "Content-Disposition": f'attachment; filename="atout-my-data-{stamp}.zip"',
            "Cache-Control": "no-store",
        },
    )


def erase_identity(identity_id: int) -> Any:
    """The work that deletes an identity (see the module's docstring); returns the ids of
    its chat lines that were removed."""
    name = former_name(identity_id)

    def work(session: Session) -> list[int]:
        lines = [
            int(i)
            for i in session.scalars(
                select(ChatMessage.id).where(ChatMessage.identity_id == identity_id)
            )
        ]
        session.execute(delete(ChatMessage).where(ChatMessage.identity_id == identity_id))
        session.execute(delete(TransferCode).where(TransferCode.identity_id == identity_id))
        session.execute(
            delete(Block).where(
                (Block.identity_id == identity_id) | (Block.blocked_id == identity_id)
            )
        )
        session.execute(
            update(GameSeat).where(GameSeat.identity_id == identity_id).values(display_name=name)
        )
        holders = getattr(models, "SeatHolder", None)
        if holders is not None:
            session.execute(
                update(holders).where(holders.identity_id == identity_id).values(name=name)
            )
        dead = repo.hash_token(secrets.token_urlsafe(32))
        session.execute(
            update(Identity)
            .where(Identity.id == identity_id)
            .values(display_name=name, token_hash=dead)
        )
        return lines

    return work


@router.post("/me/delete")
async def delete_me(request: Request, identity: ViewerDep) -> Response:
    if identity.id == 0:
        raise ApiError(404, "not_found", "this browser has no identity")
    try:
        body = await request.json()
    except ValueError:
        body = None
    if not isinstance(body, dict) or body.get("confirm") is not True:
        raise ApiError(400, "not_confirmed", 'send {"confirm": true}')
    app = request.app
    lines = await writer_of(request).submit(erase_identity(identity.id))
    name = former_name(identity.id)
    app.state.identities.forget(identity.id)
    rooms = rooms_of(request)
    await rooms.rename(identity.id, name)
    removed = set(lines)
    for room in list(rooms.rooms.values()):
        chat = getattr(room, "chat", None)
        if chat is not None and removed:
            kept = [line for line in chat.lines if line["id"] not in removed]
            if len(kept) != len(chat.lines):
                chat.lines.clear()
                chat.lines.extend(kept)
        for listener in list(room.listeners):
            if listener.identity_id == identity.id:
                listener.close(1000, "this identity was deleted")
    notifier = getattr(app.state, "notifier", None)
    if notifier is not None:
        await notifier.publish("moved", [identity.id])
        await notifier.publish("renamed", [identity.id])
    response = JSONResponse({"deleted": True, "name": name})
    response.delete_cookie(COOKIE, path="/")
    return response


def install(app: FastAPI) -> None:
    app.include_router(router)
