"""Quick play (POST /api/quickplay, app/web/lobby.py): two browsers asking at once with no
table open meet at one table; a browser is never offered a table of a player it blocked, or
who blocked it (app/web/moderation.py)."""

from __future__ import annotations

import asyncio

import pytest

from tests.web.conftest import start_server
from tests.web.wsclient import Browser

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
def server(tmp_path_factory):  # type: ignore[no-untyped-def]
    srv = start_server(
        tmp_path_factory.mktemp("quickplay"),
        {"ATOUT_PUBLIC_FILL_SECONDS": "600", "ATOUT_PUBLIC_TABLES_PER_HOUR": "50"},
    )
    try:
        yield srv
    finally:
        srv.stop()


async def test_two_quick_plays_at_once_meet_at_one_table(server) -> None:
    for variant in ("coinche", "bulgarian", "classic"):
        browsers = [await Browser.new(server) for _ in range(2)]
        answers = await asyncio.gather(
            *(b.post("/api/quickplay", {"variant": variant}) for b in browsers)
        )
        assert [status for status, _ in answers] == [200, 200], answers
        made = [body["created"]["game_id"] for _, body in answers if body.get("created")]
        offered = [body["candidates"] for _, body in answers if body["candidates"]]
        assert len(made) == 1, answers  # one table, not two
        assert [[c["game_id"] for c in found] for found in offered] == [made], answers


async def test_quick_play_never_seats_a_blocked_pair_together(server) -> None:
    ana, bob, cleo = [await Browser.new(server) for _ in range(3)]
    # Bob met Ana at a friends table and blocked her
    private = await ana.create(variant="duel", mode="friends")
    status, _ = await bob.post(f"/api/games/{private}/join")
    assert status == 200
    status, body = await bob.post(f"/api/games/{private}/blocks", {"seat": 0, "blocked": True})
    assert status == 200 and body == {"blocked": True}
    # Ana opens a public table through quick play
    status, body = await ana.post("/api/quickplay", {"variant": "bela"})
    assert status == 200 and body["created"], body
    anas = body["created"]["game_id"]
    # Bob is not offered it: a table of his own
    status, body = await bob.post("/api/quickplay", {"variant": "bela"})
    assert status == 200 and body["candidates"] == [] and body["created"], body
    bobs = body["created"]["game_id"]
    # Ana, asking again, is sent back to her own table, not Bob's (the block works both ways)
    status, body = await ana.post("/api/quickplay", {"variant": "bela"})
    assert [c["game_id"] for c in body["candidates"]] == [anas] and "created" not in body
    # Cleo is offered both
    status, body = await cleo.post("/api/quickplay", {"variant": "bela"})
    assert {c["game_id"] for c in body["candidates"]} == {anas, bobs}
    # unblocked: Bob is offered Ana's next table
    await bob.post(f"/api/games/{private}/blocks", {"seat": 0, "blocked": False})
    status, body = await ana.post("/api/quickplay", {"variant": "duel"})
    anas = body["created"]["game_id"]
    status, body = await bob.post("/api/quickplay", {"variant": "duel"})
    assert [c["game_id"] for c in body["candidates"]] == [anas]
