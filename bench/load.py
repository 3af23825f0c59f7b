"""``atout bench load``: how many moves a server carries, with real WebSocket clients.

    atout bench load --tables 200 --pace 2 --duration 30

It starts a server (``atout serve``, a fresh SQLite database in a temporary folder) on
127.0.0.1, opens ``--tables`` tables of four browsers each in ``friends`` mode (each browser its
own cookie and socket), and lets every client play random legal moves from its own view, each
move ``--pace`` seconds after the client's turn came (0: at once). When a match ends, the four
agree to a rematch and go on. It reports, over the measurement window:

* moves/s acknowledged and delivered to all four seats;
* latency from a move sent until all four seats have its ``update`` (p50, p99, max);
* the server's CPU (user+system, in cores) and RSS (current and peak), from /proc;
* the writer's transactions (group commit: moves per transaction).

Then it starts a bare FastAPI app (one WebSocket endpoint that forwards each message to the four
sockets of its table, no game, no database) and drives it with the same client, the same
tables and pacing, and prints the ratio. ``--url`` measures a server that is already running
instead (no CPU/RSS then unless ``--pid`` is given).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path
from typing import Any

import orjson

from bench import checkout_env
from bench.table_client import AutoPlayer

SubParsers = Any
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


# ----------------------------------------------------------------------------- command line


def add_bench(bench: SubParsers) -> None:
    """Add ``load`` under ``atout bench``."""
    p = bench.add_parser(
        "load",
        help="server capacity with real WebSocket clients (tables of 4, random moves)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("--tables", type=int, default=50, help="tables of 4 clients (default 50)")
    p.add_argument(
        "--pace",
        type=float,
        default=1.0,
        help="seconds a client waits after its turn comes before moving (default 1; 0 = at once)",
    )
    p.add_argument("--duration", type=float, default=20.0, help="measurement seconds (default 20)")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring (default 5)")
    p.add_argument("--variant", default="classic", help="variant of the tables (default classic)")
    p.add_argument("--url", help="measure this running server instead of starting one")
    p.add_argument("--pid", type=int, help="with --url: the server's pid, for CPU and RSS")
    p.add_argument(
        "--database-url", help="database of the started server (default: a temporary SQLite file)"
    )
    p.add_argument(
        "--no-group-commit",
        action="store_true",
        help="start the server with ATOUT_GROUP_COMMIT=false",
    )
    p.add_argument("--no-bare", action="store_true", help="skip the bare FastAPI comparison")
    p.add_argument(
        "--servers",
        help="scale-out (docs/scaling.md): comma-separated process counts, e.g. 1,2: for each, "
        "that many atout serve behind haproxy (deploy/haproxy.cfg) on --database-url "
        "(PostgreSQL), measured in turn; implies --no-bare",
    )
    p.add_argument("--setup-concurrency", type=int, default=32, help="tables set up at once")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=cmd_bench_load)


def cmd_bench_load(args: argparse.Namespace) -> int:
    if args.tables < 1 or args.pace < 0 or args.duration <= 0:
        print("atout: --tables >= 1, --pace >= 0, --duration > 0", file=sys.stderr)
        return 2
    try:
        # the clients run on uvloop (as uvicorn runs the server), so that the load generator's
        # own event loop adds as little as possible to the latencies it measures
        with asyncio.Runner(loop_factory=_loop_factory()) as runner:
            results = runner.run(run(args))
    except BenchError as exc:
        print(f"atout: bench load: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_results(results)
    return 0


class BenchError(RuntimeError):
    pass


def _loop_factory() -> Any:
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvicorn[standard] brings it
        return None
    return uvloop.new_event_loop


# ----------------------------------------------------------------------------- processes


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Process:
    proc: subprocess.Popen[bytes]
    base_url: str
    log: Path

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)


async def wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    import httpx

    deadline = time.monotonic() + 30
    async with httpx.AsyncClient(timeout=2) as client:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise BenchError(f"server exited during start-up:\n{log.read_text()[-2000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if (await client.get(url)).status_code == 200:
                    return
            await asyncio.sleep(0.1)
    raise BenchError("server not healthy after 30 s")


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in checkout_env().items() if not k.startswith("ATOUT_")}
    env.update(extra)
    return env


async def start_atout(workdir: Path, args: argparse.Namespace) -> Process:
    from app.persistence.migrate import upgrade_head

    port = free_port()
    url = args.database_url or f"sqlite+aiosqlite:///{workdir / 'atout.db'}"
    upgrade_head(url)
    env = {
        "ATOUT_DATABASE_URL": url,
        "ATOUT_PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ATOUT_LOG_LEVEL": "WARNING",
        "ATOUT_BOT_WORKERS": "0",
        "ATOUT_BACKUP_HOURS": "0",  # no automatic backup in the middle of a measurement
        "ATOUT_IDLE_ROOM_SECONDS": "3600",
        "ATOUT_GROUP_COMMIT": "false" if args.no_group_commit else "true",
    }
    command = ["-m", "app", "serve", "--host", "127.0.0.1", "--port", str(port)]
    return await _start(workdir / "server.log", port, command, env)


async def start_bare(workdir: Path) -> Process:
    port = free_port()
    command = [
        "-m",
        "uvicorn",
        "bench.bare:create_app",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
        "--ws-per-message-deflate",  # as `atout serve` (ATOUT_WS_COMPRESSION)
        "false",
    ]
    return await _start(workdir / "bare.log", port, command, {})


async def _start(log: Path, port: int, command: list[str], env: dict[str, str]) -> Process:
    """Run ``python command...`` in the log's folder, output to ``log``; wait for /healthz."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, *command],
            cwd=log.parent,
            env=_env(env),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        await wait_healthy(base + "/healthz", proc, log)
    except BaseException:  # a server that never became healthy is not left running
        proc.kill()
        proc.wait()
        raise
    return Process(proc, base, log)


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process (and of its reaped children), from /proc."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return (utime + stime + cutime + cstime) / CLK_TCK


def rss_mib(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS) in MiB, from /proc/PID/status."""
    current = peak = 0.0
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                current = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1]) / 1024
    return current, peak


# ----------------------------------------------------------------------------- measurement


@dataclass
class Stats:
    window: tuple[float, float] = (0.0, 0.0)
    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    bytes_in: int = 0
    messages_in: int = 0

    def delivered(self, sent_at: float, now: float) -> None:
        start, end = self.window
        if start <= sent_at and now <= end:
            self.moves += 1
            self.latencies.append(now - sent_at)

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1


@dataclass
class Table:
    """The four clients of one table share the send times of its moves."""

    sent: dict[int, float] = field(default_factory=dict)  # version created -> time sent
    got: dict[int, int] = field(default_factory=dict)  # version -> clients that have it

    def receive(self, version: int, stats: Stats) -> None:
        count = self.got.get(version, 0) + 1
        if count < 4:
            self.got[version] = count
            return
        self.got.pop(version, None)
        sent_at = self.sent.pop(version, None)
        if sent_at is not None:
            stats.delivered(sent_at, time.monotonic())


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


# ----------------------------------------------------------------------------- atout clients


class AtoutClient(AutoPlayer):
    """One browser at a table (bench/table_client.py ``AutoPlayer``): plays random legal moves
    from its own view; counts what it receives, and the delivery of each version to the four
    players of its table."""

    def __init__(
        self, ws_base: str, cookie: str, table: Table, stats: Stats, pace: float, rng: random.Random
    ) -> None:
        super().__init__(rng, pace, "b")
        self.ws_base, self.cookie = ws_base, cookie
        self.table, self.stats = table, stats

    async def run(self, game_id: str, stop: asyncio.Event) -> None:
        import websockets

        while not stop.is_set():
            async with websockets.connect(
                f"{self.ws_base}/ws/{game_id}",
                additional_headers={"Cookie": f"atout_id={self.cookie}"},
                max_size=2**22,
                open_timeout=60,
                ping_interval=None,
            ) as ws:
                next_game = await self.play(ws)  # the run cancels it when the window ends
            if next_game is None:
                return
            game_id = next_game

    def on_message(self, raw: str | bytes, msg: dict[str, Any]) -> None:
        self.stats.bytes_in += len(raw)
        self.stats.messages_in += 1

    def on_update(self) -> None:
        self.table.receive(self.version, self.stats)

    def on_error(self, code: str) -> None:
        self.stats.error(code)

    def on_send(self, msg_id: str, version: int) -> None:
        self.table.sent[version + 1] = time.monotonic()


async def setup_table(base: str, variant: str, http: Any) -> tuple[str, list[str]]:
    """Four browsers (cookies) and a friends game with all four seated."""
    cookies = []
    for _ in range(4):
        response = await http.post(base + "/api/me")
        set_cookie = response.headers.get("set-cookie", "")
        if not set_cookie.startswith("atout_id="):
            raise BenchError("the server did not give a browser identity")
        cookies.append(set_cookie.split(";", 1)[0].split("=", 1)[1])
    response = await http.post(
        base + "/api/games",
        json={"variant": variant, "mode": "friends", "options": _long_match(variant)},
        headers={"Cookie": f"atout_id={cookies[0]}"},
    )
    if response.status_code != 201:
        raise BenchError(f"cannot create a game: {response.text}")
    game_id = response.json()["game_id"]
    for cookie in cookies[1:]:
        joined = await http.post(
            f"{base}/api/games/{game_id}/join", headers={"Cookie": f"atout_id={cookie}"}
        )
        if joined.status_code != 200:
            raise BenchError(f"cannot join: {joined.text}")
    return game_id, cookies


def _long_match(variant: str) -> dict[str, Any]:
    return {"target": 5000} if variant in ("classic", "coinche") else {}


async def measure_atout(
    base: str, args: argparse.Namespace, pid: int | list[int] | None, *, stats: bool = True
) -> dict[str, Any]:
    import httpx

    ws_base = base.replace("http://", "ws://").replace("https://", "wss://")
    with_stats = stats
    counts = Stats()
    stop = asyncio.Event()
    rng = random.Random(1)
    limits = httpx.Limits(max_connections=args.setup_concurrency)
    setup_started = time.monotonic()
    # no cookie jar: each request says which browser it is
    no_jar = CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))
    async with httpx.AsyncClient(timeout=60, limits=limits, cookies=no_jar) as http:
        semaphore = asyncio.Semaphore(args.setup_concurrency)

        async def one() -> tuple[str, list[str]]:
            async with semaphore:
                for attempt in range(3):
                    try:
                        return await setup_table(base, args.variant, http)
                    except httpx.TransportError:
                        # a kept-alive connection the server had just closed: a new table
                        if attempt == 2:
                            raise
                raise AssertionError("unreachable")

        tables = await asyncio.gather(*(one() for _ in range(args.tables)))
    tasks = []
    for game_id, cookies in tables:
        table = Table()
        for cookie in cookies:
            client = AtoutClient(
                ws_base, cookie, table, counts, args.pace, random.Random(rng.random())
            )
            tasks.append(asyncio.create_task(client.run(game_id, stop)))
    setup_seconds = time.monotonic() - setup_started
    result = await _window(
        counts, args, pid, tasks, stop, base + "/api/stats" if with_stats else None
    )
    result["setup_seconds"] = round(setup_seconds, 1)
    if (pid is not None or args.url) and with_stats:
        with contextlib.suppress(Exception):
            async with httpx.AsyncClient(timeout=10) as http:
                result["server_stats"] = (await http.get(base + "/api/stats")).json()
    return result


async def _window(
    stats: Stats,
    args: argparse.Namespace,
    pid: int | list[int] | None,
    tasks: list[asyncio.Task[None]],
    stop: asyncio.Event,
    stats_url: str | None = None,
) -> dict[str, Any]:
    await asyncio.sleep(args.warmup)
    server0 = await _server_stats(stats_url)
    # The clients' own garbage collector must not pause the measurement: with 10,000 sockets a
    # full collection of this process takes most of a second, which would show as server
    # latency. Everything alive now is frozen; collection resumes after the window.
    gc.collect()
    gc.freeze()
    gc.disable()
    start = time.monotonic()
    stats.window = (start, start + args.duration)
    pids = pid if isinstance(pid, list) else [pid] if pid else []
    cpu0 = sum(cpu_seconds(p) for p in pids) if pids else None
    own0 = resource.getrusage(resource.RUSAGE_SELF)
    bytes0, messages0 = stats.bytes_in, stats.messages_in
    await asyncio.sleep(args.duration)
    elapsed = time.monotonic() - start
    cpu1 = sum(cpu_seconds(p) for p in pids) if pids else None
    own1 = resource.getrusage(resource.RUSAGE_SELF)
    rss_each = [rss_mib(p) for p in pids]
    rss = (sum(r[0] for r in rss_each), sum(r[1] for r in rss_each)) if pids else None
    server1 = await _server_stats(stats_url)
    gc.enable()
    gc.unfreeze()
    stop.set()
    await asyncio.sleep(0.5)  # deliveries of moves sent at the end of the window
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    lat = stats.latencies
    client_cpu = (own1.ru_utime + own1.ru_stime) - (own0.ru_utime + own0.ru_stime)
    out: dict[str, Any] = {
        "moves": stats.moves,
        "moves_per_s": round(stats.moves / elapsed, 1),
        "latency_ms": {
            "p50": round(1000 * _percentile(lat, 0.50), 2),
            "p99": round(1000 * _percentile(lat, 0.99), 2),
            "max": round(1000 * max(lat), 2) if lat else None,
            "mean": round(1000 * statistics.fmean(lat), 2) if lat else None,
        },
        "messages_in_per_s": round((stats.messages_in - messages0) / elapsed, 1),
        "mean_message_bytes": round(
            (stats.bytes_in - bytes0) / max(1, stats.messages_in - messages0)
        ),
        "client_cpu_cores": round(client_cpu / elapsed, 2),
        "errors": stats.errors,
    }
    if server0 and server1 and "actions" in server1:
        out["server_window"] = _server_window(server0, server1, elapsed)
    if cpu0 is not None and cpu1 is not None and rss is not None:
        out["server_cpu_cores"] = round((cpu1 - cpu0) / elapsed, 2)
        out["server_cpu_ms_per_move"] = (
            round(1000 * (cpu1 - cpu0) / stats.moves, 3) if stats.moves else None
        )
        out["server_rss_mib"] = round(rss[0], 1)
        out["server_peak_rss_mib"] = round(rss[1], 1)
    return out


async def _server_stats(url: str | None) -> dict[str, Any] | None:
    if url is None:
        return None
    import httpx

    try:
        async with httpx.AsyncClient(timeout=10) as http:
            data: dict[str, Any] = (await http.get(url)).json()
            return data
    except (httpx.HTTPError, ValueError):
        return None


def _server_window(before: dict[str, Any], after: dict[str, Any], elapsed: float) -> dict[str, Any]:
    """The server's own view of the window: how long actions took inside it (frame read to
    ack and views queued; bucket bounds), and its garbage collector's pauses."""
    from app.metrics import quantile_ms

    a0, a1 = before["actions"], after["actions"]
    g0, g1 = before["gc"], after["gc"]
    c0, c1 = before.get("commits"), after.get("commits")
    commits = (
        {
            "commit_p99_ms_at_most": quantile_ms(c0, c1, 0.99),
            "commits_over_50ms": sum(c1["counts"][6:]) - sum(c0["counts"][6:]),
        }
        if c0 and c1
        else {}
    )
    return {
        **commits,
        "action_p50_ms_at_most": quantile_ms(a0, a1, 0.50),
        "action_p99_ms_at_most": quantile_ms(a0, a1, 0.99),
        "actions": sum(a1["counts"]) - sum(a0["counts"]),
        "gc_collections": sum(g1["counts"]) - sum(g0["counts"]),
        "gc_seconds": round(g1["total_s"] - g0["total_s"], 3),
        "gc_share": round((g1["total_s"] - g0["total_s"]) / elapsed, 4),
        "gc_over_50ms": sum(g1["counts"][6:]) - sum(g0["counts"][6:]),
        "gc_longest_ms_since_start": g1["max_ms"],
        **_stalls(before.get("stall"), after.get("stall")),
    }


def _stalls(s0: dict[str, Any] | None, s1: dict[str, Any] | None) -> dict[str, Any]:
    """The event loop's stalls in the window (the server's watchdog), when it reports them."""
    if not s0 or not s1:
        return {}
    over = s1["bounds_ms"].index(100) + 1
    return {
        "stalls_over_100ms": sum(s1["counts"][over:]) - sum(s0["counts"][over:]),
        "stall_longest_ms_since_start": s1["max_ms"],
    }


# ----------------------------------------------------------------------------- bare clients


class BareClient:
    """The same turn-taking against the bare endpoint: seat v % 4 moves after version v."""

    def __init__(
        self, seat: int, table: Table, stats: Stats, pace: float, rng: random.Random, pad: int
    ):
        self.seat, self.table, self.stats, self.pace, self.rng = seat, table, stats, pace, rng
        self.pad = "x" * pad

    async def run(self, url: str, stop: asyncio.Event, ready: asyncio.Event, start: bool) -> None:
        import websockets

        async with websockets.connect(
            url, max_size=2**22, open_timeout=60, ping_interval=None
        ) as ws:
            await ready.wait()
            if start:
                await self._move(ws, 0)
            mover: asyncio.Task[None] | None = None
            try:
                while not stop.is_set():
                    raw = await ws.recv()  # cancelled when the window ends
                    self.stats.bytes_in += len(raw)
                    self.stats.messages_in += 1
                    version = orjson.loads(raw)["version"]
                    self.table.receive(version, self.stats)
                    if version % 4 == self.seat:
                        mover = asyncio.create_task(self._move(ws, version))
            finally:
                if mover is not None:
                    mover.cancel()

    async def _move(self, ws: Any, version: int) -> None:
        if self.pace:
            await asyncio.sleep(self.pace * self.rng.uniform(0.5, 1.5))
        self.table.sent[version + 1] = time.monotonic()
        await ws.send(json.dumps({"type": "update", "version": version + 1, "pad": self.pad}))


async def measure_bare(base: str, args: argparse.Namespace, pid: int, pad: int) -> dict[str, Any]:
    ws_base = base.replace("http://", "ws://")
    stats = Stats()
    stop = asyncio.Event()
    ready = asyncio.Event()
    rng = random.Random(2)
    tasks = []
    for t in range(args.tables):
        table = Table()
        for seat in range(4):
            client = BareClient(seat, table, stats, args.pace, random.Random(rng.random()), pad)
            url = f"{ws_base}/ws/bare/t{t}"
            tasks.append(asyncio.create_task(client.run(url, stop, ready, start=seat == 3)))
    await asyncio.sleep(min(10.0, 0.5 + args.tables * 0.004))  # let the sockets open
    ready.set()
    return await _window(stats, args, pid, tasks, stop)


# ----------------------------------------------------------------------------- the run


async def run(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {
        "tables": args.tables,
        "clients": 4 * args.tables,
        "pace_s": args.pace,
        "variant": args.variant,
        "machine": machine(),
    }
    workdir = Path(tempfile.mkdtemp(prefix="atout-bench-"))
    try:
        if args.servers:
            results["servers"] = await measure_servers(workdir, args)
            return results
        if args.url:
            results["atout"] = await measure_atout(args.url.rstrip("/"), args, args.pid)
        else:
            server = await start_atout(workdir, args)
            try:
                results["atout"] = await measure_atout(server.base_url, args, server.pid)
            finally:
                server.stop()
            results["group_commit"] = not args.no_group_commit
        if not args.no_bare:
            bare = await start_bare(workdir)
            try:
                pad = int(results["atout"].get("mean_message_bytes") or 0)
                results["bare"] = await measure_bare(bare.base_url, args, bare.pid, pad)
                results["bare"]["message_bytes"] = pad
            finally:
                bare.stop()
            a, b = results["atout"], results["bare"]
            results["ratio"] = {
                "moves_per_s": round(a["moves_per_s"] / b["moves_per_s"], 3)
                if b["moves_per_s"]
                else None,
                "p50_latency": round(a["latency_ms"]["p50"] / b["latency_ms"]["p50"], 2)
                if b["latency_ms"]["p50"]
                else None,
                "p99_latency": round(a["latency_ms"]["p99"] / b["latency_ms"]["p99"], 2)
                if b["latency_ms"]["p99"]
                else None,
            }
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return results


async def measure_servers(workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    """``--servers 1,2``: the same load through haproxy onto 1, then 2 processes."""
    from app.persistence.db import is_sqlite
    from bench.cluster import Cluster

    if not args.database_url or is_sqlite(args.database_url):
        raise BenchError("--servers needs --database-url postgresql+asyncpg://...")
    counts = [int(x) for x in args.servers.split(",") if x.strip()]
    out: dict[str, Any] = {}
    for n in counts:
        cluster = Cluster(
            workdir / f"servers-{n}",
            args.database_url,
            n,
            env={
                "ATOUT_LOG_LEVEL": "WARNING",
                "ATOUT_IDLE_ROOM_SECONDS": "3600",
                "ATOUT_GROUP_COMMIT": "false" if args.no_group_commit else "true",
            },
            check_ms=1000,
        )
        await asyncio.to_thread(cluster.start)
        try:
            pids = [node.pid for node in cluster.nodes]
            out[str(n)] = await measure_atout(cluster.base_url, args, pids, stats=False)
        finally:
            await asyncio.to_thread(cluster.stop)
    if len(set(counts)) >= 2:
        fewest, most = out[str(min(counts))], out[str(max(counts))]
        out["ratio_moves_per_s"] = (
            round(most["moves_per_s"] / fewest["moves_per_s"], 3) if fewest["moves_per_s"] else None
        )
    return out


def machine() -> dict[str, Any]:
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "cpus": os.cpu_count(),
        "cpu": model,
        "python": sys.version.split()[0],
        "kernel": os.uname().release,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def print_results(r: dict[str, Any]) -> None:
    m = r["machine"]
    print(f"machine: {m['cpus']} x {m['cpu']}, Python {m['python']}")
    print(f"tables: {r['tables']} x 4 clients, pace {r['pace_s']} s, variant {r['variant']}")
    if "servers" in r:
        print(f"load average before: {m.get('load_average')}")
        for n, x in r["servers"].items():
            if n == "ratio_moves_per_s":
                continue
            lat = x["latency_ms"]
            print(
                f"{n} process(es) behind haproxy: {x['moves_per_s']:9.1f} moves/s  "
                f"p50 {lat['p50']:7.2f} ms  p99 {lat['p99']:7.2f} ms  "
                f"server CPU {x.get('server_cpu_cores')} cores, "
                f"{x.get('server_cpu_ms_per_move')} ms per move  "
                f"client CPU {x['client_cpu_cores']:.2f}  errors {x.get('errors') or 0}"
            )
        if r["servers"].get("ratio_moves_per_s") is not None:
            print(f"ratio (most / fewest processes): {r['servers']['ratio_moves_per_s']} x")
        return
    for name in ("atout", "bare"):
        x = r.get(name)
        if not x:
            continue
        lat = x["latency_ms"]
        line = (
            f"{name:6} {x['moves_per_s']:9.1f} moves/s  p50 {lat['p50']:7.2f} ms  "
            f"p99 {lat['p99']:7.2f} ms  client CPU {x['client_cpu_cores']:.2f}"
        )
        if "server_cpu_cores" in x:
            line += (
                f"  server CPU {x['server_cpu_cores']:.2f} cores  RSS {x['server_rss_mib']:.0f} MiB"
                f" (peak {x['server_peak_rss_mib']:.0f})"
            )
        print(line)
        if x.get("errors"):
            print(f"       errors: {x['errors']}")
    window = (r.get("atout") or {}).get("server_window")
    if window:
        print(
            f"server: {window['actions']} actions, p50 <= {window['action_p50_ms_at_most']} ms, "
            f"p99 <= {window['action_p99_ms_at_most']} ms (frame read to ack); "
            f"GC {window['gc_collections']} collections, {window['gc_seconds']} s, "
            f"{window['gc_over_50ms']} over 50 ms; commits p99 <= "
            f"{window.get('commit_p99_ms_at_most')} ms, {window.get('commits_over_50ms')} over 50 ms"
        )
        if "stalls_over_100ms" in window:
            print(
                f"event loop: {window['stalls_over_100ms']} stalls over 100 ms in the window, "
                f"longest since start {window['stall_longest_ms_since_start']} ms"
            )
    stats = (r.get("atout") or {}).get("server_stats") or {}
    if stats.get("writer"):
        w = stats["writer"]
        print(
            f"writer: {w['transactions']} transactions for {w['works']} writes "
            f"(mean batch {w['mean_batch']}, largest {w['largest_batch']}, "
            f"mean commit {w['mean_commit_ms']} ms)"
        )
    if r.get("ratio"):
        x = r["ratio"]
        print(
            f"atout/bare: moves/s x{x['moves_per_s']}, p50 latency x{x['p50_latency']}, "
            f"p99 latency x{x['p99_latency']}"
        )
