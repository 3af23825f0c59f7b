"""A player's reports and blocks, from the table (docs/protocol.md, "Reports and blocks").

``POST /api/games/{id}/reports`` ``{"reason", "note"?, "seat"?, "lines"?}``: report a player
(their seat) and/or chat lines of this game (their ids, as the table showed them). The server
copies the lines from what it stored and sent, so the report holds them as they were shown;
the reported player is the seat's holder or the lines' author. At most ``REPORTS_PER_WINDOW``
reports per browser in ``REPORT_WINDOW``; a note over ``NOTE_MAX`` characters, an unknown
reason, lines of another game or several authors, or oneself are refused with a structured
error and nothing is stored.

``POST /api/games/{id}/blocks`` ``{"seat", "blocked"}``: block (or unblock) the player of a
seat; quick play never seats two players one of whom blocked the other
(``moderation.blocked_pairs``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.persistence import admin as store
from app.persistence.models import ChatMessage, Game, GameSeat
from app.persistence.players import read
from app.web.deps import sessionmaker_of, writer_of
from app.web.errors import ApiError
from app.web.identity import ViewerDep

REASONS = ("abuse", "cheating", "spam", "name", "other")
NOTE_MAX = 500
LINES_MAX = 20
REPORTS_PER_WINDOW = 5
REPORT_WINDOW = timedelta(minutes=10)

router = APIRouter(prefix="/api", tags=["api"])


def _bad(message: str) -> ApiError:
    return ApiError(400, "invalid_report", message)


def _game_facts(
    session: Session, game_id: str, seat: int | None, line_ids: list[int]
) -> dict[str, Any] | None:
    if session.get(Game, game_id) is None:
        return None
    seats = {
        s.seat: (s.identity_id, s.display_name)
        for s in session.scalars(select(GameSeat).where(GameSeat.game_id == game_id))
    }
    lines = []
    if line_ids:
        lines = list(
            session.scalars(
                select(ChatMessage)
                .where(ChatMessage.game_id == game_id, ChatMessage.id.in_(line_ids))
                .order_by(ChatMessage.id)
            )
        )
    return {
        "seats": seats,
        "lines": [
            {
                "id": line.id,
                "identity_id": line.identity_id,
                "seat": line.seat,
                "name": line.name,
                "kind": line.kind,
                "text": line.text,
                "at": line.created_at.isoformat() if line.created_at else None,
            }
            for line in lines
        ],
    }


@router.post("/games/{game_id}/reports", status_code=201)
async def report(request: Request, game_id: str, viewer: ViewerDep) -> dict[str, Any]:
    if viewer.id == 0:
        raise ApiError(403, "no_identity", "open the game page first")
    try:
        body = await request.json()
    except ValueError:
        raise _bad("send a JSON object") from None
    if not isinstance(body, dict) or set(body) - {"reason", "note", "seat", "lines"}:
        raise _bad("send reason, and optionally note, seat and lines")
    reason = body.get("reason")
    if reason not in REASONS:
        raise _bad(f"reason is one of {', '.join(REASONS)}")
    note = body.get("note")
    if note is not None:
        if not isinstance(note, str):
            raise _bad("note is text")
        note = note.strip() or None
        if note is not None and len(note) > NOTE_MAX:
            raise _bad(f"a note has at most {NOTE_MAX} characters")
    seat = body.get("seat")
    if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or seat < 0):
        raise _bad("seat is a seat number")
    line_ids = body.get("lines") or []
    if (
        not isinstance(line_ids, list)
        or len(line_ids) > LINES_MAX
        or not all(isinstance(i, int) and not isinstance(i, bool) for i in line_ids)
    ):
        raise _bad(f"lines is a list of at most {LINES_MAX} chat line ids")
    if seat is None and not line_ids:
        raise _bad("name a seat or some lines")
    since = datetime.now(UTC) - REPORT_WINDOW
    sessionmaker = sessionmaker_of(request)
    recent = await read(sessionmaker, lambda s: store.reports_since(s, viewer.id, since))
    if recent >= REPORTS_PER_WINDOW:
        raise ApiError(429, "rate_limited", "too many reports; try again later")
    facts = await read(sessionmaker, lambda s: _game_facts(s, game_id, seat, line_ids))
    if facts is None:
        raise ApiError(404, "not_found", "no such game")
    if len(facts["lines"]) != len(set(line_ids)):
        raise _bad("a line is not one of this game's")
    authors = {line["identity_id"] for line in facts["lines"]}
    reported_id: int | None = None
    reported_name: str | None = None
    if seat is not None:
        if seat not in facts["seats"] or facts["seats"][seat][0] is None:
            raise _bad("nobody holds that seat")
        reported_id, reported_name = facts["seats"][seat]
        if authors and authors != {reported_id}:
            raise _bad("the lines are not that player's")
    elif len(authors) == 1:
        reported_id = next(iter(authors))
        reported_name = facts["lines"][0]["name"]
    else:
        raise _bad("the lines are of several players")
    if reported_id == viewer.id:
        raise _bad("you cannot report yourself")
    shown = [
        {k: line[k] for k in ("id", "seat", "name", "kind", "text", "at")}
        for line in facts["lines"]
    ]
    report_id = await writer_of(request).submit(
        store.insert_report(
            reporter_id=viewer.id,
            reported_id=reported_id,
            reported_name=reported_name,
            game_id=game_id,
            reason=str(reason),
            note=note,
            lines=shown,
        )
    )
    return {"report_id": report_id}


@router.post("/games/{game_id}/blocks")
async def block(request: Request, game_id: str, viewer: ViewerDep) -> dict[str, Any]:
    if viewer.id == 0:
        raise ApiError(403, "no_identity", "open the game page first")
    try:
        body = await request.json()
    except ValueError:
        raise ApiError(400, "invalid_block", "send a JSON object") from None
    seat = body.get("seat") if isinstance(body, dict) else None
    blocked = body.get("blocked", True) if isinstance(body, dict) else None
    if not isinstance(seat, int) or isinstance(seat, bool) or not isinstance(blocked, bool):
        raise ApiError(400, "invalid_block", "send seat (a number) and blocked (true or false)")
    facts = await read(sessionmaker_of(request), lambda s: _game_facts(s, game_id, seat, []))
    if facts is None:
        raise ApiError(404, "not_found", "no such game")
    holder = facts["seats"].get(seat, (None, None))[0]
    if holder is None or holder == viewer.id:
        raise ApiError(400, "invalid_block", "nobody else holds that seat")
    await writer_of(request).submit(store.set_block(viewer.id, holder, blocked))
    return {"blocked": blocked}


def install(app: FastAPI) -> None:
    app.include_router(router)
