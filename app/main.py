"""The ASGI application: ``create_app()`` builds it; ``atout serve`` runs it with uvicorn."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import __version__, loop
from app.logging import configure_logging
from app.persistence.db import (
    create_sessionmaker,
    describe_url,
    open_database,
    ping,
    postgresql_session_settings,
)
from app.rooms.errors import OwnedElsewhere
from app.settings import Settings, get_settings
from app.web import admin, analysis, moderation, pages, players, runtime, tournaments
from app.web.deps import engine_of
from app.web.paths import STATIC_DIR, TEMPLATES_DIR

HEALTH_TIMEOUT_SECONDS = 5.0

log = logging.getLogger("atout.main")


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Open the database (failing fast with one clear line), and close it on shutdown."""
    settings: Settings = app.state.settings
    try:
        engine = await open_database(
            settings.database_url,
            server_settings=postgresql_session_settings(
                settings.lease_seconds, settings.pg_statement_timeout_seconds
            ),
        )
    except Exception as exc:
        log.error(str(exc), extra={"event": "startup_failed"})
        raise
    app.state.engine = engine
    app.state.sessionmaker = create_sessionmaker(engine)
    await runtime.start(app)  # group-commit writer, bots' executor, rooms
    await tournaments.start(app)  # duplicate events: the daily ones, the datum tables
    loop.time_gc()
    log.info(
        "atout started",
        extra={
            "event": "startup",
            "version": __version__,
            "database": describe_url(settings.database_url),
            "public_base_url": settings.public_base_url or None,  # None: each request's own
        },
    )
    try:
        yield
    finally:
        await tournaments.stop(app)
        await runtime.stop(app)  # rooms finish their command, then pending writes are flushed
        await engine.dispose()
        log.info("atout stopped", extra={"event": "shutdown"})


NODE_HEADER = "X-Atout-Node"


def node_of(app: Any) -> str | None:
    """This process's node id (docs/scaling.md), once the rooms are started."""
    rooms = getattr(app.state, "rooms", None)
    return getattr(rooms, "node_id", None)


class NodeHeaderMiddleware:
    """Every HTTP response names the process that answered (``X-Atout-Node``), so that an
    operator can tell which process serves a game: ``curl -sI .../g/ID``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        node = node_of(scope["app"]) if "app" in scope else None

        async def send_with_node(message: Message) -> None:
            if message["type"] == "http.response.start" and node:
                headers = list(message.get("headers", []))
                headers.append((NODE_HEADER.lower().encode(), node.encode("latin-1", "replace")))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_node)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the application. Without arguments the settings come from ATOUT_* variables."""
    settings = settings or get_settings()
    configure_logging(settings.log_level)

    # no /docs or /redoc: they load scripts from elsewhere, which the pages' policy refuses
    app = FastAPI(
        title="Atout", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None
    )
    app.state.settings = settings
    app.add_middleware(NodeHeaderMiddleware)
    templates = Jinja2Templates(directory=TEMPLATES_DIR)
    app.state.templates = templates
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/healthz", tags=["ops"])
    async def healthz(request: Request) -> JSONResponse:
        """200 when the database answers ``SELECT 1``, 503 otherwise."""
        try:
            await asyncio.wait_for(ping(engine_of(request)), HEALTH_TIMEOUT_SECONDS)
        except Exception as exc:
            log.warning(
                "health check failed: database unavailable",
                extra={"event": "healthz_failed", "error": f"{type(exc).__name__}: {exc}"},
            )
            return JSONResponse({"status": "error", "database": "unavailable"}, status_code=503)
        return JSONResponse({"status": "ok", "database": "ok", "node": node_of(request.app)})

    @app.exception_handler(OwnedElsewhere)
    async def _owned_elsewhere(request: Request, exc: OwnedElsewhere) -> Response:
        """Another process serves this game (docs/scaling.md): 503 and Retry-After; the proxy
        or the browser tries again and reaches the owner, or this process once the lease
        expires."""
        from app.web.ws import ask_handover

        await ask_handover(request.app, exc)
        headers = {"Retry-After": str(exc.retry_after)}
        message = "this game is served by another process right now; try again"
        if request.url.path.startswith("/api/"):
            body = {"error": {"code": "owned_elsewhere", "message": message}}
            return JSONResponse(body, status_code=503, headers=headers)
        page = (
            '<!doctype html><meta charset="utf-8">'
            f'<meta http-equiv="refresh" content="{exc.retry_after}">'
            f"<title>Atout</title><p>{message}.</p>"
        )
        return HTMLResponse(page, status_code=503, headers=headers)

    pages.install(app)  # HTML pages (/, /g/{id}, /rules/{variant}) and gzip
    runtime.install(app)  # identity cookie, /api, /ws
    players.install(app)  # profile, ranking, history, replays, transfer codes (app/players)
    analysis.install(app)  # the analysis of finished deals (app/bots/analysis.py)
    admin.install(app)  # /admin, off unless ATOUT_ADMIN_TOKEN is set (app/web/admin.py)
    moderation.install(app)  # a banned browser is refused everywhere (app/web/moderation.py)
    tournaments.install(app)  # duplicate events: /tournaments, /t/{id}, /api/tournaments

    return app
