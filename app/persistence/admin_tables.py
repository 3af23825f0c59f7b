"""The host's tables: admin sessions, the audit log, sanctions, reports, blocks and closed
games (app/persistence/admin.py reads and writes them; docs/self-hosting.md, "The admin page").

Imported by app/persistence/models.py, so that they are on ``Base.metadata`` with the others.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, func
from sqlalchemy.orm import Mapped, mapped_column

from app.persistence.db import Base


def _now() -> datetime:
    return datetime.now(UTC)


class AdminSession(Base):
    """A signed-in admin browser: the SHA-256 of its cookie, its CSRF token and its expiry.
    In the database, so that every process of a scaled-out server knows it."""

    __tablename__ = "admin_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    csrf: Mapped[str] = mapped_column(String(64))
    address: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=_now, server_default=func.now()
    )
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class AdminAudit(Base):
    """One admin action: who (the session's address and id), what, on what, when."""

    __tablename__ = "admin_audit"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=_now, server_default=func.now(), index=True
    )
    actor: Mapped[str] = mapped_column(String(80))
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str | None] = mapped_column(String(64))
    detail: Mapped[dict[str, Any] | None] = mapped_column(JSON)


class Sanction(Base):
    """A sanction on an identity, until the host lifts it: ``mute`` (chat, server-wide),
    ``public`` (public tables and tournaments) or ``ban`` (the whole server)."""

    __tablename__ = "sanctions"

    identity_id: Mapped[int] = mapped_column(
        ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(8), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=_now, server_default=func.now()
    )


class Report(Base):
    """A player's report of a chat line or a player, with the lines as they were shown."""

    __tablename__ = "reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=_now, server_default=func.now()
    )
    reporter_id: Mapped[int | None] = mapped_column(
        ForeignKey("identities.id", ondelete="SET NULL"), index=True
    )
    reported_id: Mapped[int | None] = mapped_column(
        ForeignKey("identities.id", ondelete="SET NULL"), index=True
    )
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    reported_name: Mapped[str | None] = mapped_column(String(24))
    reason: Mapped[str] = mapped_column(String(16))
    note: Mapped[str | None] = mapped_column(String(500))
    lines: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(12), index=True)  # open | handled | dismissed
    handled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Block(Base):
    """A player blocked another: quick play never seats them at one public table."""

    __tablename__ = "blocks"

    identity_id: Mapped[int] = mapped_column(
        ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True
    )
    blocked_id: Mapped[int] = mapped_column(
        ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=_now, server_default=func.now()
    )


class ClosedGame(Base):
    """A game the host closed: it stays as it was saved, and no room serves it again."""

    __tablename__ = "closed_games"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    closed_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=_now, server_default=func.now()
    )
