"""The host's queries: admin sessions, the audit log, sanctions, reports, blocks, closed games
and the player search (tables in app/persistence/admin_tables.py).

Reads are functions of a synchronous ``Session`` (run them with ``players.read``); writes are
works for the group-commit writer (app/persistence/writer.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, delete, func, or_, select, update
from sqlalchemy.orm import Session

from app.persistence.admin_tables import (
    AdminAudit,
    AdminSession,
    Block,
    ClosedGame,
    Report,
    Sanction,
)
from app.persistence.models import ChatMessage, Game, GameSeat, Identity
from app.persistence.repository import Work

SANCTIONS = ("mute", "public", "ban")
REPORT_STATUSES = ("open", "handled", "dismissed")


def _aware(value: datetime | None) -> datetime | None:
    if value is not None and value.tzinfo is None:  # SQLite gives naive UTC back
        return value.replace(tzinfo=UTC)
    return value


# --------------------------------------------------------------------------- sessions


@dataclass(frozen=True)
class SessionRow:
    token_hash: str
    csrf: str
    address: str
    expires_at: datetime


def create_session(token_hash: str, csrf: str, address: str, expires_at: datetime) -> Work:
    def work(session: Session) -> None:
        now = datetime.now(UTC)
        session.execute(delete(AdminSession).where(AdminSession.expires_at < now))
        session.add(
            AdminSession(
                token_hash=token_hash, csrf=csrf, address=address[:64], expires_at=expires_at
            )
        )

    return work


def delete_session(token_hash: str) -> Work:
    def work(session: Session) -> None:
        session.execute(delete(AdminSession).where(AdminSession.token_hash == token_hash))

    return work


def find_session(session: Session, token_hash: str) -> SessionRow | None:
    row = session.get(AdminSession, token_hash)
    if row is None:
        return None
    return SessionRow(row.token_hash, row.csrf, row.address, _aware(row.expires_at))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- audit


@dataclass(frozen=True)
class AuditRow:
    at: datetime
    actor: str
    action: str
    target: str | None
    detail: dict[str, Any] | None


def audit(actor: str, action: str, target: str | None, detail: dict[str, Any] | None) -> Work:
    def work(session: Session) -> None:
        session.add(AdminAudit(actor=actor[:80], action=action, target=target, detail=detail))

    return work


def recent_audit(session: Session, limit: int = 50) -> list[AuditRow]:
    rows = session.scalars(select(AdminAudit).order_by(AdminAudit.id.desc()).limit(limit)).all()
    return [AuditRow(_aware(r.created_at), r.actor, r.action, r.target, r.detail) for r in rows]  # type: ignore[arg-type]


# --------------------------------------------------------------------------- sanctions


def set_sanction(identity_id: int, kind: str, on: bool) -> Work:
    assert kind in SANCTIONS

    def work(session: Session) -> bool:
        """True when something changed."""
        existing = session.get(Sanction, (identity_id, kind))
        if on and existing is None:
            session.add(Sanction(identity_id=identity_id, kind=kind))
            return True
        if not on and existing is not None:
            session.delete(existing)
            return True
        return False

    return work


def sanctions_of(session: Session, identity_ids: Iterable[int]) -> dict[int, frozenset[str]]:
    ids = list(set(identity_ids))
    out: dict[int, set[str]] = {i: set() for i in ids}
    if ids:
        for identity_id, kind in session.execute(
            select(Sanction.identity_id, Sanction.kind).where(Sanction.identity_id.in_(ids))
        ):
            out[int(identity_id)].add(kind)
    return {i: frozenset(k) for i, k in out.items()}


# --------------------------------------------------------------------------- reports


@dataclass(frozen=True)
class ReportRow:
    id: int
    at: datetime
    reporter_id: int | None
    reporter_name: str | None
    reported_id: int | None
    reported_name: str | None
    game_id: str | None
    reason: str
    note: str | None
    lines: list[dict[str, Any]]
    status: str


def insert_report(
    *,
    reporter_id: int,
    reported_id: int | None,
    reported_name: str | None,
    game_id: str | None,
    reason: str,
    note: str | None,
    lines: list[dict[str, Any]],
) -> Work:
    def work(session: Session) -> int:
        report = Report(
            reporter_id=reporter_id,
            reported_id=reported_id,
            reported_name=reported_name,
            game_id=game_id,
            reason=reason,
            note=note,
            lines=lines,
            status="open",
        )
        session.add(report)
        session.flush()
        return int(report.id)

    return work


def reports_since(session: Session, reporter_id: int, since: datetime) -> int:
    return int(
        session.scalar(
            select(func.count())
            .select_from(Report)
            .where(Report.reporter_id == reporter_id, Report.created_at >= since)
        )
        or 0
    )


def list_reports(
    session: Session, status: str | None = "open", reported_id: int | None = None, limit: int = 100
) -> list[ReportRow]:
    query = select(Report).order_by(Report.id.desc()).limit(limit)
    if status:
        query = query.where(Report.status == status)
    if reported_id is not None:
        query = query.where(Report.reported_id == reported_id)
    rows = session.scalars(query).all()
    ids = {r.reporter_id for r in rows} | {r.reported_id for r in rows}
    names = _names(session, [i for i in ids if i is not None])
    return [
        ReportRow(
            r.id,
            _aware(r.created_at),  # type: ignore[arg-type]
            r.reporter_id,
            names.get(r.reporter_id) if r.reporter_id else None,
            r.reported_id,
            (names.get(r.reported_id) if r.reported_id else None) or r.reported_name,
            r.game_id,
            r.reason,
            r.note,
            list(r.lines or []),
            r.status,
        )
        for r in rows
    ]


def count_reports(session: Session, status: str = "open") -> int:
    return int(
        session.scalar(select(func.count()).select_from(Report).where(Report.status == status)) or 0
    )


def set_report_status(report_id: int, status: str) -> Work:
    assert status in REPORT_STATUSES

    def work(session: Session) -> bool:
        result = session.execute(
            update(Report)
            .where(Report.id == report_id)
            .values(status=status, handled_at=None if status == "open" else datetime.now(UTC))
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]

    return work


# --------------------------------------------------------------------------- blocks


def set_block(identity_id: int, blocked_id: int, on: bool) -> Work:
    def work(session: Session) -> bool:
        existing = session.get(Block, (identity_id, blocked_id))
        if on and existing is None:
            session.add(Block(identity_id=identity_id, blocked_id=blocked_id))
            return True
        if not on and existing is not None:
            session.delete(existing)
            return True
        return False

    return work


def blocked_by(session: Session, identity_id: int) -> list[int]:
    return [
        int(i)
        for i in session.scalars(select(Block.blocked_id).where(Block.identity_id == identity_id))
    ]


def blocked_pairs(session: Session, identity_ids: Iterable[int]) -> set[tuple[int, int]]:
    """The (blocker, blocked) pairs among ``identity_ids``, in either direction."""
    ids = list(set(identity_ids))
    if len(ids) < 2:
        return set()
    rows = session.execute(
        select(Block.identity_id, Block.blocked_id).where(
            Block.identity_id.in_(ids), Block.blocked_id.in_(ids)
        )
    )
    return {(int(a), int(b)) for a, b in rows}


# --------------------------------------------------------------------------- closed games


def close_game(game_id: str) -> Work:
    def work(session: Session) -> None:
        if session.get(ClosedGame, game_id) is None:
            session.add(ClosedGame(game_id=game_id))

    return work


def is_closed(session: Session, game_id: str) -> bool:
    return session.get(ClosedGame, game_id) is not None


# --------------------------------------------------------------------------- players


@dataclass(frozen=True)
class PlayerRow:
    id: int
    name: str | None
    created_at: datetime
    last_seen_at: datetime
    games: int
    sanctions: frozenset[str]
    reports: int  # open reports about this player


def _names(session: Session, ids: Iterable[int]) -> dict[int, str | None]:
    ids = list(set(ids))
    if not ids:
        return {}
    return {
        int(i): n
        for i, n in session.execute(
            select(Identity.id, Identity.display_name).where(Identity.id.in_(ids))
        )
    }


def search_players(session: Session, query: str, limit: int = 50) -> list[PlayerRow]:
    """Identities whose name contains ``query`` (case-insensitive), or whose id it is; with
    an empty query, the ones seen last."""
    stmt = select(Identity).order_by(Identity.last_seen_at.desc()).limit(limit)
    text = query.strip()
    if text:
        pattern = (
            "%" + text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        )
        conditions: list[ColumnElement[bool]] = [
            func.lower(Identity.display_name).like(pattern, escape="\\")
        ]
        if text.isdigit():
            conditions.append(Identity.id == int(text))
        stmt = stmt.where(or_(*conditions))
    return _player_rows(session, list(session.scalars(stmt).all()))


def player(session: Session, identity_id: int) -> PlayerRow | None:
    row = session.get(Identity, identity_id)
    return _player_rows(session, [row])[0] if row is not None else None


def _player_rows(session: Session, rows: list[Identity]) -> list[PlayerRow]:
    ids = [r.id for r in rows]
    if not ids:
        return []
    games = dict(
        session.execute(
            select(GameSeat.identity_id, func.count(func.distinct(GameSeat.game_id)))
            .where(GameSeat.identity_id.in_(ids))
            .group_by(GameSeat.identity_id)
        ).all()
    )
    reports = dict(
        session.execute(
            select(Report.reported_id, func.count())
            .where(Report.reported_id.in_(ids), Report.status == "open")
            .group_by(Report.reported_id)
        ).all()
    )
    sanctions = sanctions_of(session, ids)
    return [
        PlayerRow(
            r.id,
            r.display_name,
            _aware(r.created_at),  # type: ignore[arg-type]
            _aware(r.last_seen_at),  # type: ignore[arg-type]
            int(games.get(r.id, 0)),
            sanctions.get(r.id, frozenset()),
            int(reports.get(r.id, 0)),
        )
        for r in rows
    ]


def chat_lines_of(session: Session, identity_id: int, limit: int = 20) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(ChatMessage)
        .where(ChatMessage.identity_id == identity_id, ChatMessage.kind == "text")
        .order_by(ChatMessage.id.desc())
        .limit(limit)
    ).all()
    return [{"game_id": r.game_id, "text": r.text, "at": _aware(r.created_at)} for r in rows]


def games_of(session: Session, identity_id: int, limit: int = 20) -> list[dict[str, Any]]:
    rows = session.execute(
        select(Game.id, Game.variant, Game.mode, Game.status, Game.updated_at)
        .join(GameSeat, GameSeat.game_id == Game.id)
        .where(GameSeat.identity_id == identity_id)
        .group_by(Game.id, Game.variant, Game.mode, Game.status, Game.updated_at)
        .order_by(Game.updated_at.desc())
        .limit(limit)
    ).all()
    return [
        {"id": r[0], "variant": r[1], "mode": r[2], "status": r[3], "at": _aware(r[4])}
        for r in rows
    ]
