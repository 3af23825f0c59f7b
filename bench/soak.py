"""``atout bench soak``: hours of play, to see that memory stays flat and no pause is felt.

    atout bench soak --tables 1000 --duration 3600 --idle-seconds 60

It starts a server (``atout serve`` on 127.0.0.1, a fresh SQLite file unless ``--database-url``)
with ``ATOUT_IDLE_ROOM_SECONDS`` short, and runs ``--tables`` table slots through real WebSocket
clients. Each slot lives a table's whole life, again and again:

* a ``friends`` game of four browsers (each its own cookie and socket), or, for one slot in
  ``--computer-every``, a ``computer`` game of one browser against three bots;
* every client plays random legal moves from its own view, ``--pace`` seconds after its turn;
* now and then, mid-match, the whole table goes away for longer than the idle time (the room
  is evicted) and comes back (the room is restored from the database); one player of a friends
  table also drops and comes back at once now and then (the table pauses);
* at the end of a match the table takes the rematch, or goes idle (evicted) and the slot
  starts a new game.

Every ``--report`` seconds it prints: the server's RSS, rooms in memory, sockets, the memory
blocks Python holds, the longest event-loop stall and the p99 of move latency (a move sent to
its ``ack``) over the interval, and the load generator's own longest stall in it. It ends with
a verdict line: RSS growth since the first eviction cycle, the longest stall, and moves lost (an
acknowledged version that a later ``state`` of the same game did not reach; 0 expected); then
the server's own histograms over the run (actions, commits, collector pauses, loop stalls).
SIGINT or SIGTERM ends a run early: the tables stop, and the verdict is that of the run so far
(``interrupted`` in it, with the seconds it ran).

The load generator is one process holding thousands of sockets: it collects its garbage on
the server's schedule (app/loop.py ``collect_garbage``), since a full collection of its own
heap would stall it for most of a second and show up as move latency; and it watches its own
loop, so that a client that woke late is not taken for a slow server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
from array import array
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path
from typing import Any

from bench import checkout_env
from bench.load import (
    BenchError,
    Process,
    _loop_factory,
    _percentile,
    _start,
    free_port,
    machine,
    rss_mib,
)
from bench.sentinel import Spans, read_pauses
from bench.table_client import AutoPlayer

SubParsers = Any
STOP_GRACE_SECONDS = 30.0  # at the end, how long the slots may take to leave their tables


def add_bench(bench: SubParsers) -> None:
    """Add ``soak`` under ``atout bench``."""
    p = bench.add_parser(
        "soak",
        help="a long run of tables that start, finish, leave and come back: memory and stalls",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("--tables", type=int, default=200, help="table slots (default 200)")
    p.add_argument("--duration", type=float, default=3600.0, help="seconds (default 3600)")
    p.add_argument("--pace", type=float, default=2.0, help="seconds before a move (default 2)")
    p.add_argument(
        "--idle-seconds",
        type=int,
        default=60,
        help="the server's ATOUT_IDLE_ROOM_SECONDS (default 60)",
    )
    p.add_argument("--report", type=float, default=10.0, help="seconds between reports")
    p.add_argument("--variant", default="classic", help="variant of the tables (default classic)")
    p.add_argument(
        "--computer-every",
        type=int,
        default=5,
        help="one slot in N plays against the computer (default 5; 0: none)",
    )
    p.add_argument("--database-url", help="database of the server (default: a temporary SQLite)")
    p.add_argument(
        "--tracemalloc",
        action="store_true",
        help="trace the server's allocations; compare a snapshot taken after the first "
        "eviction cycle with one at the end (slows the server: for finding leaks)",
    )
    p.add_argument(
        "--trace-stalls",
        type=int,
        default=0,
        metavar="MS",
        help="have the server name what blocks its loop for longer than MS milliseconds "
        "(ATOUT_STALL_TRACE_MS) and print the places at the end (default 0: off)",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="print the reports and verdict as JSON")
    p.set_defaults(func=cmd_bench_soak)


def cmd_bench_soak(args: argparse.Namespace) -> int:
    if args.tables < 1 or args.duration <= 0 or args.idle_seconds < 1:
        print("atout: --tables >= 1, --duration > 0, --idle-seconds >= 1", file=sys.stderr)
        return 2
    try:
        with asyncio.Runner(loop_factory=_loop_factory()) as runner:
            verdict = runner.run(run(args))
    except BenchError as exc:
        print(f"atout: bench soak: {exc}", file=sys.stderr)
        return 1
    return 0 if verdict["moves_lost"] == 0 else 1


# ----------------------------------------------------------------------------- measurement


@dataclass
class Soak:
    args: argparse.Namespace
    base: str
    rng: random.Random
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    latencies: list[float] = field(default_factory=list)  # this interval's, seconds
    # every move's latency after the first eviction cycle, seconds: the verdict's move p99
    plateau_latencies: array[float] = field(default_factory=lambda: array("d"))
    sent: list[float] = field(default_factory=list)  # this interval's moves' send times
    plateau_sent: array[float] = field(default_factory=lambda: array("d"))
    plateau_at: float | None = None  # time.monotonic() at the first report past the first cycle
    # the machine's own pauses (bench/sentinel.py) and the server's long loop stalls
    # (/api/stats "long_stalls"), both on the system's monotonic clock
    pauses: list[tuple[str, float, float]] = field(default_factory=list)
    server_stalls: dict[float, float] = field(default_factory=dict)
    pauses_path: Path | None = None  # where the sentinel writes
    moves: int = 0
    moves_lost: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    matches: int = 0
    games: int = 0
    away_trips: int = 0
    slots_cut: int = 0  # slots still busy STOP_GRACE_SECONDS after the end, then cancelled
    # the load generator's own longest event-loop stall in this interval, seconds: a client
    # that wakes late adds that to the latencies it measures
    client_stall: float = 0.0
    acked: dict[str, int] = field(default_factory=dict)  # game -> highest acknowledged version

    @property
    def ws_base(self) -> str:
        return self.base.replace("http://", "ws://")

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1

    def saw_state(self, game_id: str, version: int) -> None:
        acked = self.acked.get(game_id, 0)
        if version < acked:
            self.moves_lost += acked - version

    def saw_ack(self, game_id: str, version: int) -> None:
        if version > self.acked.get(game_id, 0):
            self.acked[game_id] = version


class Client(AutoPlayer):
    """One browser at a table (bench/table_client.py ``AutoPlayer``): random legal moves,
    Continue at once, a rematch when asked; each acknowledged move's latency is counted."""

    def __init__(self, soak: Soak, cookie: str, rng: random.Random) -> None:
        # a client id is applied once per seat, ever: each connection names its moves anew
        super().__init__(rng, soak.args.pace, f"{rng.getrandbits(40):010x}.")
        self.soak, self.cookie = soak, cookie
        self.sent_at: dict[str, float] = {}
        self.game_id = ""
        self.ended = asyncio.Event()  # the match is over
        self.rematch: str | None = None

    async def play_game(self, game_id: str, leave: asyncio.Event, want_rematch: bool) -> None:
        """Play ``game_id`` until ``leave`` is set or the match ends (and a rematch, if asked
        for, is created: ``self.rematch``)."""
        import websockets

        self.ended.clear()
        self.rematch = None
        self.game_id = game_id
        self.stop_at_match_over = not want_rematch
        async with websockets.connect(
            f"{self.soak.ws_base}/ws/{game_id}",
            additional_headers={"Cookie": f"atout_id={self.cookie}"},
            max_size=2**22,
            open_timeout=120,
            ping_interval=None,
        ) as ws:
            reader = asyncio.create_task(self._read(ws))
            waiter = asyncio.create_task(leave.wait())
            try:
                await asyncio.wait({reader, waiter}, return_when=asyncio.FIRST_COMPLETED)
            finally:  # also when the slot is cut at the end: no reader outlives its slot
                for task in (reader, waiter):
                    task.cancel()
                await asyncio.gather(reader, waiter, return_exceptions=True)

    async def _read(self, ws: Any) -> None:
        self.rematch = await self.play(ws)
        self.ended.set()

    def on_state(self) -> None:
        self.soak.saw_state(self.game_id, self.version)

    def on_ack(self, msg: dict[str, Any]) -> None:
        soak = self.soak
        sent = self.sent_at.pop(msg["id"], None)
        if sent is not None:
            soak.latencies.append(time.monotonic() - sent)
            soak.sent.append(sent)
            soak.moves += 1
        soak.saw_ack(self.game_id, msg["version"])

    def on_error(self, code: str) -> None:
        self.soak.error(code)

    def on_send(self, msg_id: str, version: int) -> None:
        self.sent_at[msg_id] = time.monotonic()


# ----------------------------------------------------------------------------- tables


def _cookie_of(response: Any) -> str | None:
    for header in response.headers.get_list("set-cookie"):
        if header.startswith("atout_id="):
            return str(header.split(";", 1)[0].split("=", 1)[1])
    return None


async def _new_game(
    soak: Soak, http: Any, computer: bool, host: str | None
) -> tuple[str, list[str]]:
    """A new game: its id and the cookies of its browsers (the host's is reused)."""
    body: dict[str, Any] = {
        "variant": soak.args.variant,
        "mode": "computer" if computer else "friends",
        # short matches, so that tables finish, take rematches and start new games
        "options": {"target": 501} if soak.args.variant in ("classic", "coinche") else {},
    }
    if computer:
        body["level"] = "easy"
    headers = {"Cookie": f"atout_id={host}"} if host else {}
    response = await http.post(soak.base + "/api/games", json=body, headers=headers)
    if response.status_code != 201:
        raise BenchError(f"cannot create a game: {response.status_code} {response.text}")
    host = host or _cookie_of(response)
    if host is None:
        raise BenchError("the server did not give the host a browser identity")
    game_id = str(response.json()["game_id"])
    cookies = [host]
    for _ in range(0 if computer else 3):
        joined = await http.post(f"{soak.base}/api/games/{game_id}/join", json={})
        guest = _cookie_of(joined)
        if joined.status_code != 200 or guest is None:
            raise BenchError(f"cannot join: {joined.status_code} {joined.text}")
        cookies.append(guest)
    soak.games += 1
    return game_id, cookies


async def slot(soak: Soak, http: Any, index: int) -> None:
    """One table slot's life, until the run stops."""
    rng = random.Random(soak.rng.random())
    computer = bool(soak.args.computer_every) and index % soak.args.computer_every == 0
    idle = soak.args.idle_seconds
    # the slots start spread over the first minute, so that tables do not move in step (a run
    # stopped before a slot's start ends it at once)
    await _sleep(soak, rng.uniform(0, min(60.0, soak.args.duration / 10)))
    host: str | None = None
    game_id: str | None = None
    cookies: list[str] = []
    while not soak.stop.is_set():
        if game_id is None:
            game_id, cookies = await _new_game(soak, http, computer, host)
            host = cookies[0]
        clients = [Client(soak, c, random.Random(rng.random())) for c in cookies]
        want_rematch = rng.random() < 0.5
        leave = asyncio.Event()
        plays = [asyncio.create_task(c.play_game(game_id, leave, want_rematch)) for c in clients]
        # the table's next trip away (evicted and restored), or one player's short drop
        trip = rng.uniform(idle, 6 * idle)
        ended = asyncio.create_task(_first_ended(clients))
        stopped = asyncio.create_task(soak.stop.wait())
        done, _ = await asyncio.wait({ended, stopped}, timeout=trip)
        for task in (ended, stopped):
            task.cancel()
        leave.set()
        await asyncio.gather(*plays, return_exceptions=True)
        if soak.stop.is_set():
            return
        if ended in done and not ended.cancelled():
            soak.matches += 1
            rematch = next((c.rematch for c in clients if c.rematch), None)
            if rematch is not None:
                game_id = rematch
                continue
            game_id = None  # idle: the finished room leaves memory, then a new game
            await _sleep(soak, idle * 1.5 + 5)
            continue
        # mid-match: the whole table away past the idle time, or one friend's quick drop
        if computer or rng.random() < 0.5:
            soak.away_trips += 1
            await _sleep(soak, idle * 1.5 + 5)
        else:
            await _sleep(soak, rng.uniform(0.5, 3))


async def _first_ended(clients: list[Client]) -> None:
    waits = [asyncio.create_task(c.ended.wait()) for c in clients]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in waits:
            task.cancel()
    await asyncio.sleep(0.5)  # the others see the end (and the rematch) too


async def _sleep(soak: Soak, seconds: float) -> None:
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(soak.stop.wait(), seconds)


# ----------------------------------------------------------------------------- the run


async def start_server(workdir: Path, args: argparse.Namespace) -> Process:
    from app.persistence.migrate import upgrade_head

    port = free_port()
    url = args.database_url or f"sqlite+aiosqlite:///{workdir / 'atout.db'}"
    upgrade_head(url)
    env = {
        "ATOUT_DATABASE_URL": url,
        "ATOUT_PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ATOUT_LOG_LEVEL": "WARNING",
        "ATOUT_BOT_WORKERS": "1",
        "ATOUT_BACKUP_HOURS": "0",  # no automatic backup in the middle of a measurement
        "ATOUT_IDLE_ROOM_SECONDS": str(args.idle_seconds),
        "ATOUT_NEXT_DEAL_SECONDS": "3",
        "ATOUT_STALL_TRACE_MS": str(args.trace_stalls),
    }
    command = ["-m", "app", "serve", "--host", "127.0.0.1", "--port", str(port)]
    if args.tracemalloc:
        command[:2] = ["-m", "bench.traced", str(workdir)]
    return await _start(workdir / "server.log", port, command, env)


async def take_snapshot(server: Process, workdir: Path, number: int) -> Path:
    """Have the traced server (bench/traced.py) write its ``number``-th snapshot."""
    from bench.traced import snapshot_path

    path = snapshot_path(workdir, number)
    os.kill(server.pid, signal.SIGUSR2)
    for _ in range(600):
        if path.exists():
            return path
        await asyncio.sleep(0.1)
    raise BenchError(f"the server wrote no tracemalloc snapshot {number}")


async def take_census(server: Process, workdir: Path) -> dict[str, Any]:
    """Have the traced server count the cyclic garbage among all its objects, frozen ones
    included (bench/traced.py ``garbage_census``)."""
    from bench.traced import garbage_path

    path = garbage_path(workdir, 1)
    os.kill(server.pid, signal.SIGUSR1)
    for _ in range(600):
        if path.exists():
            census: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            return census
        await asyncio.sleep(0.1)
    raise BenchError("the server wrote no garbage census")


def allocation_growth(first: Path, second: Path, top: int = 15) -> list[dict[str, Any]]:
    """The source lines whose live allocations grew most from ``first`` to ``second``."""
    import tracemalloc

    before = tracemalloc.Snapshot.load(str(first))
    after = tracemalloc.Snapshot.load(str(second))
    lines = []
    for stat in after.compare_to(before, "lineno")[:top]:
        frame = stat.traceback[0]
        lines.append(
            {
                "where": f"{frame.filename}:{frame.lineno}",
                "size_diff_kib": round(stat.size_diff / 1024, 1),
                "size_kib": round(stat.size / 1024, 1),
                "count_diff": stat.count_diff,
            }
        )
    return lines


async def _server_stats(http: Any, base: str) -> dict[str, Any]:
    try:
        data: dict[str, Any] = (await http.get(base + "/api/stats")).json()
        return data
    except Exception:  # noqa: BLE001 - a report line without the server's side
        return {}


def _dig(data: dict[str, Any], *paths: str) -> Any:
    """The first of the dotted ``paths`` present in ``data``."""
    for path in paths:
        value: Any = data
        for key in path.split("."):
            if not isinstance(value, dict) or key not in value:
                value = None
                break
            value = value[key]
        if value is not None:
            return value
    return None


def on_plateau(report: dict[str, Any], idle_seconds: int) -> bool:
    """Whether a report line is past the first eviction cycle (the verdict's reference)."""
    return (report["evictions"] or 0) > 0 and report["t"] >= 3 * idle_seconds + 60


async def report_loop(
    soak: Soak, http: Any, pid: int, started: float, plateau: Any = None
) -> list[dict[str, Any]]:
    """Report every ``--report`` seconds; ``plateau`` is awaited once, at the first line
    past the first eviction cycle."""
    from app.metrics import quantile_ms

    reports: list[dict[str, Any]] = []
    pauses_read = 0
    actions_before: dict[str, Any] | None = None
    stalls_before: dict[str, Any] | None = None
    while not soak.stop.is_set():
        await _sleep(soak, soak.args.report)
        stats = await _server_stats(http, soak.base)
        actions = stats.get("actions")
        server_p99 = quantile_ms(actions_before, actions, 0.99) if actions else None
        actions_before = actions or actions_before
        stall = stats.get("stall")
        long_stalls = over(stalls_before, stall, 100) if stall else None
        stalls_before = stall or stalls_before
        lat, soak.latencies = soak.latencies, []
        sent, soak.sent = soak.sent, []
        for t, ms in stats.get("long_stalls") or []:
            soak.server_stalls[t] = ms / 1000
        new_pauses: list[tuple[str, float, float]] = []
        if soak.pauses_path is not None:
            new_pauses, pauses_read = read_pauses(soak.pauses_path, pauses_read)
        soak.pauses.extend(new_pauses)
        client_stall, soak.client_stall = soak.client_stall, 0.0
        rss = rss_mib(pid)[0]
        line = {
            "t": round(time.monotonic() - started),
            "rss_mib": round(rss, 1),
            "rooms": _dig(stats, "rooms", "rooms_in_memory"),
            "sockets": _dig(stats, "sockets", "connections"),
            "evictions": _dig(stats, "evictions"),
            "loads": _dig(stats, "loads", "rooms_loaded"),
            "py_blocks": _dig(stats, "py_blocks"),
            "stall_max_ms": _dig(stats, "loop.stall_max_ms", "stall.max_ms", "stall_max_ms"),
            "stalls_over_100ms": long_stalls,  # in this interval
            "move_p99_ms": round(1000 * _percentile(lat, 0.99), 1) if lat else None,
            # the same moves in the server, from the frame read to the ack and views queued (a bucket
            # bound of /api/stats "actions"): the client's own delays left out
            "server_move_p99_ms": server_p99,
            "client_stall_ms": round(1000 * client_stall, 1),
            # the longest pause of the machine itself in this interval (the sentinel's late
            # wake-ups and slow syncs, bench/sentinel.py), 0.0: none of 50 ms or more
            "machine_pause_ms": round(
                1000 * max((p for k, _, p in new_pauses if k == "cpu"), default=0.0), 1
            ),
            "disk_sync_ms": round(
                1000 * max((p for k, _, p in new_pauses if k == "disk"), default=0.0), 1
            ),
            "moves": len(lat),
            "lost": soak.moves_lost,
        }
        if any(on_plateau(r, soak.args.idle_seconds) for r in reports[-1:]):
            soak.plateau_latencies.extend(lat)  # an interval wholly after the first cycle
            soak.plateau_sent.extend(sent)
        elif on_plateau(line, soak.args.idle_seconds):
            soak.plateau_at = time.monotonic()
        reports.append(line)
        if plateau is not None and on_plateau(line, soak.args.idle_seconds):
            await plateau()
            plateau = None
        if soak.args.json:
            print(json.dumps(line), flush=True)
        else:
            print(
                f"{line['t']:6d}s  RSS {line['rss_mib']:7.1f} MiB  rooms {line['rooms']}  "
                f"sockets {line['sockets']}  evicted {line['evictions']}  "
                f"loaded {line['loads']}  "
                f"blocks {line['py_blocks']}  stall max {line['stall_max_ms']} ms "
                f"(>100 ms: {line['stalls_over_100ms']})  "
                f"p99 {line['move_p99_ms']} ms ({line['moves']} moves, server "
                f"<= {line['server_move_p99_ms']} ms; client stall "
                f"{line['client_stall_ms']} ms; machine {line['machine_pause_ms']} ms, disk sync "
                f"{line['disk_sync_ms']} ms)  lost {line['lost']}",
                flush=True,
            )
    return reports


async def watch_client(soak: Soak, interval: float = 0.05) -> None:
    """The load generator's own stall watchdog (``Soak.client_stall``)."""
    loop = asyncio.get_running_loop()
    while not soak.stop.is_set():
        due = loop.time() + interval
        await asyncio.sleep(interval)
        soak.client_stall = max(soak.client_stall, loop.time() - due)


def server_timings(stats: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The server's own histograms over the whole run (``GET /api/stats`` at the end): its
    actions (frame read to ack and views queued, the durable write included), commits, collector
    pauses and loop stalls."""
    from app.metrics import quantile_ms

    out: dict[str, dict[str, Any]] = {}
    for name in ("actions", "commits", "gc", "stall"):
        h = stats.get(name)
        if not h or not sum(h["counts"]):
            continue
        count = sum(h["counts"])
        within = sum(h["counts"][: h["bounds_ms"].index(50) + 1])
        out[name] = {
            "count": count,
            "mean_ms": round(1000 * h["total_s"] / count, 2),
            "p99_le_ms": quantile_ms(None, h, 0.99),
            "within_50ms_pct": round(100 * within / count, 2),
            "max_ms": h["max_ms"],
        }
    return out


def over(before: dict[str, Any] | None, after: dict[str, Any], bound_ms: int) -> int:
    """How many values of a histogram of /api/stats (``bounds_ms``, ``counts``) above
    ``bound_ms`` were counted between two readings (``before`` None: since the start)."""
    i = after["bounds_ms"].index(bound_ms) + 1
    now: int = sum(after["counts"][i:])
    return now - (sum(before["counts"][i:]) if before else 0)


AFTERMATH_SECONDS = 1.0  # after a pause of the machine, the tables catch up this long


def against_the_machine(soak: Soak) -> dict[str, Any]:
    """The run after the first eviction cycle set beside the machine's own pauses (the
    sentinel's, bench/sentinel.py): the server's stalls over 100 ms that met a pause of the
    machine's CPU, and those that did not (the server's own); the move p99 over the moves that
    no pause of the machine (CPU or disk sync, then ``AFTERMATH_SECONDS``) met."""
    if soak.plateau_at is None or soak.pauses_path is None:
        return {}
    start = soak.plateau_at
    pauses = [p for p in soak.pauses if p[1] >= start]
    cpu = [p for p in pauses if p[0] == "cpu"]
    disk = [p for p in pauses if p[0] == "disk"]
    stalls = [(t, late) for t, late in soak.server_stalls.items() if t >= start]
    cpu_spans = Spans(cpu)
    own = [late for t, late in stalls if not cpu_spans.met(t, late)]
    widened = Spans([(k, end + AFTERMATH_SECONDS, p + AFTERMATH_SECONDS) for k, end, p in pauses])
    clear = [
        lat
        for sent, lat in zip(soak.plateau_sent, soak.plateau_latencies, strict=True)
        if not widened.met(sent + lat, lat)
    ]
    return {
        "machine_pauses_over_100ms": sum(1 for p in cpu if p[2] > 0.1),
        "longest_machine_pause_ms": round(1000 * max((p[2] for p in cpu), default=0.0), 1),
        "disk_syncs_over_100ms": sum(1 for p in disk if p[2] > 0.1),
        "longest_disk_sync_ms": round(1000 * max((p[2] for p in disk), default=0.0), 1),
        "server_stalls_over_100ms": sum(1 for _, late in stalls if late > 0.1),
        "server_own_stalls_over_100ms": sum(1 for late in own if late > 0.1),
        "longest_own_stall_ms": round(1000 * max(own, default=0.0), 1),
        "moves_no_machine_pause_met": len(clear),
        "move_p99_no_machine_pause_ms": (
            round(1000 * _percentile(clear, 0.99), 1) if clear else None
        ),
    }


def verdict(soak: Soak, reports: list[dict[str, Any]]) -> dict[str, Any]:
    """RSS growth from the first report after the first eviction cycle to the end."""
    idle = soak.args.idle_seconds
    plateau = next((r for r in reports if on_plateau(r, idle)), None)
    last = reports[-1] if reports else None
    growth = (
        round(100 * (last["rss_mib"] - plateau["rss_mib"]) / plateau["rss_mib"], 1)
        if plateau and last and plateau is not last
        else None
    )
    p99s = [r["move_p99_ms"] for r in reports if r["move_p99_ms"] is not None]
    server_p99s = [r["server_move_p99_ms"] for r in reports if r["server_move_p99_ms"]]
    stalls = [r["stall_max_ms"] for r in reports if r["stall_max_ms"] is not None]
    after_plateau = reports[reports.index(plateau) + 1 :] if plateau else []
    return {
        "rss_after_first_eviction_cycle_mib": plateau["rss_mib"] if plateau else None,
        "rss_end_mib": last["rss_mib"] if last else None,
        "rss_growth_pct": growth,
        "longest_stall_ms": max(stalls) if stalls else None,
        "stalls_over_100ms_after_first_eviction_cycle": sum(
            r["stalls_over_100ms"] or 0 for r in after_plateau
        ),
        "move_p99_after_first_eviction_cycle_ms": (
            round(1000 * _percentile(list(soak.plateau_latencies), 0.99), 1)
            if soak.plateau_latencies
            else None
        ),
        "moves_after_first_eviction_cycle": len(soak.plateau_latencies),
        **against_the_machine(soak),
        "worst_interval_move_p99_ms": max(p99s) if p99s else None,
        "median_interval_move_p99_ms": sorted(p99s)[len(p99s) // 2] if p99s else None,
        "worst_interval_server_move_p99_ms": max(server_p99s) if server_p99s else None,
        "longest_client_stall_ms": max(
            (r.get("client_stall_ms") or 0 for r in reports), default=None
        ),
        "moves_lost": soak.moves_lost,
        "moves": sum(r["moves"] for r in reports),
        "games": soak.games,
        "matches_finished": soak.matches,
        "table_trips_away": soak.away_trips,
        "slots_cut_at_the_end": soak.slots_cut,
        "rooms_evicted": last["evictions"] if last else None,
        "rooms_loaded": last["loads"] if last else None,
        "errors": soak.errors,
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import httpx

    from app.loop import collect_garbage

    workdir = Path(tempfile.mkdtemp(prefix="atout-soak-"))
    server = await start_server(workdir, args)
    pauses_path = workdir / "machine-pauses.txt"
    sentinel = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.sentinel", str(pauses_path), str(workdir), env=checkout_env()
    )
    try:
        soak = Soak(args, server.base_url, random.Random(args.seed), pauses_path=pauses_path)
        no_jar = CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))
        limits = httpx.Limits(max_connections=32)
        async with httpx.AsyncClient(timeout=120, limits=limits, cookies=no_jar) as http:
            started = time.monotonic()
            snapshots: list[Path] = []

            async def plateau() -> None:
                snapshots.append(await take_snapshot(server, workdir, 1))

            slots = [asyncio.create_task(slot(soak, http, i)) for i in range(args.tables)]
            watchdog = asyncio.create_task(watch_client(soak))
            # the load generator holds thousands of sockets too: it collects its garbage the
            # way the server does, or its own full collections would stall it and show up as
            # move latency
            gc_stop = asyncio.Event()
            collector = asyncio.create_task(collect_garbage(gc_stop))
            reporter = asyncio.create_task(
                report_loop(soak, http, server.pid, started, plateau if args.tracemalloc else None)
            )
            # SIGINT or SIGTERM ends the run early, with its reports and verdict so far
            interrupted = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, interrupted.set)
            try:
                await asyncio.wait_for(interrupted.wait(), timeout=args.duration)
            except TimeoutError:
                pass
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
            ran_s = time.monotonic() - started
            done = {task for task in slots if task.done()}
            census = None
            if snapshots:
                snapshots.append(await take_snapshot(server, workdir, 2))
                census = await take_census(server, workdir)
            soak.stop.set()
            for task in done:  # a slot that failed: say why
                if task.exception() is not None:
                    raise BenchError(f"a table failed: {task.exception()!r}")
            # a slot waits at most that long for a player who has stopped (its turn to move)
            _, late = await asyncio.wait(slots, timeout=STOP_GRACE_SECONDS)
            for task in late:
                task.cancel()
            soak.slots_cut = len(late)
            await asyncio.gather(*slots, return_exceptions=True)
            reports = await reporter
            await watchdog
            gc_stop.set()
            await collector
            final = await _server_stats(http, soak.base)
            culprits = final.get("stall_culprits") if args.trace_stalls else None
        result = verdict(soak, reports)
        result["machine"] = machine()
        result["tables"] = args.tables
        result["duration_s"] = round(ran_s, 1) if interrupted.is_set() else args.duration
        result["interrupted"] = interrupted.is_set()
        result["database"] = "postgresql" if args.database_url else "sqlite"
        result["server"] = server_timings(final)
        if args.trace_stalls:
            result["stall_culprits"] = culprits
        if args.tracemalloc:
            result["tracemalloc_growth"] = (
                allocation_growth(snapshots[0], snapshots[1]) if len(snapshots) == 2 else None
            )
            result["frozen_garbage"] = census
        if args.json:
            print(json.dumps({"verdict": result}))
        else:
            if result["interrupted"]:
                print(f"interrupted after {result['duration_s']} s: the verdict of the run so far")
            print(
                f"verdict: RSS {result['rss_after_first_eviction_cycle_mib']} -> "
                f"{result['rss_end_mib']} MiB ({result['rss_growth_pct']}% after the first "
                f"eviction cycle); longest stall {result['longest_stall_ms']} ms, "
                f"{result['stalls_over_100ms_after_first_eviction_cycle']} over 100 ms after "
                f"the first eviction cycle; move p99 after it "
                f"{result['move_p99_after_first_eviction_cycle_ms']} ms "
                f"({result['moves_after_first_eviction_cycle']} moves); worst 10 s "
                f"move p99 {result['worst_interval_move_p99_ms']} ms (median interval "
                f"{result['median_interval_move_p99_ms']} ms; in the server <= "
                f"{result['worst_interval_server_move_p99_ms']} ms; the load generator's "
                f"longest stall {result['longest_client_stall_ms']} ms); moves lost "
                f"{result['moves_lost']} of {result['moves']}; {result['games']} games, "
                f"{result['matches_finished']} matches finished, "
                f"{result['table_trips_away']} tables away and back; errors {result['errors']}"
            )
            if "machine_pauses_over_100ms" in result:
                print(
                    f"beside the machine, after the first eviction cycle: the machine paused "
                    f"over 100 ms {result['machine_pauses_over_100ms']} times (longest "
                    f"{result['longest_machine_pause_ms']} ms; disk syncs over 100 ms "
                    f"{result['disk_syncs_over_100ms']}, longest "
                    f"{result['longest_disk_sync_ms']} ms); server stalls over 100 ms "
                    f"{result['server_stalls_over_100ms']}, of which the server's own (no pause "
                    f"of the machine met) {result['server_own_stalls_over_100ms']}, its longest "
                    f"own stall {result['longest_own_stall_ms']} ms; move p99 of the "
                    f"{result['moves_no_machine_pause_met']} moves no pause of the machine met "
                    f"{result['move_p99_no_machine_pause_ms']} ms"
                )
            for name, t in result["server"].items():
                print(
                    f"server {name} over the run: {t['count']} (mean {t['mean_ms']} ms, p99 <= "
                    f"{t['p99_le_ms']} ms, {t['within_50ms_pct']}% <= 50 ms, longest "
                    f"{t['max_ms']} ms)"
                )
            if args.trace_stalls:
                print(f"what blocked the loop for more than {args.trace_stalls} ms:")
                for c in culprits or []:
                    print(
                        f"  {c['stalls']:6d} stalls  {c['total_ms']:9.1f} ms in all  longest "
                        f"{c['longest_ms']:7.1f} ms  {c['where']}"
                    )
            if args.tracemalloc:
                growth = result["tracemalloc_growth"]
                if growth is None:
                    print("tracemalloc: the run ended before the first eviction cycle")
                else:
                    print("tracemalloc: live allocations, first eviction cycle -> end:")
                    for g in growth:
                        print(
                            f"  {g['size_diff_kib']:+10.1f} KiB  {g['count_diff']:+8d} blocks"
                            f"  ({g['size_kib']:.1f} KiB)  {g['where']}"
                        )
                    print(
                        f"cyclic garbage a full collection finds at the end: "
                        f"{census['objects'] if census else '?'} objects; by type, by site:"
                    )
                    for name, n in (census or {}).get("types", []):
                        print(f"  {n:8d}  {name}")
                    for where, n in (census or {}).get("sites", []):
                        print(f"  {n:8d}  {where}")
        return result
    finally:
        server.stop()
        if sentinel.returncode is None:
            sentinel.send_signal(signal.SIGINT)
            await sentinel.wait()
        shutil.rmtree(workdir, ignore_errors=True)
