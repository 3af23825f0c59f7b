"""Security headers on every HTTP response (``SecurityHeadersMiddleware``, installed by
``app.web.pages.install``).

Every response: ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: same-origin``.
HTML responses also carry a ``Content-Security-Policy``: everything from this origin only, no
inline script or style (the pages' scripts and styles live in static/), no framing, and
WebSockets to this server only: ``ws:``/``wss:`` of the host the browser used (the ``Host``
header, which is where static/js/net.js connects) and of ``public_base_url`` when it is set.
"""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.settings import Settings

# A Host header is a host name, an IPv4 or a bracketed IPv6 address, and a port: nothing that
# could end a CSP directive.
HOST = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$")

POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
)


def ws_sources(*hosts: str) -> list[str]:
    sources: list[str] = []
    for host in hosts:
        if host and HOST.match(host):
            for scheme in ("ws", "wss"):
                source = f"{scheme}://{host.lower()}"
                if source not in sources:
                    sources.append(source)
    return sources


def content_security_policy(request_host: str, public_host: str = "") -> str:
    connect = " ".join(["connect-src 'self'", *ws_sources(request_host, public_host)])
    return "; ".join([*POLICY, connect])


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        base = settings.public_base_url
        self.public_host = base.split("://", 1)[1].split("/", 1)[0] if "://" in base else ""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_host = ""
        for name, value in scope.get("headers", []):
            if name == b"host":
                request_host = value.decode("latin-1")
                break

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                added = [
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"same-origin"),
                ]
                content_type = next((v for n, v in headers if n.lower() == b"content-type"), b"")
                if content_type.startswith(b"text/html"):
                    policy = content_security_policy(request_host, self.public_host)
                    added.append((b"content-security-policy", policy.encode("latin-1")))
                    added.append((b"x-frame-options", b"DENY"))
                headers.extend((n, v) for n, v in added if n not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
