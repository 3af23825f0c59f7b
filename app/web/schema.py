"""The protocol's JSON Schema (draft 2020-12), generated from the typed message models.

Two documents, one per direction, both checked into ``docs/schema/`` and served by
``GET /api/schema``:

* ``server-to-client.json``: every message the server sends (app/rooms/messages.py), with the
  seat and spectator views and every engine event of ``update.events``;
* ``client-to-server.json``: every WebSocket message a client may send (app/web/messages.py).

Regenerate the files after changing a message: ``atout schema --write`` (or
``python -m app.web.schema --write``); ``atout schema --check`` tells whether they are current
(tests/web/test_schema.py fails when they are not). The client's JSDoc typedefs are generated
from ``server-to-client.json`` as well: ``python -m app.web.typedefs --write``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_DIR = Path(__file__).resolve().parents[2] / "docs" / "schema"
FILES = {"server_to_client": "server-to-client.json", "client_to_server": "client-to-server.json"}
REGENERATE = "atout schema --write"


def _document(schema: dict[str, Any], title: str, description: str) -> dict[str, Any]:
    return {
        "$schema": DIALECT,
        "title": title,
        "description": description,
        **_tagged(schema),
    }


def _tagged(node: Any) -> Any:
    """Each discriminated union (pydantic's ``oneOf`` with a ``discriminator``) as the same
    constraint spelt for any validator to check quickly: the tag must be one of the union's,
    and the member whose tag it is applies (``if`` tag, ``then`` member). A ``oneOf`` makes a
    validator try every member in full; this reads the tag once."""
    if isinstance(node, list):
        return [_tagged(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _tagged(value) for key, value in node.items()}
    discriminator = node.get("discriminator")
    if isinstance(discriminator, dict) and "oneOf" in node:
        tag = discriminator["propertyName"]
        mapping: dict[str, str] = discriminator["mapping"]
        del node["oneOf"]
        node["type"] = "object"
        node["required"] = [tag]
        node["properties"] = {tag: {"enum": list(mapping)}}
        node["allOf"] = [
            {"if": {"properties": {tag: {"const": value}}}, "then": {"$ref": ref}}
            for value, ref in mapping.items()
        ]
    return node


def schemas() -> dict[str, dict[str, Any]]:
    """Both documents, keyed ``server_to_client`` and ``client_to_server``."""
    # imported here: ``atout`` registers this module's command without building the models
    from app.rooms.messages import outgoing_adapter
    from app.web.messages import incoming_adapter

    return {
        "server_to_client": _document(
            outgoing_adapter().json_schema(),
            "Atout: server to client",
            "Every WebSocket message the server sends (docs/protocol.md).",
        ),
        "client_to_server": _document(
            incoming_adapter().json_schema(),
            "Atout: client to server",
            "Every WebSocket message a client may send (docs/protocol.md).",
        ),
    }


def render(schema: dict[str, Any]) -> str:
    """The text of a checked-in schema file."""
    return json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def stale_files(directory: Path = SCHEMA_DIR) -> list[str]:
    """The files of ``directory`` that differ from the generated schemas (or are missing)."""
    out = []
    for key, schema in schemas().items():
        path = directory / FILES[key]
        if not path.exists() or path.read_text(encoding="utf-8") != render(schema):
            out.append(FILES[key])
    return out


def write(directory: Path = SCHEMA_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for key, schema in schemas().items():
        path = directory / FILES[key]
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


def cmd_schema(args: argparse.Namespace) -> int:
    directory = Path(args.dir) if args.dir else SCHEMA_DIR
    if args.write:
        for path in write(directory):
            print(f"wrote {path}")
        return 0
    if args.check:
        stale = stale_files(directory)
        if stale:
            print(f"{', '.join(stale)} in {directory} differ: run `{REGENERATE}`", file=sys.stderr)
            return 1
        return 0
    print(json.dumps(schemas(), indent=2, ensure_ascii=False, sort_keys=True))
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "schema",
        help="the protocol's JSON Schema (docs/schema)",
        description="Print the protocol's JSON Schema, write it into docs/schema, or check it.",
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help="write docs/schema/*.json")
    group.add_argument("--check", action="store_true", help="fail if docs/schema is stale")
    parser.add_argument("--dir", help="the directory of the files (default: docs/schema)")
    parser.set_defaults(func=cmd_schema)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.web.schema")
    sub = parser.add_subparsers()
    register(sub)
    args = parser.parse_args(["schema", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
