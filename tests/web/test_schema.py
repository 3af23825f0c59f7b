"""The protocol's JSON Schema (app/web/schema.py): current in docs/schema, served at
/api/schema, valid draft 2020-12, and in agreement with what the server sends and parses."""

from __future__ import annotations

import gc
import json
import random
from typing import Any

import httpx
import jsonschema
import orjson
import pytest
from hypothesis import HealthCheck, given, settings

from app.rooms.actions import ACTION_TYPES
from app.web.messages import BadFrame, incoming_types, parse_incoming
from app.web.schema import FILES, REGENERATE, SCHEMA_DIR, render, schemas, stale_files
from tests.schema import validator
from tests.web.test_bad_input import messages


def test_docs_schema_is_the_generated_schema() -> None:
    stale = stale_files()
    assert not stale, (
        f"docs/schema/{', '.join(stale)} differ from the message models: run `{REGENERATE}` "
        "(or `python -m app.web.schema --write`) and commit the result"
    )


def test_the_command_writes_what_the_check_accepts(tmp_path) -> None:
    from app.cli import main

    assert main(["schema", "--check", "--dir", str(tmp_path)]) == 1  # nothing there yet
    assert main(["schema", "--write", "--dir", str(tmp_path)]) == 0
    assert main(["schema", "--check", "--dir", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(FILES.values())


async def test_the_server_publishes_the_files(module_server) -> None:
    async with httpx.AsyncClient(base_url=module_server.base_url) as client:
        response = await client.get("/api/schema")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    published = response.json()
    assert published == schemas()
    for key, name in FILES.items():
        assert published[key] == json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
        assert render(published[key]) == (SCHEMA_DIR / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("direction", sorted(FILES))
def test_each_schema_is_draft_2020_12(direction: str) -> None:
    schema = schemas()[direction]
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_the_client_schema_names_every_message() -> None:
    schema = schemas()["client_to_server"]
    assert sorted(schema["properties"]["type"]["enum"]) == sorted(incoming_types())
    action = schema["$defs"]["ActionMessage"]["properties"]["action"]
    assert sorted(action["properties"]["type"]["enum"]) == sorted(ACTION_TYPES)
    assert set(ACTION_TYPES) == {
        "pass",
        "double",
        "redouble",
        "bid",
        "play",
        "declare",
        "exchange",
        "discard",
    }


def _frames() -> list[str]:
    """What the server sends over a few seeded matches: the texts of a seat, of a device
    holding every seat and of a spectator."""
    from tests.test_golden import _Listener, _play, _publish, _room

    listeners: list[Any] = []
    for variant, players, options, seed in [
        ("classic", None, {"bidding_mode": "free"}, 4),
        ("coinche", None, {}, 5),
        ("bela", 3, {}, 10),
        ("bela", 2, {}, 9),
        ("duel", None, {}, 12),
    ]:
        room = None
        for state, extra in _play(variant, players, options, seed, 120):
            if state is None:
                room = None
                continue
            if room is None:
                n = state.rules.players
                room = _room(variant, n, options)
                fresh = [_Listener(1, (0,)), _Listener(9, tuple(range(n))), _Listener(10, ())]
                room.listeners.update(fresh)
                listeners.extend(fresh)
            _publish(room, state, extra)
    return [text for listener in listeners for text in listener.texts]


def _broken(message: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``message`` with its version removed, a field retyped or one added."""
    out = json.loads(json.dumps(message))
    target = out
    if "view" in out and isinstance(out["view"], dict) and out["view"] and rng.random() < 0.7:
        target = out["view"]
    key = rng.choice(sorted(target))
    how = rng.choice(["drop", "retype", "add"])
    if how == "drop":
        del out["version"]
    elif how == "add":
        target["surprise"] = 1
    else:
        target[key] = {"not": "this"}
    return out


def test_the_reference_implementation_agrees_on_what_is_sent() -> None:
    """The tests validate with ``jsonschema_rs``; ``jsonschema`` gives the same verdicts on
    real frames and on frames broken one field at a time."""
    reference = jsonschema.Draft202012Validator(schemas()["server_to_client"])
    fast = validator("server_to_client")
    rng = random.Random(16)
    frames = _frames()
    sample = frames[:: max(1, len(frames) // 150)]
    kinds = set()
    for text in sample:
        message = json.loads(text)
        kinds.add(message["type"])
        assert fast.is_valid(message) and reference.is_valid(message), text[:300]
        broken = _broken(message, rng)
        assert fast.is_valid(broken) == reference.is_valid(broken), json.dumps(broken)[:300]
        assert not fast.is_valid(broken), json.dumps(broken)[:300]
    assert "update" in kinds and len(sample) > 100


@settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(frame=messages())
def test_the_client_schema_accepts_exactly_what_the_server_parses(frame: str) -> None:
    # Some frames nest deep enough to reach the recursion limit. A garbage collection that
    # started down there would run the finalizers of earlier tests' objects at that depth,
    # where they fail with an unraisable RecursionError: no collection while parsing (the
    # garbage waits for the next collection, up here).
    collecting = gc.isenabled()
    gc.disable()
    try:
        try:
            parse_incoming(frame)
            parsed = True
        except BadFrame:
            parsed = False
        try:
            data = json.loads(frame)
        except (ValueError, RecursionError):
            assert not parsed
            return
    finally:
        if collecting:
            gc.enable()
    assert validator("client_to_server").is_valid(data) == parsed, frame[:300]


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "action", "id": "c-1", "version": 3, "action": {"type": "pass"}},
        {"type": "action", "id": "c-1", "version": 3, "action": {"type": "bid", "contract": "H"}},
        {
            "type": "action",
            "id": "c-1",
            "version": 3,
            "action": {"type": "bid", "contract": "NT", "value": "capot"},
            "seat": 2,
        },
        {"type": "action", "id": "c", "version": 0, "action": {"type": "play", "card": "TH"}},
        {"type": "action", "id": "c", "version": 0, "action": {"type": "declare", "combos": []}},
        {"type": "action", "id": "c", "version": 0, "action": {"type": "exchange", "card": "7S"}},
        {
            "type": "action",
            "id": "c",
            "version": 0,
            "action": {"type": "discard", "cards": ["7S", "8S"]},
        },
        {"type": "resume", "version": 12},
        {"type": "consent", "kind": "next_deal"},
        {"type": "consent", "kind": "rematch", "id": "k-1"},
        {"type": "set_level", "level": "hard"},
        {"type": "seat_bot", "seat": 1},
        {"type": "free_seat", "seat": 1, "id": "f"},
        {"type": "take_seat", "seat": 2},
        {"type": "hint", "id": "h-1"},
        {"type": "ping"},
    ],
)
def test_every_client_message_is_in_the_schema(frame: dict[str, Any]) -> None:
    assert validator("client_to_server").is_valid(frame)
    parse_incoming(orjson.dumps(frame).decode())


def test_the_protocol_doc_names_every_view_field_event_and_code() -> None:
    """docs/protocol.md documents each view field and each event type of the schema, and
    each error code the parser answers with."""
    from app.rooms.messages import VIEW_MODELS, event_types

    doc = (SCHEMA_DIR.parent / "protocol.md").read_text(encoding="utf-8")
    fields = {name for model in VIEW_MODELS for name in model.model_fields}
    missing = sorted(f for f in fields if f"| `{f}` |" not in doc and f"`{f}`:" not in doc)
    assert not missing, f"view fields not described in docs/protocol.md: {missing}"
    events = sorted(e for e in event_types() if f"| `{e}` |" not in doc)
    assert not events, f"event types not described in docs/protocol.md: {events}"
    for code in ("bad_json", "unknown_type", "bad_message", "invalid_action", "illegal_action"):
        assert f"| `{code}` |" in doc, code
    assert "/api/schema" in doc and "docs/schema/" in doc
