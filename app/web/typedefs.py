"""JSDoc typedefs of the server's messages, generated from the published schema.

``static/js/protocol-types.js`` holds one ``@typedef`` per definition of
``docs/schema/server-to-client.json`` (``app/web/schema.py``), plus ``TableView``: every field
of any view (``SpectatorView`` ... ``DuelSeatView``), those that some view lacks optional. The
table's modules start with ``// @ts-check`` and read their views as ``TableView``, so a type
checker (``tsc -p static/js``; the browser needs no build step) refuses a field the schema does
not have. The file holds only comments and ``export {}``: nothing imports it at run time.

Regenerate it after changing a message: ``python -m app.web.typedefs --write``; ``--check``
tells whether it is current (tests/web/test_typedefs.py fails when it is not).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.web.schema import schemas

TYPEDEFS = Path(__file__).resolve().parents[2] / "static" / "js" / "protocol-types.js"
REGENERATE = "python -m app.web.typedefs --write"
VIEWS = (
    "SpectatorView",
    "BelaSpectatorView",
    "DuelSpectatorView",
    "SeatView",
    "BelaSeatView",
    "DuelSeatView",
)


def _ref(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _union(types: list[str]) -> str:
    seen: list[str] = []
    for t in types:
        for part in _split(t):
            if part not in seen:
                seen.append(part)
    return " | ".join(seen) if seen else "never"


def _split(t: str) -> list[str]:
    """The members of a union written by ``_union`` (top level only)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(t):
        if ch in "<({[":
            depth += 1
        elif ch in ">)}]":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(t[start:i].strip())
            start = i + 1
    parts.append(t[start:].strip())
    return parts


def _literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def type_of(node: dict[str, Any]) -> str:
    """The TypeScript type (as JSDoc writes it) of a JSON Schema node."""
    if "discriminator" in node and "mapping" in node["discriminator"]:
        return _union([_ref(r) for r in sorted(node["discriminator"]["mapping"].values())])
    if "$ref" in node:
        return _ref(node["$ref"])
    if "const" in node:
        return _literal(node["const"])
    if "enum" in node:
        return _union([_literal(v) for v in node["enum"]])
    for key in ("anyOf", "oneOf"):
        if key in node:
            return _union([type_of(n) for n in node[key]])
    kind = node.get("type")
    if isinstance(kind, list):
        return _union([type_of({**node, "type": k}) for k in kind])
    if kind == "array":
        item = type_of(node.get("items", {}))
        return f"Array<{item}>"
    if kind == "object":
        if "properties" in node:
            required = set(node.get("required", ()))
            fields = [
                f"{name}{'' if name in required else '?'}: {type_of(prop)}"
                for name, prop in node["properties"].items()
            ]
            return "{ " + "; ".join(fields) + " }"
        extra = node.get("additionalProperties")
        value = type_of(extra) if isinstance(extra, dict) else "any"
        return f"Object<string, {value}>"
    return {
        "string": "string",
        "integer": "number",
        "number": "number",
        "boolean": "boolean",
        "null": "null",
    }.get(str(kind), "any")


def _comment(text: str) -> str:
    return " ".join(text.split()).replace("*/", "*\\/")


def _typedef(name: str, node: dict[str, Any]) -> list[str]:
    lines = ["/**"]
    if node.get("description"):
        lines.append(f" * {_comment(node['description'])}")
    if node.get("type") == "object" and "properties" in node and "discriminator" not in node:
        required = set(node.get("required", ()))
        lines.append(f" * @typedef {{Object}} {name}")
        for field, prop in node["properties"].items():
            label = field if field in required else f"[{field}]"
            note = f" - {_comment(prop['description'])}" if prop.get("description") else ""
            lines.append(f" * @property {{{type_of(prop)}}} {label}{note}")
    else:
        lines.append(f" * @typedef {{{type_of(node)}}} {name}")
    lines.append(" */")
    return lines


def _table_view(defs: dict[str, Any]) -> list[str]:
    """Every field of any view; a field some view lacks is optional."""
    models = [defs[name] for name in VIEWS]
    names: list[str] = []
    for model in models:
        names += [n for n in model["properties"] if n not in names]
    lines = [
        "/**",
        " * The view a table holds (merged from `state` and `update`): the fields of any view",
        f" * ({', '.join(VIEWS)}); those some view lacks are optional.",
        " * @typedef {Object} TableView",
    ]
    for field in names:
        props = [m["properties"][field] for m in models if field in m["properties"]]
        everywhere = all(field in m.get("required", ()) for m in models)
        label = field if everywhere else f"[{field}]"
        lines.append(f" * @property {{{_union([type_of(p) for p in props])}}} {label}")
    lines.append(" */")
    return lines


def render() -> str:
    """The text of ``static/js/protocol-types.js``."""
    schema = schemas()["server_to_client"]
    defs = schema["$defs"]
    out = [
        "// Generated from docs/schema/server-to-client.json by app/web/typedefs.py: do not edit;",
        f"// run `{REGENERATE}`. JSDoc types only (for `// @ts-check`): nothing to run.",
        "",
        "/**",
        " * Any message the server sends (docs/protocol.md).",
        f" * @typedef {{{type_of(schema)}}} ServerMessage",
        " */",
        "",
    ]
    for name in sorted(defs):
        out += [*_typedef(name, defs[name]), ""]
    out += [*_table_view(defs), "", "export {};", ""]
    return "\n".join(out)


def stale(path: Path = TYPEDEFS) -> bool:
    return not path.exists() or path.read_text(encoding="utf-8") != render()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.web.typedefs", description=__doc__)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true", help=f"write {TYPEDEFS.name}")
    group.add_argument("--check", action="store_true", help=f"fail if {TYPEDEFS.name} is stale")
    args = parser.parse_args(argv)
    if args.write:
        TYPEDEFS.write_text(render(), encoding="utf-8")
        print(f"wrote {TYPEDEFS}")
        return 0
    if stale():
        print(f"{TYPEDEFS} is stale: run `{REGENERATE}`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
