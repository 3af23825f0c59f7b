"""Developer tools kept out of the product: benchmarks and offline fitting, ``atout bench ...``.

The server never imports this package; ``app.cli`` does, as one of its plugins. Each module of
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
- ``tune``  ``atout bench tune`` (also ``python -m app.bench.tune``): fits the bots' hand
  valuation, written to ``app/bots/valuation_coefs.py``.

A benchmark moved here from another package joins by adding its module to ``BENCHES``.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

SubParsers = Any  # argparse._SubParsersAction, which is private

BENCHES: tuple[str, ...] = (
    "app.bench.engine",
    "app.bench.failover",
    "app.bench.load",
    "app.bench.lobby",
    "app.bench.publish",
    "app.bench.reads",
    "app.bench.soak",
    "app.bench.solver",
    "app.bench.train",
    "app.bench.tournament",
    "app.bench.tune",
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
