"""The WebSocket protocol: duplicates, stale versions, concurrent sockets, resume, presence,
consent, rematch, bot level and hints."""

from __future__ import annotations

import asyncio
import random

import pytest

from tests.web.wsclient import Browser, Socket


async def duel_pair(server) -> tuple[Browser, Browser, str, Socket, Socket]:
    host = await Browser.new(server)
    game_id = await host.create(variant="duel", mode="friends")
    guest = await Browser.new(server)
    h = await host.connect(game_id)
    g = await guest.connect(game_id)
    await h.until(lambda s: s.version == 1 and s.room and not s.room["paused"])
    await g.until(lambda s: s.version == 1 and s.room and not s.room["paused"])
    return host, guest, game_id, h, g


def to_act(h: Socket, g: Socket) -> tuple[Socket, Socket]:
    """(the socket whose seat is to act, the other one)."""
    return (h, g) if h.view["legal"] else (g, h)


async def test_the_same_client_id_twice_is_applied_once(module_server):
    host, guest, game_id, h, g = await duel_pair(module_server)
    actor, other = to_act(h, g)
    action = actor.view["legal"][0]
    await actor.act(action, msg_id="dup-1")
    ack = await actor.next_of("ack")
    assert ack == {"type": "ack", "id": "dup-1", "version": 2}
    await actor.until(lambda s: s.version == 2)
    # the same id again, even with the old version: the same ack, nothing applied
    await actor.act(action, msg_id="dup-1", version=1)
    again = await actor.next_of("ack", "error", "update")
    assert again == {"type": "ack", "id": "dup-1", "version": 2}
    await other.until(lambda s: s.version == 2)
    assert await other.drain(0.3) == []
    assert other.version == 2 and actor.version == 2


async def test_a_stale_version_is_refused_with_a_fresh_state(module_server):
    host, guest, game_id, h, g = await duel_pair(module_server)
    actor, other = to_act(h, g)
    await actor.act(actor.view["legal"][0])
    await actor.until(lambda s: s.version == 2)
    await other.until(lambda s: s.version == 2)
    mover, _ = to_act(h, g)
    await mover.act(mover.view["legal"][0], msg_id="old-1", version=1)
    err = await mover.next_of("error")
    assert err["code"] == "stale_version" and err["id"] == "old-1"
    state = await mover.next_of("state")
    assert state["version"] == 2
    assert await other.drain(0.3) == []


async def test_two_sockets_of_one_seat_sending_at_once_apply_exactly_one(module_server):
    host, guest, game_id, h, g = await duel_pair(module_server)
    rng = random.Random(5)
    for _ in range(12):
        actor, other = to_act(h, g)
        browser = host if actor is h else guest
        twin = await browser.connect(game_id)
        assert twin.seats == actor.seats and twin.version == actor.version
        version = actor.version
        legal = actor.view["legal"]
        a, b = rng.choice(legal), rng.choice(legal)
        await asyncio.gather(
            actor.act(a, msg_id=f"x-{version}"), twin.act(b, msg_id=f"y-{version}")
        )
        answers = [
            await actor.next_of("ack", "error"),
            await twin.next_of("ack", "error"),
        ]
        kinds = sorted(m["type"] for m in answers)
        assert kinds == ["ack", "error"], answers
        assert [m["code"] for m in answers if m["type"] == "error"] == ["stale_version"]
        await other.until(lambda s, v=version: s.version >= v + 1)
        await asyncio.sleep(0.05)
        await other.drain(0.1)
        assert other.version == version + 1  # exactly one of the two was applied
        await actor.until(lambda s, v=version: s.version == v + 1)
        await twin.close()
        if actor.view["phase"] != "play" and actor.view["phase"] != "bidding":
            break


async def test_resume_sends_missed_updates_or_a_state(module_server):
    host, guest, game_id, h, g = await duel_pair(module_server)
    seen_before = h.version
    for _ in range(4):
        actor, other = to_act(h, g)
        await actor.act(actor.view["legal"][-1])
        await actor.next_of("ack")
        await actor.drain(0.1)
        await other.drain(0.1)
    assert h.version == g.version >= seen_before + 4
    late = await host.connect(game_id)
    assert late.version == h.version
    # a new socket's whole state is all it needs: a resume behind it (a reconnecting client
    # sends one as the socket opens) gets nothing, not updates that the state already holds
    await late.send({"type": "resume", "version": seen_before})
    assert await late.drain(0.3) == []
    # updates after the state come live; a client that asks again from one of them gets the
    # ones after it, in order, as the other sockets got them
    mark = late.version
    for _ in range(3):
        actor, other = to_act(h, g)
        await actor.act(actor.view["legal"][-1])
        await actor.next_of("ack")
        await actor.drain(0.1)
        await other.drain(0.1)
    await late.until(lambda s: s.version == h.version)
    updates = [m for m in h.log if m["type"] == "update" and m["version"] > mark + 1]
    late.version = mark + 1  # as if it had stopped there
    await late.send({"type": "resume", "version": mark + 1})
    got = [await late.next_of("update") for _ in updates]
    assert [m["version"] for m in got] == [m["version"] for m in updates]
    assert [m["events"] for m in got] == [m["events"] for m in updates]
    # up to date: nothing; ahead of the server: a fresh state
    await late.send({"type": "resume", "version": late.version})
    assert await late.drain(0.2) == []
    await late.send({"type": "resume", "version": late.version + 50})
    state = await late.next_of("state")
    assert state["version"] == h.version


async def test_friends_game_pauses_while_a_player_is_away(module_server):
    host, guest, game_id, h, g = await duel_pair(module_server)
    actor, other = to_act(h, g)
    await other.close()
    await actor.until(lambda s: s.room["paused"] is True)
    away = [s["connected"] for s in actor.room["seats"]]
    assert away.count(False) == 1
    await actor.act(actor.view["legal"][0], msg_id="p-1")
    err = await actor.next_of("error")
    assert err["code"] == "paused"
    # back: the move goes through
    browser = guest if other is g else host
    back = await browser.connect(game_id)
    assert back.room["paused"] is False
    await actor.until(lambda s: s.room["paused"] is False)
    await actor.act(actor.view["legal"][0], msg_id="p-2")
    assert (await actor.next_of("ack", "error"))["type"] == "ack"


async def test_bots_wait_for_every_human_in_friends_games(module_server):
    host = await Browser.new(module_server)
    game_id = await host.create(
        variant="classic",
        mode="friends",
        options={"target": "one_deal"},
        seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "human"}, {"kind": "bot"}],
    )
    guest = await Browser.new(module_server)
    status, joined = await guest.post(f"/api/games/{game_id}/join")
    assert joined["seats"] == [2] and joined["room"]["status"] == "playing"
    h = await host.connect(game_id)
    assert h.room["paused"] is True
    # whoever is to act (bots included), nothing happens while seat 2 is away
    assert await h.drain(0.5) == [] or h.version == 1
    assert h.version == 1
    g = await guest.connect(game_id)
    await h.until(lambda s: s.room["paused"] is False)
    # now the bots play until a human seat is to act
    await h.until(lambda s: s.view["to_act"] in (0, 2))
    await g.until(lambda s: s.version == h.version)


async def test_computer_game_level_hint_and_rematch(module_server):
    browser = await Browser.new(module_server)
    game_id = await browser.create(
        variant="coinche", mode="computer", options={"target": "one_deal"}, level="easy"
    )
    sock = await browser.connect(game_id)
    assert sock.room["level"] == "easy"
    await sock.send({"type": "set_level", "level": "medium", "id": "lv-1"})
    assert (await sock.next_of("ack"))["id"] == "lv-1"
    await sock.until(lambda s: s.room["level"] == "medium")
    assert [s["level"] for s in sock.room["seats"]] == [None, "medium", "medium", "medium"]
    await sock.send({"type": "set_level", "level": "expert"})
    assert (await sock.next_of("error"))["code"] == "bad_message"
    # a hint on our turn is one of our legal moves
    await sock.until(lambda s: bool(s.view["legal"]))
    await sock.send({"type": "hint", "id": "h-1"})
    hint = await sock.next_of("hint")
    assert hint["id"] == "h-1" and hint["action"] in sock.view["legal"]
    # play to the end
    rng = random.Random(1)
    while sock.view["phase"] != "match_over":
        if sock.view["legal"]:
            await sock.act(rng.choice(sock.view["legal"]))
            acked = await sock.next_of("ack")
            await sock.until(lambda s, v=acked["version"]: s.version >= v)
        else:
            await sock.recv()
    await sock.until(lambda s: s.room["consent"]["kind"] == "rematch")
    assert sock.room["consent"]["needed"] == [0]
    await sock.act(sock.legal()[0] if sock.legal() else {"type": "pass"}, msg_id="late-1")
    assert (await sock.next_of("error"))["code"] == "game_over"
    await sock.send({"type": "consent", "kind": "next_deal"})
    assert (await sock.next_of("error"))["code"] == "not_allowed"
    await sock.send({"type": "consent", "kind": "rematch", "id": "r-1"})
    rematch = await sock.next_of("rematch")
    new_id = rematch["game_id"]
    assert new_id != game_id and rematch["url"].endswith(f"/g/{new_id}")
    again = await browser.connect(new_id)
    assert again.seats == [0] and again.version == 1 and again.room["level"] == "medium"
    status, me = await browser.get("/api/me")
    assert [g["game_id"] for g in me["grouped"]["computer"]] == [new_id]


async def test_set_level_is_for_computer_games(module_server):
    host, guest, game_id, h, g = await duel_pair(module_server)
    await h.send({"type": "set_level", "level": "hard", "id": "lv-2"})
    err = await h.next_of("error")
    assert err["code"] == "not_allowed" and err["id"] == "lv-2"
    await h.send({"type": "ping"})
    assert (await h.next_of("pong", "error"))["type"] == "pong"


async def test_updates_carry_what_changed_and_add_up_to_the_view(module_server):
    """An update's view holds only the fields that changed; merged in order they give exactly
    the view a fresh connection gets, and a mid-deal update leaves the fixed fields out."""
    host, guest, game_id, h, g = await duel_pair(module_server)
    rng = random.Random(11)
    for _ in range(10):
        actor, other = to_act(h, g)
        await actor.act(rng.choice(actor.view["legal"]))
        await actor.next_of("ack")
        await actor.drain(0.1)
        await other.drain(0.1)
        if h.view["phase"] not in ("play", "bidding"):
            break
    # (the update that deals the first deal of a game carries whole views: nothing before it)
    updates = [m for m in h.log if m["type"] == "update" and m["version"] > 1]
    assert updates
    for m in updates:
        assert "variant" not in m["view"] and "options" not in m["view"], m["view"].keys()
    plays = [m for m in updates if [e["type"] for e in m["events"]] == ["card_played"]]
    assert plays and all("results" not in m["view"] for m in plays)
    for sock, browser in ((h, host), (g, guest)):
        fresh = await browser.connect(game_id)
        assert fresh.version == sock.version
        assert fresh.view == sock.view  # the merged updates equal the whole view
        await fresh.close()


async def test_a_spectator_resuming_behind_its_state_gets_nothing_twice(module_server):
    """A spectator who was not there resumes from an old version as its socket opens: the
    whole state it got holds everything, so nothing more is sent, and the game's next update
    reaches it live."""
    host, guest, game_id, h, g = await duel_pair(module_server)
    start = h.version
    actor, other = to_act(h, g)
    await actor.act(actor.view["legal"][0])
    await actor.next_of("ack")
    await other.until(lambda s: s.version == start + 1)
    watcher = await (await Browser.new(module_server)).connect(game_id)
    assert watcher.role == "spectator" and watcher.version == start + 1
    assert "hand" not in watcher.view
    await watcher.send({"type": "resume", "version": start})
    assert await watcher.drain(0.3) == []
    await actor.until(lambda s: s.version == start + 1)
    actor, other = to_act(h, g)
    await actor.act(actor.view["legal"][0])
    assert (await actor.next_of("ack", "error"))["type"] == "ack"
    update = await watcher.next_of("update")
    assert update["version"] == start + 2


async def test_stats_count_the_actions_and_time_the_collector(module_server):
    host, guest, game_id, h, g = await duel_pair(module_server)
    status, before = await host.get("/api/stats")
    assert status == 200
    for _ in range(3):
        actor, _other = to_act(h, g)
        await actor.act(actor.view["legal"][0])
        await actor.next_of("ack")
        await h.drain(0.05)
        await g.drain(0.05)
    _, after = await host.get("/api/stats")
    assert sum(after["actions"]["counts"]) - sum(before["actions"]["counts"]) == 3
    assert after["actions"]["max_ms"] > 0 and set(after["gc"]) >= {"counts", "total_s", "max_ms"}


def test_an_action_is_parsed_once_into_the_engines_own_action() -> None:
    """``action`` frames become the engine's action straight from the parsed model: the same
    action as the engine's ``action_from_json``. What the engine refuses as malformed the
    parser refuses first, as ``invalid_action`` with the frame's id."""
    import orjson

    from app.engine import (
        InvalidAction,
        action_from_json,
        action_to_json,
        apply,
        legal_actions,
        new_match,
    )
    from app.engine.game import start_deal
    from app.web.messages import BadFrame, parse_incoming

    def both(action: dict) -> tuple[object, object]:
        frame = {"type": "action", "id": "a", "version": 1, "action": action}
        model = parse_incoming(orjson.dumps(frame).decode()).action
        results = []
        for make in (
            model.to_engine,
            lambda: action_from_json(model.model_dump(exclude_none=True)),
        ):
            try:
                results.append(make())
            except InvalidAction as exc:
                results.append(f"InvalidAction: {exc}")
        return results[0], results[1]

    rng = random.Random(3)
    seen = 0
    for variant, players in [
        ("classic", None),
        ("coinche", None),
        ("bela", 3),
        ("bela", 2),
        ("duel", None),
        ("bulgarian", None),
    ]:
        state = new_match(variant, players, rng=rng)
        for _ in range(120):
            if state.phase.name == "MATCH_OVER":
                break
            if state.phase.name == "DEAL_OVER":
                state, _ = start_deal(state, rng)
                continue
            legal = legal_actions(state)
            for action in legal:
                mine, engine = both(action_to_json(action))
                assert mine == engine == action
                seen += 1
            state, _ = apply(state, rng.choice(legal))
    assert seen > 1000
    malformed = [
        {"type": "play", "card": "ZZ"},
        {"type": "play", "card": "1H"},
        {"type": "bid", "contract": "H", "value": 85},
        {"type": "declare", "combos": [["7H", "8H", "7H"]]},
        {"type": "declare", "combos": [["7H", "XX"]]},
        {"type": "discard", "cards": ["7H", "7H"]},
        {"type": "discard", "cards": ["7H", "Q?"]},
        {"type": "exchange", "card": "?S"},
    ]
    for action in malformed:
        frame = {"type": "action", "id": "m-1", "version": 1, "action": action}
        with pytest.raises(BadFrame) as refused:
            parse_incoming(orjson.dumps(frame).decode())
        assert (refused.value.code, refused.value.msg_id) == ("invalid_action", "m-1"), action
        with pytest.raises(InvalidAction):
            action_from_json(action)
    for action in [
        {"type": "bid", "contract": "S", "value": "capot"},
        {"type": "bid", "contract": "NT", "value": 160},
        {"type": "play", "card": "AS", "belote": True},
    ]:
        mine, engine = both(action)
        assert mine == engine, action


async def test_the_waiting_room_host_adds_a_computer_player_and_a_guest_moves(module_server):
    host = await Browser.new(module_server)
    game_id = await host.create(variant="classic", mode="friends")
    h = await host.connect(game_id)
    guest = await Browser.new(module_server)
    g = await guest.connect(game_id)
    await g.until(lambda s: s.seats == [1])
    await g.send({"type": "take_seat", "seat": 2, "id": "move"})
    assert await g.next_of("ack", "error") == {"type": "ack", "id": "move", "version": 0}
    await g.until(lambda s: s.seats == [2])
    await g.send({"type": "seat_bot", "seat": 1, "level": "easy", "id": "b"})
    assert (await g.next_of("error"))["code"] == "not_host"
    await h.send({"type": "seat_bot", "seat": 7})
    assert (await h.next_of("error"))["code"] == "bad_message"
    await h.send({"type": "seat_bot", "seat": 1, "level": "easy", "id": "b1"})
    assert (await h.next_of("ack", "error"))["id"] == "b1"
    await h.until(lambda s: s.room["seats"][1]["kind"] == "bot")
    await h.send({"type": "free_seat", "seat": 1, "id": "f1"})
    assert (await h.next_of("ack", "error"))["id"] == "f1"
    await h.until(lambda s: s.room["seats"][1]["kind"] == "human")
    await h.send({"type": "seat_bot", "seat": 1, "level": "easy"})
    await h.until(lambda s: s.room["seats"][1]["kind"] == "bot")
    await h.send({"type": "seat_bot", "seat": 3, "level": "hard", "id": "b3"})
    assert (await h.next_of("ack", "error"))["id"] == "b3"
    # every seat is taken: the match starts, with computer players at seats 1 and 3
    await h.until(lambda s: s.version >= 1 and s.room["status"] == "playing")
    await g.until(lambda s: s.version >= 1)
    assert [s["level"] for s in h.room["seats"]] == [None, "easy", None, "hard"]


async def test_a_computer_game_waits_for_continue_after_a_deal(module_server):
    browser = await Browser.new(module_server)
    game_id = await browser.create(
        variant="bela", players=2, mode="computer", level="easy", options={"target": 501}
    )
    sock = await browser.connect(game_id)
    rng = random.Random(4)
    sent_at = None
    while not (sock.room and sock.room["next_deal"]):
        if sock.my_turn_seat() is not None and sent_at != sock.version:
            sent_at = sock.version
            await sock.play_random(rng)
        msg = await sock.recv()
        assert msg["type"] != "error", msg
    assert sock.room["next_deal"] == {"waiting_for": [0], "deadline": None}
    assert sock.room["consent"]["kind"] == "next_deal" and sock.view["phase"] == "deal_over"
    version = sock.version
    assert [m for m in await sock.drain(0.3) if m["type"] == "update"] == []  # nobody deals
    assert sock.version == version
    await sock.send({"type": "consent", "kind": "next_deal", "id": "go"})
    assert await sock.next_of("ack") == {"type": "ack", "id": "go", "version": version}
    await sock.until(lambda s: s.version == version + 1 and s.room["next_deal"] is None)
    assert sock.view["phase"] != "deal_over"
