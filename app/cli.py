"""The ``atout`` command.

Subcommands are plugged in, not hard-wired: each entry of ``COMMANDS`` is ``(name, register)``
where ``register(subparsers)`` adds one subparser and calls ``set_defaults(func=...)``; ``func``
receives the parsed ``argparse.Namespace`` and returns an exit code.

Other packages add theirs through ``PLUGIN_MODULES``: a module listed there that can be imported
must define ``register(subparsers)`` and may add several subcommands:

- ``app.engine.cli``  ``atout record ...`` (validate, replay, generate records)
- ``app.bots.cli``    ``atout analyse`` (what each card and bid of a record was worth)
- ``app.web.schema``  ``atout schema`` (the protocol's JSON Schema, docs/schema)
- ``app.persistence.backup``  ``atout backup`` and ``atout restore``
- ``app.players.fairplay``  ``atout fairplay`` (the host's fair-play figures)

The dependency goes one way: this module imports the plugins, no product package imports it.

A plugin module that does not exist (yet) is skipped; one that exists but fails to import is an
error, so that a bug there is not silently hidden.

The developer tools are not part of the installed package: they live in ``bench/`` beside
``app/`` in a checkout of the repository (``TOOLS``: ``atout bench ...``, the benchmarks, and
``atout arena ...``, bot levels against each other). Their module is imported only when its
command is asked for, so that ``atout serve`` never loads them; if ``bench`` cannot be imported,
the checkout that holds this ``app`` is put on ``sys.path`` (an editable install run from
another folder), and without a checkout the command exits with status 2 and says so.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import app
from app import __version__

__all__ = ["build_parser", "main"]

SubParsers = Any  # argparse._SubParsersAction, which is private
Register = Callable[[SubParsers], None]

PLUGIN_MODULES: tuple[str, ...] = (
    "app.engine.cli",
    "app.bots.cli",
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


# command -> (the module of a checkout's bench/ that registers it, its help)
TOOLS: dict[str, tuple[str, str]] = {
    "arena": ("bench.arena_cli", "play duplicate deals between two bot levels"),
    "bench": ("bench", "benchmarks and developer tools"),
}
NO_TOOLS = (
    "the benchmarks and the arena come with a checkout of the repository "
    "(bench/ beside app/); this installation has no checkout"
)


def checkout_root() -> Path | None:
    """The checkout that holds this ``app`` package, if it has the tools (``bench/``)."""
    root = Path(app.__file__).resolve().parent.parent
    return root if (root / "bench" / "__init__.py").is_file() else None


def load_tool(module_name: str) -> ModuleType | None:
    """Import a tool's module, putting the checkout on ``sys.path`` if ``bench`` is not
    importable yet; None when there is no checkout to find it in."""
    for attempt in range(2):
        try:
            return importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != "bench":
                raise  # a module of the tools that fails to import is an error, not hidden
            root = checkout_root()
            if attempt or root is None:
                return None
            sys.path.insert(0, str(root))
    return None


def _no_tools(args: argparse.Namespace | None = None) -> int:
    print(f"atout: {NO_TOOLS}", file=sys.stderr)
    return 2


def register_unloaded_tool(subparsers: SubParsers, name: str, help_text: str) -> None:
    """A tool's command that is listed but not loaded (another command was asked for, or
    there is no checkout): it takes any arguments and says where the tools are."""
    parser = subparsers.add_parser(name, help=f"{help_text} (in a checkout)", add_help=False)
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    parser.set_defaults(func=_no_tools)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``atout`` parser. ``command``: the subcommand asked for; of the tools (``TOOLS``),
    only its own module is imported. None: every tool a checkout has (for the tests)."""
    parser = argparse.ArgumentParser(prog="atout", description="Atout, a Belote server.")
    parser.add_argument("--version", action="version", version=f"atout {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for _name, register in COMMANDS:
        register(subparsers)
    for register in _plugin_registrars():
        register(subparsers)
    for name, (module_name, help_text) in TOOLS.items():
        tool = load_tool(module_name) if command in (None, name) else None
        if tool is not None:
            tool.register(subparsers)
        else:
            register_unloaded_tool(subparsers, name, help_text)
    return parser


def command_of(argv: Sequence[str]) -> str:
    """The subcommand ``argv`` asks for ("" if none): its first word that is not an option
    (``atout`` itself takes no option with a value)."""
    return next((word for word in argv if not word.startswith("-")), "")


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = command_of(argv)
    if command in TOOLS and load_tool(TOOLS[command][0]) is None:
        return _no_tools()
    parser = build_parser(command)
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
