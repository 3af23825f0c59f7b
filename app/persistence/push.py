"""Web Push rows: the VAPID key pair and the push subscriptions (tables in push_tables.py).

Writes are works for the writer (writer.py), reads plain async queries. No decisions here:
app/web/push.py decides what to send to whom.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from app.persistence.push_tables import PushKey, PushSubscription
from app.persistence.repository import Work


@dataclass(frozen=True)
class KeyPair:
    private_pem: str
    public_key: str  # base64url of the uncompressed P-256 point: the applicationServerKey


@dataclass(frozen=True)
class SubscriptionRow:
    identity_id: int
    endpoint: str
    p256dh: str
    auth: str
    lang: str


def insert_key(pair: KeyPair) -> Work:
    """Keep ``pair`` as the server's keys unless a key is there already (another process was
    first); the caller reads the row again afterwards."""

    def work(session: Session) -> None:
        if session.get(PushKey, 1) is None:
            session.add(PushKey(id=1, private_pem=pair.private_pem, public_key=pair.public_key))

    return work


async def read_key(session: AsyncSession) -> KeyPair | None:
    row = await session.get(PushKey, 1)
    return None if row is None else KeyPair(row.private_pem, row.public_key)


MAX_PER_IDENTITY = 10  # browsers one player may have notifications in; the oldest go first


def save_subscription(row: SubscriptionRow) -> Work:
    """The browser's subscription, for this identity (a browser has one endpoint: the same
    endpoint given again, by whoever, replaces what was kept). An identity keeps its newest
    ``MAX_PER_IDENTITY``: one player cannot make the server post to many addresses."""

    def work(session: Session) -> None:
        session.execute(delete(PushSubscription).where(PushSubscription.endpoint == row.endpoint))
        session.add(
            PushSubscription(
                identity_id=row.identity_id,
                endpoint=row.endpoint,
                p256dh=row.p256dh,
                auth=row.auth,
                lang=row.lang,
            )
        )
        session.flush()
        kept = select(PushSubscription.id).where(PushSubscription.identity_id == row.identity_id)
        newest = kept.order_by(PushSubscription.id.desc()).limit(MAX_PER_IDENTITY)
        session.execute(
            delete(PushSubscription).where(
                PushSubscription.identity_id == row.identity_id,
                PushSubscription.id.not_in(newest.scalar_subquery()),
            )
        )

    return work


def delete_subscription(endpoint: str, identity_id: int | None = None) -> Work:
    """Forget an endpoint (turned off in the browser: only its identity's; gone at the push
    service: ``identity_id`` None). Returns whether one was kept."""

    def work(session: Session) -> bool:
        query = delete(PushSubscription).where(PushSubscription.endpoint == endpoint)
        if identity_id is not None:
            query = query.where(PushSubscription.identity_id == identity_id)
        return bool(session.execute(query).rowcount)  # type: ignore[attr-defined]

    return work


async def subscriptions_of(
    session: AsyncSession, identity_ids: Iterable[int]
) -> list[SubscriptionRow]:
    ids = set(identity_ids)
    if not ids:
        return []
    rows = await session.scalars(
        select(PushSubscription)
        .where(PushSubscription.identity_id.in_(ids))
        .order_by(PushSubscription.id)
    )
    return [
        SubscriptionRow(r.identity_id, r.endpoint, r.p256dh, r.auth, r.lang) for r in rows.all()
    ]


async def has_subscription(session: AsyncSession, identity_id: int, endpoint: str) -> bool:
    found = await session.scalar(
        select(PushSubscription.id).where(
            PushSubscription.endpoint == endpoint, PushSubscription.identity_id == identity_id
        )
    )
    return found is not None
