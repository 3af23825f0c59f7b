"""Web Push: the server's VAPID key pair and the browsers' push subscriptions
(app/persistence/push.py reads and writes them; app/web/push.py sends the notifications).

Imported by app/persistence/models.py, so that they are on ``Base.metadata`` with the others.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text, func
from sqlalchemy.orm import Mapped, mapped_column

from app.persistence.db import Base


def _now() -> datetime:
    return datetime.now(UTC)


class PushKey(Base):
    """The server's VAPID key pair (one row, ``id`` 1), made at the first start: every process
    signs with the same key, and the browsers' subscriptions stay valid across restarts."""

    __tablename__ = "push_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    private_pem: Mapped[str] = mapped_column(Text)
    public_key: Mapped[str] = mapped_column(String(128))  # base64url, the uncompressed point
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=_now, server_default=func.now()
    )


class PushSubscription(Base):
    """One browser's push subscription (its endpoint and keys), for the identity that turned
    notifications on in it, in the language it was turned on in."""

    __tablename__ = "push_subscriptions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    identity_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("identities.id", ondelete="CASCADE"), index=True
    )
    endpoint: Mapped[str] = mapped_column(String(1000), unique=True)
    p256dh: Mapped[str] = mapped_column(String(128))
    auth: Mapped[str] = mapped_column(String(64))
    lang: Mapped[str] = mapped_column(String(8), default="en")
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=_now, server_default=func.now()
    )
