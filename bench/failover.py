"""``atout bench failover``: kill (and freeze) the process that owns a room, again and again.

    atout bench failover --kills 100 --freezes 20 --database-url postgresql+asyncpg://...

Three ``atout serve`` processes on the PostgreSQL database, HAProxy in front
(deploy/haproxy.cfg, bench/cluster.py), and one friends table of four browsers playing
random moves through the proxy. Each round plays a few moves (sometimes leaving one in
flight), SIGKILLs the process holding the room's lease, waits for the four clients to reconnect
through the proxy and for the next move to be acknowledged, and starts the killed process
again. At the end it reads the game back from the database and reports:

* acknowledged moves lost: acked by a server, not in the record at their version (must be 0);
* forks: a gap or a repeat in the actions' numbering, a record that does not replay, a
  client that saw two different moves at one version (must be 0);
* recovery: from the SIGKILL to the first move acknowledged after it (p50, p99, max).

With ``--freezes N`` it then freezes the owner N times instead of killing it, half of them at a
random moment (SIGSTOP) and half inside a transaction, its lease row locked (the test hook
``ATOUT_TEST_HOOKS=1``: the next room write stops itself with SIGSTOP, app/persistence/
freeze.py), keeps it frozen until the table is served again by another process, then wakes it
(SIGCONT). It reports the time from the freeze to the first move acknowledged after it, and how
many of the freezes were served again within ``ATOUT_LEASE_SECONDS`` + 2 s (the promise of
docs/scaling.md).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.cluster import Cluster, ClusterError
from bench.table_client import TableState

SubParsers = Any


def add_bench(bench: SubParsers) -> None:
    p = bench.add_parser(
        "failover",
        help="SIGKILL the owner of a room N times: acknowledged moves lost, forks, recovery",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("--kills", type=int, default=100, help="SIGKILLs (default 100)")
    p.add_argument(
        "--freezes",
        type=int,
        default=0,
        help="SIGSTOPs of the owner after the kills, half inside a transaction (default 0)",
    )
    p.add_argument("--nodes", type=int, default=3, help="atout serve processes (default 3)")
    p.add_argument("--lease-seconds", type=float, default=5.0, help="ATOUT_LEASE_SECONDS")
    p.add_argument("--variant", default="coinche", help="variant of the table (default coinche)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--database-url", required=True, help="PostgreSQL: postgresql+asyncpg://...")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=cmd_bench_failover)


def cmd_bench_failover(args: argparse.Namespace) -> int:
    from app.persistence.db import is_sqlite

    if is_sqlite(args.database_url) or args.kills < 1 or args.freezes < 0:
        print(
            "atout: bench failover needs PostgreSQL, --kills >= 1 and --freezes >= 0",
            file=sys.stderr,
        )
        return 2
    try:
        results = asyncio.run(run(args))
    except ClusterError as exc:
        print(f"atout: bench failover: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_results(results)
    frozen = results["freezes"]
    late = frozen["count"] - frozen["served_within_lease_plus_2s"]
    return 0 if results["lost"] == 0 and results["forks"] == 0 and late == 0 else 1


# ----------------------------------------------------------------------------- clients


class Closed(Exception):
    """The client's socket closed (the process died, or the room moved)."""


class Client(TableState):
    """One browser: its cookie, its socket, what it saw (bench/table_client.py
    ``TableState``, updates checked in order), and the events each version brought."""

    def __init__(self, base: str, cookie: str) -> None:
        super().__init__()
        self.base, self.cookie = base, cookie
        self.ws: Any = None
        self.events_at: dict[int, str] = {}  # version -> the events it brought

    async def connect(self, game_id: str, within: float, open_timeout: float = 5.0) -> None:
        import websockets

        if self.ws is not None:
            old, self.ws = self.ws, None
            # the old socket is gone anyway: drop it without a closing handshake, which a
            # frozen peer would never answer
            with contextlib.suppress(Exception):
                old.transport.abort()
        deadline = time.monotonic() + within
        delay = 0.05
        while True:
            try:
                ws = await websockets.connect(
                    f"{self.base.replace('http', 'ws', 1)}/ws/{game_id}",
                    additional_headers={"Cookie": f"atout_id={self.cookie}"},
                    max_size=2**22,
                    open_timeout=open_timeout,
                    ping_interval=None,
                )
                self.ws = ws
                await self.recv_state()
                return
            except (OSError, TimeoutError, Closed, websockets.exceptions.WebSocketException):
                if time.monotonic() > deadline:
                    raise
            await asyncio.sleep(delay)
            delay = min(0.4, delay * 2)

    async def recv(self, timeout: float = 10) -> dict[str, Any]:
        import websockets

        try:
            raw = await asyncio.wait_for(self.ws.recv(), timeout)
        except websockets.exceptions.ConnectionClosed as exc:
            raise Closed() from exc
        msg: dict[str, Any] = json.loads(raw)
        if self.seen(msg) == "update":  # OutOfOrder when it is not the next version
            events = json.dumps(msg.get("events"), sort_keys=True)
            if self.events_at.setdefault(self.version, events) != events:
                raise ForkSeen(self.version)
        return msg

    async def recv_state(self) -> None:
        msg = await self.recv(5)
        if msg["type"] != "state":
            raise Closed()

    async def until(self, version: int, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while self.version < version:
            await self.recv(max(0.01, deadline - time.monotonic()))

    def my_turn(self) -> bool:
        view = self.view or {}
        return bool(view.get("legal")) and view.get("to_act") in self.seats


class ForkSeen(AssertionError):
    """Two different updates were seen at one version: the history forked."""


@dataclass
class Table:
    game_id: str
    clients: list[Client]
    rng: random.Random
    acked: dict[str, int] = field(default_factory=dict)
    ids: int = 0
    last_error: str = ""  # the last refusal of a move, for a failure's message

    async def connect(self, within: float, open_timeout: float = 5.0) -> None:
        deadline = time.monotonic() + within
        for client in self.clients:
            await client.connect(self.game_id, max(0.5, deadline - time.monotonic()), open_timeout)
        top = max(c.version for c in self.clients)
        for client in self.clients:
            await client.until(top)

    def phase(self) -> str:
        return str((self.clients[0].view or {}).get("phase"))

    def where(self) -> str:
        """Where the table stands, for a failure's message."""
        views = [c.view or {} for c in self.clients]
        return (
            f"game {self.game_id}, phase {self.phase()}, versions "
            f"{[c.version for c in self.clients]}, to act {[v.get('to_act') for v in views]}, "
            f"last refusal {self.last_error or 'none'}"
        )

    async def move(self, *, in_flight: bool = False) -> int | None:
        """One move (or every player's Continue); the version acknowledged, if any."""
        if self.phase() == "deal_over":
            before = self.clients[0].version
            for client in self.clients:
                await client.ws.send(json.dumps({"type": "consent", "kind": "next_deal"}))
            for client in self.clients:
                await client.until(before + 1)
            return None
        mover = next((c for c in self.clients if c.my_turn()), None)
        if mover is None:
            await self.clients[0].recv()
            return None
        self.ids += 1
        msg_id = f"f{self.ids}"
        action = self.rng.choice(mover.view["legal"])  # type: ignore[index]
        await mover.ws.send(
            json.dumps({"type": "action", "id": msg_id, "version": mover.version, "action": action})
        )
        if in_flight:
            return None  # the kill races the commit; an ack that was never read does not count
        while True:
            msg = await mover.recv()
            if msg["type"] == "ack" and msg["id"] == msg_id:
                self.acked[msg_id] = int(msg["version"])
                for client in self.clients:
                    await client.until(int(msg["version"]))
                return int(msg["version"])
            if msg["type"] == "error" and msg.get("id") == msg_id:
                self.last_error = f"{msg.get('code')}: {msg.get('message')}"
                # refused (paused while a player reconnects, stale): try again a little later,
                # never in a tight loop that the server's rate limit would close
                await asyncio.sleep(0.05)
                return None


async def step(table: Table) -> int | None:
    """``table.move()``, reconnecting when a socket was closed meanwhile: a room that moved
    back to a process that woke up or restarted closes its sockets with 4001 (a handover),
    and the clients reconnect through the proxy, as browsers do."""
    import websockets

    try:
        version = await table.move()
    except (Closed, websockets.exceptions.ConnectionClosed):
        await table.connect(60, open_timeout=1.0)
        return None
    if version is None and table.last_error.startswith("paused"):
        # another player's socket was closed meanwhile (a handover: 4001) and the room waits
        # for that player: reconnect the table, as that player's browser would
        table.last_error = ""
        await table.connect(60, open_timeout=1.0)
    return version


async def new_table(base: str, variant: str, rng: random.Random) -> Table:
    import httpx

    cookies = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        for _ in range(4):
            response = await http.post("/api/me")
            cookies.append(response.cookies["atout_id"])
            http.cookies.clear()
        created = await http.post(
            "/api/games",
            json={"variant": variant, "mode": "friends", "options": {"target": 5000}},
            headers={"Cookie": f"atout_id={cookies[0]}"},
        )
        game_id = created.json()["game_id"]
        for cookie in cookies:
            http.cookies.clear()
            await http.post(f"/api/games/{game_id}/join", headers={"Cookie": f"atout_id={cookie}"})
    table = Table(game_id, [Client(base, c) for c in cookies], rng)
    await table.connect(30)
    return table


# ----------------------------------------------------------------------------- the run


async def owner_of(database_url: str, game_id: str) -> str:
    import asyncpg

    from app.persistence.notify import asyncpg_dsn

    conn = await asyncpg.connect(asyncpg_dsn(database_url))
    try:
        return str(await conn.fetchval("SELECT owner FROM room_leases WHERE game_id=$1", game_id))
    finally:
        await conn.close()


async def check(database_url: str, table: Table) -> tuple[int, int, int]:
    """(acknowledged moves lost, forks, actions stored) from the game's rows."""
    from app.engine.record import replay
    from app.persistence import repository as repo
    from app.persistence.db import create_engine_from_url, create_sessionmaker

    engine = create_engine_from_url(database_url)
    try:
        async with create_sessionmaker(engine)() as session:
            game = await repo.load_game(session, table.game_id)
    finally:
        await engine.dispose()
    assert game is not None
    forks = 0
    if [a.seq for a in game.actions] != list(range(len(game.actions))):
        forks += 1
    record = game.record()
    try:
        if record is not None:
            replay(record)
    except Exception:  # noqa: BLE001 - a record that does not replay is a fork
        forks += 1
    versions: dict[str, int] = {}
    version = 0
    by_deal: dict[int, list[Any]] = {}
    for a in game.actions:
        by_deal.setdefault(a.deal_number, []).append(a)
    for d in game.deals:
        version += 1
        for a in by_deal.get(d.number, []):
            version += 1
            if a.client_id is not None:
                versions[a.client_id] = version
    lost = sum(1 for k, v in table.acked.items() if versions.get(k) != v)
    return lost, forks, len(game.actions)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import websockets

    from bench.load import machine

    workdir = Path(tempfile.mkdtemp(prefix="atout-failover-"))
    rng = random.Random(args.seed)
    cluster = Cluster(
        workdir,
        args.database_url,
        args.nodes,
        env={
            "ATOUT_TEST_HOOKS": "1" if args.freezes else "0",
            "ATOUT_LEASE_SECONDS": str(args.lease_seconds),
            "ATOUT_LOG_LEVEL": "INFO",
            "ATOUT_NEXT_DEAL_SECONDS": "30",
            "ATOUT_WS_RATE": "500",
            "ATOUT_WS_BURST": "500",
        },
    )
    recoveries: list[float] = []
    freezes: list[tuple[float, bool]] = []  # (freeze to next acknowledged move, in a transaction)
    forks_seen = 0
    tables: list[Table] = []
    started = time.monotonic()
    load_before = os.getloadavg()
    await asyncio.to_thread(cluster.start)
    try:
        table = await new_table(cluster.base_url, args.variant, rng)
        tables.append(table)
        for _ in range(args.kills):
            for _ in range(rng.randint(1, 5)):
                if table.phase() == "match_over":
                    break
                await step(table)
            if table.phase() == "match_over":
                table = await new_table(cluster.base_url, args.variant, rng)
                tables.append(table)
            owner = await owner_of(args.database_url, table.game_id)
            node = cluster.node_of(owner)
            if rng.random() < 0.5:
                await table.move(in_flight=True)
            node.kill()
            killed = time.monotonic()
            try:
                async with asyncio.timeout(120):  # a round that never recovers is a failure
                    await table.connect(30)
                    while await step(table) is None:
                        if table.phase() == "match_over":
                            break
            except TimeoutError as exc:
                raise ClusterError(
                    f"no recovery within 120 s after a kill: {table.where()}"
                ) from exc
            except ForkSeen:
                forks_seen += 1
                await table.connect(30)
            recoveries.append(time.monotonic() - killed)
            await asyncio.to_thread(node.start)
        for i in range(args.freezes):
            for _ in range(rng.randint(1, 5)):
                if table.phase() == "match_over":
                    break
                await step(table)
            if table.phase() == "match_over":
                table = await new_table(cluster.base_url, args.variant, rng)
                tables.append(table)
            owner = await owner_of(args.database_url, table.game_id)
            node = cluster.node_of(owner)
            in_transaction = i % 2 == 1
            if in_transaction:
                # a player to act, so that the next room write is this move's
                while not any(c.my_turn() for c in table.clients):
                    await step(table)
                node.freeze_in_write()
                try:
                    await table.move(in_flight=True)  # its write stops, the row locked
                except (Closed, websockets.exceptions.ConnectionClosed):
                    # a handover closed the socket just now: send the move again
                    await table.connect(60, open_timeout=1.0)
                    await table.move(in_flight=True)
                frozen_at = time.monotonic()
                while not node.stopped():
                    await asyncio.sleep(0.005)
                    if time.monotonic() - frozen_at > 10:
                        raise ClusterError("the owner never reached the freeze point")
            else:
                await asyncio.sleep(rng.random() * args.lease_seconds)
                node.freeze()
                frozen_at = time.monotonic()
            try:
                async with asyncio.timeout(120):  # a round that never recovers is a failure
                    await table.connect(60, open_timeout=1.0)
                    while await step(table) is None:
                        if table.phase() == "match_over":
                            break
            except TimeoutError as exc:
                raise ClusterError(
                    f"no recovery within 120 s after a freeze: {table.where()}"
                ) from exc
            except ForkSeen:
                forks_seen += 1
                await table.connect(60, open_timeout=1.0)
            finally:
                served = time.monotonic() - frozen_at
                node.thaw()
            freezes.append((served, in_transaction))
        lost = forks = actions = 0
        for t in tables:
            one = await check(args.database_url, t)
            lost, forks, actions = lost + one[0], forks + one[1], actions + one[2]
    except BaseException:
        await asyncio.to_thread(cluster.stop)
        print(f"atout: bench failover: the processes' logs are kept in {workdir}", file=sys.stderr)
        raise
    else:
        await asyncio.to_thread(cluster.stop)
        shutil.rmtree(workdir, ignore_errors=True)
    recoveries.sort()
    bound = args.lease_seconds + 2.0
    frozen = sorted(t for t, _ in freezes)
    return {
        "freezes": {
            "count": len(freezes),
            "in_transaction": sum(1 for _, inside in freezes if inside),
            "served_within_lease_plus_2s": sum(1 for t in frozen if t <= bound),
            "bound_s": bound,
            "p50": round(statistics.median(frozen), 3) if frozen else None,
            "max": round(frozen[-1], 3) if frozen else None,
            "max_in_transaction": round(max((t for t, i in freezes if i), default=0.0), 3),
        },
        "kills": args.kills,
        "nodes": args.nodes,
        "lease_seconds": args.lease_seconds,
        "tables": len(tables),
        "acknowledged": sum(len(t.acked) for t in tables),
        "actions_stored": actions,
        "lost": lost,
        "forks": forks + forks_seen,
        "recovery_s": {
            "p50": round(statistics.median(recoveries), 3),
            "p99": round(recoveries[min(len(recoveries) - 1, int(0.99 * len(recoveries)))], 3),
            "max": round(recoveries[-1], 3),
        },
        "seconds": round(time.monotonic() - started, 1),
        "machine": {**machine(), "load_average_before": [round(x, 2) for x in load_before]},
    }


def print_results(r: dict[str, Any]) -> None:
    m = r["machine"]
    print(f"machine: {m['cpus']} x {m['cpu']}, load average before {m['load_average_before']}")
    print(
        f"{r['kills']} kills of the owner ({r['nodes']} processes, lease {r['lease_seconds']} s), "
        f"{r['tables']} table(s), {r['seconds']} s"
    )
    print(
        f"acknowledged moves {r['acknowledged']}, actions stored {r['actions_stored']}: "
        f"lost {r['lost']}, forks {r['forks']}"
    )
    rec = r["recovery_s"]
    print(
        f"recovery (kill to next acknowledged move): p50 {rec['p50']} s, p99 {rec['p99']} s, max {rec['max']} s"
    )
    f = r["freezes"]
    if f["count"]:
        print(
            f"{f['count']} freezes ({f['in_transaction']} inside a transaction): served again "
            f"within lease + 2 s ({f['bound_s']} s) in {f['served_within_lease_plus_2s']} of "
            f"{f['count']}; freeze to next acknowledged move p50 {f['p50']} s, max {f['max']} s "
            f"(inside a transaction: max {f['max_in_transaction']} s)"
        )
