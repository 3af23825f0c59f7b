"""Table chat over real WebSockets (docs/protocol.md "Table chat"): lines stored and broadcast,
bad frames refused with a structured error while the game's state and record stay as they were,
the per-connection rate limit, history after a reconnection and a restart, the host's switch,
spectators, and never a line of chat in the game's record or in a computer game."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from app.rooms.messages import validate_outgoing
from tests.web.conftest import start_server
from tests.web.wsclient import Browser, Socket

CHAT_RATE = 5
CHAT_WINDOW = 1.5  # seconds: short, so that a test sees the limit lift


@pytest.fixture(scope="module")
def chat_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    server = start_server(
        tmp_path_factory.mktemp("chat-server"),
        {"ATOUT_CHAT_RATE": str(CHAT_RATE), "ATOUT_CHAT_WINDOW_SECONDS": str(CHAT_WINDOW)},
    )
    try:
        yield server
    finally:
        server.stop()


async def duel_table(server: Any, **options: Any) -> tuple[Browser, Browser, str, Socket, Socket]:
    """A friends duel with both seats taken and connected: (host, guest, id, sockets)."""
    host = await Browser.new(server)
    await host.post("/api/me/name", {"name": "Alice"})
    game_id = await host.create(variant="duel", mode="friends", **options)
    guest = await Browser.new(server)
    await guest.post("/api/me/name", {"name": "Bob"})
    h = await host.connect(game_id)
    g = await guest.connect(game_id)
    for sock in (h, g):
        await sock.until(lambda s: s.version == 1 and s.room and not s.room["paused"])
        await sock.drain(0.1)
    return host, guest, game_id, h, g


async def say(sock: Socket, text: str, kind: str = "text", msg_id: str | None = None) -> None:
    message: dict[str, Any] = {"type": "chat", "kind": kind, "text": text}
    if msg_id is not None:
        message["id"] = msg_id
    await sock.send(message)


async def chat_lines(sock: Socket, n: int) -> list[dict[str, Any]]:
    """The next ``n`` chat lines this socket receives."""
    lines = []
    while len(lines) < n:
        msg = await sock.next_of("chat")
        lines.append(msg["message"])
    return lines


async def fresh_state(browser: Browser, game_id: str) -> dict[str, Any]:
    sock = await browser.connect(game_id)
    state = sock.log[0]
    await sock.close()
    return state


def validated(sock: Socket) -> None:
    """Every message the socket received is one of the typed outgoing messages."""
    for msg in sock.log:
        validate_outgoing(json.dumps(msg))


async def test_a_line_is_stored_acknowledged_and_sent_to_everyone(chat_server):
    host, guest, game_id, h, g = await duel_table(chat_server)
    await say(h, "Bonjour à tous !", msg_id="c-1")
    ack = await h.next_of("ack", "error")
    assert ack == {"type": "ack", "id": "c-1", "version": h.version}
    (line,) = await chat_lines(h, 1)
    (seen,) = await chat_lines(g, 1)
    assert line == seen
    # who wrote what and when: nothing else (no card, no view)
    assert set(line) == {"id", "seat", "name", "kind", "text", "at"}
    assert (line["seat"], line["name"], line["kind"], line["text"]) == (
        0,
        "Alice",
        "text",
        "Bonjour à tous !",
    )
    # phrases and emotes travel as their keys; each page shows them in its language
    await say(g, "well_played", "phrase")
    await say(g, "thumbs_up", "emote")
    lines = await chat_lines(h, 2)
    assert [(x["seat"], x["kind"], x["text"]) for x in lines] == [
        (1, "phrase", "well_played"),
        (1, "emote", "thumbs_up"),
    ]
    assert lines[0]["id"] < lines[1]["id"] and line["id"] < lines[0]["id"]
    # chat is beside the game: the version did not move
    assert h.version == g.version == 1
    validated(h)
    validated(g)


BAD_FRAMES = [
    ("too long", {"type": "chat", "kind": "text", "text": "x" * 201}),
    ("empty", {"type": "chat", "kind": "text", "text": ""}),
    ("blank", {"type": "chat", "kind": "text", "text": " \n\t "}),
    ("a number", {"type": "chat", "kind": "text", "text": 42}),
    ("null", {"type": "chat", "kind": "text", "text": None}),
    ("a list", {"type": "chat", "kind": "text", "text": ["hi"]}),
    ("an object", {"type": "chat", "kind": "text", "text": {"card": "AS"}}),
    ("no text", {"type": "chat", "kind": "text"}),
    ("unknown kind", {"type": "chat", "kind": "card", "text": "AS"}),
    ("unknown phrase", {"type": "chat", "kind": "phrase", "text": "you_lose"}),
    ("unknown emote", {"type": "chat", "kind": "emote", "text": "<img src=x>"}),
    ("extra field", {"type": "chat", "kind": "text", "text": "hi", "view": {"hand": []}}),
    ("settings not bool", {"type": "chat_settings", "chat": "no", "spectator_chat": False}),
]


async def test_bad_chat_frames_get_bad_message_and_change_nothing(chat_server):
    host, guest, game_id, h, g = await duel_table(chat_server)
    await say(h, "a line before")
    await chat_lines(h, 1)
    await chat_lines(g, 1)
    state_before = await fresh_state(host, game_id)
    _, record_before = await host.get(f"/api/games/{game_id}/record")
    for label, frame in BAD_FRAMES:
        await h.send(frame)
        err = await h.next_of("error", "chat", "ack")
        assert err["type"] == "error" and err["code"] == "bad_message", (label, err)
        assert err["message"], label
    # 201 characters are too many, 200 are fine (once the ends are stripped)
    await say(h, "  " + "y" * 200 + "  ", msg_id="c-200")
    assert (await h.next_of("ack", "error"))["type"] == "ack"
    (line,) = await chat_lines(g, 1)
    assert line["text"] == "y" * 200
    # the bad frames reached no one, and the game is where it was
    assert [m for m in await g.drain(0.3) if m["type"] == "chat"] == []
    state_after = await fresh_state(host, game_id)
    assert state_after["version"] == state_before["version"]
    assert state_after["view"] == state_before["view"]
    assert state_after["chat"] == state_before["chat"] + [line]
    _, record_after = await host.get(f"/api/games/{game_id}/record")
    assert record_after == record_before


async def test_the_rate_limit_refuses_a_flood_and_keeps_the_connection(chat_server):
    host, guest, game_id, h, g = await duel_table(chat_server)
    for i in range(CHAT_RATE + 3):
        await say(h, f"line {i}", msg_id=f"flood-{i}")
    answers = [await h.next_of("ack", "error") for _ in range(CHAT_RATE + 3)]
    assert [a["type"] for a in answers] == ["ack"] * CHAT_RATE + ["error"] * 3
    for a in answers[CHAT_RATE:]:
        assert a["code"] == "rate_limited" and a["id"].startswith("flood-")
        assert "wait" in a["message"]
    # the others saw only the lines that were let through
    lines = await chat_lines(g, CHAT_RATE)
    assert [x["text"] for x in lines] == [f"line {i}" for i in range(CHAT_RATE)]
    assert [m for m in await g.drain(0.3) if m["type"] == "chat"] == []
    # the connection is still usable, for the game as for chat once the window has passed
    await h.send({"type": "ping"})
    assert (await h.next_of("pong", "error"))["type"] == "pong"
    assert h.close_code is None
    # the limit is per connection: the guest may still talk
    await say(g, "my turn to talk", msg_id="g-1")
    assert (await g.next_of("ack", "error"))["type"] == "ack"
    await asyncio.sleep(CHAT_WINDOW + 0.2)
    await say(h, "calm again", msg_id="calm")
    assert (await h.next_of("ack", "error"))["id"] == "calm"
    actor = h if h.view["legal"] else g
    await actor.act(actor.view["legal"][0], msg_id="move")
    assert (await actor.next_of("ack", "error"))["type"] == "ack"


async def test_history_comes_back_after_a_reconnection_and_a_restart(tmp_path):
    server = start_server(tmp_path, {"ATOUT_CHAT_RATE": "1000", "ATOUT_WS_BURST": "1000"})
    try:
        host, guest, game_id, h, g = await duel_table(server)
        await say(h, "<script>alert(1)</script>")
        await say(g, "oops", "phrase")
        sent = await chat_lines(h, 2)
        await g.close()
        again = await guest.connect(game_id)
        assert again.log[0]["chat"] == sent
        await again.close()
        await h.close()
        # a crash: the history is in the database, the room comes back with it
        server.kill()
        server.start()
        state = await fresh_state(host, game_id)
        assert state["chat"] == sent
        # only the last 100 lines are kept with the state
        h = await host.connect(game_id)
        for i in range(103):
            await say(h, f"n{i}")
        await chat_lines(h, 103)
        await h.close()
        state = await fresh_state(guest, game_id)
        assert [x["text"] for x in state["chat"]] == [f"n{i}" for i in range(3, 103)]
        # the host's switches are stored with the game too
        h = await host.connect(game_id)
        await h.send({"type": "chat_settings", "chat": True, "spectator_chat": True, "id": "s"})
        assert (await h.next_of("ack", "error"))["type"] == "ack"
        await h.close()
        server.stop()
        server.start()
        state = await fresh_state(guest, game_id)
        assert [x["text"] for x in state["chat"]] == [f"n{i}" for i in range(3, 103)]
        settings = state["room"]["settings"]
        assert (settings["chat"], settings["spectator_chat"]) == (True, True)
    finally:
        server.stop()


async def test_the_host_turns_chat_off_and_on(chat_server):
    host, guest, game_id, h, g = await duel_table(chat_server)
    assert (h.room["settings"]["chat"], h.room["settings"]["spectator_chat"]) == (True, False)
    await say(g, "before")
    await chat_lines(h, 1)
    # only the host may
    await g.send({"type": "chat_settings", "chat": False, "spectator_chat": False, "id": "x"})
    err = await g.next_of("error")
    assert (err["code"], err["id"]) == ("not_host", "x")
    await h.send({"type": "chat_settings", "chat": False, "spectator_chat": False, "id": "off"})
    assert (await h.next_of("ack", "error"))["type"] == "ack"
    await g.until(lambda s: s.room["settings"]["chat"] is False)
    await h.until(lambda s: s.room["settings"]["chat"] is False)
    for sock in (h, g):
        await say(sock, "still there?", msg_id="off-line")
        err = await sock.next_of("error")
        assert (err["code"], err["id"]) == ("chat_off", "off-line")
    state = await fresh_state(guest, game_id)
    assert state["chat"] == [] and state["room"]["settings"]["chat"] is False
    # back on: every listener gets the state again, history included
    await h.send({"type": "chat_settings", "chat": True, "spectator_chat": False})
    state = await g.next_of("state")
    assert state["room"]["settings"]["chat"] is True
    assert [x["text"] for x in state["chat"]] == ["before"]
    await say(g, "after", msg_id="on")
    assert (await g.next_of("ack", "error"))["type"] == "ack"
    validated(h)
    validated(g)


async def test_spectators_read_and_write_only_when_the_host_allows(chat_server):
    host, guest, game_id, h, g = await duel_table(chat_server)
    watcher = await Browser.new(chat_server)
    await watcher.post("/api/me/name", {"name": "Carol"})
    w = await watcher.connect(game_id)
    assert w.role == "spectator"
    await say(h, "hello watcher")
    (line,) = await chat_lines(w, 1)
    assert line["text"] == "hello watcher"
    await say(w, "hello players", msg_id="w-1")
    err = await w.next_of("error")
    assert (err["code"], err["id"]) == ("spectator", "w-1")
    await h.send({"type": "chat_settings", "chat": True, "spectator_chat": True, "id": "s"})
    await w.until(lambda s: s.room["settings"]["spectator_chat"] is True)
    await say(w, "hello players", msg_id="w-2")
    assert (await w.next_of("ack", "error"))["type"] == "ack"
    lines = await chat_lines(g, 2)
    assert (lines[-1]["seat"], lines[-1]["name"], lines[-1]["text"]) == (
        None,
        "Carol",
        "hello players",
    )
    # a spectator's view of the chat is the players' (chat carries no hidden data)
    (seen,) = await chat_lines(w, 1)
    assert seen == lines[-1]
    validated(w)


async def test_no_chat_in_the_exported_record_nor_the_replay(chat_server):
    host, guest, game_id, h, g = await duel_table(chat_server)
    secret = "chat-text-that-must-not-leak"
    await say(h, secret)
    await chat_lines(g, 1)
    # play the first deal out, so that the record has a whole deal
    for _ in range(200):
        if any(r for r in (h.view or {}).get("results") or []):
            break
        actor = h if h.view["legal"] else g if g.view["legal"] else None
        if actor is None:
            await h.recv(5)
            continue
        await actor.act(actor.view["legal"][0])
        ack = await actor.next_of("ack")
        for sock in (h, g):
            await sock.until(lambda s, v=ack["version"]: s.version >= v)
    status, record = await host.get(f"/api/games/{game_id}/record")
    assert status == 200 and record["deals"], record
    text = json.dumps(record)
    assert secret not in text and "chat" not in text
    status, page = await host.get(f"/replay/{game_id}")
    assert status == 200 and secret not in page


async def test_computer_games_have_no_chat(chat_server):
    player = await Browser.new(chat_server)
    game_id = await player.create(variant="duel", mode="computer", level="easy", chat=True)
    sock = await player.connect(game_id)
    assert sock.log[0]["chat"] == []
    assert (sock.room["settings"]["chat"], sock.room["settings"]["spectator_chat"]) == (
        False,
        False,
    )
    await say(sock, "anyone?", msg_id="c")
    err = await sock.next_of("error")
    assert (err["code"], err["id"]) == ("not_allowed", "c")
    await sock.send({"type": "chat_settings", "chat": True, "spectator_chat": True, "id": "s"})
    err = await sock.next_of("error")
    assert (err["code"], err["id"]) == ("not_allowed", "s")
    assert (await fresh_state(player, game_id))["chat"] == []
