"""What each listener of a room is sent: views, their changes, and the resume buffer.

What a listener may see is computed at send time from the engine's views (RULES.md §13):
events addressed to a seat go only to that seat's holder. The room never awaits a listener:
``listener.send(text)`` only queues, so a slow client cannot stall a table.
"""

from __future__ import annotations

import weakref
from collections import deque
from typing import TYPE_CHECKING, Any, NamedTuple

from app.engine import Event, State, seat_view, spectator_view
from app.engine.views import clear_view_cache, seat_fields
from app.rooms import messages as out
from app.rooms.model import Listener, owner

if TYPE_CHECKING:
    from app.rooms.room import Room

HISTORY_SIZE = 64  # versions kept per room for ``resume`` (a classic deal is ~37)


class Step(NamedTuple):
    """One version of the room as it was sent: the ``update`` text per held-seats key
    (``seats_key``). Only text is kept, so the resume buffer costs the garbage collector
    nothing (a tuple of an int and a dict of strings is not tracked) and holds no game state."""

    version: int
    texts: dict[str, str]


def seats_key(seats: tuple[int, ...]) -> str:
    key = _SEATS_KEYS.get(seats)
    if key is None:
        key = _SEATS_KEYS[seats] = ",".join(map(str, seats))
    return key


_SEATS_KEYS: dict[tuple[int, ...], str] = {}  # seats tuples are few: subsets of 0..3


def changed_fields(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``new`` that differ from ``old``: what an update carries of a view.

    A view's fields are the same all game long (per variant and role; tested over whole
    matches in tests/engine/test_properties.py), so a field left out means "unchanged"."""
    return {k: v for k, v in new.items() if (o := old.get(k, _MISSING)) is not v and o != v}


_MISSING = object()


def views_of(state: State | None, seats: tuple[int, ...]) -> tuple[Any, dict[str, Any]]:
    """(``view``, ``views``) of a listener holding ``seats`` (docs/protocol.md ``state``)."""
    if state is None:
        return None, {}
    if not seats:
        return spectator_view(state), {}
    views = {str(s): seat_view(state, s) for s in seats}
    return views[str(seats[0])], (views if len(seats) > 1 else {})


class Publisher:
    """Sends a room's versions and room changes to its listeners; keeps the resume buffer."""

    def __init__(self, room: Room) -> None:
        self.room = owner(room)
        self.history: deque[Step] = deque(maxlen=HISTORY_SIZE)
        # the seat fields last sent (seat -> seat_fields) and the state they were made of
        self._fields: dict[int, dict[str, Any]] = {}
        self._fields_of: State | None = None
        # the version of the whole state each connection was last sent (resume)
        self.state_sent: weakref.WeakKeyDictionary[Listener, int] = weakref.WeakKeyDictionary()

    # ------------------------------------------------------------------ single messages

    def send(self, listener: Listener, message: Any) -> None:
        listener.send(out.dumps(message))

    def broadcast(self, message: Any) -> None:
        text = out.dumps(message)
        for listener in list(self.room.listeners):
            listener.send(text)

    def state_message(self, listener: Listener) -> out.StateMsg:
        room = self.room
        view, views = views_of(room.state, listener.seats)
        return out.state(
            room.version,
            listener.seats,
            view,
            views,
            room.room_json(listener.identity_id),
            room.chat.history(),
            room.moves_by(),
        )

    def send_state(self, listener: Listener) -> None:
        self.send(listener, self.state_message(listener))
        self.state_sent[listener] = self.room.version

    def broadcast_room(self, skip: Listener | None = None) -> None:
        room = self.room
        for listener in list(room.listeners):
            if listener is not skip:
                self.send(listener, out.room(room.room_json(listener.identity_id)))
        lobby = room.services.lobby
        if lobby is not None:  # the seats may have changed: the lobby reads them (lobby.py)
            lobby.room_changed(room)
        push = getattr(room.services, "push", None)
        if push is not None:  # a table starting, a guest seated (app/web/push.py)
            push.room_changed(room)

    # ------------------------------------------------------------------ versions

    def _update_text(
        self,
        version: int,
        state: State,
        events: list[tuple[int | None, dict[str, Any]]],
        seats: tuple[int, ...],
        common: dict[str, Any] | None,
        own: dict[int, dict[str, Any]],
    ) -> str:
        """The ``update`` to a listener holding ``seats``: the events it may see (``events``:
        each event's audience and JSON, made once per version) and, of its view(s), only the
        fields that changed since the previous version: ``common``, the changes of the fields
        every seat shares, plus ``own[seat]``, the changes of the seat's own fields (both made
        once per version). Whole views when the previous version is not in this process
        (``common`` is None)."""
        message = out.update(version, [e for to, e in events if to is None or to in seats])
        if common is None:
            view, views = views_of(state, seats)
            message["view"] = view
            if views:
                message["views"] = views
            return out.dumps(message)
        if not seats:
            message["view"] = common
            return out.dumps(message)
        changes = {str(seat): {**common, **own[seat]} for seat in seats}
        message["view"] = changes[str(seats[0])]
        if len(seats) > 1:
            message["views"] = changes
        return out.dumps(message)

    def publish(self, before: State | None, state: State, events: list[Event]) -> Step:
        """Send the room's new version (``room.version``, ``room.state`` already set) to
        everyone; ``before`` is the state of the previous version.

        The update is made for every seats tuple a listener holds and for every human's seats
        even while away, so that a reconnecting player can ``resume`` from the buffer."""
        room = self.room
        version = room.version
        wanted = {listener.seats for listener in room.listeners}
        wanted.update(room.seats_of(s.identity_id) for s in room.seats if s.identity_id is not None)
        events_json = [(e.to, e.to_json()) for e in events]
        # Once per version: the shared fields' changes, and each seat's own fields' changes.
        # The previous state's views are cached on it (the engine's cache, which ``clear_view_cache`` drops; here: ``_fields``).
        common: dict[str, Any] | None = None
        own: dict[int, dict[str, Any]] = {}
        fields = {}
        if before is not None:
            common = changed_fields(spectator_view(before), spectator_view(state, before))
            old_fields = self._fields if self._fields_of is before else {}
            for seat in {seat for seats in wanted for seat in seats}:
                old = old_fields.get(seat)
                if old is None:
                    old = seat_fields(before, seat)
                new = fields[seat] = seat_fields(state, seat, (before, old))
                own[seat] = {} if new is old else changed_fields(old, new)
        self._fields, self._fields_of = fields, state
        texts = {
            seats_key(seats): self._update_text(version, state, events_json, seats, common, own)
            for seats in wanted
        }
        # The engine caches the common view on a state: the current state keeps it for the
        # next update's comparison, the previous one drops it.
        if before is not None:
            clear_view_cache(before)
        step = Step(version, texts)
        self.history.append(step)
        for listener in list(room.listeners):
            listener.send(texts[seats_key(listener.seats)])
        push = getattr(room.services, "push", None)  # None: a room built without services
        if push is not None:  # the turn of a player whose page is hidden (app/web/push.py)
            push.published(room)
        return step

    def resume(self, listener: Listener, version: int) -> None:
        """Send what the client missed after ``version``, or a fresh state. A client that
        was sent a whole state at ``version`` or later on this connection (every new socket
        gets one first) has nothing to catch up on: its ``resume`` is answered with nothing,
        rather than with updates its state already holds."""
        current = self.room.version
        if version == current or version <= self.state_sent.get(listener, -1):
            return
        history = self.history
        first = history[0].version if history else current + 1
        key = seats_key(listener.seats)
        missed = [step for step in history if step.version > version]
        if version > current or version + 1 < first or any(key not in s.texts for s in missed):
            self.send_state(listener)
            return
        for step in missed:
            listener.send(step.texts[key])
