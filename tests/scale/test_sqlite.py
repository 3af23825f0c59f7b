"""SQLite serves one process: a second ``atout serve`` on the same file stops at once with
one clear line (an exclusive lock on ``<file>.lock``, held for the first server's life)."""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

from tests.conftest import PROJECT_ROOT, free_port


def test_a_second_server_on_the_same_sqlite_file_is_refused(
    live_server: Any, tmp_path: Path
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'atout.db'}"
    first = live_server(database_url=url)
    env = {**first.env, "ATOUT_PORT": str(free_port())}
    second = subprocess.run(
        [sys.executable, "-m", "app", "serve"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert second.returncode == 1
    lines = second.stderr.strip().splitlines()
    assert len(lines) == 1, second.stderr
    assert lines[0].startswith("atout: another atout server already uses ")
    assert str(tmp_path / "atout.db") in lines[0] and "PostgreSQL" in lines[0]
    # the first one is unharmed; once it stops, the file is free again
    with urllib.request.urlopen(first.base_url + "/healthz") as r:
        assert r.status == 200
    first.stop()
    again = live_server(database_url=url, migrate=False)
    with urllib.request.urlopen(again.base_url + "/healthz") as r:
        assert r.status == 200
