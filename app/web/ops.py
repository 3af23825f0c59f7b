"""What a host watches: ``GET /metrics`` (Prometheus text) and ``GET /api/stats`` (the same
registry as JSON, read by ``atout bench load``), both from app/metrics.py's ``REGISTRY``.

Access (docs/self-hosting.md "Metrics"): a request from this machine (client address 127.0.0.1
or ::1, and no ``Forwarded``/``X-Forwarded-For`` header, so a reverse proxy on the same machine
does not open it to the world), or one with ``Authorization: Bearer <ATOUT_METRICS_TOKEN>``
when that setting is set. Otherwise 401 (a token is set: present it) or 403 (no token is set).
"""

from __future__ import annotations

import hmac
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app import loop, metrics
from app.web.deps import SettingsDep

router = APIRouter(include_in_schema=False)

LOCAL_HOSTS = ("127.0.0.1", "::1")
PROXY_HEADERS = ("forwarded", "x-forwarded-for")


def _refusal(request: Request, token: str) -> JSONResponse | None:
    """None when the request may read the metrics, else the error response."""
    if token:
        given = request.headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(
            value.strip().encode(), token.encode()
        ):
            return None
    client = request.client.host if request.client else ""
    if client in LOCAL_HOSTS and not any(h in request.headers for h in PROXY_HEADERS):
        return None
    if token:
        metrics.ERRORS.labels(code="unauthorized", transport="http").inc()
        return JSONResponse(
            {"error": {"code": "unauthorized", "message": "send Authorization: Bearer <token>"}},
            status_code=401,
            headers={"WWW-Authenticate": "Bearer"},
        )
    metrics.ERRORS.labels(code="not_allowed", transport="http").inc()
    return JSONResponse(
        {"error": {"code": "not_allowed", "message": "metrics are readable from this machine"}},
        status_code=403,
    )


@router.get("/metrics")
async def prometheus(request: Request, settings: SettingsDep) -> Response:
    refused = _refusal(request, settings.metrics_token)
    if refused is not None:
        return refused
    return Response(generate_latest(metrics.REGISTRY), media_type=CONTENT_TYPE_LATEST)


@router.get("/api/stats")
async def stats(request: Request, settings: SettingsDep) -> Any:
    """The registry as JSON: rooms, sockets, writer, actions, commits, gc, stall."""
    refused = _refusal(request, settings.metrics_token)
    if refused is not None:
        return refused
    return metrics.stats_view(loop.culprits())


def install(app: FastAPI) -> None:
    app.include_router(router)
