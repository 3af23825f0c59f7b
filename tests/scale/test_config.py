"""The proxy configuration that is shipped is the one the scale-out tests run: rendered with
local ports it keeps every rule of deploy/haproxy.cfg, and HAProxy accepts it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bench.cluster import HAPROXY, HAPROXY_CFG, render_haproxy


def test_the_rendered_config_is_the_shipped_one_with_local_ports(tmp_path: Path) -> None:
    text = render_haproxy(18080, [("atout1", 18001), ("atout2", 18002)], check_ms=300)
    lines = [line.strip() for line in text.splitlines()]
    assert "bind 127.0.0.1:18080" in lines
    servers = [line for line in lines if line.startswith("server ")]
    assert servers == ["server atout1 127.0.0.1:18001 check", "server atout2 127.0.0.1:18002 check"]
    shipped = [line.strip() for line in HAPROXY_CFG.read_text().splitlines()]
    for rule in (
        "balance hdr(X-Atout-Game)",
        "hash-type consistent",
        "option httpchk GET /healthz",
    ):
        assert rule in shipped and rule in lines
    kept = [
        line
        for line in shipped
        if line and not line.startswith(("server ", "bind ", "default-server ", "#"))
    ]
    assert all(line in lines for line in kept)
    if not Path(HAPROXY).exists():
        pytest.skip(f"{HAPROXY} is missing: the rendered file is not checked by HAProxy")
    config = tmp_path / "haproxy.cfg"
    config.write_text(text)
    checked = subprocess.run(
        [HAPROXY, "-c", "-f", str(config)], capture_output=True, text=True, timeout=30
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_nginx_routes_the_same_paths() -> None:
    """deploy/nginx.conf hashes on the same game-id paths, and ``nginx -t`` accepts it where
    nginx is installed (CI installs it)."""
    text = (HAPROXY_CFG.parent / "nginx.conf").read_text()
    assert "hash $game consistent;" in text
    assert '"~^/(?:g|ws|replay)/(?<id>' in text and '"~^/api/games/(?<id>' in text
    nginx = shutil.which("nginx")
    if nginx is None:
        pytest.skip("nginx is not installed")
    checked = subprocess.run(
        [nginx, "-t", "-c", str(HAPROXY_CFG.parent / "nginx.conf")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert checked.returncode == 0, checked.stderr
