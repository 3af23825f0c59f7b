"""The WebSocket's dispatch is a checked table (app/web/ws.py ``HANDLERS``): one handler per
message of the closed incoming set (app/web/messages.py ``Incoming``), and a message without
one is answered, never silently dropped."""

from __future__ import annotations

import asyncio
import typing
from typing import Any

import orjson
import pytest

from app.web import ws
from app.web.messages import INCOMING, Incoming, PingMessage, incoming_types, parse_incoming


def test_every_incoming_type_has_exactly_one_handler() -> None:
    assert set(ws.HANDLERS) == set(INCOMING)
    assert len(INCOMING) == len(set(incoming_types())) == len(typing.get_args(Incoming))


def test_each_handler_takes_the_message_it_is_registered_for() -> None:
    for model, handler in ws.HANDLERS.items():
        hints = typing.get_type_hints(handler, vars(ws))
        assert hints["msg"] is model, (model.__name__, handler.__name__)


def test_a_frame_parses_into_one_member_of_the_closed_set() -> None:
    msg = parse_incoming(orjson.dumps({"type": "ping"}).decode())
    assert isinstance(msg, INCOMING) and type(msg) is PingMessage


class _Conn:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send_json(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


class _Room:
    game_id = "dispatch"


def test_a_message_with_no_handler_is_answered_unknown_type(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(ws.HANDLERS, PingMessage)
    conn = _Conn()
    msg = parse_incoming('{"type": "ping"}')
    asyncio.run(ws._dispatch(conn, _Room(), msg, ws.Frame(0.0, set())))  # type: ignore[arg-type]
    assert [m["type"] for m in conn.sent] == ["error"]
    assert conn.sent[0]["code"] == "unknown_type"


def test_a_ping_goes_to_its_handler() -> None:
    conn = _Conn()
    msg = parse_incoming('{"type": "ping"}')
    asyncio.run(ws._dispatch(conn, _Room(), msg, ws.Frame(0.0, set())))  # type: ignore[arg-type]
    assert [m["type"] for m in conn.sent] == ["pong"]


def test_a_second_handler_for_a_type_is_refused() -> None:
    with pytest.raises(RuntimeError, match="PingMessage"):
        ws.handles(PingMessage)(ws.HANDLERS[PingMessage])
