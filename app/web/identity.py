"""Anonymous browser identities: the ``atout_id`` cookie, ``IdentityDep`` and ``ViewerDep``.

An identity is created only when a browser does something that needs one: creates a game,
joins one (``POST /api/games/{id}/join``, or opening a game's link), names itself, takes a seat,
or asks for one (``POST /api/me``). It then gets a random token (256 bits from ``secrets``) in an
HttpOnly, SameSite=Lax cookie ``atout_id`` (Secure when the site is served over https). Reading
(pages, ``GET /api/...``) never creates one, so a crawler leaves no row behind. The
database stores only the token's SHA-256; a presented token is looked up by that hash and the
hashes are compared again with ``hmac.compare_digest``.

Routes that act declare ``IdentityDep`` (created if new); routes that only read declare
``ViewerDep``: the browser's identity if it has one, else ``ANONYMOUS`` (id 0, which no
identity has: it holds no seat and owns nothing)::

    @router.post("/something")
    async def something(identity: IdentityDep) -> ...:
        identity.id, identity.name

A route may return any Response (a template, JSON...): the cookie is added by
``IdentityMiddleware`` (installed by ``create_app``), not by the response object.
The WebSocket endpoint uses ``identity_from_cookie`` and never creates an identity.
"""

from __future__ import annotations

import hmac
import re
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.dependencies import identities_of
from app.persistence import repository as repo
from app.persistence.writer import CommitQueue

COOKIE = "atout_id"
TOKEN_BYTES = 32  # 256 bits
COOKIE_MAX_AGE = 2 * 365 * 24 * 3600
SCOPE_KEY = "atout.identity_cookie"
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


def cookie_header(token: str, *, secure: bool) -> bytes:
    parts = [
        f"{COOKIE}={token}",
        "Path=/",
        f"Max-Age={COOKIE_MAX_AGE}",
        "HttpOnly",
        "SameSite=Lax",
    ]
    if secure:
        parts.append("Secure")
    return "; ".join(parts).encode("latin-1")


class IdentityMiddleware:
    """Adds the ``Set-Cookie`` of a newly created identity to whatever response is sent."""

    def __init__(self, app: ASGIApp, *, force_secure: bool = False) -> None:
        self.app = app
        self.force_secure = force_secure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        holder: dict[str, str] = {}
        scope[SCOPE_KEY] = holder
        secure = self.force_secure or scope.get("scheme") == "https"

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and "token" in holder:
                headers = list(message.get("headers", []))
                headers.append((b"set-cookie", cookie_header(holder["token"], secure=secure)))
                headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_cookie)


async def get_identity(request: Request) -> CurrentIdentity:
    """FastAPI dependency: this browser's identity, created (and its cookie set) if new."""
    identities = identities_of(request)
    found = await identities.find(request.cookies.get(COOKIE))
    if found is not None:
        return found
    holder = request.scope.get(SCOPE_KEY)
    if holder is None:
        raise RuntimeError("IdentityMiddleware is not installed")
    token, identity = await identities.create()
    holder["token"] = token
    return identity


async def identity_from_cookie(connection: HTTPConnection) -> CurrentIdentity | None:
    """The identity of a WebSocket (or request) from its cookie; never creates one."""
    return await identities_of(connection).find(connection.cookies.get(COOKIE))


ANONYMOUS = CurrentIdentity(0, None)  # identity ids start at 1


async def get_viewer(request: Request) -> CurrentIdentity:
    """FastAPI dependency for reads: this browser's identity, or ``ANONYMOUS``; never creates."""
    return await identity_from_cookie(request) or ANONYMOUS


IdentityDep = Annotated[CurrentIdentity, Depends(get_identity)]
ViewerDep = Annotated[CurrentIdentity, Depends(get_viewer)]
