"""Scale-out tests: real ``atout serve`` processes sharing PostgreSQL, a real HAProxy in front
(deploy/haproxy.cfg, rendered by bench/cluster.py), real WebSocket clients.

They run in ``make test-db`` (their modules are marked ``db``) when ATOUT_DATABASE_URL points at PostgreSQL, and
skip with a reason on SQLite or without /usr/sbin/haproxy; under CI (``CI=true``) with
PostgreSQL a missing haproxy fails instead of skipping. test_sqlite.py is the exception: it
checks that SQLite refuses a second process, on SQLite, in ``make test``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from bench.cluster import HAPROXY, Cluster
from tests.conftest import EXTERNAL_DATABASE_URL, seed_of

LEASE_SECONDS = "1.5"


def _postgresql() -> bool:
    return bool(EXTERNAL_DATABASE_URL) and (
        make_url(EXTERNAL_DATABASE_URL).get_backend_name() == "postgresql"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    reason = None
    if not _postgresql():
        reason = "scale-out needs PostgreSQL: set ATOUT_DATABASE_URL (make test-db)"
    elif not Path(HAPROXY).exists() and os.environ.get("CI") != "true":
        reason = f"scale-out needs {HAPROXY} (Debian: apt-get install haproxy)"
    for item in items:
        in_here = Path(str(item.fspath)).is_relative_to(here)
        if reason is not None and in_here and item.get_closest_marker("db") is not None:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def make_cluster(
    migrated_database_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Cluster]]:
    """``make_cluster(nodes=3, env=None)``: a started Cluster, stopped after the test."""
    if not Path(HAPROXY).exists():
        pytest.fail(f"CI with PostgreSQL must install haproxy: {HAPROXY} is missing")
    clusters: list[Cluster] = []

    def make(nodes: int = 3, env: dict[str, str] | None = None) -> Cluster:
        full_env = {
            "ATOUT_LEASE_SECONDS": LEASE_SECONDS,
            "ATOUT_NEXT_DEAL_SECONDS": "30",
            # test players move as fast as the server answers
            "ATOUT_WS_RATE": "500",
            "ATOUT_WS_BURST": "500",
            "ATOUT_TEST_SEED": str(seed_of(request.node.nodeid)),  # the same decks every run
            **(env or {}),
        }
        cluster = Cluster(
            tmp_path / f"cluster{len(clusters)}", migrated_database_url, nodes, env=full_env
        )
        clusters.append(cluster)
        cluster.start()
        return cluster

    yield make
    for cluster in clusters:
        cluster.stop()
