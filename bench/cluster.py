"""Several ``atout serve`` processes behind a real HAProxy on 127.0.0.1 (docs/scaling.md).

The scale-out tests (tests/scale) and ``atout bench failover`` / ``atout bench load
--servers N`` run the same topology through this module:

    cluster = Cluster(workdir, database_url, nodes=3, env={"ATOUT_LEASE_SECONDS": "1.5"})
    cluster.start()              # migrations, N servers (waited healthy), haproxy in front
    cluster.base_url             # http://127.0.0.1:PORT, the proxy
    cluster.nodes[0].kill()      # SIGKILL; .freeze() / .thaw(): SIGSTOP / SIGCONT
    cluster.stop()               # every process it started, by pid

The proxy's configuration is ``deploy/haproxy.cfg`` itself, rendered with the cluster's
ports by ``render_haproxy``: the file shipped to hosts is the file tested.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench import ROOT

PROJECT_ROOT = ROOT  # the checkout: deploy/ and app/ beside bench/
HAPROXY_CFG = PROJECT_ROOT / "deploy" / "haproxy.cfg"
HAPROXY = "/usr/sbin/haproxy"


class ClusterError(RuntimeError):
    """A process or the proxy of the cluster did not start, or stopped."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def render_haproxy(
    listen_port: int, servers: Sequence[tuple[str, int]], *, check_ms: int | None = None
) -> str:
    """deploy/haproxy.cfg with its ``bind`` on 127.0.0.1:``listen_port`` and one ``server``
    line per (name, port) on 127.0.0.1 instead of its own; ``check_ms`` shortens the health
    checks' interval (tests)."""
    text = HAPROXY_CFG.read_text()
    text, binds = re.subn(r"(?m)^(\s*)bind \S+", rf"\1bind 127.0.0.1:{listen_port}", text)
    lines = text.splitlines()
    server_at = [i for i, line in enumerate(lines) if line.strip().startswith("server ")]
    if binds != 1 or not server_at:
        raise ClusterError(f"{HAPROXY_CFG}: expected one bind line and server lines")
    indent = lines[server_at[0]][: len(lines[server_at[0]]) - len(lines[server_at[0]].lstrip())]
    new = [f"{indent}server {name} 127.0.0.1:{port} check" for name, port in servers]
    lines[server_at[0] : server_at[-1] + 1] = new
    text = "\n".join(lines) + "\n"
    if check_ms is not None:
        text = re.sub(r"inter \d+m?s", f"inter {check_ms}ms", text)
    return text


def _wait_http(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ClusterError(f"{log.name}: exited during start-up:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError) as exc:
            last = str(exc)
        time.sleep(0.05)
    raise ClusterError(f"{url} not healthy after {timeout} s ({last})")


@dataclass
class Node:
    """One ``atout serve`` process of the cluster."""

    name: str
    port: int
    env: dict[str, str]
    workdir: Path
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.workdir / f"{self.name}.log"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self, *, wait: bool = True) -> Node:
        self.starts += 1
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "app",
                    "serve",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                ],
                cwd=self.workdir,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        if wait:
            _wait_http(self.base_url + "/healthz", self.proc, self.log)
        return self

    def kill(self) -> None:
        """SIGKILL: a crash, no shutdown hook runs (its leases simply expire)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None

    def freeze(self) -> None:
        """SIGSTOP: the process stops, sockets and all, until ``thaw``."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGCONT)

    def freeze_in_write(self, skip: int = 0) -> None:
        """Arm the test hook (``ATOUT_TEST_HOOKS=1``; app/persistence/freeze.py): the process
        stops itself inside its next room write's transaction (``skip=1``: the one after)."""
        assert self.proc is not None and skip in (0, 1)
        os.kill(self.proc.pid, signal.SIGUSR2 if skip else signal.SIGUSR1)

    def stopped(self) -> bool:
        """Whether the process is stopped (SIGSTOP: state T in /proc)."""
        if self.proc is None or self.proc.poll() is not None:
            return False
        try:
            stat = Path(f"/proc/{self.proc.pid}/stat").read_text()
        except OSError:
            return False
        return stat.rsplit(")", 1)[1].split()[0] in ("T", "t")

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)  # a frozen process cannot handle SIGTERM
            os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


@dataclass
class Cluster:
    workdir: Path
    database_url: str
    nodes_count: int = 3
    env: Mapping[str, str] = field(default_factory=dict)
    check_ms: int = 300
    proxy_port: int = 0
    nodes: list[Node] = field(default_factory=list)
    proxy: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.proxy_port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.proxy_port}"

    def node_env(self, name: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ATOUT_")}
        env.update(
            {
                "ATOUT_DATABASE_URL": self.database_url,
                "ATOUT_PUBLIC_BASE_URL": self.base_url,
                "ATOUT_NODE_ID": name,
                "ATOUT_BOT_DELAY_MS": "0",
                "ATOUT_BOT_WORKERS": "0",
                "ATOUT_BACKUP_HOURS": "0",  # no automatic backup during a measurement
                "ATOUT_LOG_LEVEL": "INFO",
                "PYTHONUNBUFFERED": "1",
                "PYTHONPATH": os.pathsep.join(
                    p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH")) if p
                ),
            }
        )
        env.update(self.env)
        return env

    def start(self) -> Cluster:
        from app.persistence.migrate import upgrade_head

        if not Path(HAPROXY).exists():
            raise ClusterError(f"{HAPROXY} is missing (Debian: apt-get install haproxy)")
        self.workdir.mkdir(parents=True, exist_ok=True)
        upgrade_head(self.database_url)
        self.proxy_port = self.proxy_port or free_port()
        for i in range(self.nodes_count):
            name = f"atout{i + 1}"
            node = Node(name, free_port(), {}, self.workdir)
            node.env = self.node_env(name)
            self.nodes.append(node)
        try:
            for node in self.nodes:
                node.start(wait=False)
            for node in self.nodes:
                assert node.proc is not None
                _wait_http(node.base_url + "/healthz", node.proc, node.log)
            self.start_proxy()
        except BaseException:
            self.stop()
            raise
        return self

    def start_proxy(self) -> None:
        config = self.workdir / "haproxy.cfg"
        config.write_text(
            render_haproxy(
                self.proxy_port, [(n.name, n.port) for n in self.nodes], check_ms=self.check_ms
            )
        )
        log = self.workdir / "haproxy.log"
        with log.open("ab") as out:
            self.proxy = subprocess.Popen(
                [HAPROXY, "-db", "-f", str(config)],
                cwd=self.workdir,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        _wait_http(self.base_url + "/healthz", self.proxy, log)

    def node_of(self, pid_or_name: str) -> Node:
        return next(n for n in self.nodes if n.name == pid_or_name)

    def logs(self) -> str:
        parts = []
        for node in self.nodes:
            if node.log.exists():
                parts.append(f"--- {node.name}\n{node.log.read_text()[-4000:]}")
        return "\n".join(parts)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        if self.proxy is not None:
            if self.proxy.poll() is None:
                self.proxy.terminate()
                try:
                    self.proxy.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.proxy.kill()
                    self.proxy.wait(timeout=5)
            self.proxy = None
