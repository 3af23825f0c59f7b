"""The installable app: the manifest, its icons, the service worker's script and the offline
page (app/web/pwa.py, app/web/icons.py, static/js/sw.js). The worker itself runs in Chromium:
tests/browser/test_app.py."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.web import icons
from app.web.paths import STATIC_DIR
from tests.web.test_security_headers import make_client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path) as test_client:
        yield test_client


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_manifest_names_the_app_and_its_icons_exist(client: TestClient) -> None:
    response = client.get("/manifest.webmanifest", headers={"Accept-Language": "fr"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/manifest+json")
    manifest = response.json()
    assert manifest["name"] == "Atout" and manifest["short_name"] == "Atout"
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["theme_color"] == manifest["background_color"] == "#0c4a2f"
    assert manifest["lang"] == "fr" and "belote" in manifest["description"]
    sizes = set()
    for icon in manifest["icons"]:
        got = client.get(icon["src"])
        assert got.status_code == 200, icon
        if icon["type"] == "image/png":
            w, h = png_size(got.content)
            assert f"{w}x{h}" == icon["sizes"]
            sizes.add((w, icon.get("purpose", "any")))
        else:
            assert got.text.startswith("<svg")
    assert {(192, "any"), (512, "any"), (512, "maskable")} <= sizes
    # every page points to it, and the pages' theme colour is the manifest's
    home = client.get("/").text
    assert '<link rel="manifest" href="/manifest.webmanifest">' in home
    assert '<meta name="theme-color" content="#0c4a2f">' in home


def test_the_committed_icons_are_what_the_script_draws(tmp_path: Path) -> None:
    assert (STATIC_DIR / "icons" / "icon.svg").read_text() == icons.svg()
    assert (STATIC_DIR / "icons" / "icon-maskable.svg").read_text() == icons.svg(maskable=True)
    # the PNGs: drawn again at a small size (fast), the same drawing; the committed ones are
    # PNGs of the sizes the manifest gives
    small = icons.png(16)
    assert png_size(small) == (16, 16)
    for name, size in (("icon-192.png", 192), ("icon-512.png", 512)):
        assert png_size((STATIC_DIR / "icons" / name).read_bytes()) == (size, size)


def test_the_worker_is_served_from_the_root_and_caches_only_the_shell(client: TestClient) -> None:
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.headers["cache-control"] == "no-cache"
    code = response.text
    assert code.startswith('const VERSION = "')
    assert 'const SHELL = ["/offline", "/static/css/app.css"' in code
    # only navigations (to the network, the offline page when it fails) and /static/ files
    # are answered by the worker; nothing else is ever put in the cache
    assert code.count("cache.put(") == 1
    assert 'url.pathname.startsWith("/static/")' in code
    for shell in ("/offline", "/static/css/app.css", "/static/icons/icon-192.png"):
        assert client.get(shell).status_code == 200


def test_the_offline_page_says_the_server_cannot_be_reached(client: TestClient) -> None:
    for language, words in (("en", "cannot be reached"), ("fr", "injoignable")):
        page = client.get("/offline", headers={"Accept-Language": language})
        assert page.status_code == 200 and words in page.text
        assert "content-security-policy" in page.headers
