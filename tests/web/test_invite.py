"""Identity cookie, game creation and the invite link: seats, reclaim, spectators, table full."""

from __future__ import annotations

import asyncio
import hashlib

import httpx
import pytest
import websockets
from sqlalchemy import text

from app.persistence.db import create_engine_from_url
from tests.web.wsclient import Browser


async def query(url: str, sql: str) -> list[tuple]:
    engine = create_engine_from_url(url)
    try:
        async with engine.connect() as connection:
            return [tuple(row) for row in (await connection.execute(text(sql))).all()]
    finally:
        await engine.dispose()


async def test_asking_for_an_identity_sets_an_httponly_lax_cookie_and_stores_only_its_hash(
    module_server,
):
    async with httpx.AsyncClient(base_url=module_server.base_url) as client:
        response = await client.post("/api/me")
    assert response.status_code == 200
    assert response.json()["games"] == []
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("atout_id=")
    parts = [p.strip().lower() for p in cookie.split(";")]
    assert "httponly" in parts and "samesite=lax" in parts and "path=/" in parts
    assert "secure" not in parts  # plain http here
    token = cookie.split(";")[0].split("=", 1)[1]
    assert len(token) >= 43  # 256 bits, base64url
    rows = await query(module_server.database_url, "SELECT token_hash FROM identities")
    stored = {r[0] for r in rows}
    assert hashlib.sha256(token.encode()).hexdigest() in stored
    assert token not in stored
    # the same cookie is the same browser: no new cookie
    async with httpx.AsyncClient(base_url=module_server.base_url) as client:
        again = await client.get("/api/me", headers={"Cookie": f"atout_id={token}"})
    assert "set-cookie" not in again.headers


async def test_an_unknown_or_malformed_token_gets_a_fresh_identity(module_server):
    for bad in ("x" * 43, "short", "../../etc"):
        async with httpx.AsyncClient(base_url=module_server.base_url) as client:
            response = await client.post("/api/me", headers={"Cookie": f"atout_id={bad}"})
        assert response.status_code == 200
        assert "atout_id=" in response.headers["set-cookie"]
        assert bad not in response.headers["set-cookie"]


async def test_create_game_gives_seat_zero_and_an_invite_url(module_server):
    host = await Browser.new(module_server)
    status, data = await host.post(
        "/api/games", {"variant": "classic", "mode": "friends", "options": {"target": 501}}
    )
    assert status == 201, data
    assert data["seat"] == 0
    game_id = data["game_id"]
    assert len(game_id) >= 22 and all(c.isalnum() or c in "-_" for c in game_id)
    assert data["url"] == f"{module_server.base_url}/g/{game_id}"
    status, summary = await host.get(f"/api/games/{game_id}")
    assert status == 200
    assert summary["status"] == "waiting"
    assert [s["you"] for s in summary["seats"]] == [True, False, False, False]
    status, me = await host.get("/api/me")
    assert [g["game_id"] for g in me["grouped"]["friends"]] == [game_id]
    assert me["grouped"]["friends"][0]["url"] == data["url"]


@pytest.mark.parametrize(
    "body, code",
    [
        ({"variant": "classic", "options": {"foo": 1}}, "invalid_options"),
        ({"variant": "classic", "options": {"target": 7}}, "invalid_options"),
        ({"variant": "nope"}, "invalid_options"),
        ({"variant": "classic", "players": 3}, "invalid_options"),
        ({"variant": "bulgarian", "options": {"undertrump_required": True}}, "invalid_options"),
        ({"variant": "bela", "players": 5}, "invalid_options"),
        ({"variant": "classic", "options": {"allow_sa_ta": True}}, "invalid_options"),
        ({"variant": "bela", "players": 1}, "invalid_options"),
        ({"variant": 7}, "invalid_options"),
        ({"variant": "classic", "options": {"target": [1]}}, "invalid_options"),
        ({"variant": "classic", "mode": "party"}, "invalid_mode"),
        ({"variant": "classic", "mode": None}, "invalid_mode"),
        ({"variant": "classic", "extra": 1}, "invalid_request"),
        ({"options": {}}, "invalid_options"),  # no variant
        ({"variant": "classic", "level": "godlike"}, "invalid_seats"),
        ({"variant": "duel", "seats": [{"kind": "alien"}, {"kind": "human"}]}, "invalid_seats"),
        ({"variant": "duel", "seats": [{"kind": "human"}]}, "invalid_seats"),
        ({"variant": "classic", "seats": [{"kind": "human"}] * 3}, "invalid_seats"),
        ({"variant": "classic", "name": "   "}, "invalid_name"),
        ({"variant": "classic", "name": "x" * 25}, "invalid_name"),
        ({"variant": "classic", "name": "a\u0000b"}, "invalid_name"),
        ({"variant": "duel", "seats": [{"kind": "bot"}, {"kind": "human"}]}, "invalid_seats"),
        (
            {
                "variant": "duel",
                "mode": "computer",
                "seats": [{"kind": "human"}, {"kind": "human"}],
            },
            "invalid_seats",
        ),
    ],
)
async def test_create_game_refuses_bad_requests(module_server, body, code):
    browser = await Browser.new(module_server)
    status, data = await browser.post("/api/games", body)
    assert status == 422, data
    assert data["error"]["code"] == code, data


async def test_names_are_trimmed_and_checked(module_server):
    browser = await Browser.new(module_server)
    status, data = await browser.post("/api/me/name", {"name": "  Ana <b>  "})
    assert (status, data) == (200, {"name": "Ana <b>"})
    status, data = await browser.post("/api/me/name", {"name": ""})
    assert status == 422 and data["error"]["code"] == "invalid_name"
    status, me = await browser.get("/api/me")
    assert me["name"] == "Ana <b>"


async def test_invite_link_fills_seats_in_order_then_spectators(module_server):
    host = await Browser.new(module_server)
    game_id = await host.create(variant="classic", mode="friends", options={"target": 501})
    host_sock = await host.connect(game_id)
    assert host_sock.seats == [0] and host_sock.room["status"] == "waiting"
    assert host_sock.view is None and host_sock.version == 0

    guests = [await Browser.new(module_server) for _ in range(3)]
    status, joined = await guests[0].post(f"/api/games/{game_id}/join", {"name": "Bo"})
    assert status == 200 and joined["role"] == "seat" and joined["seats"] == [1]
    assert joined["room"]["seats"][1]["name"] == "Bo"
    # the socket of the first guest: reclaims seat 1
    sock1 = await guests[0].connect(game_id)
    assert sock1.seats == [1] and sock1.role == "seat"
    # the next guests take the next seats (by socket alone: opening the link is joining)
    sock2 = await guests[1].connect(game_id)
    assert sock2.seats == [2]
    sock3 = await guests[2].connect(game_id)
    assert sock3.seats == [3]
    # the last seat taken: the first deal starts for everyone (version 1)
    for sock in (host_sock, sock1, sock2, sock3):
        await sock.until(lambda s: s.version >= 1 and s.view is not None)
        assert len(sock.view["hand"]) == 5
        assert sock.room is not None
    # a later visitor is a spectator: no hand, no legal moves
    watcher = await Browser.new(module_server)
    status, joined = await watcher.post(f"/api/games/{game_id}/join")
    assert joined["role"] == "spectator" and joined["seats"] == []
    wsock = await watcher.connect(game_id)
    assert wsock.role == "spectator" and "hand" not in wsock.view and "legal" not in wsock.view
    await host_sock.until(lambda s: s.room["spectators"] == 1)


async def test_reclaim_from_a_fresh_connection_and_no_acting_for_another_seat(module_server):
    host = await Browser.new(module_server)
    game_id = await host.create(variant="duel", mode="friends")
    guest = await Browser.new(module_server)
    g1 = await guest.connect(game_id)
    h1 = await host.connect(game_id)
    assert (h1.seats, g1.seats) == ([0], [1])
    await g1.until(lambda s: s.version == 1)
    # close and reopen from a "new tab": same cookie, same seat, same view
    hand_before = g1.view["hand"]
    await g1.close()
    g2 = await guest.connect(game_id)
    assert g2.seats == [1] and g2.view["hand"] == hand_before and g2.version == 1
    # a second socket of the same browser at the same time holds the same seat too
    g3 = await guest.connect(game_id)
    assert g3.seats == [1]
    # the guest cannot act for the host's seat
    await h1.until(lambda s: s.room["paused"] is False)
    await g2.act({"type": "pass"}, seat=0, msg_id="steal-1")
    err = await g2.next_of("error")
    assert err["code"] == "not_your_seat" and err["id"] == "steal-1"
    # a third browser is a spectator: it cannot act at all
    other = await Browser.new(module_server)
    o = await other.connect(game_id)
    assert o.role == "spectator"
    await o.act({"type": "pass"}, msg_id="steal-2")
    err = await o.next_of("error")
    assert err["code"] == "spectator"
    # nobody's action was applied
    assert (await h1.drain(0.2)) == [] or h1.version == 1
    assert h1.version == 1


async def test_table_full_when_spectators_are_off(module_server):
    host = await Browser.new(module_server)
    game_id = await host.create(variant="duel", mode="friends", spectators=False)
    guest = await Browser.new(module_server)
    await guest.connect(game_id)
    late = await Browser.new(module_server)
    status, joined = await late.post(f"/api/games/{game_id}/join")
    assert status == 200 and joined["role"] == "full"
    status, data = await late.get(f"/api/games/{game_id}")
    assert status == 403
    status, data = await late.get(f"/api/games/{game_id}/record")
    assert status == 403
    sock = await late.connect(game_id, read_state=False)
    msg = await sock.recv()
    assert msg["type"] == "error" and msg["code"] == "table_full"
    with pytest.raises(websockets.ConnectionClosed):
        await sock.recv()
    assert sock.close_code == 1008


async def test_host_moves_players_before_the_first_deal_only(module_server):
    host = await Browser.new(module_server)
    game_id = await host.create(variant="coinche", mode="friends")
    guest = await Browser.new(module_server)
    status, joined = await guest.post(f"/api/games/{game_id}/join")
    assert joined["seats"] == [1]
    # not the host
    status, data = await guest.post(f"/api/games/{game_id}/seats", {"swaps": [[1, 2]]})
    assert status == 403 and data["error"]["code"] == "not_host"
    # the host puts the guest opposite (partners: seats 0 and 2)
    status, data = await host.post(f"/api/games/{game_id}/seats", {"swaps": [[1, 2]]})
    assert status == 200, data
    assert [s["taken"] for s in data["room"]["seats"]] == [True, False, True, False]
    status, joined = await guest.post(f"/api/games/{game_id}/join")
    assert joined["seats"] == [2]
    bad = await host.post(f"/api/games/{game_id}/seats", {"swaps": [[0, 9]]})
    assert bad[0] == 422
    # fill the table: the deal starts and seats are frozen
    for _ in range(2):
        await (await Browser.new(module_server)).post(f"/api/games/{game_id}/join")
    status, data = await host.post(f"/api/games/{game_id}/seats", {"swaps": [[0, 1]]})
    assert status == 403 and data["error"]["code"] == "not_allowed"
    status, summary = await host.get(f"/api/games/{game_id}")
    assert summary["status"] == "playing"


async def test_computer_and_local_games_start_at_once_and_are_grouped(module_server):
    browser = await Browser.new(module_server)
    computer = await browser.create(variant="bela", players=3, mode="computer", level="easy")
    local = await browser.create(variant="duel", mode="local")
    status, me = await browser.get("/api/me")
    assert [g["game_id"] for g in me["grouped"]["computer"]] == [computer]
    assert [g["game_id"] for g in me["grouped"]["local"]] == [local]
    assert me["grouped"]["friends"] == []
    assert {g["game_id"] for g in me["games"]} == {computer, local}
    status, summary = await browser.get(f"/api/games/{computer}")
    assert summary["status"] == "playing"
    assert [s["kind"] for s in summary["seats"]] == ["human", "bot", "bot"]
    assert [s["level"] for s in summary["seats"]] == [None, "easy", "easy"]
    sock = await browser.connect(local)
    assert sorted(sock.seats) == [0, 1] and set(sock.views) == {"0", "1"}
    # someone else opening a local game's link is a spectator, never a player
    other = await Browser.new(module_server)
    status, joined = await other.post(f"/api/games/{local}/join")
    assert joined["role"] == "spectator"


async def test_unknown_game(module_server):
    browser = await Browser.new(module_server)
    status, data = await browser.get("/api/games/AAAAAAAAAAAAAAAAAAAAAA")
    assert status == 404 and data["error"]["code"] == "not_found"
    status, data = await browser.post("/api/games/AAAAAAAAAAAAAAAAAAAAAA/join")
    assert status == 404
    sock = await browser.connect("AAAAAAAAAAAAAAAAAAAAAA", read_state=False)
    msg = await sock.recv()
    assert msg["code"] == "not_found"


async def test_socket_without_identity_is_refused(module_server):
    host = await Browser.new(module_server)
    game_id = await host.create(variant="duel", mode="computer")
    anonymous = Browser(module_server)
    sock = await anonymous.connect(game_id, read_state=False)
    msg = await sock.recv()
    assert msg["code"] == "no_identity"
    await asyncio.sleep(0)
