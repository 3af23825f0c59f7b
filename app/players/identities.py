"""Anonymous browser identities: a token's identity, found by the token's hash and cached.

An identity is one browser. It has a random token (256 bits from ``secrets``, returned once to
be set as the ``atout_id`` cookie by ``app.web.identity``) and an optional display name. The
database stores only the token's SHA-256; a presented token is looked up by that hash and the
hashes are compared again with ``hmac.compare_digest``. ``ANONYMOUS`` (id 0, which no identity
has) holds no seat and owns nothing.
"""

from __future__ import annotations

import hmac
import re
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.persistence import repository as repo
from app.persistence.writer import CommitQueue

TOKEN_BYTES = 32  # 256 bits
TOKEN_PATTERN = re.compile(r"^[A-Za-z0-9_-]{22,128}$")  # >= 128 bits of base64url
TOUCH_EVERY_SECONDS = 3600.0
NAME_MAX = 24


@dataclass(frozen=True)
class CurrentIdentity:
    id: int
    name: str | None


def clean_name(value: Any) -> str:
    """A display name: 1-24 printable characters once trimmed; raises ValueError otherwise."""
    if not isinstance(value, str):
        raise ValueError("a name is text")
    name = value.strip()
    if not 1 <= len(name) <= NAME_MAX:
        raise ValueError(f"a name has 1 to {NAME_MAX} characters")
    if not name.isprintable():
        raise ValueError("a name has only printable characters")
    return name


class Identities:
    """Token → identity, with a small cache of recently seen tokens (by hash)."""

    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        writer: CommitQueue,
        cache_size: int = 50_000,
    ) -> None:
        self.sessionmaker = sessionmaker
        self.writer = writer
        self._cache: OrderedDict[str, tuple[int, str | None, float]] = OrderedDict()
        self._cache_size = cache_size
        self.notifier: Any = None  # app.persistence.notify.Notifier (PostgreSQL)

    async def find(self, token: str | None) -> CurrentIdentity | None:
        """The identity of a presented token, or None (no token, malformed, unknown)."""
        if not token or not TOKEN_PATTERN.match(token):
            return None
        token_hash = repo.hash_token(token)
        cached = self._cache.get(token_hash)
        if cached is not None:
            self._cache.move_to_end(token_hash)
            identity_id, name, touched = cached
            if time.monotonic() - touched > TOUCH_EVERY_SECONDS:
                await self.writer.submit(repo.touch_identity(identity_id))
                self._remember(token_hash, identity_id, name)
            return CurrentIdentity(identity_id, name)
        async with self.sessionmaker() as session:
            row = await repo.find_identity(session, token_hash)
        if row is None or not hmac.compare_digest(row.token_hash, token_hash):
            return None
        self._remember(token_hash, row.id, row.display_name)
        return CurrentIdentity(row.id, row.display_name)

    async def create(self) -> tuple[str, CurrentIdentity]:
        """A new browser: a fresh token (returned once, to be set as the cookie)."""
        token = secrets.token_urlsafe(TOKEN_BYTES)
        token_hash = repo.hash_token(token)
        identity_id = await self.writer.submit(repo.insert_identity(token_hash))
        self._remember(token_hash, identity_id, None)
        return token, CurrentIdentity(identity_id, None)

    async def rename(self, identity: CurrentIdentity, name: str) -> CurrentIdentity:
        await self.writer.submit(repo.set_identity_name(identity.id, name))
        self.renamed(identity.id, name)
        if self.notifier is not None:  # the other processes (app/persistence/notify.py)
            await self.notifier.publish("renamed", [identity.id])
        return CurrentIdentity(identity.id, name)

    def renamed(self, identity_id: int, name: str | None) -> None:
        """The cached tokens of an identity take its new name."""
        for key, (cached_id, _name, touched) in list(self._cache.items()):
            if cached_id == identity_id:
                self._cache[key] = (cached_id, name, touched)

    async def transferred(self, identity_id: int) -> None:
        """A transfer code moved this identity to another browser: forget its old token here
        and in the other processes."""
        self.forget(identity_id)
        if self.notifier is not None:
            await self.notifier.publish("moved", [identity_id])

    def clear(self) -> None:
        self._cache.clear()

    def forget(self, identity_id: int) -> None:
        """Drop the cached tokens of an identity whose token changed (a transfer code moved it
        to another browser, app/players): the old token is then unknown, like any other."""
        for key, (cached_id, _name, _touched) in list(self._cache.items()):
            if cached_id == identity_id:
                del self._cache[key]

    def _remember(self, token_hash: str, identity_id: int, name: str | None) -> None:
        self._cache[token_hash] = (identity_id, name, time.monotonic())
        self._cache.move_to_end(token_hash)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)


ANONYMOUS = CurrentIdentity(0, None)  # identity ids start at 1
