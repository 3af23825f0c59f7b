"""The installable app: the web app manifest, the service worker and its offline page.

* ``GET /manifest.webmanifest``: name, icons (static/icons/, drawn by app/web/icons.py), theme
  colour, ``display: standalone``, start URL and scope ``/``; the description in the page's
  language.
* ``GET /sw.js``: static/js/sw.js, served from the root so that its scope covers every page,
  with the version of the static files written in (a new deployment is a new worker, which
  drops the old cache). The worker caches the static shell only, never an API answer, a
  socket or a table page (static/js/sw.js says how).
* ``GET /offline``: the page the worker shows when the server cannot be reached.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from app import __version__
from app.web.i18n import translate
from app.web.paths import STATIC_DIR

router = APIRouter(include_in_schema=False)

THEME = "#0c4a2f"  # templates/base.html's theme-color, app/web/icons.py's green

# what the worker stores when it is installed (the offline page needs nothing else)
SHELL = (
    "/offline",
    "/static/css/app.css",
    "/static/favicon.svg",
    "/static/icons/icon.svg",
    "/static/icons/icon-192.png",
)


@cache
def static_version() -> str:
    """A digest of every static file and the app's version: it changes with a deployment."""
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(STATIC_DIR.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(STATIC_DIR)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def manifest(language: str) -> dict[str, Any]:
    return {
        "id": "/",
        "name": "Atout",
        "short_name": "Atout",
        "description": translate(language, "pwa.description"),
        "lang": language,
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "theme_color": THEME,
        "background_color": THEME,
        "icons": [
            {"src": "/static/icons/icon.svg", "sizes": "any", "type": "image/svg+xml"},
            {"src": "/static/icons/icon-192.png", "sizes": "192x192", "type": "image/png"},
            {"src": "/static/icons/icon-512.png", "sizes": "512x512", "type": "image/png"},
            {
                "src": "/static/icons/icon-maskable-512.png",
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
        ],
    }


@router.get("/manifest.webmanifest")
async def web_manifest(request: Request) -> Response:
    from app.web.pages import language_of

    body = json.dumps(manifest(language_of(request)), ensure_ascii=False)
    return Response(
        body,
        media_type="application/manifest+json",
        headers={"Cache-Control": "no-cache", "Vary": "Accept-Language, Cookie"},
    )


@router.get("/sw.js")
async def service_worker() -> Response:
    code = (STATIC_DIR / "js" / "sw.js").read_text(encoding="utf-8")
    head = f'const VERSION = "{static_version()}";\nconst SHELL = {list(SHELL)!r};\n'.replace(
        "'", '"'
    )
    return Response(
        head + code,
        media_type="text/javascript",
        # the browser asks for a new worker at every navigation; never a stale one
        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
    )


@router.get("/offline", response_class=HTMLResponse)
async def offline(request: Request) -> Response:
    from app.web.pages import render

    return render(request, "offline.html")
