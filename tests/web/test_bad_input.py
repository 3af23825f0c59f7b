"""Malformed and hostile WebSocket input: every frame gets an error (or the documented close),
the game's version does not move, and the server keeps serving other rooms. And origins."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from app.web.messages import ActionMessage, BadFrame, parse_incoming
from bench.views import merge_view
from tests.schema import check_sent
from tests.web.wsclient import Browser

ERROR_CODES = {
    "bad_json",
    "bad_message",
    "unknown_type",
    "stale_version",
    "not_your_turn",
    "not_your_seat",
    "illegal_action",
    "invalid_action",
    "spectator",
}


class Table:
    """A computer game whose single human (this test's browser) is to act."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.browser = asyncio.run(Browser.new(server))
        self.game_id = asyncio.run(
            self.browser.create(variant="duel", mode="computer", level="easy")
        )
        self.cookie = f"atout_id={self.browser.token}"
        # let the bot play until the human is to act; from then on nothing moves by itself
        with self.open(wait_turn=True) as (_ws, version):
            self.known_version = version

    @contextmanager
    def open(self, wait_turn: bool = False) -> Iterator[tuple[Any, int]]:
        with connect(
            f"{self.server.ws_url}/ws/{self.game_id}",
            additional_headers={"Cookie": self.cookie},
            open_timeout=10,
            max_size=2**22,
        ) as ws:
            state = json.loads(ws.recv(timeout=10))
            assert state["type"] == "state"
            version, view = state["version"], state["view"]
            while wait_turn and not view["legal"]:
                msg = json.loads(ws.recv(timeout=10))
                if msg["type"] == "update":
                    version, view = msg["version"], merge_view(view, msg["view"])
            assert view["legal"], "the human should be to act"
            yield ws, version

    def version(self) -> int:
        with self.open() as (_ws, version):
            return version


@pytest.fixture(scope="module")
def table(module_server) -> Table:
    return Table(module_server)


# ----------------------------------------------------------------------------- strategies

odd_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=()), max_size=40
) | st.sampled_from(["\u0000", "\ufeff", "\u202e", "𝕏" * 30, "é" * 10, "\ud7ff", "\U0010ffff"])
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False)
    | odd_text
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(odd_text, children, max_size=4)
    ),
    max_leaves=12,
)
types = st.sampled_from(
    ["action", "resume", "consent", "set_level", "hint", "ping", "ACTION", "", "play", "hello"]
)


@st.composite
def messages(draw: Any) -> str:
    """A frame that looks more or less like a protocol message, usually broken somewhere."""
    kind = draw(st.sampled_from(["text", "json", "mutated", "nested", "huge_number", "not_object"]))
    if kind == "text":
        return draw(odd_text)
    if kind == "json":
        return json.dumps(draw(json_values))
    if kind == "nested":
        depth = draw(st.integers(min_value=50, max_value=3000))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        return opener * depth + "1" + closer * depth
    if kind == "huge_number":
        field = draw(st.sampled_from(["version", "seat"]))
        base: dict[str, Any] = {
            "type": "action",
            "id": "h-1",
            "version": 1,
            "action": {"type": "pass"},
        }
        base[field] = draw(st.sampled_from([2**64, -(2**63), 10**400, 1e308, -1]))
        return json.dumps(base)
    if kind == "not_object":
        return json.dumps(draw(st.lists(json_scalars, max_size=3)))
    message: dict[str, Any] = {
        "type": draw(types),
        "id": draw(st.sampled_from(["c-1", "", "x" * 65, "ok id", 7, None])),
        "version": draw(st.sampled_from([0, 1, "1", 1.5, True, None, [1]])),
        "action": draw(
            st.sampled_from(
                [
                    {"type": "play", "card": "ZZ"},
                    {"type": "play", "card": 12},
                    {"type": "bid", "contract": "X"},
                    {"type": "bid", "contract": "H", "value": 85},
                    {"type": "pass", "extra": 1},
                    {"type": "discard", "cards": ["7C"]},
                    {"type": "declare", "combos": [["7C"] * 9]},
                    {"type": "teleport"},
                    "pass",
                    None,
                ]
            )
        ),
        "kind": draw(st.sampled_from(["next_deal", "rematch", "now", 3])),
        "level": draw(st.sampled_from(["easy", "impossible", 1])),
    }
    keys = draw(st.lists(st.sampled_from(sorted(message)), unique=True, min_size=1))
    frame = {k: message[k] for k in keys}
    if draw(st.booleans()):
        frame[draw(odd_text)] = draw(json_scalars)
    return json.dumps(frame, ensure_ascii=draw(st.booleans()))


def _well_formed_id(text: str) -> str | None:
    """The frame's ``id`` if it has one that a client id may be (1-64 of A-Z a-z 0-9 . _ : ~ -)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    value = data.get("id") if isinstance(data, dict) else None
    if isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9._:~-]{1,64}", value):
        return value
    return None


def would_be_accepted(text: str, version: int) -> bool:
    """A frame that is actually a valid message, with the current version if an action."""
    try:
        msg = parse_incoming(text)
    except BadFrame:
        return False
    if isinstance(msg, ActionMessage):
        return msg.version == version
    return True


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(frames=st.lists(messages(), min_size=1, max_size=8))
def test_malformed_frames_get_errors_and_change_nothing(table, frames):
    for frame in frames:
        assume(not would_be_accepted(frame, table.known_version))
    with table.open() as (ws, version):
        assert version == table.known_version
        for frame in frames:
            ws.send(frame)
            reply = json.loads(ws.recv(timeout=10))
            assert reply["type"] == "error", (frame[:200], reply)
            if len(frame.encode("utf-8", "surrogatepass")) > 16 * 1024:  # the documented close
                assert reply["code"] == "frame_too_large"
                with pytest.raises(ConnectionClosed):
                    ws.recv(timeout=10)
                assert ws.close_code == 1009
                break
            assert reply["code"] in ERROR_CODES, (frame[:200], reply)
            check_sent(reply)
            if reply["code"] in ("bad_message", "invalid_action", "unknown_type"):
                assert reply["id"] == _well_formed_id(frame), (frame[:200], reply)
            if reply["code"] == "stale_version":
                state = json.loads(ws.recv(timeout=10))
                assert state["type"] == "state" and state["version"] == version
        else:
            ws.send('{"type":"ping"}')
            assert json.loads(ws.recv(timeout=10)) == {"type": "pong"}
    assert table.version() == version


def _act(version: Any, action: Any, msg_id: str = "e-1") -> str:
    return json.dumps({"type": "action", "id": msg_id, "version": version, "action": action})


ACTION_TYPES = "pass, double, redouble, bid, play, declare, exchange, discard"


@pytest.mark.parametrize(
    "frame, code, msg_id, says",
    [
        # not JSON: NaN and the infinities are not JSON, whatever Python's json accepts
        ('{"type": "ping", "x": NaN}', "bad_json", None, "not a JSON object"),
        ('{"type": "resume", "version": Infinity}', "bad_json", None, "not a JSON object"),
        ('{"type": "resume", "version": -Infinity}', "bad_json", None, "not a JSON object"),
        ('["ping"]', "bad_json", None, "not a JSON object"),
        # an unknown message type
        ('{"type": "teleport", "id": "t-1"}', "unknown_type", "t-1", "resume"),
        # the envelope is wrong: bad_message, with the id when it is well-formed
        (_act("1", {"type": "pass"}, "m-1"), "bad_message", "m-1", "version"),
        (_act(1, {"type": "pass"}, "m 1"), "bad_message", None, "id"),
        ('{"type": "action", "id": "m-2", "version": 1}', "bad_message", "m-2", "action"),
        ('{"type": "consent", "kind": "now", "id": "m-3"}', "bad_message", "m-3", "kind"),
        # the envelope is right, the action is not a well-formed action: invalid_action
        (_act(1, {"type": "teleport"}), "invalid_action", "e-1", ACTION_TYPES),
        (_act(1, {}), "invalid_action", "e-1", ACTION_TYPES),
        (_act(1, "pass"), "invalid_action", "e-1", "action"),
        (_act(1, {"type": "bid", "contract": "H", "value": 85}), "invalid_action", "e-1", "10"),
        (_act(1, {"type": "bid", "contract": "H", "value": 170}), "invalid_action", "e-1", "160"),
        (_act(1, {"type": "play", "card": "ZZ"}), "invalid_action", "e-1", "action.card"),
        (_act(1, {"type": "pass", "x": 1}), "invalid_action", "e-1", "action.x"),
        (_act(1, {"type": "discard", "cards": ["7H", "7H"]}), "invalid_action", "e-1", "twice"),
    ],
)
def test_each_refusal_has_its_code_and_the_frames_id(table, frame, code, msg_id, says):
    with table.open() as (ws, version):
        ws.send(frame)
        reply = check_sent(ws.recv(timeout=10))
        assert (reply["type"], reply["code"], reply["id"]) == ("error", code, msg_id), reply
        assert says in reply["message"], reply
        if code == "unknown_type":
            assert "action" in reply["message"] and "play" not in reply["message"]
        if code == "invalid_action" and says == ACTION_TYPES:
            assert "resume" not in reply["message"]
        ws.send('{"type":"ping"}')
        assert json.loads(ws.recv(timeout=10)) == {"type": "pong"}
    assert table.version() == version


def test_oversized_and_binary_frames(table):
    version = table.version()
    with table.open() as (ws, _):
        ws.send(b"\x00\x01binary")
        assert json.loads(ws.recv(timeout=10))["code"] == "bad_message"
        # just over 16 KiB (in UTF-8 bytes, not characters): error, then close 1009
        ws.send(json.dumps({"type": "ping", "pad": "é" * 8200}))
        reply = json.loads(ws.recv(timeout=10))
        assert reply["code"] == "frame_too_large"
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=10)
        assert ws.close_code == 1009
    # far over the transport limit: closed 1009 by the WebSocket layer
    with table.open() as (ws, _):
        ws.send("x" * 200_000)
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=10)
        assert ws.close_code == 1009
    assert table.version() == version


def test_a_flood_is_answered_then_closed(table):
    replies = []
    with table.open() as (ws, _):
        for _ in range(200):
            try:
                ws.send('{"type":"ping"}')
            except ConnectionClosed:
                break
        with pytest.raises(ConnectionClosed):
            while True:
                replies.append(json.loads(ws.recv(timeout=10)))
        assert ws.close_code == 1008
    assert replies[-1]["code"] == "rate_limited"
    assert 40 <= sum(r["type"] == "pong" for r in replies) < 200


async def test_the_server_keeps_serving_other_rooms(module_server, table):
    """After all of the above: another room plays on, and health is fine."""
    browser = await Browser.new(module_server)
    game_id = await browser.create(
        variant="classic", mode="computer", options={"target": "one_deal"}
    )
    sock = await browser.connect(game_id)
    await sock.until(lambda s: bool(s.view["legal"]))
    await sock.act(random.choice(sock.view["legal"]))
    assert (await sock.next_of("ack", "error"))["type"] == "ack"
    async with httpx.AsyncClient(base_url=module_server.base_url) as client:
        assert (await client.get("/healthz")).status_code == 200
    assert "Traceback" not in module_server.logs()


# ----------------------------------------------------------------------------- origin


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1.evil.example"])
async def test_a_foreign_origin_is_refused_with_1008(module_server, origin):
    browser = await Browser.new(module_server)
    game_id = await browser.create(variant="duel", mode="computer")
    sock = await browser.connect(game_id, origin=origin, read_state=False)
    with pytest.raises(ConnectionClosed):
        await sock.recv()
    assert sock.close_code == 1008
    assert sock.log == []  # nothing was sent before the close


async def test_same_origin_and_no_origin_are_accepted(module_server):
    browser = await Browser.new(module_server)
    game_id = await browser.create(variant="duel", mode="computer")
    same = await browser.connect(game_id, origin=module_server.base_url)
    assert same.role == "seat"
    none = await browser.connect(game_id)
    assert none.role == "seat"
