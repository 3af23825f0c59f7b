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
The WebSocket endpoint uses ``identity_from_cookie`` and never creates an identity. The
identities themselves (``Identities``, ``CurrentIdentity``) are ``app.players.identities``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.players.identities import ANONYMOUS, CurrentIdentity
from app.web.deps import identities_of

COOKIE = "atout_id"
COOKIE_MAX_AGE = 2 * 365 * 24 * 3600
SCOPE_KEY = "atout.identity_cookie"


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


async def get_viewer(request: Request) -> CurrentIdentity:
    """FastAPI dependency for reads: this browser's identity, or ``ANONYMOUS``; never creates."""
    return await identity_from_cookie(request) or ANONYMOUS


IdentityDep = Annotated[CurrentIdentity, Depends(get_identity)]
ViewerDep = Annotated[CurrentIdentity, Depends(get_viewer)]
