"""Game links and WebSocket origins with and without ATOUT_PUBLIC_BASE_URL (a real server)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from tests.conftest import LiveServer
from tests.web.conftest import start_server
from tests.web.wsclient import Browser


@pytest.fixture(scope="module")
def unconfigured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("unset"), {"ATOUT_PUBLIC_BASE_URL": ""})
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    env = {"ATOUT_PUBLIC_BASE_URL": "https://belote.example.org/"}
    server = start_server(tmp_path_factory.mktemp("set"), env)
    try:
        yield server
    finally:
        server.stop()


async def _create(server: LiveServer, host: str | None = None) -> tuple[str, str]:
    headers = {"Host": host} if host else {}
    async with httpx.AsyncClient(base_url=server.base_url) as client:
        response = await client.post(
            "/api/games", json={"variant": "classic", "mode": "computer"}, headers=headers
        )
    assert response.status_code == 201, response.text
    data = response.json()
    return data["game_id"], data["url"]


async def test_unset_the_game_link_follows_the_host_and_port_of_the_request(unconfigured):
    game_id, url = await _create(unconfigured)
    assert url == f"{unconfigured.base_url}/g/{game_id}"
    game_id, url = await _create(unconfigured, host=f"belote.lan:{unconfigured.port}")
    assert url == f"http://belote.lan:{unconfigured.port}/g/{game_id}"


async def test_unset_the_room_sends_a_link_the_browser_resolves_against_its_address(unconfigured):
    browser = await Browser.new(unconfigured)
    game_id = await browser.create(variant="duel", mode="friends")
    sock = await browser.connect(game_id, origin=unconfigured.base_url)
    assert sock.room is not None and sock.room["url"] == f"/g/{game_id}"
    await sock.ws.close()


@pytest.mark.parametrize("origin", ["http://127.0.0.1:8000", "://", "http://evil.example"])
async def test_unset_only_the_origin_of_the_host_itself_opens_a_socket(unconfigured, origin):
    browser = await Browser.new(unconfigured)
    game_id = await browser.create(variant="duel", mode="computer")
    same = await browser.connect(game_id, origin=unconfigured.base_url)  # the Host it reached
    assert same.role == "seat"
    other = await browser.connect(game_id, origin=origin, read_state=False)
    with pytest.raises(ConnectionClosed):
        await other.recv()
    assert other.close_code == 1008


async def test_set_it_wins_over_the_request(configured):
    game_id, url = await _create(configured, host=f"belote.lan:{configured.port}")
    assert url == f"https://belote.example.org/g/{game_id}"
    browser = await Browser.new(configured)
    game_id = await browser.create(variant="duel", mode="computer")
    sock = await browser.connect(game_id, origin="https://belote.example.org")
    assert sock.role == "seat" and sock.room is not None
    assert sock.room["url"] == f"https://belote.example.org/g/{game_id}"
