"""The admin page (``/admin``), off unless ``ATOUT_ADMIN_TOKEN`` is set.

While the token is unset every ``/admin`` path answers 404, exactly as a path that does not
exist. With it set, ``GET /admin`` shows a login form; the token entered there (compared in
constant time) opens a session: a random cookie ``atout_admin`` (``HttpOnly``,
``SameSite=Strict``, ``Secure`` over HTTPS, ``Path=/admin``) whose SHA-256 is stored in
``admin_sessions`` with a CSRF token and an expiry, so that every process of a scaled-out server
knows it. Every POST but the login carries that CSRF token (a form field ``csrf`` or the header
``X-CSRF-Token``): without it, 403 and nothing changes. Failed logins are limited per address
(``LOGIN_FAILURES`` in ``LOGIN_WINDOW`` seconds, then 429 with ``Retry-After``, even for the
right token). Every action is written to ``admin_audit`` (who: the address and the session; what;
on what; when) and the page shows the latest.

The pages are server-rendered HTML forms (they work without script); static/js/admin.js only
adds confirmations, the filter boxes and the small charts (no inline script: the pages' data
travels in ``<script type="application/json">``). Strings are in app/web/admin_locales/.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from collections import deque
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from sqlalchemy import func, select, text
from starlette.exceptions import HTTPException

from app import __version__, metrics
from app.persistence import admin as store
from app.persistence import backup as backups
from app.persistence.db import sqlite_file
from app.persistence.models import GameAction
from app.persistence.players import read
from app.players.identities import clean_name
from app.web import moderation
from app.web.deps import (
    engine_of,
    rooms_of,
    sessionmaker_of,
    settings_of,
    writer_of,
)
from app.web.pages import language_of, render

log = logging.getLogger("atout.admin")

COOKIE = "atout_admin"
SESSION_HOURS = 12
LOGIN_FAILURES = 5
LOGIN_WINDOW = 600.0  # seconds
LOCALES_DIR = Path(__file__).resolve().parent / "admin_locales"
PAGES = ("overview", "rooms", "players", "reports", "tournaments", "backups", "fairplay")

router = APIRouter(prefix="/admin", include_in_schema=False)


@cache
def admin_catalog(language: str) -> dict[str, str]:
    path = LOCALES_DIR / f"{language}.json"
    if not path.exists():
        path = LOCALES_DIR / "en.json"
    data: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return data


def admin_text(language: str, key: str, **params: Any) -> str:
    text_ = admin_catalog(language).get(key) or admin_catalog("en").get(key) or key
    for name, value in params.items():
        text_ = text_.replace("{" + name + "}", str(value))
    return text_


# --------------------------------------------------------------------------- sign-in


class LoginLimiter:
    """Failed logins per address, in a sliding window (this process)."""

    def __init__(self) -> None:
        self.failures: dict[str, deque[float]] = {}

    def retry_after(self, address: str) -> int:
        recent = self._recent(address)
        if len(recent) < LOGIN_FAILURES:
            return 0
        return max(1, int(recent[0] + LOGIN_WINDOW - time.monotonic()) + 1)

    def failed(self, address: str) -> None:
        self._recent(address).append(time.monotonic())
        if len(self.failures) > 10_000:  # forget the quietest addresses
            for key in list(self.failures)[:5_000]:
                del self.failures[key]

    def succeeded(self, address: str) -> None:
        self.failures.pop(address, None)

    def _recent(self, address: str) -> deque[float]:
        recent = self.failures.setdefault(address, deque())
        while recent and recent[0] < time.monotonic() - LOGIN_WINDOW:
            recent.popleft()
        return recent


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _enabled(request: Request) -> str:
    token = settings_of(request).admin_token
    if not token:
        raise HTTPException(404)  # as if there were no such path
    return token


def _secure(request: Request) -> bool:
    return request.url.scheme == "https" or settings_of(request).public_base_url.startswith(
        "https://"
    )


async def _session(request: Request) -> store.SessionRow | None:
    cookie = request.cookies.get(COOKIE)
    if not cookie or len(cookie) > 128:
        return None
    token_hash = _hash(cookie)
    row = await read(sessionmaker_of(request), lambda s: store.find_session(s, token_hash))
    if row is None or not hmac.compare_digest(row.token_hash, token_hash):
        return None
    if row.expires_at <= datetime.now(UTC):
        return None
    return row


def _actor(request: Request, session: store.SessionRow) -> str:
    return f"{_address(request)} #{session.token_hash[:8]}"


async def _signed_in(request: Request) -> store.SessionRow:
    """For POSTs: the session (401 without one) with its CSRF token checked (403)."""
    _enabled(request)
    session = await _session(request)
    if session is None:
        raise HTTPException(401, "sign in again")
    sent = request.headers.get("x-csrf-token")
    if sent is None:
        form = await request.form()
        value = form.get("csrf")
        sent = value if isinstance(value, str) else None
    if not sent or not hmac.compare_digest(sent.encode(), session.csrf.encode()):
        raise HTTPException(403, "missing or wrong CSRF token")
    origin = request.headers.get("origin")
    if origin and origin != "null":
        expected = {f"{request.url.scheme}://{request.headers.get('host', '')}"}
        base = settings_of(request).public_base_url
        if base:
            expected.add(base)
        if origin not in expected:
            raise HTTPException(403, "cross-origin request")
    return session


async def _audit(
    request: Request,
    session: store.SessionRow,
    action: str,
    target: Any = None,
    **detail: Any,
) -> None:
    await writer_of(request).submit(
        store.audit(
            _actor(request, session),
            action,
            None if target is None else str(target)[:64],
            detail or None,
        )
    )
    log.info(
        "admin action",
        extra={"event": "admin", "action": action, "target": target, "address": _address(request)},
    )


def _back(path: str, **params: Any) -> RedirectResponse:
    query = urlencode({k: v for k, v in params.items() if v not in (None, "")})
    return RedirectResponse(path + ("?" + query if query else ""), status_code=303)


def _page(
    request: Request,
    page: str,
    session: store.SessionRow | None,
    context: dict[str, Any] | None = None,
    status: int = 200,
) -> HTMLResponse:
    language = language_of(request)

    def ta(key: str, **params: Any) -> str:
        return admin_text(language, key, **params)

    data = {"csrf": session.csrf if session else None, "confirm": ta("confirm.sure")}
    response = render(
        request,
        "admin.html" if session else "admin_login.html",
        {
            "ta": ta,
            "page": page,
            "pages": PAGES,
            "csrf": session.csrf if session else "",
            "admin_json": json.dumps(data).replace("</", "<\\/"),
            **(context or {}),
        },
        status=status,
    )
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Robots-Tag"] = "noindex"
    return response


@router.get("", response_class=HTMLResponse)
async def overview(request: Request) -> Response:
    _enabled(request)
    session = await _session(request)
    if session is None:
        return _page(request, "login", None)
    return _page(request, "overview", session, await _overview(request))


@router.post("/login")
async def login(request: Request) -> Response:
    token = _enabled(request)
    limiter: LoginLimiter = request.app.state.admin_limiter
    address = _address(request)
    wait = limiter.retry_after(address)
    if wait:
        response = _page(request, "login", None, {"error": "login.limited"}, status=429)
        response.headers["Retry-After"] = str(wait)
        return response
    form = await request.form()
    given = form.get("token")
    if not isinstance(given, str) or not hmac.compare_digest(
        _hash(given).encode(), _hash(token).encode()
    ):
        limiter.failed(address)
        log.warning(
            "admin login refused", extra={"event": "admin_login_failed", "address": address}
        )
        return _page(request, "login", None, {"error": "login.wrong"}, status=401)
    limiter.succeeded(address)
    cookie = secrets.token_urlsafe(32)
    csrf = secrets.token_urlsafe(32)
    expires = datetime.now(UTC) + timedelta(hours=SESSION_HOURS)
    await writer_of(request).submit(store.create_session(_hash(cookie), csrf, address, expires))
    row = store.SessionRow(_hash(cookie), csrf, address, expires)
    await _audit(request, row, "login")
    redirect = RedirectResponse("/admin", status_code=303)
    redirect.set_cookie(
        COOKIE,
        cookie,
        max_age=SESSION_HOURS * 3600,
        path="/admin",
        httponly=True,
        secure=_secure(request),
        samesite="strict",
    )
    return redirect


@router.post("/logout")
async def logout(request: Request) -> Response:
    session = await _signed_in(request)
    await _audit(request, session, "logout")
    await writer_of(request).submit(store.delete_session(session.token_hash))
    response = RedirectResponse("/admin", status_code=303)
    response.delete_cookie(COOKIE, path="/admin", httponly=True, samesite="strict")
    return response


async def _viewer(request: Request) -> store.SessionRow | None:
    _enabled(request)
    return await _session(request)


# --------------------------------------------------------------------------- overview


START = time.time()


async def _overview(request: Request) -> dict[str, Any]:
    settings = settings_of(request)
    rooms = rooms_of(request)
    sessionmaker = sessionmaker_of(request)
    stats = metrics.stats_view()
    since = datetime.now(UTC) - timedelta(minutes=1)
    async with sessionmaker() as session:
        moves = int(
            await session.scalar(
                select(func.count()).select_from(GameAction).where(GameAction.created_at >= since)
            )
            or 0
        )
        nodes: list[dict[str, Any]] = []
        if engine_of(request).dialect.name == "postgresql":
            rows = await session.execute(
                text(
                    "SELECT owner, count(*) FROM room_leases WHERE expires_at > now() "
                    "GROUP BY owner ORDER BY owner"
                )
            )
            nodes = [{"node": r[0], "rooms": int(r[1])} for r in rows]
            size = await session.scalar(text("SELECT pg_database_size(current_database())"))
        else:
            path = sqlite_file(settings.database_url)
            size = 0
            for suffix in ("", "-wal"):
                file = Path(f"{path}{suffix}") if path else None
                if file is not None and file.exists():
                    size += file.stat().st_size
        audit_rows = await session.run_sync(lambda s: store.recent_audit(s, 30))
        open_reports = await session.run_sync(lambda s: store.count_reports(s, "open"))
    node_id = getattr(rooms, "node_id", None) or f"{os.uname().nodename}:{os.getpid()}"
    if not nodes:
        nodes = [{"node": node_id, "rooms": len(rooms.rooms)}]
    listed = backups.list_backups(backups.backup_dir(settings))
    schedule = getattr(request.app.state, "backups", None)
    return {
        "version": __version__,
        "uptime": int(time.time() - START),
        "node": node_id,
        "nodes": nodes,
        "rooms_here": len(rooms.rooms),
        "sockets": stats["connections"],
        "players_connected": stats["players_connected"],
        "spectators": stats["spectators"],
        "moves_per_minute": moves,
        "db_size": int(size or 0),
        "last_backup": listed[0] if listed else None,
        "backup_error": schedule.last_error if schedule else None,
        "stall": stats["stall"],
        "commits": stats["commits"],
        "writer": stats["writer"],
        "longest_stall_ms": stats["longest_stall_ms"],
        "audit": audit_rows,
        "open_reports": open_reports,
        "chart_json": json.dumps(
            {
                "stall": stats["stall"],
                "commits": stats["commits"],
            }
        ),
    }


# --------------------------------------------------------------------------- rooms


def _room_rows(request: Request, query: str) -> list[dict[str, Any]]:
    out = []
    needle = query.strip().lower()
    for room in list(rooms_of(request).rooms.values()):
        names = [s.name or (s.level and f"bot:{s.level}") or "" for s in room.seats]
        spectators = [
            {"identity_id": listener.identity_id}
            for listener in list(room.listeners)
            if not listener.seats
        ]
        row = {
            "id": room.game_id,
            "variant": room.variant,
            "mode": room.mode,
            "status": str(room.status),
            "names": names,
            "spectators": spectators,
            "connected": len(room.listeners),
        }
        if needle and needle not in " ".join([room.game_id, room.variant, *names]).lower():
            continue
        out.append(row)
    out.sort(key=lambda r: str(r["id"]))  # the game ids
    return out


async def _elsewhere(request: Request, here: set[str], query: str) -> list[dict[str, Any]]:
    """PostgreSQL: the rooms other processes hold (their leases), by game id and process."""
    if engine_of(request).dialect.name != "postgresql":
        return []
    async with sessionmaker_of(request)() as session:
        rows = await session.execute(
            text(
                "SELECT game_id, owner FROM room_leases WHERE expires_at > now() "
                "ORDER BY game_id LIMIT 500"
            )
        )
        found = [{"id": r[0], "node": r[1]} for r in rows if r[0] not in here]
    needle = query.strip().lower()
    return [r for r in found if not needle or needle in r["id"].lower()]


@router.get("/rooms", response_class=HTMLResponse)
async def rooms_page(request: Request, q: str = "") -> Response:
    session = await _viewer(request)
    if session is None:
        return _back("/admin")
    query = q[:100]
    rows = _room_rows(request, query)
    elsewhere = await _elsewhere(request, set(rooms_of(request).rooms), query)
    return _page(request, "rooms", session, {"q": query, "rooms": rows, "elsewhere": elsewhere})


@router.post("/rooms/{game_id}/close")
async def close_room(request: Request, game_id: str) -> Response:
    session = await _signed_in(request)
    if not repo_game_id(game_id):
        raise HTTPException(404)
    closed = await moderation.close_game(request.app, game_id)
    if not closed:
        raise HTTPException(404)
    await _audit(request, session, "close_room", game_id)
    return _back("/admin/rooms", done="room.closed")


@router.post("/rooms/{game_id}/remove")
async def remove_spectator(request: Request, game_id: str) -> Response:
    session = await _signed_in(request)
    form = await request.form()
    try:
        identity_id = int(str(form.get("identity_id", "")))
    except ValueError:
        raise HTTPException(400, "identity_id") from None
    removed = moderation.remove_spectator(request.app, game_id, identity_id)
    await _audit(request, session, "remove_spectator", game_id, identity_id=identity_id)
    return _back("/admin/rooms", done="room.removed" if removed else "room.none_removed")


def repo_game_id(game_id: str) -> bool:
    return 0 < len(game_id) <= 32 and game_id.replace("-", "").replace("_", "").isalnum()


# --------------------------------------------------------------------------- players


@router.get("/players", response_class=HTMLResponse)
async def players_page(request: Request, q: str = "") -> Response:
    session = await _viewer(request)
    if session is None:
        return _back("/admin")
    query = q[:64]
    rows = await read(sessionmaker_of(request), lambda s: store.search_players(s, query))
    return _page(request, "players", session, {"q": query, "players": rows})


@router.get("/players/{identity_id}", response_class=HTMLResponse)
async def player_page(request: Request, identity_id: int) -> Response:
    session = await _viewer(request)
    if session is None:
        return _back("/admin")

    def load(s: Any) -> Any:
        row = store.player(s, identity_id)
        if row is None:
            return None
        return (
            row,
            store.list_reports(s, None, reported_id=identity_id, limit=20),
            store.chat_lines_of(s, identity_id),
            store.games_of(s, identity_id),
        )

    found = await read(sessionmaker_of(request), load)
    if found is None:
        raise HTTPException(404)
    row, reports, lines, games = found
    return _page(
        request,
        "player",
        session,
        {"player": row, "reports": reports, "lines": lines, "games": games},
    )


@router.post("/players/{identity_id}/rename")
async def rename_player(request: Request, identity_id: int) -> Response:
    session = await _signed_in(request)
    form = await request.form()
    reset = form.get("reset") == "1"
    if reset:
        name = moderation.neutral_name(identity_id)
    else:
        try:
            name = clean_name(form.get("name"))
        except ValueError:
            return _back(f"/admin/players/{identity_id}", error="player.bad_name")
    if not await moderation.rename(request.app, identity_id, name):
        raise HTTPException(404)
    await _audit(request, session, "reset_name" if reset else "rename", identity_id, name=name)
    return _back(f"/admin/players/{identity_id}", done="player.renamed")


@router.post("/players/{identity_id}/sanction")
async def sanction_player(request: Request, identity_id: int) -> Response:
    session = await _signed_in(request)
    form = await request.form()
    kind = form.get("kind")
    on = form.get("on") == "1"
    if kind not in store.SANCTIONS:
        raise HTTPException(400, "kind")
    found = await read(sessionmaker_of(request), lambda s: store.player(s, identity_id))
    if found is None:
        raise HTTPException(404)
    await moderation.sanction(request.app, identity_id, str(kind), on)
    await _audit(request, session, f"{kind}_{'on' if on else 'off'}", identity_id)
    return _back(f"/admin/players/{identity_id}", done=f"sanction.{kind}.{'on' if on else 'off'}")


# --------------------------------------------------------------------------- reports


@router.get("/reports", response_class=HTMLResponse)
async def reports_page(request: Request, status: str = "open") -> Response:
    session = await _viewer(request)
    if session is None:
        return _back("/admin")
    if status not in (*store.REPORT_STATUSES, "all"):
        status = "open"
    wanted = None if status == "all" else status
    rows = await read(sessionmaker_of(request), lambda s: store.list_reports(s, wanted))
    return _page(request, "reports", session, {"status": status, "reports": rows})


@router.post("/reports/{report_id}")
async def handle_report(request: Request, report_id: int) -> Response:
    session = await _signed_in(request)
    form = await request.form()
    status = form.get("status")
    if status not in store.REPORT_STATUSES:
        raise HTTPException(400, "status")
    changed = await writer_of(request).submit(store.set_report_status(report_id, str(status)))
    if not changed:
        raise HTTPException(404)
    await _audit(request, session, f"report_{status}", report_id)
    return _back("/admin/reports", done=f"report.{status}")


# --------------------------------------------------------------------------- backups


@router.get("/backups", response_class=HTMLResponse)
async def backups_page(request: Request) -> Response:
    session = await _viewer(request)
    if session is None:
        return _back("/admin")
    settings = settings_of(request)
    folder = backups.backup_dir(settings)
    schedule = getattr(request.app.state, "backups", None)
    return _page(
        request,
        "backups",
        session,
        {
            "backups": backups.list_backups(folder),
            "folder": str(folder),
            "hours": settings.backup_hours,
            "keep": settings.backup_keep,
            "backup_error": schedule.last_error if schedule else None,
        },
    )


@router.post("/backups")
async def create_backup(request: Request) -> Response:
    session = await _signed_in(request)
    schedule: backups.BackupSchedule = request.app.state.backups
    try:
        taken = await schedule.backup_now()
    except backups.BackupError as exc:
        await _audit(request, session, "backup_failed", None, error=str(exc)[:200])
        return _back("/admin/backups", error="backup.failed")
    await _audit(request, session, "backup", taken.name if taken else None)
    return _back("/admin/backups", done="backup.taken")


@router.get("/backups/{name}")
async def download_backup(request: Request, name: str) -> Response:
    session = await _viewer(request)
    if session is None:
        raise HTTPException(401, "sign in")
    found = backups.find_backup(backups.backup_dir(settings_of(request)), name)
    if found is None:
        raise HTTPException(404)
    await _audit(request, session, "download_backup", name)
    return FileResponse(
        found.path,
        media_type="application/octet-stream",
        filename=found.name,
        headers={
            "Cache-Control": "no-store",
            "Content-Disposition": f"attachment; filename={quote(found.name)}",
        },
    )


# --------------------------------------------------------------------------- fair play


@router.get("/fairplay", response_class=HTMLResponse)
async def fairplay_page(request: Request) -> Response:
    session = await _viewer(request)
    if session is None:
        return _back("/admin")
    from app.players.fairplay import load_report, report_path

    report = load_report(report_path(settings_of(request).backup_dir))
    if report is not None:
        with contextlib.suppress(ValueError, KeyError, TypeError):
            report["at"] = datetime.fromisoformat(report["at"])
    return _page(request, "fairplay", session, {"fair": report})


# --------------------------------------------------------------------------- tournaments


def _when(value: Any) -> datetime | None:
    """A ``datetime-local`` field (UTC) or nothing."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise HTTPException(400, "a date and time") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _service(request: Request) -> Any:
    service = getattr(request.app.state, "tournaments", None)
    if service is None:
        raise HTTPException(404)
    return service


@router.get("/tournaments", response_class=HTMLResponse)
async def tournaments_page(request: Request) -> Response:
    session = await _viewer(request)
    if session is None:
        return _back("/admin")
    from app.bots import LEVELS
    from app.engine import VARIANTS

    listing = await _service(request).listing()
    return _page(
        request,
        "tournaments",
        session,
        {"events": listing, "variants": list(VARIANTS), "levels": list(LEVELS)},
    )


@router.post("/tournaments")
async def create_tournament(request: Request) -> Response:
    session = await _signed_in(request)
    from app.tournaments.live import SwissSpec
    from app.tournaments.service import EventSpec, TournamentError

    form = await request.form()
    if form.get("kind") == "swiss":  # a live duplicate Swiss for pairs
        try:
            live = SwissSpec(
                variant=str(form.get("variant", "")),
                options={},
                rounds=int(str(form.get("rounds") or 3)),
                boards=int(str(form.get("boards") or 4)),
                clock=int(str(form.get("clock") or 30)),
                starts_at=_when(form.get("starts_at")),
                max_pairs=int(str(form["max_pairs"])) if form.get("max_pairs") else None,
                level=str(form.get("level") or "medium"),
                title=str(form.get("title") or "").strip()[:80] or None,
            )
        except ValueError:
            raise HTTPException(400, "numbers") from None
        try:
            event_id = await _service(request).live.create(live, None)
        except TournamentError as exc:
            return _back("/admin/tournaments", error="tour.failed", detail=exc.message)
        await _audit(request, session, "tournament_create", event_id, kind="swiss")
        return _back("/admin/tournaments", done="tour.created")
    try:
        spec = EventSpec(
            variant=str(form.get("variant", "")),
            players=int(str(form["players"])) if form.get("players") else None,
            boards=int(str(form.get("boards") or 8)),
            starts_at=_when(form.get("starts_at")),
            hours=float(str(form.get("hours") or 24)),
            level=str(form.get("level") or "hard"),
            title=str(form.get("title") or "").strip()[:80] or None,
        )
    except ValueError:
        raise HTTPException(400, "numbers") from None
    try:
        event_id = await _service(request).create(spec, None)
    except TournamentError as exc:
        return _back("/admin/tournaments", error="tour.failed", detail=exc.message)
    await _audit(request, session, "tournament_create", event_id)
    return _back("/admin/tournaments", done="tour.created")


@router.post("/tournaments/{event_id}")
async def change_tournament(request: Request, event_id: str) -> Response:
    session = await _signed_in(request)
    from app.tournaments.service import TournamentError

    form = await request.form()
    service = _service(request)
    try:
        if form.get("cancel") == "1":
            await service.cancel(event_id)
            action = "tournament_cancel"
        else:
            title = form.get("title")
            await service.edit(
                event_id,
                title=str(title).strip() if isinstance(title, str) and title.strip() else None,
                ends_at=_when(form.get("ends_at")),
            )
            action = "tournament_edit"
    except TournamentError as exc:
        if exc.code == "not_found":
            raise HTTPException(404) from None
        return _back("/admin/tournaments", error="tour.failed", detail=exc.message)
    await _audit(request, session, action, event_id)
    return _back(
        "/admin/tournaments", done="tour.cancelled" if action.endswith("cancel") else "tour.edited"
    )


# --------------------------------------------------------------------------- install


def install(app: FastAPI) -> None:
    app.state.admin_limiter = LoginLimiter()
    app.include_router(router)


__all__ = ["admin_catalog", "admin_text", "install"]
