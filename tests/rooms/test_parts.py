"""The parts of a room that decide without it (room.py): each is tested here with no Room, on
the arguments the room would pass it."""

from __future__ import annotations

import ast
import random
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from app import rooms as rooms_package
from app.engine import (
    Phase,
    State,
    apply,
    current_player,
    legal_actions,
    new_match,
    seat_view,
    spectator_view,
)
from app.rooms.bot_driver import delay, to_act
from app.rooms.chat import Chat, check_configure
from app.rooms.consents import Consents
from app.rooms.errors import CommandError
from app.rooms.live import Live, clock_seconds, decisions, stood_in
from app.rooms.model import Facts, Mode, Seat, SeatKind, Status, table_settings
from app.rooms.public import fill_at_ms, filled, hand_over, holder_rows, holders_json, sit_choice
from app.rooms.publisher import Publisher, seats_key
from app.rooms.seating import is_paused, joining, leaving, seat_set, seat_taken, starts, swapped
from app.settings import Settings
from tests.rooms.harness import FakeListener


def _versions(count: int) -> list[tuple[object, object, list]]:
    """``count`` successive (before, state, events) of a seeded classic deal."""
    state = new_match("classic", 4, seed=3)
    rng = random.Random(3)
    steps = []
    for _ in range(count):
        seat = current_player(state)
        assert seat is not None
        new, events = apply(state, rng.choice(list(legal_actions(state))), seat)
        steps.append((state, new, events))
        state = new
    return steps


def test_the_publisher_makes_one_text_per_seats_tuple_and_never_shows_a_hand_to_another():
    publisher = Publisher()
    wanted = {(0,), (1,), ()}
    _, state, events = _versions(1)[0]
    step = publisher.publish(1, wanted, None, state, events)  # no previous version: whole views
    assert step.version == 1
    assert set(step.texts) == {seats_key(s) for s in wanted}
    spectator = orjson.loads(step.texts[seats_key(())])
    assert spectator["type"] == "update" and spectator["version"] == 1
    assert spectator["view"] == spectator_view(state)
    assert "hand" not in spectator["view"]
    for seat in (0, 1):
        view = orjson.loads(step.texts[seats_key((seat,))])["view"]
        assert view == seat_view(state, seat)  # its own hand, and only its own


def test_resume_gives_the_missed_texts_in_order_or_asks_for_a_whole_state():
    publisher = Publisher()
    listener = FakeListener(1, (0,))
    for version, (before, state, events) in enumerate(_versions(5), start=1):
        publisher.publish(version, {(0,)}, before, state, events)
    missed = publisher.missed(listener, 2, 5)
    assert missed is not None
    assert [orjson.loads(t)["version"] for t in missed] == [3, 4, 5]
    assert publisher.missed(listener, 5, 5) == []  # up to date
    assert publisher.missed(listener, 7, 5) is None  # ahead of the room: a whole state
    other = FakeListener(2, (1,))
    assert publisher.missed(other, 2, 5) is None  # seats the buffer has no text for
    publisher.state_sent[listener] = 4  # this connection got a whole state at 4
    assert publisher.missed(listener, 3, 5) == []


@pytest.mark.parametrize(
    ("mode", "settings", "seats", "code"),
    [
        (Mode.COMPUTER, {}, (0,), "not_allowed"),
        (Mode.FRIENDS, {"chat": False}, (0,), "chat_off"),
        (Mode.FRIENDS, {}, (), "spectator"),
        (Mode.FRIENDS, {"spectator_chat": True}, (), None),
        (Mode.FRIENDS, {}, (1,), None),
    ],
)
def test_who_may_write_in_the_chat(mode, settings, seats, code):
    listener = FakeListener(1, seats)
    stored = table_settings(Mode.FRIENDS, settings)
    if code is None:
        Chat().check_writer(listener, mode, stored)
        return
    with pytest.raises(CommandError) as refused:
        Chat().check_writer(listener, mode, stored)
    assert refused.value.code == code


def test_the_chat_rate_is_per_connection_and_the_kept_lines_number_on():
    chat = Chat()
    ana, bob = FakeListener(1, (0,)), FakeListener(2, (1,))
    for _ in range(3):
        chat.take_rate(ana, 60.0, 3)
    with pytest.raises(CommandError) as refused:
        chat.take_rate(ana, 60.0, 3)
    assert refused.value.code == "rate_limited"
    chat.take_rate(bob, 60.0, 3)  # another connection has its own count
    at = datetime(2026, 1, 2, tzinfo=UTC)
    first = chat.add(41, 0, "Ana", "text", "hi", at)
    second = chat.add(None, 1, "Bob", "emote", "smile", at)  # no id back: the next one
    assert (first["id"], second["id"]) == (41, 42)
    assert chat.history(True) == [first, second] and chat.history(False) == []


def test_only_the_host_of_a_friends_table_configures_the_chat():
    host = FakeListener(7, (0,))
    check_configure(host, Mode.FRIENDS, 7)
    with pytest.raises(CommandError) as refused:
        check_configure(FakeListener(8, (1,)), Mode.FRIENDS, 7)
    assert refused.value.code == "not_host"
    with pytest.raises(CommandError) as refused:
        check_configure(host, Mode.LOCAL, 7)
    assert refused.value.code == "not_allowed"


def _deal_over(variant: str = "classic", players: int = 4) -> State:
    """A deal played to its end (not thrown in): the state that asks for ``next_deal``."""
    for seed in range(50):
        state, rng = new_match(variant, players, seed=seed), random.Random(seed)
        while state.phase is not Phase.DEAL_OVER:
            seat = current_player(state)
            assert seat is not None
            state, _ = apply(state, rng.choice(list(legal_actions(state))), seat)
        if not state.results[-1].thrown_in:
            return state
    raise AssertionError("every deal was thrown in")


def _facts(state: State | None, **changes: object) -> Facts:
    values: dict[str, object] = {
        "state": state,
        "status": Status.PLAYING,
        "mode": Mode.FRIENDS,
        "version": 40,
        "board": False,
        "rematch_id": None,
        "humans": (0, 1, 2, 3),
        "connected": frozenset({0, 1, 2, 3}),
        "stand_in": frozenset(),
    }
    values.update(changes)
    return Facts(**values)  # type: ignore[arg-type]


def test_what_the_consents_ask_for_follows_the_table():
    over = _deal_over()
    consents = Consents()
    assert consents.kind(_facts(over)) == "next_deal"
    assert consents.kind(_facts(over, status=Status.WAITING)) is None
    assert consents.kind(_facts(over, board=True)) is None  # a tournament board: one deal
    playing = new_match("classic", 4, seed=1)
    assert consents.kind(_facts(playing)) is None


def test_a_friends_countdown_waits_for_the_connected_seats_the_stand_in_does_not_play():
    over = _deal_over()
    consents = Consents()
    facts = _facts(over, connected=frozenset({0, 1, 3}), stand_in=frozenset({3}))
    assert consents.counts_down(facts)
    assert consents.needed(facts) == [0, 1]
    # against the computer: no countdown, and every human seat the stand-in does not play
    computer = _facts(over, mode=Mode.COMPUTER, humans=(0,), connected=frozenset({0}))
    assert not consents.counts_down(computer) and consents.needed(computer) == [0]
    consents.agreed = {0}
    assert not consents.complete(facts) and not consents.done_early(facts)
    consents.agreed = {0, 1}
    assert consents.complete(facts) and consents.done_early(facts)
    assert consents.next_deal_info(facts) == {"waiting_for": [], "deadline": None}


def test_an_agreement_is_refused_to_a_spectator_and_for_what_is_not_asked():
    over = _deal_over()
    consents = Consents()
    facts = _facts(over, humans=(0, 2))
    assert consents.agreeing(FakeListener(1, (0, 1)), "next_deal", facts) == {0}
    for listener, kind, code in [
        (FakeListener(9, ()), "next_deal", "spectator"),
        (FakeListener(1, (0,)), "rematch", "not_allowed"),
    ]:
        with pytest.raises(CommandError) as refused:
            consents.agreeing(listener, kind, facts)
        assert refused.value.code == code
    assert consents.agreed == set()  # deciding changed nothing


def test_a_stored_agreement_is_kept_only_for_the_same_kind_and_version():
    over = _deal_over()
    facts = _facts(over)
    stored = {"kind": "next_deal", "version": 40, "seats": [0, 2, 7]}
    kept = Consents()
    kept.restore(stored, facts)
    assert kept.agreed == {0, 2}  # seat 7 is no human seat here
    for other in ({**stored, "version": 39}, {**stored, "kind": "rematch"}):
        stale = Consents()
        stale.restore(other, facts)
        assert stale.agreed == set()


def _table(*kinds: str) -> list[Seat]:
    """Seats by kind: ``h`` a free human seat, ``hN`` held by identity N, ``b`` a computer
    player, ``o`` an open computer seat, ``oN`` one that identity N waits for."""
    seats = []
    for i, k in enumerate(kinds):
        held = int(k[1:]) if len(k) > 1 else None
        if k[0] == "h":
            seats.append(Seat(i, SeatKind.HUMAN, held, None, f"P{held}" if held else None))
        else:
            seats.append(Seat(i, SeatKind.BOT, None, "medium", None, open=k[0] == "o"))
            if held is not None:
                seats[-1].heir_id, seats[-1].heir_name = held, f"P{held}"
    return seats


def test_sit_here_takes_a_free_seat_waits_for_an_open_one_or_says_who_was_first():
    waiting = _table("h1", "h", "h", "b")
    assert sit_choice(2, None, True, Status.WAITING, waiting) == ("take", 1)
    assert sit_choice(2, 2, True, Status.WAITING, waiting) == ("take", 2)
    assert sit_choice(1, 2, True, Status.WAITING, waiting) == ("seat", 0)  # already seated
    playing = _table("h1", "o", "o5", "b")
    assert sit_choice(2, None, True, Status.PLAYING, playing) == ("inherit", 1)
    assert sit_choice(5, None, True, Status.PLAYING, playing) == ("heir", 2)
    for seat, status, public, seats, code in [
        (3, Status.WAITING, True, waiting, "seat_taken"),  # a computer player's seat
        (2, Status.PLAYING, True, playing, "seat_taken"),  # somebody waits for it already
        (None, Status.FINISHED, True, playing, "game_over"),
        (None, Status.WAITING, False, waiting, "not_allowed"),
        (9, Status.WAITING, True, waiting, "bad_message"),
    ]:
        with pytest.raises(CommandError) as refused:
            sit_choice(2, seat, public, status, seats)
        assert refused.value.code == code


def test_a_public_table_fills_its_free_seats_with_open_computer_players_when_due():
    seats = _table("h1", "h", "b", "h")
    new, changed = filled(seats, "hard")
    assert [s.seat for s in changed] == [1, 3]
    assert all(s.kind == "bot" and s.open and s.level == "hard" for s in changed)
    assert seats[1].kind == "human"  # the seats given are not changed
    since = {"public_since": 1_000}
    assert fill_at_ms(True, Status.WAITING, Mode.FRIENDS, since, 5_000, 30) == 31_000
    assert fill_at_ms(True, Status.WAITING, Mode.FRIENDS, {}, 5_000, 30) == 35_000  # from the load
    assert fill_at_ms(False, Status.WAITING, Mode.FRIENDS, since, 0, 30) is None
    assert fill_at_ms(True, Status.PLAYING, Mode.FRIENDS, since, 0, 30) is None


def test_the_end_of_a_deal_hands_open_seats_to_their_heirs_and_the_record_says_from_when():
    over = _deal_over()
    seats = _table("h1", "o7", "o", "b")
    handed = hand_over("g1", over, seats, 3)
    assert handed is not None
    new, _work = handed
    assert [(s.seat, s.kind, s.identity_id, s.name) for s in new] == [(1, "human", 7, "P7")]
    assert hand_over("g1", new_match("classic", 4, seed=1), seats, 3) is None  # mid-deal
    assert hand_over("g1", over, _table("h1", "o", "o", "b"), 3) is None  # no heir
    rows = holder_rows(filled(_table("h1", "h", "b", "b"), "easy")[1], 0) + holder_rows(new, 3)
    assert holders_json(rows) == [
        {"seat": 1, "from_deal": 0, "by": "computer", "level": "easy", "name": None},
        {"seat": 1, "from_deal": 3, "by": "human", "level": None, "name": "P7"},
    ]


NOW = 1_800_000_000.0


def _live() -> Live:
    live = Live()
    live.now = lambda: NOW
    live.loaded_at = live.now_ms() - 200_000  # the room was loaded 200 s ago
    return live


def test_the_stand_in_takes_an_away_seat_once_every_other_player_agreed():
    live = _live()
    seats = _table("h1", "h2", "h3", "h4")
    connected = {0, 1, 3}  # seat 2 is away since the room was loaded
    args = (Mode.FRIENDS, Status.PLAYING, seats, connected, 120)
    taken, votes = live.vote(FakeListener(1, (0,)), 2, *args)
    assert taken is None and votes == {0}
    live.votes[2] = votes
    taken, votes = live.vote(FakeListener(2, (1,)), 2, *args)
    assert taken is None and votes == {0, 1}
    live.votes[2] = votes
    taken, votes = live.vote(FakeListener(4, (3,)), 2, *args)
    assert taken is not None and (taken.seat, taken.stand_in) == (2, "away")
    assert seats[2].stand_in is None  # the room stores it, then applies it


@pytest.mark.parametrize(
    ("listener_seats", "seat", "connected", "away", "code"),
    [
        ((), 2, {0}, 120, "not_allowed"),  # a spectator
        ((0,), 0, {0}, 120, "not_allowed"),  # one's own seat
        ((0,), 7, {0}, 120, "bad_message"),
        ((0,), 1, {0, 1}, 120, "not_away"),  # connected
        ((0,), 1, {0}, 600, "not_away"),  # not away for long enough yet
    ],
)
def test_a_stand_in_vote_is_refused(listener_seats, seat, connected, away, code):
    seats = _table("h1", "h2", "h3", "h4")
    with pytest.raises(CommandError) as refused:
        _live().vote(
            FakeListener(1, listener_seats),
            seat,
            Mode.FRIENDS,
            Status.PLAYING,
            seats,
            connected,
            away,
        )
    assert refused.value.code == code


def test_who_the_stand_in_plays_and_which_decisions_the_clock_waits_for():
    left, away = (
        Seat(0, SeatKind.HUMAN, 1, None, "A", "left"),
        Seat(1, SeatKind.HUMAN, 2, None, "B", "away"),
    )
    assert stood_in(left, Status.PLAYING, {0}) and not stood_in(away, Status.PLAYING, {1})
    assert stood_in(away, Status.PLAYING, set()) and not stood_in(away, Status.WAITING, set())
    assert clock_seconds(Mode.FRIENDS, {"clock": 30}, None) == 30.0
    assert clock_seconds(Mode.COMPUTER, {"clock": 30}, None) is None
    seats = _table("h1", "b", "h3", "b")
    playing = new_match("classic", 4, seed=1)
    to_act = current_player(playing)
    table = (Status.PLAYING, seats, Mode.FRIENDS, False, ())
    waited = decisions(playing, set(), *table)
    assert waited == ([to_act] if seats[to_act].kind == "human" else [])
    live = _live()
    assert live.plan(30.0, [0, 2]) == {0: int(NOW * 1000) + 30_000, 2: int(NOW * 1000) + 30_000}
    assert live.plan(None, [0]) == {}
    assert live.stored(30.0, {2: 5, 0: 9}, 12) == {
        "version": 12,
        "deadlines": {"0": 9, "2": 5},
        "seconds": 30.0,
        "at": int(NOW * 1000),
    }


def test_a_restored_clock_keeps_what_was_left_plus_the_grace():
    live = _live()
    now = int(NOW * 1000)
    fresh = {0: now + 30_000, 2: now + 30_000}
    stored = {"version": 5, "deadlines": {"0": 1_000 + 12_000}, "at": 1_000}  # 12 s were left
    assert live.restored(stored, 5, fresh) == {0: now + 12_000 + 10_000, 2: now + 30_000 + 10_000}
    assert live.restored(stored, 6, fresh) == {s: ms + 10_000 for s, ms in fresh.items()}  # stale


def test_presence_starts_and_ends_away_times_and_drops_the_votes_of_a_returning_seat():
    live = _live()
    live.votes[2] = {0}
    assert not live.presence({0, 1, 2}, {0, 1})  # seat 2 went away: nothing to rearm
    assert live.away_since[2] == int(NOW * 1000)
    assert live.presence({0, 1}, {0, 1, 2})  # it came back
    assert 2 not in live.away_since and 2 not in live.votes


def test_a_guest_takes_the_next_free_seat_and_the_last_one_starts_the_match():
    seats = _table("h1", "h", "b", "h")
    joined = joining(2, "Bea", seats, Status.WAITING)
    assert joined is not None
    new, seat = joined
    assert (seat.seat, seat.identity_id, seat.name) == (1, 2, "Bea")
    assert seats[1].identity_id is None  # decided, not applied
    assert not starts(Status.WAITING, new)
    last = joining(3, "Cy", new, Status.WAITING)
    assert last is not None and starts(Status.WAITING, last[0])
    assert joining(4, "Di", last[0], Status.WAITING) is None  # full: a spectator, or refused
    assert joining(4, "Di", seats, Status.PLAYING) is None


def test_seat_changes_in_the_waiting_room_are_the_hosts_and_the_players_own():
    seats = _table("h1", "h2", "h", "b")
    new, changed = swapped(1, 1, Status.WAITING, seats, [(0, 3)])
    assert [(s.seat, s.kind, s.identity_id) for s in changed] == [(0, "bot", None), (3, "human", 1)]
    with pytest.raises(CommandError) as refused:
        swapped(2, 1, Status.WAITING, seats, [(0, 3)])
    assert refused.value.code == "not_host"
    _, [bot] = seat_set(1, 1, Mode.FRIENDS, Status.WAITING, seats, 2, "bot", "hard")
    assert (bot.kind, bot.level) == ("bot", "hard")
    with pytest.raises(CommandError) as refused:
        seat_set(1, 1, Mode.FRIENDS, Status.WAITING, seats, 1, "bot", None)  # seat 1 is taken
    assert refused.value.code == "not_allowed"
    moved = seat_taken(2, 2, "Bea", Mode.FRIENDS, Status.WAITING, seats)
    assert moved is not None
    new, changed = moved
    assert [(s.seat, s.identity_id, s.name) for s in changed] == [(1, None, None), (2, 2, "P2")]
    assert seat_taken(2, 1, "Bea", Mode.FRIENDS, Status.WAITING, seats) is None  # already there


def test_leaving_marks_the_seats_left_once_and_pausing_waits_for_absent_humans():
    seats = _table("h1", "h2", "h1", "h2")
    new, held = leaving(1, Mode.FRIENDS, Status.PLAYING, seats)
    assert held == (0, 2) and [s.stand_in for s in new] == ["left", None, "left", None]
    with pytest.raises(CommandError) as refused:
        leaving(1, Mode.FRIENDS, Status.PLAYING, new)
    assert refused.value.message == "you have already left this table"
    with pytest.raises(CommandError):
        leaving(1, Mode.COMPUTER, Status.PLAYING, seats)
    humans = [0, 1, 2, 3]
    assert is_paused(Mode.FRIENDS, Status.PLAYING, False, humans, {0, 1, 2}, set())
    assert not is_paused(Mode.FRIENDS, Status.PLAYING, False, humans, {0, 1, 2}, {3})
    assert not is_paused(Mode.FRIENDS, Status.PLAYING, True, humans, {0, 1, 2}, set())  # a clock
    assert not is_paused(Mode.FRIENDS, Status.PLAYING, False, humans, {0, 1, 2, 3}, set())


def test_whose_turn_the_bot_driver_plays():
    seats = _table("h1", "b", "h3", "b")
    state = new_match("classic", 4, seed=1)
    seat = current_player(state)
    assert seat is not None
    here = {"players_here": True, "paused": False, "stand_in": set(), "auto_play": set()}
    turn = to_act(state, Status.PLAYING, seats, **here)
    assert turn == ((seat, None) if seats[seat].kind == "bot" else None)
    human = 0 if seats[seat].kind == "bot" else seat
    humans = _table(*("h9" if i == human else k for i, k in enumerate(("h1", "b", "h3", "b"))))
    state.to_act = human
    assert to_act(state, Status.PLAYING, humans, **here) is None  # the player's own turn
    assert to_act(state, Status.PLAYING, humans, **{**here, "stand_in": {human}}) == (
        human,
        "stand_in",
    )
    assert to_act(state, Status.PLAYING, humans, **{**here, "players_here": False}) is None
    assert to_act(state, Status.PLAYING, humans, **{**here, "paused": True}) is None
    claimed = state.copy()
    claimed.claimer = human
    assert to_act(claimed, Status.PLAYING, humans, **here) == (human, "claim")


def test_the_bot_driver_waits_at_the_bots_pace_and_a_claim_at_its_own():
    settings = Settings(bot_delay_ms=900, auto_play_seconds=2.0)
    state = new_match("classic", 4, seed=1)
    seat = current_player(state)
    assert seat is not None
    assert delay(state, seat, None, settings) == 0.9
    assert delay(state, seat, "auto", settings) == 2.0
    assert delay(state, seat, "claim", settings) == 0.35


def back_references(source: str) -> list[str]:
    """Where a part's source refers back to its room: an import of room.py, a ``self.room``,
    a weak proxy."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == "app.rooms.room":
            found.append(f"line {node.lineno}: imports app.rooms.room")
        elif isinstance(node, ast.Import) and any(a.name == "app.rooms.room" for a in node.names):
            found.append(f"line {node.lineno}: imports app.rooms.room")
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in ("room", "proxy")
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "weakref")
        ):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return found


PARTS = ("publisher", "chat", "consents", "seating", "bot_driver", "live", "public")


@pytest.mark.parametrize("part", PARTS)
def test_no_part_refers_back_to_its_room(part: str) -> None:
    source = (Path(rooms_package.__file__).parent / f"{part}.py").read_text()
    assert back_references(source) == []


def test_the_check_sees_a_part_that_refers_back():
    sample = (
        "import weakref\n"
        "from app.rooms.room import Room\n"
        "class Part:\n"
        "    def __init__(self, room):\n"
        "        self.room = weakref.proxy(room)\n"
    )
    assert len(back_references(sample)) == 3
