"""The computer players inside the server: hints in computer games only (docs/protocol.md)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.web.conftest import start_server
from tests.web.wsclient import Browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    s = start_server(tmp_path_factory.mktemp("bots-server"))
    try:
        yield s
    finally:
        s.stop()


async def test_hint_is_a_legal_action_of_the_players_seat(server: object) -> None:
    browser = await Browser.new(server)
    game_id = await browser.create(variant="bela", players=3, mode="computer", level="hard")
    sock = await browser.connect(game_id)
    for n in range(3):
        await sock.until(lambda s: bool(s.view["legal"]))
        await sock.send({"type": "hint", "id": f"h-{n}"})
        hint = await sock.next_of("hint")
        assert hint["id"] == f"h-{n}"
        assert hint["action"] in sock.view["legal"]
        await sock.act(hint["action"])
        acked = await sock.next_of("ack")
        await sock.until(lambda s, v=acked["version"]: s.version >= v)


async def test_no_hint_in_friends_games(server: object) -> None:
    host = await Browser.new(server)
    game_id = await host.create(variant="duel", mode="friends")
    sock = await host.connect(game_id)
    await sock.send({"type": "hint", "id": "h-x"})
    err = await sock.next_of("error")
    assert err["code"] == "not_allowed" and err["id"] == "h-x"
