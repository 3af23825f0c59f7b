"""static/js/protocol-types.js: the JSDoc typedefs generated from the published schema, and the
`// @ts-check` of the table's modules that reads the views through them."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from app.web import typedefs

JS = typedefs.TYPEDEFS.parent


def test_the_committed_typedefs_match_the_schema() -> None:
    assert not typedefs.stale(), (
        f"static/js/protocol-types.js is stale: run `{typedefs.REGENERATE}`"
    )


def test_every_view_field_of_the_schema_is_in_the_table_view() -> None:
    from app.rooms.messages import VIEW_MODELS

    text = typedefs.render()
    table_view = text[text.index("@typedef {Object} TableView") :]
    for model in VIEW_MODELS:
        for name in model.model_fields:
            assert f"}} {name}\n" in table_view or f"}} [{name}]\n" in table_view, name
    # present in every view: required; only in some: optional
    assert "{TraitsModel} traits\n" in table_view
    assert "{Array<Array<PileModel>>} [piles]\n" in table_view
    assert "@typedef {Object} TraitsModel" in text


def test_the_stale_check_sees_a_changed_file(tmp_path: Path) -> None:
    copy = tmp_path / "protocol-types.js"
    copy.write_text(typedefs.render().replace("deal_is_game", "deal_is_a_game"), encoding="utf-8")
    assert typedefs.stale(copy)
    copy.write_text(typedefs.render(), encoding="utf-8")
    assert not typedefs.stale(copy)


def _table_modules() -> list[Path]:
    return sorted([JS / "table.js", *JS.glob("table-*.js")])


@pytest.mark.parametrize("path", _table_modules(), ids=lambda p: p.name)
def test_the_table_modules_are_type_checked(path: Path) -> None:
    assert path.read_text(encoding="utf-8").startswith("// @ts-check\n")


def test_the_view_is_typed_from_the_schema() -> None:
    state = (JS / "table-state.js").read_text(encoding="utf-8")
    assert '@typedef {import("./protocol-types.js").TableView} TableView' in state
    assert "@property {TableView | null} view" in state
    assert "@returns {TableView}" in state


def _tsc() -> str | None:
    return os.environ.get("ATOUT_TSC") or shutil.which("tsc")


@pytest.mark.skipif(_tsc() is None, reason="no tsc (set ATOUT_TSC or put tsc on the PATH)")
def test_tsc_finds_no_error_and_refuses_a_field_no_view_has(tmp_path: Path) -> None:
    tsc = _tsc()
    assert tsc is not None
    done = subprocess.run([tsc, "-p", str(JS)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    # the same modules, with a region reading a field the schema does not have
    copy = tmp_path / "js"
    shutil.copytree(JS, copy)
    bar = copy / "table-bar.js"
    bar.write_text(bar.read_text(encoding="utf-8").replace("v.scores[side]", "v.score[side]"))
    done = subprocess.run([tsc, "-p", str(copy)], capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "Property 'score' does not exist on type 'TableView'" in done.stdout
