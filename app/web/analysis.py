"""The analysis of a game's finished deals over HTTP: ``GET /api/games/{id}/analysis?deal=N``
(docs/protocol.md "Players", docs/bots.md "Analysis of finished deals").

Who may read it is who may read the game's record (``Room.record``: its players, and anyone
with the link when the table accepts spectators), and only for a deal that has ended
(RULES.md §13). The human seats' decisions are analysed; the computer players' are not.

The first request for a deal starts its analysis (``app.players.analyses.Analyses``) and
answers 202 with its progress; later ones answer the same until it is done, then 200 with the
analysis, which is stored so that no deal is analysed twice.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI, Query
from fastapi.responses import JSONResponse

from app.engine.record import in_deal
from app.rooms import CommandError
from app.web.deps import AnalysesDep, RoomsDep
from app.web.errors import ApiError
from app.web.identity import ViewerDep

api = APIRouter(prefix="/api", tags=["players"])

MAX_DEAL = 100_000


@api.get("/games/{game_id}/analysis", response_model=None)
async def deal_analysis(
    game_id: str,
    identity: ViewerDep,
    rooms: RoomsDep,
    analyses: AnalysesDep,
    deal: int = Query(ge=0, le=MAX_DEAL, description="the deal's number, from 0"),
) -> dict[str, Any] | JSONResponse:
    """The analysis of finished deal ``deal`` (200), or its progress while it is computed
    (202). 403 to a stranger of a table without spectators, 409 for the deal in progress, 404
    for a deal that was never dealt."""
    room = await rooms.get(game_id)
    if room is None:
        raise ApiError(404, "not_found", "no such game")
    try:
        record = await room.record_for(identity.id)
    except CommandError as exc:
        raise ApiError(403, exc.code, exc.message) from None
    finished = len(record["deals"])
    if deal >= finished:
        if deal == finished and room.state is not None and in_deal(room.state):
            raise ApiError(409, "deal_in_progress", f"deal {deal} has not ended yet")
        raise ApiError(404, "no_such_deal", f"this game has no finished deal {deal}")
    yours = list(room.seats_of(identity.id)) if identity.id else []
    job = analyses.job(game_id, deal)
    if job is None:
        data = await analyses.stored(game_id, deal)
        if data is not None:
            return {"status": "done", "game_id": game_id, "yours": yours, **data}
        error = analyses.failed.pop((game_id, deal), None)
        if error is not None:
            raise ApiError(500, "analysis_failed", "this deal could not be analysed")
        job = analyses.job(game_id, deal)  # started meanwhile?
        if job is None:
            seats = [s.seat for s in room.seats if s.kind == "human"]
            if not seats and room.settings.get("board"):
                seats = [0]  # a tournament's datum table: the seat every entrant plays
            job = analyses.start(game_id, deal, record, seats)
    return JSONResponse({**job.progress(), "game_id": game_id}, status_code=202)


def install(app: FastAPI) -> None:
    app.include_router(api)
