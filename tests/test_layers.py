"""The layer table: which part of ``app`` may import which (docs/architecture.md, "Which
package depends on which"). A part is a package of ``app`` or one of its top-level modules, or
``bench``, the top-level package of the tools beside ``app`` (benchmarks, the arena).

``test_every_import_is_allowed`` walks every module of ``app`` and ``bench`` with ``ast``
(imports inside functions and under ``TYPE_CHECKING`` included, relative ones resolved) and
fails on any import the table does not allow; no part of ``app`` may import ``bench`` (``atout
bench`` and ``atout arena`` reach it through ``app.cli.TOOLS``, by name, when asked for); ``test_the_page_shows_the_table`` checks that the page's table
is this one, row for row. A new dependency is a change of this table, of the page, and of the
design: say why in the commit."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"
BENCH = ROOT / "bench"
PAGE = ROOT / "docs" / "architecture.md"

GROUND = {"settings", "logging", "metrics"}  # the ground floor: they import nothing of app

# part -> the parts it may import (its own modules always)
LAYERS: dict[str, set[str]] = {
    "engine": set(),
    "settings": set(),
    "logging": set(),
    "metrics": set(),
    "loop": {"metrics"},
    "bots": {"engine"},
    "persistence": {"engine", "settings", "metrics"},
    "players": {"engine", "bots", "persistence", "settings", "logging"},
    "rooms": {"engine", "bots", "persistence", "settings", "logging", "metrics"},
    "tournaments": {"engine", "bots", "persistence", "rooms", "settings"},
    "web": {
        "engine",
        "bots",
        "persistence",
        "players",
        "rooms",
        "tournaments",
        "settings",
        "logging",
        "metrics",
        "loop",
    },
    "main": {"web", "rooms", "persistence", "settings", "logging", "loop"},
    "cli": {"web", "persistence", "settings"},
    "__main__": {"cli"},
    "__init__": set(),
    # the tools (bench/ beside app/) may use any part of the product; no part imports them
    "bench": {
        "engine",
        "bots",
        "persistence",
        "players",
        "rooms",
        "tournaments",
        "web",
        "main",
        "settings",
        "logging",
        "metrics",
        "loop",
        "cli",
    },
}


def modules() -> list[Path]:
    return sorted([*APP.rglob("*.py"), *BENCH.rglob("*.py")])


def part_of(path: Path) -> str:
    if path.is_relative_to(BENCH):
        return "bench"
    rel = path.relative_to(APP)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def imported_parts(path: Path) -> dict[str, int]:
    """The parts that ``path`` imports (of ``app``, and ``bench``), each with the line of its
    first import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = list(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found: dict[str, int] = {}

    def add(module: str, line: int) -> None:
        names = module.split(".")
        if names[0] == "app" and len(names) > 1:
            found.setdefault(names[1], line)
        elif names[0] == "bench":
            found.setdefault("bench", line)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module == "app":  # from app import metrics, __version__
                for alias in node.names:
                    if (APP / alias.name).is_dir() or (APP / f"{alias.name}.py").is_file():
                        add(f"app.{alias.name}", node.lineno)
            else:
                add(module, node.lineno)
    return found


def test_every_part_has_a_row() -> None:
    parts = {part_of(p) for p in modules()}
    assert parts <= set(LAYERS), (
        f"parts of app with no row in the layer table: {parts - set(LAYERS)}"
    )


def test_every_import_is_allowed() -> None:
    offenders = []
    for path in modules():
        part = part_of(path)
        name = str(path.relative_to(ROOT))
        allowed = LAYERS.get(part, set()) | {part}
        for target, line in sorted(imported_parts(path).items()):
            if target not in allowed:
                offenders.append(f"{name}:{line} imports {target} ({part} -> {target})")
    assert offenders == [], "imports the layer table does not allow:\n" + "\n".join(offenders)


def test_the_layers_have_no_cycle() -> None:
    seen: dict[str, int] = {}

    def visit(part: str, path: tuple[str, ...]) -> None:
        assert part not in path, " -> ".join((*path, part))
        if part in path or seen.get(part):
            return
        for target in LAYERS[part]:
            visit(target, (*path, part))
        seen[part] = 1

    for part in LAYERS:
        visit(part, ())


def test_the_ground_floor_imports_nothing_of_app() -> None:
    assert all(not LAYERS[part] for part in GROUND | {"engine"})


def test_no_part_of_the_product_imports_the_tools() -> None:
    assert [part for part, allowed in LAYERS.items() if "bench" in allowed] == []
    assert LAYERS["bench"] == set(LAYERS) - {"bench", "__main__", "__init__"}


def test_the_walk_sees_an_import_of_the_tools() -> None:
    # bench/arena_cli.py imports bench.arena and bench.anchors inside its functions
    assert {"bench", "engine", "players"} <= set(imported_parts(BENCH / "arena_cli.py"))


def test_the_page_shows_the_table() -> None:
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## Which package depends on which", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and re.fullmatch(r"`[\w.]+`", cells[0]):
            rows[cells[0].strip("`")] = set(re.findall(r"`([\w.]+)`", cells[1]))
    assert rows == LAYERS, "docs/architecture.md's layer table differs from tests/test_layers.py"


def test_the_tools_are_not_shipped() -> None:
    """The distribution packages ``app`` alone (pyproject.toml's package discovery) and the
    image copies ``app/`` alone: ``bench/`` comes with a checkout only."""
    import tomllib

    from setuptools import find_packages

    find = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]["packages"]["find"]
    packages = find_packages(str(ROOT), include=find["include"], exclude=find.get("exclude", ()))
    assert "app" in packages and "app.bots" in packages
    assert [p for p in packages if not p.startswith("app")] == []
    copies = [
        line.split()[1]
        for line in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines()
        if line.startswith("COPY ")
    ]
    assert "app" in copies and not [c for c in copies if c.startswith("bench") or c == "."]
