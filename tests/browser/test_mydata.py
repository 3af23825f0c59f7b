"""A player's own data in Chromium: from the profile page, download everything as one archive,
then delete the identity after ticking the confirmation; the other player's table and replay
still work and show the neutral name."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest

from .conftest import errors_of
from .test_admin import shot
from .test_chat import table, write

pytestmark = pytest.mark.browser


def test_download_then_delete_my_identity(server: Any, chromium: Any) -> None:
    ana, bob, url = table(chromium, server)
    errors = errors_of(ana)
    write(ana, "à bientôt")
    game_id = url.rstrip("/").rsplit("/", 1)[1]
    ana.set_viewport_size({"width": 390, "height": 844})
    ana.goto(server.url("/profile"))
    ana.wait_for_selector("#my-data")
    shot(ana, "profile-data-phone")
    assert ana.evaluate("document.documentElement.scrollWidth") <= 390
    with ana.expect_download() as download:
        ana.click("#data-download")
    archive = zipfile.ZipFile(io.BytesIO(open(download.value.path(), "rb").read()))
    assert json.loads(archive.read("identity.json"))["name"] == "Alice"
    assert [c["text"] for c in json.loads(archive.read("chat.json"))] == ["à bientôt"]
    assert json.loads(archive.read(f"games/{game_id}.json"))["format"] == "belote-record/1"

    assert ana.locator("#delete-go").is_disabled()
    ana.check("#delete-sure")
    ana.click("#delete-go")
    ana.wait_for_selector("#delete-status[data-done='1']")
    shot(ana, "profile-deleted-phone")
    cookies = {c["name"] for c in ana.context.cookies()}
    assert "atout_id" not in cookies

    # the other player's table and replay
    bob.reload()
    bob.wait_for_function(
        "() => (window.atoutTable?.state?.room?.seats || []).some(s => (s.name || '').startsWith('Former player'))"
    )
    replay = bob.context.request.get(server.url(f"/api/games/{game_id}/replay"))
    assert replay.ok
    record = bob.context.request.get(server.url(f"/api/games/{game_id}/record"))
    assert record.ok and "Former player" in record.text()
    assert errors == []
