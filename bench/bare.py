"""The floor for `atout bench load`: a bare FastAPI WebSocket broadcast, no game, no database.

    uvicorn bench.bare:create_app --factory

``/ws/bare/{table}`` forwards every text message to every socket of the same table (the sender
included), as a room forwards an update to its four seats.
"""

import contextlib

from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse


def create_app() -> FastAPI:
    app = FastAPI()
    tables: dict[str, set[WebSocket]] = {}

    @app.get("/healthz")
    async def healthz() -> JSONResponse:
        return JSONResponse({"status": "ok"})

    @app.websocket("/ws/bare/{table}")
    async def bare(websocket: WebSocket, table: str) -> None:
        await websocket.accept()
        members = tables.setdefault(table, set())
        members.add(websocket)
        try:
            while True:
                text = await websocket.receive_text()
                for member in list(members):
                    with contextlib.suppress(Exception):
                        await member.send_text(text)
        except WebSocketDisconnect:
            pass
        finally:
            members.discard(websocket)

    return app
