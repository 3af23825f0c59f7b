"""The one scripted client of a table (docs/protocol.md), for the benchmarks and the tests.

* ``TableState``: what one socket knows of its table from the messages it was sent: the
  version, the view (and ``views``, one per seat, for a socket holding several), the room, the
  seats it holds and its role. ``seen`` folds one message in, with the one merge of views
  (bench/views.py), and can check that updates come one version after the other.
* ``AutoPlayer``: a ``TableState`` that plays its table over one socket as a browser would: a
  random legal action of its own on its turn (after ``pace`` seconds, varied by half either
  way), Continue once per deal, and the rematch when it is asked. Its hooks (``on_message``,
  ``on_state``, ``on_update``, ``on_ack``, ``on_error``, ``on_send``) let a benchmark count what
  it measures.

``atout bench load`` and ``atout bench lobby`` (bench/load.py ``AtoutClient``) and ``atout
bench soak`` (bench/soak.py ``Client``) play with ``AutoPlayer``; ``atout bench failover``
(bench/failover.py ``Client``) and the tests' client (tests/web/wsclient.py ``Socket``) step
their tables themselves and keep what they see with ``TableState``.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import orjson

from bench.views import View, merge_view, merge_views


class OutOfOrder(AssertionError):
    """An update that is not the version after the one held."""

    def __init__(self, held: int, got: int) -> None:
        super().__init__(f"version {got} after {held}")
        self.held, self.got = held, got


class TableState:
    """What one socket knows of its table."""

    def __init__(self) -> None:
        self.version = 0
        self.view: View | None = None
        self.views: dict[str, View | None] = {}
        self.room: dict[str, Any] | None = None
        self.seats: list[int] = []
        self.role: str | None = None

    def seen(self, msg: dict[str, Any], *, strict: bool = True) -> str:
        """Fold ``msg`` in and return its type. ``strict``: an update must be the version
        after the one held (``OutOfOrder``)."""
        kind: str = msg["type"]
        if kind == "state":
            self.version = msg["version"]
            self.view, self.views = msg["view"], msg.get("views") or {}
            self.seats = list(msg.get("seats_you_hold") or ())
            self.role = msg.get("role")
            if "room" in msg:
                self.room = msg["room"]
        elif kind == "update":
            if strict and msg["version"] != self.version + 1:
                raise OutOfOrder(self.version, msg["version"])
            self.version = msg["version"]
            self.view = merge_view(self.view, msg["view"])
            if msg.get("views"):
                self.views = merge_views(self.views, msg["views"])
            if "room" in msg:
                self.room = msg["room"]
        elif kind == "room":
            self.room = msg["room"]
        return kind

    def my_turn_seat(self) -> int | None:
        """The seat this socket holds that has legal actions now, if any."""
        if self.views:
            for seat, view in self.views.items():
                if view and view.get("legal"):
                    return int(seat)
            return None
        if self.view and self.view.get("legal"):
            return int(self.view["seat"])
        return None

    def legal(self, seat: int | None = None) -> list[dict[str, Any]]:
        """The legal actions of ``seat`` (of the one view when the socket holds one seat)."""
        if self.views and seat is not None:
            return list((self.views.get(str(seat)) or {}).get("legal") or [])
        return list((self.view or {}).get("legal") or [])


class AutoPlayer(TableState):
    """Plays a table over one socket; see the module's docstring."""

    def __init__(self, rng: random.Random, pace: float, prefix: str) -> None:
        super().__init__()
        self.rng, self.pace, self.prefix = rng, pace, prefix
        self.ids = 0
        self.stop_at_match_over = False  # end ``play`` when the match is over
        self._reset()

    def _reset(self) -> None:
        self.version = 0
        self.sent_for = -1  # the version this player last sent an action for
        self.next_deal_for = -1  # the deals scored when it last agreed to go on
        self.consented: str | None = None  # the game whose rematch it agreed to

    # ------------------------------------------------------------------ hooks

    def on_message(self, raw: str | bytes, msg: dict[str, Any]) -> None:
        """Every message, as received and as parsed."""

    def on_state(self) -> None:
        """A ``state`` was folded in."""

    def on_update(self) -> None:
        """An ``update`` was folded in."""

    def on_ack(self, msg: dict[str, Any]) -> None:
        """An ``ack``."""

    def on_error(self, code: str) -> None:
        """An ``error``: a refusal of what this player sent."""

    def on_send(self, msg_id: str, version: int) -> None:
        """An action is about to be sent at ``version``."""

    # ------------------------------------------------------------------ the play

    async def play(self, ws: Any) -> str | None:
        """Play the table of ``ws`` until the socket closes or the match is over
        (``stop_at_match_over``), or a rematch is created: its game id then."""
        self._reset()
        mover: asyncio.Task[None] | None = None
        try:
            while True:
                raw = await ws.recv()
                msg = orjson.loads(raw)
                self.on_message(raw, msg)
                kind = self.seen(msg, strict=False)
                if kind == "state":
                    self.on_state()
                elif kind == "update":
                    self.on_update()
                elif kind == "ack":
                    self.on_ack(msg)
                elif kind == "error":
                    self.on_error(msg["code"])
                    if msg["code"] == "paused":  # try again once everyone is connected
                        self.sent_for = -1
                elif kind == "rematch":
                    return str(msg["game_id"])
                view = self.view or {}
                if self.stop_at_match_over and view.get("phase") == "match_over":
                    return None
                room = self.room or {}
                legal = view.get("legal")
                if legal and self.sent_for != self.version and not room.get("paused"):
                    self.sent_for = self.version
                    if mover is not None:
                        mover.cancel()
                    mover = asyncio.create_task(self._move(ws, self.version, legal))
                consent = room.get("consent") or {}
                if (
                    not self.stop_at_match_over
                    and consent.get("kind") == "rematch"
                    and self.consented != room.get("game_id")
                ):
                    self.consented = room.get("game_id")
                    await ws.send(json.dumps({"type": "consent", "kind": "rematch"}))
                # The end of a deal waits for every player's "Continue": give it at once, once
                # per deal, read from a fresh room (an update of the next deal comes before the
                # room message that ends the wait).
                waiting = set((room.get("next_deal") or {}).get("waiting_for") or ())
                deal_end = len(view.get("results") or ())
                if kind in ("room", "state") and waiting & set(self.seats):
                    if self.next_deal_for != deal_end:
                        self.next_deal_for = deal_end
                        await ws.send(json.dumps({"type": "consent", "kind": "next_deal"}))
        finally:
            if mover is not None:
                mover.cancel()

    async def _move(self, ws: Any, version: int, legal: list[dict[str, Any]]) -> None:
        if self.pace:
            await asyncio.sleep(self.pace * self.rng.uniform(0.5, 1.5))
        self.ids += 1
        msg_id = f"{self.prefix}{self.ids}"
        action = self.rng.choice(legal)
        self.on_send(msg_id, version)
        await ws.send(
            json.dumps({"type": "action", "id": msg_id, "version": version, "action": action})
        )
