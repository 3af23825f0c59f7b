"""The ``atout`` command.

Subcommands are plugged in, not hard-wired: each entry of ``COMMANDS`` is ``(name, register)``
where ``register(subparsers)`` adds one subparser and calls ``set_defaults(func=...)``; ``func``
receives the parsed ``argparse.Namespace`` and returns an exit code.

Other packages add theirs through ``PLUGIN_MODULES``: a module listed there that can be imported
must define ``register(subparsers)`` and may add several subcommands:

- ``app.engine.cli``  ``atout record ...`` (validate, replay, generate records)
- ``app.bots.cli``    ``atout arena ...`` (bot levels against each other)
- ``app.bench``       the developer tools under ``atout bench`` (``engine``, ``load``,
  ``publish``, ``tune``)
- ``app.web.schema``  ``atout schema`` (the protocol's JSON Schema, docs/schema)
- ``app.persistence.backup``  ``atout backup`` and ``atout restore``
- ``app.players.fairplay``  ``atout fairplay`` (the host's fair-play figures)

The dependency goes one way: this module imports the plugins, no product package imports it.

A plugin module that does not exist (yet) is skipped; one that exists but fails to import is an
error, so that a bug there is not silently hidden.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from app import __version__
from app.bench import bench_parsers

__all__ = ["bench_parsers", "build_parser", "main"]

SubParsers = Any  # argparse._SubParsersAction, which is private
Register = Callable[[SubParsers], None]

PLUGIN_MODULES: tuple[str, ...] = (
    "app.engine.cli",
    "app.bots.cli",
    "app.bench",
    "app.web.schema",
    "app.persistence.backup",
    "app.players.fairplay",
)


def _error(message: str) -> int:
    print(f"atout: {message}", file=sys.stderr)
    return 1


def cmd_serve(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from app.persistence.db import (
        DatabaseUnavailable,
        check_database,
        single_process_lock,
    )
    from app.settings import get_settings

    try:
        settings = get_settings()
    except ValidationError as exc:
        problems = "; ".join(
            f"ATOUT_{'_'.join(str(p) for p in err['loc']).upper()}: {err['msg']}"
            for err in exc.errors()
        )
        return _error(f"invalid configuration: {problems}")
    host = args.host or settings.host
    port = args.port or settings.port

    try:
        asyncio.run(check_database(settings.database_url))
    except DatabaseUnavailable as exc:
        return _error(str(exc))
    try:
        single_process_lock(settings.database_url)
    except DatabaseUnavailable as exc:
        return _error(str(exc))

    import uvicorn

    from app.web.messages import TRANSPORT_MAX_FRAME_BYTES
    from app.web.wsprotocol import HTTPProtocol, WebSocketProtocol

    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=host,
        port=port,
        http=HTTPProtocol,  # upgraded connections freed without a full collection
        ws=WebSocketProtocol,  # closed sockets freed without a full collection
        ws_max_size=TRANSPORT_MAX_FRAME_BYTES,  # the app refuses frames over 16 KiB itself
        ws_per_message_deflate=settings.ws_compression,
        log_config=None,  # app.logging sets up JSON lines for uvicorn's loggers too
        log_level=settings.log_level.lower(),
    )
    return 0


def register_serve(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the web server",
        description="Run the web server (settings from ATOUT_* environment variables).",
    )
    parser.add_argument("--host", help="address to listen on (default: ATOUT_HOST or 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port to listen on (default: ATOUT_PORT or 8000)")
    parser.set_defaults(func=cmd_serve)


COMMANDS: list[tuple[str, Register]] = [
    ("serve", register_serve),
]


def _plugin_registrars() -> list[Register]:
    registrars: list[Register] = []
    for module_name in PLUGIN_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            missing = exc.name or ""
            if module_name == missing or module_name.startswith(missing + "."):
                continue  # the plugin (or its package) is not there yet
            raise
        registrars.append(module.register)
    return registrars


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="atout", description="Atout, a Belote server.")
    parser.add_argument("--version", action="version", version=f"atout {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for _name, register in COMMANDS:
        register(subparsers)
    for register in _plugin_registrars():
        register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(func(args) or 0)
    except BrokenPipeError:
        # the reader went away (`atout bench engine | head -1`): stop quietly, like other tools
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, as a shell reports it


if __name__ == "__main__":
    sys.exit(main())
