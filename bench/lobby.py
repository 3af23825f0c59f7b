"""``atout bench lobby``: what the lobby's watchers cost the games, and how fast they hear.

    atout bench lobby --watchers 1000 --public 500 --tables 50 --changes 20

It starts a server (``atout serve``, a fresh SQLite database unless ``--database-url``) and:

* ``--tables`` private friends tables of four clients playing random moves, each ``--pace``
  seconds after its turn came (the clients of ``atout bench load``);
* ``--public`` public tables waiting for players, each with its host connected; ``--changes``
  times a second a host seats a computer player in a free seat, or frees it again (the
  waiting room's ``seat_bot`` / ``free_seat``), so that the table's lobby entry changes.

Two windows of ``--duration`` seconds, in the same run: first without lobby watchers, then
with ``--watchers`` home pages holding ``/ws/lobby``. It reports the games' move latency
(from a move sent until all four seats have it, p50/p99) in each window, and, in the second,
the lobby's update latency: from a host's seat change sent until every watcher has the
changed ``lobby_table`` (p50/p99/max), and per watcher delivery. The watchers run in processes
of their own (``--watcher-processes``), so that reading their messages does not slow the game
clients down.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path
from typing import Any

import orjson

from bench import checkout_env
from bench.load import (
    AtoutClient,
    BenchError,
    Process,
    Stats,
    Table,
    _loop_factory,
    _percentile,
    _start,
    cpu_seconds,
    free_port,
    machine,
    setup_table,
)

SubParsers = Any


def add_bench(bench: SubParsers) -> None:
    p = bench.add_parser(
        "lobby",
        help="lobby watchers: their cost to the games' moves, and their update latency",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("--watchers", type=int, default=1000, help="lobby sockets (default 1000)")
    p.add_argument("--public", type=int, default=500, help="public tables (default 500)")
    p.add_argument("--tables", type=int, default=50, help="playing tables of 4 (default 50)")
    p.add_argument("--pace", type=float, default=1.0, help="seconds before a move (default 1)")
    p.add_argument(
        "--changes", type=float, default=20.0, help="seat changes per second (default 20)"
    )
    p.add_argument("--duration", type=float, default=30.0, help="seconds per window (default 30)")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds before each window")
    p.add_argument("--database-url", help="database of the server (default: temporary SQLite)")
    p.add_argument(
        "--watcher-processes", type=int, default=2, help="processes the watchers run in (default 2)"
    )
    p.add_argument(
        "--watcher-nice",
        type=int,
        default=10,
        help="niceness of the watcher processes (default 10): on a machine that runs the "
        "server and every client, reading 1,000 watchers' frames must not take the CPU from "
        "the game clients and show as the server's latency; 0 to share the CPU evenly",
    )
    p.add_argument("--setup-concurrency", type=int, default=32, help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=cmd_bench_lobby)


def cmd_bench_lobby(args: argparse.Namespace) -> int:
    if args.watchers < 1 or args.public < 1 or args.changes <= 0 or args.duration <= 0:
        print("atout: --watchers, --public >= 1; --changes, --duration > 0", file=sys.stderr)
        return 2
    try:
        with asyncio.Runner(loop_factory=_loop_factory()) as runner:
            results = runner.run(run(args))
    except BenchError as exc:
        print(f"atout: bench lobby: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_results(results)
    return 0


# ----------------------------------------------------------------------------- the server


async def start_server(workdir: Path, args: argparse.Namespace) -> Process:
    from app.persistence.migrate import upgrade_head

    port = free_port()
    url = args.database_url or f"sqlite+aiosqlite:///{workdir / 'atout.db'}"
    upgrade_head(url)
    env = {
        "ATOUT_DATABASE_URL": url,
        "ATOUT_PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ATOUT_LOG_LEVEL": "WARNING",
        "ATOUT_BOT_WORKERS": "0",
        "ATOUT_IDLE_ROOM_SECONDS": "3600",
        "ATOUT_BACKUP_HOURS": "0",  # no automatic backup in the middle of a measurement
        # the public tables wait for players the whole run: only the hosts change their seats
        "ATOUT_PUBLIC_FILL_SECONDS": "3600",
        "ATOUT_PUBLIC_TABLES_PER_HOUR": "100000",
        "ATOUT_WS_RATE": "1000",
        "ATOUT_WS_BURST": "1000",
    }
    command = ["-m", "app", "serve", "--host", "127.0.0.1", "--port", str(port)]
    return await _start(workdir / "server.log", port, command, env)


# ----------------------------------------------------------------------------- seat changes

COOLDOWN = 3.0  # seconds before a table's seat changes again: each change is told apart


@dataclass
class Change:
    game_id: str
    kind: str  # what the changed seat shows in the lobby: "computer" or "free"
    sent: float  # time.monotonic(), the same clock in every process of the machine


class Host:
    """The host of one public table, holding its socket: seats a computer in seat 1 and frees
    it again."""

    def __init__(self, ws_base: str, cookie: str, game_id: str) -> None:
        self.ws_base, self.cookie, self.game_id = ws_base, cookie, game_id
        self.ws: Any = None
        self.bot = False
        self.ids = 0
        self.changed_at = 0.0

    async def connect(self) -> None:
        import websockets

        self.ws = await websockets.connect(
            f"{self.ws_base}/ws/{self.game_id}",
            additional_headers={"Cookie": f"atout_id={self.cookie}"},
            max_size=2**22,
            open_timeout=60,
            ping_interval=None,
        )
        self._drainer = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        with contextlib.suppress(Exception):
            async for _ in self.ws:
                pass

    async def change(self) -> str:
        self.ids += 1
        if self.bot:
            message = {"type": "free_seat", "seat": 1, "id": f"h{self.ids}"}
        else:
            message = {"type": "seat_bot", "seat": 1, "level": "easy", "id": f"h{self.ids}"}
        self.bot = not self.bot
        self.changed_at = time.monotonic()
        await self.ws.send(json.dumps(message))
        return "computer" if self.bot else "free"


async def change_seats(
    hosts: list[Host], changes: list[Change], rate: float, stop: asyncio.Event, rng: random.Random
) -> None:
    interval = 1.0 / rate
    next_at = time.monotonic()
    while not stop.is_set():
        next_at = max(next_at + interval, time.monotonic() - 1.0)  # no burst after a stall
        now = time.monotonic()
        idle = [h for h in rng.sample(hosts, min(len(hosts), 16)) if now - h.changed_at > COOLDOWN]
        if idle:
            host = idle[0]
            sent = time.monotonic()
            kind = await host.change()
            changes.append(Change(host.game_id, kind, sent))
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))


# ----------------------------------------------------------------------------- watchers
#
# The watchers run in processes of their own (``--watcher-processes``), so that reading their
# messages does not slow the game clients down and show as the server's latency. Each keeps, per
# watcher, when it heard each table's seat 1 change (time.monotonic(): one clock for the whole
# machine), and writes it out when told to stop.


def watcher_main() -> None:
    """``python -c 'from bench.lobby import watcher_main; watcher_main()' WS COUNT OUT``"""
    ws_base, count, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        runner.run(_watchers(ws_base, count, Path(out)))


class _Watch(asyncio.Protocol):
    """One lobby watcher on the websockets library's sans-I/O client: no task, no stream;
    each frame is read where it arrives (the load generator must cost less than the server it
    measures)."""

    def __init__(self, uri: Any, log: list[tuple[str, str, float]], ready: asyncio.Future[Any]):
        from websockets.client import ClientProtocol

        self.conn = ClientProtocol(uri, max_size=2**24)
        self.log = log
        self.ready = ready
        self.first = True
        self.transport: Any = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.conn.send_request(self.conn.connect())
        transport.write(b"".join(self.conn.data_to_send()))

    def data_received(self, data: bytes) -> None:
        from websockets.frames import Frame, Opcode

        now = time.monotonic()
        self.conn.receive_data(data)
        for event in self.conn.events_received():
            if not isinstance(event, Frame) or event.opcode is not Opcode.TEXT:
                continue
            msg = orjson.loads(event.data)
            if self.first:
                self.first = False
                if msg.get("type") != "lobby":
                    self.ready.set_exception(BenchError(f"the lobby began with {msg.get('type')}"))
                else:
                    self.ready.set_result(None)
            elif msg.get("type") == "lobby_table":
                table = msg["table"]
                self.log.append((table["game_id"], table["seats"][1]["kind"], now))
        out = self.conn.data_to_send()
        if out:
            self.transport.write(b"".join(out))

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ready.done():
            self.ready.set_exception(BenchError("a watcher's connection was lost"))


async def _watchers(ws_base: str, count: int, out: Path) -> None:
    from websockets.uri import parse_uri

    uri = parse_uri(f"{ws_base}/ws/lobby")
    loop = asyncio.get_running_loop()
    heard: list[list[tuple[str, str, float]]] = [[] for _ in range(count)]
    transports = []
    for start in range(0, count, 50):  # a few at a time: each first gets the whole list
        readies = []
        for index in range(start, min(count, start + 50)):
            ready: asyncio.Future[Any] = loop.create_future()
            log = heard[index]
            transport, _ = await loop.create_connection(
                functools.partial(_Watch, uri, log, ready), uri.host, uri.port
            )
            transports.append(transport)
            readies.append(ready)
        await asyncio.wait_for(asyncio.gather(*readies), 120)
    print("ready", flush=True)
    await loop.run_in_executor(None, sys.stdin.readline)
    for transport in transports:
        transport.abort()
    out.write_bytes(orjson.dumps(heard))


async def start_watchers(
    ws_base: str, total: int, processes: int, workdir: Path, nice: int = 0
) -> list[Any]:
    procs = []
    for i in range(processes):
        count = total // processes + (1 if i < total % processes else 0)
        out = workdir / f"watchers-{i}.json"
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            "from bench.lobby import watcher_main; watcher_main()",
            ws_base,
            str(count),
            str(out),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=checkout_env(),
            preexec_fn=(lambda: os.nice(nice)) if nice else None,
        )
        procs.append((proc, out))
    for proc, _ in procs:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 600)
        if line.strip() != b"ready":
            raise BenchError("a watcher process did not start")
    return procs


async def stop_watchers(procs: list[Any]) -> list[list[list[Any]]]:
    heard = []
    for proc, out in procs:
        assert proc.stdin is not None
        proc.stdin.write(b"stop\n")
        await proc.stdin.drain()
        await proc.wait()
        heard.extend(orjson.loads(out.read_bytes()))
    return heard


def lobby_latency(changes: list[Change], heard: list[list[list[Any]]]) -> dict[str, Any]:
    """For each change: when each watcher first heard the table's seat 1 as changed (at or
    after the change was sent); complete when every watcher did."""
    import bisect

    indexed = []
    for log in heard:
        by_game: dict[tuple[str, str], list[float]] = {}
        for game_id, kind, at in log:
            by_game.setdefault((game_id, kind), []).append(at)
        indexed.append(by_game)
    every: list[float] = []
    one: list[float] = []
    missing = 0
    for change in changes:
        worst = 0.0
        complete = True
        for by_game in indexed:
            times = by_game.get((change.game_id, change.kind), [])
            i = bisect.bisect_left(times, change.sent)
            if i == len(times) or times[i] - change.sent > COOLDOWN:
                complete = False
                continue
            delay = times[i] - change.sent
            one.append(delay)
            worst = max(worst, delay)
        if complete:
            every.append(worst)
        else:
            missing += 1
    return {
        "every_watcher_p50": round(1000 * _percentile(every, 0.5), 2),
        "every_watcher_p99": round(1000 * _percentile(every, 0.99), 2),
        "every_watcher_max": round(1000 * max(every), 2) if every else None,
        "delivery_p50": round(1000 * _percentile(one, 0.5), 2),
        "delivery_p99": round(1000 * _percentile(one, 0.99), 2),
        "changes_measured": len(every),
        "changes_not_heard_by_all": missing,
        "deliveries": len(one),
    }


# ----------------------------------------------------------------------------- the run


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="atout-bench-lobby-") as tmp:
        server = await start_server(Path(tmp), args)
        try:
            result = await measure(server, args, Path(tmp))
        finally:
            server.stop()
    result["machine"] = machine()
    result["settings"] = {
        k: getattr(args, k)
        for k in ("watchers", "public", "tables", "pace", "changes", "duration", "warmup")
    }
    return result


async def _public_table(base: str, http: Any) -> tuple[str, str]:
    response = await http.post(base + "/api/me")
    cookie = response.headers.get("set-cookie", "").split(";", 1)[0].split("=", 1)[1]
    made = await http.post(
        base + "/api/games",
        json={"variant": "classic", "mode": "friends", "public": True},
        headers={"Cookie": f"atout_id={cookie}"},
    )
    if made.status_code != 201:
        raise BenchError(f"cannot create a public table: {made.text}")
    return cookie, str(made.json()["game_id"])


async def measure(server: Process, args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    import httpx

    base = server.base_url
    ws_base = base.replace("http://", "ws://")
    rng = random.Random(7)
    stats = Stats()
    stop = asyncio.Event()
    no_jar = CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))
    semaphore = asyncio.Semaphore(args.setup_concurrency)
    async with httpx.AsyncClient(timeout=60, cookies=no_jar) as http:

        async def limited(make: Any) -> Any:
            async with semaphore:
                return await make()

        games = await asyncio.gather(
            *(limited(lambda: setup_table(base, "classic", http)) for _ in range(args.tables))
        )
        publics = await asyncio.gather(
            *(limited(lambda: _public_table(base, http)) for _ in range(args.public))
        )
    tasks: list[asyncio.Task[Any]] = []
    for game_id, cookies in games:
        table = Table()
        for cookie in cookies:
            client = AtoutClient(
                ws_base, cookie, table, stats, args.pace, random.Random(rng.random())
            )
            tasks.append(asyncio.create_task(client.run(game_id, stop)))
    hosts = [Host(ws_base, cookie, game_id) for cookie, game_id in publics]
    await asyncio.gather(*(limited(h.connect) for h in hosts))
    changes: list[Change] = []
    tasks.append(asyncio.create_task(change_seats(hosts, changes, args.changes, stop, rng)))

    async def window(label: str) -> tuple[dict[str, Any], list[Change]]:
        await asyncio.sleep(args.warmup)
        stats.latencies.clear()
        start = time.monotonic()
        stats.window = (start, start + args.duration)
        first = len(changes)
        cpu0, moves0 = cpu_seconds(server.pid), stats.moves
        await asyncio.sleep(args.duration)
        elapsed = time.monotonic() - start
        cpu1, moves1, last = cpu_seconds(server.pid), stats.moves, len(changes)
        lat = stats.latencies
        return {
            "window": label,
            "moves_per_s": round((moves1 - moves0) / elapsed, 1),
            "move_ms": {
                "p50": round(1000 * _percentile(lat, 0.5), 2),
                "p99": round(1000 * _percentile(lat, 0.99), 2),
            },
            "seat_changes_per_s": round((last - first) / elapsed, 1),
            "server_cpu_cores": round((cpu1 - cpu0) / elapsed, 2),
        }, changes[first:last]

    without, _ = await window("without watchers")
    procs = await start_watchers(
        ws_base, args.watchers, args.watcher_processes, workdir, args.watcher_nice
    )
    with_watchers, measured = await window("with watchers")
    await asyncio.sleep(COOLDOWN)  # what was sent at the end of the window arrives
    heard = await stop_watchers(procs)
    with_watchers["lobby_ms"] = lobby_latency(measured, heard)
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for host in hosts:
        with contextlib.suppress(Exception):
            await host.ws.close()
    p99_without = without["move_ms"]["p99"]
    p99_with = with_watchers["move_ms"]["p99"]
    return {
        "without_watchers": without,
        "with_watchers": with_watchers,
        "move_p99_cost_pct": round(100 * (p99_with - p99_without) / p99_without, 1)
        if p99_without
        else None,
        "errors": stats.errors,
    }


def print_results(r: dict[str, Any]) -> None:
    m, s = r["machine"], r["settings"]
    print(f"machine: {m['cpus']} x {m['cpu']}, Python {m['python']}, load {m['load_average']}")
    print(
        f"{s['tables']} playing tables x 4 (pace {s['pace']} s), {s['public']} public tables, "
        f"{s['changes']} seat changes/s, {s['watchers']} watchers, {s['duration']} s windows"
    )
    for key in ("without_watchers", "with_watchers"):
        w = r[key]
        print(
            f"{w['window']:>17}: {w['moves_per_s']} moves/s, move p50 {w['move_ms']['p50']} ms "
            f"p99 {w['move_ms']['p99']} ms, {w['seat_changes_per_s']} changes/s, "
            f"server {w['server_cpu_cores']} cores"
        )
    lobby = r["with_watchers"].get("lobby_ms", {})
    print(
        f"lobby update to every watcher: p50 {lobby.get('every_watcher_p50')} ms, "
        f"p99 {lobby.get('every_watcher_p99')} ms, max {lobby.get('every_watcher_max')} ms "
        f"({lobby.get('changes_measured')} changes, {lobby.get('changes_not_heard_by_all')} not "
        f"heard by all); one delivery p50 "
        f"{lobby.get('delivery_p50')} ms, p99 {lobby.get('delivery_p99')} ms"
    )
    print(f"watchers' cost to the move p99: {r['move_p99_cost_pct']} %")
    if r["errors"]:
        print(f"errors: {r['errors']}")
