"""Developer tools kept out of the product: benchmarks, offline fitting and the arena.

This package sits beside ``app/`` in a checkout and is not installed with it (pyproject.toml
packages only ``app``; the Docker image copies ``app/`` alone). It may import any part of the
product; nothing in ``app`` imports it, except ``app.cli``, which imports it by name only when
``atout bench ...`` or ``atout arena ...`` is asked for (``app.cli.TOOLS``). Each module of
``BENCHES`` defines ``add_bench(bench)``, which adds its own subcommand to ``atout bench``
(``bench`` is the subparsers action of the ``bench`` command, see ``bench_parsers``):

- ``engine``  ``atout bench engine`` (``make bench``): random full deals and bare playouts per
  second, per variant;
- ``failover``  ``atout bench failover``: SIGKILLs of a room's owner among several processes
  behind HAProxy (``cluster`` starts them): moves lost, forks, recovery time;
- ``load``  ``atout bench load``: a server's capacity with real WebSocket clients (``bare`` is
  the bare FastAPI endpoint it compares with; ``--servers 1,2``: through HAProxy onto N
  processes);
- ``lobby``  ``atout bench lobby``: lobby watchers' cost to the games' moves and the lobby's
  update latency (public tables whose seats change);
- ``publish``  ``atout bench publish``: what a room spends to send one version to its listeners;
- ``reads``  ``atout bench reads``: how often the rollout policy makes the players' choices,
  and where the real world ranks among drawn worlds by the weight of ``hard-reads``;
- ``soak``  ``atout bench soak``: hours of tables starting, finishing, leaving and coming back
  (rooms evicted and restored): memory, stalls, move latency, moves lost;
- ``solver``  ``atout bench solver``: the exact solver's time per position, per variant, against
  the older endgame solver;
- ``train``  ``atout bench train data|fit``: self-play data and the fitting of the bots' model
  of the hidden cards, written to ``app/bots/beliefs.npz``;
- ``tournament``  ``atout bench tournament``: the live Swiss's time to pair a round (and to
  score it), 64 and 256 pairs;
- ``tune``  ``atout bench tune`` (also ``python -m bench.tune``): fits the bots' hand
  valuation, written to ``app/bots/valuation_coefs.py``.

A new benchmark joins by adding its module to ``BENCHES``.

The arena is here too: ``arena`` (duplicate deals between two bot levels), ``anchors`` (the
levels' rating anchors measured with it) and ``arena_cli`` (``atout arena ...``, registered by
``app.cli`` on its own).
"""

from __future__ import annotations

import argparse
import importlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

SubParsers = Any  # argparse._SubParsersAction, which is private

# The checkout: bench/ and app/ are in it
ROOT = Path(__file__).resolve().parent.parent


def checkout_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's environment) with the checkout first on
    ``PYTHONPATH``, for a child process that runs a module of ``bench`` from another folder."""
    env = dict(os.environ if env is None else env)
    paths = [str(ROOT), *(p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return env


BENCHES: tuple[str, ...] = (
    "bench.engine",
    "bench.failover",
    "bench.load",
    "bench.lobby",
    "bench.publish",
    "bench.reads",
    "bench.soak",
    "bench.solver",
    "bench.train",
    "bench.tournament",
    "bench.tune",
)


def bench_parsers(subparsers: SubParsers) -> SubParsers:
    """The subcommands of ``atout bench`` (the ``bench`` command is made if it is not there
    yet): ``bench_parsers(subparsers).add_parser("name", ...)`` adds ``atout bench name``."""
    bench = subparsers.choices.get("bench")
    if bench is None:
        bench = subparsers.add_parser("bench", help="benchmarks and developer tools")
        bench.add_subparsers(dest="bench_command", required=True)
    return next(
        action
        for action in bench._actions  # argparse keeps its subparsers action there
        if isinstance(action, argparse._SubParsersAction)
    )


def register(subparsers: SubParsers) -> None:
    """The ``app.cli`` plugin hook: add every module of ``BENCHES`` under ``atout bench``."""
    bench = bench_parsers(subparsers)
    for name in BENCHES:
        importlib.import_module(name).add_bench(bench)
