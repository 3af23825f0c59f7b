"""What a player sees works when his requests reach different processes: games played through
the proxy on rooms owned by different processes, "your games", a rename, a rematch, a
transfer code, XP and the ranking; a room is never served by a process that does not own it.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from bench.cluster import Cluster
from tests.scale.table import RECONNECT_WITHIN, Table, check_history, new_friends_table, owner_of
from tests.web.wsclient import Browser

pytestmark = pytest.mark.db


async def test_friends_and_computer_games_on_different_processes(
    make_cluster: Any, migrated_database_url: str
) -> None:
    cluster: Cluster = make_cluster(3)
    me = await Browser.new(cluster)
    owners: dict[str, str] = {}
    tables: list[Table] = []
    for i in range(12):  # until this browser's rooms live on at least two processes
        table = await new_friends_table(cluster, "classic", seed=i, host=me)
        tables.append(table)
        owners[table.game_id] = (await owner_of(migrated_database_url, table.game_id))[0]
        if len(set(owners.values())) >= 2:
            break
    assert len(set(owners.values())) >= 2
    computer = await me.create(variant="coinche", mode="computer", level="easy")
    sock = await me.connect(computer)
    rng = random.Random(3)
    acks = 0
    errors: list[dict[str, Any]] = []
    while acks < 6:  # the bots play on the room's owner, the human through the proxy
        await sock.until(
            lambda s: s.view is not None and s.view["to_act"] in s.seats and bool(s.legal()),
            timeout=20,
        )
        await sock.play_random(rng)
        answer = await sock.next_of("ack", "error")
        if answer["type"] == "ack":
            acks += 1
        else:
            errors.append(answer)
            assert len(errors) < 20, errors
    for table in tables:
        await table.play(6)
    assert sock.version > 1
    assert (await owner_of(migrated_database_url, computer))[0] in {n.name for n in cluster.nodes}


async def test_a_room_is_only_served_by_its_owner(
    make_cluster: Any, migrated_database_url: str
) -> None:
    """A request for a room that reaches a process other than its owner is refused (503, or
    close 4002 for a socket) and asks the owner to hand the room over: the owner closes its
    sockets (4001) and releases the lease, and the room is served by one process at a time,
    wherever the players are sent."""
    cluster: Cluster = make_cluster(2)
    table = await new_friends_table(cluster, "duel", seed=1)
    owner, epoch = await owner_of(migrated_database_url, table.game_id)
    other = next(n for n in cluster.nodes if n.name != owner)
    player = table.players[0].browser
    async with httpx.AsyncClient(base_url=other.base_url, timeout=10) as client:
        page = await client.get(f"/g/{table.game_id}")
        assert page.status_code == 503 and int(page.headers["Retry-After"]) >= 1
        # the owner lets go; then this process loads the room, under a new epoch
        deadline = time.monotonic() + RECONNECT_WITHIN
        while True:
            response = await client.get(
                f"/api/games/{table.game_id}", headers={"Cookie": f"atout_id={player.token}"}
            )
            if response.status_code == 200 or time.monotonic() > deadline:
                break
            assert response.status_code == 503
            assert response.json()["error"]["code"] == "owned_elsewhere"
            assert int(response.headers["Retry-After"]) >= 1
            await asyncio.sleep(0.2)
        assert response.status_code == 200, response.text
    new_owner, new_epoch = await owner_of(migrated_database_url, table.game_id)
    assert new_owner == other.name and new_epoch == epoch + 1
    # the players, sent by the proxy to the old owner, get the room back there and go on
    await table.connect_all(within=3 * RECONNECT_WITHIN)
    await table.play(2)
    await check_history(migrated_database_url, table)


async def test_your_games_rename_transfer_rematch_and_ranking_across_processes(
    make_cluster: Any, migrated_database_url: str
) -> None:
    cluster: Cluster = make_cluster(2)
    a_node, b_node = cluster.nodes
    table = await new_friends_table(cluster, "coinche", seed=7, options={"target": "one_deal"})
    host, guest = (p.browser for p in table.players[:2])
    extra = await host.create(variant="classic", mode="friends")

    # "your games": the same list from either process
    for node in cluster.nodes:
        status, me = await Browser(node, host.token).get("/api/me")
        assert status == 200
        assert {g["game_id"] for g in me["games"]} == {table.game_id, extra}

    # a rename on the process that does not own the room reaches the table on its owner
    owner, _ = await owner_of(migrated_database_url, table.game_id)
    elsewhere = next(n for n in cluster.nodes if n.name != owner)
    status, _body = await Browser(elsewhere, guest.token).post("/api/me/name", {"name": "Zoé"})
    assert status == 200
    host_sock = table.players[0].sock
    assert host_sock is not None
    await host_sock.until(lambda s: s.room["seats"][1]["name"] == "Zoé", timeout=10)

    # play the match (one deal) to its end, then everyone wants a rematch
    await table.play(200)
    assert table.view["phase"] == "match_over"
    for player in table.players:
        assert player.sock is not None
        await player.sock.send({"type": "consent", "kind": "rematch", "id": "r"})
    rematch = await host_sock.next_of("rematch")
    new_id = rematch["game_id"]
    again = await host.connect(new_id)  # through the proxy, wherever it hashes
    assert again.room["status"] == "playing" and again.seats == [0]
    for node in cluster.nodes:
        status, me = await Browser(node, guest.token).get("/api/me")
        assert new_id in {g["game_id"] for g in me["games"]}
        status, profile = await Browser(node, guest.token).get("/api/me/profile")
        assert status == 200 and profile["games"] >= 1 and profile["name"] == "Zoé"

    # the ranking is the same from each process
    rankings = [await Browser(n, None).get("/api/ranking/classic") for n in cluster.nodes]
    assert rankings[0] == rankings[1] and rankings[0][0] == 200

    # a transfer code made on one process, claimed on the other: the old browser's token is
    # unknown on both, even where it was cached, and its open sockets close
    for node in cluster.nodes:  # each process has the host's token in its cache
        assert (await Browser(node, host.token).get("/api/me"))[1]["games"]
    status, code = await Browser(a_node, host.token).post("/api/me/transfer")
    assert status == 201
    phone = await Browser.new(b_node)
    status, claimed = await phone.post("/api/me/claim", {"code": code["code"]})
    assert status == 200, claimed
    for node in cluster.nodes:
        status, me = await Browser(node, phone.token).get("/api/me")
        assert new_id in {g["game_id"] for g in me["games"]}

    async def old_token_unknown(node: Any) -> bool:
        status, me = await Browser(node, host.token).get("/api/me")
        return status == 200 and not me["games"]

    for node in cluster.nodes:
        for _ in range(50):
            if await old_token_unknown(node):
                break
            await asyncio.sleep(0.1)
        assert await old_token_unknown(node), node.name
    try:
        while True:
            await again.recv(timeout=10)
    except ConnectionClosed:
        pass
    assert again.close_code == 1008
