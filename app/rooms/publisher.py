"""What each listener of a room is sent of its versions: views, their changes, the resume buffer.

What a listener may see is computed at send time from the engine's views (RULES.md §13):
events addressed to a seat go only to that seat's holder. The room never awaits a listener:
``listener.send(text)`` only queues, so a slow client cannot stall a table.
"""

from __future__ import annotations

import weakref
from collections import deque
from typing import Any, NamedTuple

from app.engine import Event, State, seat_view, spectator_view
from app.engine.views import clear_view_cache, seat_fields
from app.rooms import messages as out
from app.rooms.model import Listener

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
    """What a room's listeners are sent of its versions: each version's ``update`` texts, made
    once per held-seats tuple, and the resume buffer. It holds no reference to its room: the
    room passes what it reads (the version, the listeners, the states) and sends what it
    returns (room.py ``publish``, ``resume``)."""

    def __init__(self) -> None:
        self.history: deque[Step] = deque(maxlen=HISTORY_SIZE)
        # the seat fields last sent (seat -> seat_fields) and the state they were made of
        self._fields: dict[int, dict[str, Any]] = {}
        self._fields_of: State | None = None
        # the version of the whole state each connection was last sent (resume)
        self.state_sent: weakref.WeakKeyDictionary[Listener, int] = weakref.WeakKeyDictionary()

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

    def publish(
        self,
        version: int,
        wanted: set[tuple[int, ...]],
        before: State | None,
        state: State,
        events: list[Event],
    ) -> Step:
        """The ``update`` texts of a room's new ``version`` (``before``: the state of the
        previous version), one per seats tuple in ``wanted``, kept in the resume buffer. The
        room asks for every seats tuple a listener holds and for every human's seats even
        while away, so that a reconnecting player can ``resume`` from the buffer."""
        events_json = [(e.to, e.to_json()) for e in events]
        # Once per version: the shared fields' changes, and each seat's own fields' changes.
        # The previous state's views are cached on it (the engine's cache, which
        # ``clear_view_cache`` drops; here: ``_fields``).
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
        return step

    def missed(self, listener: Listener, version: int, current: int) -> list[str] | None:
        """What a client that asks to ``resume`` after ``version`` missed, the room being at
        ``current``: the updates' texts in order, or None when only a fresh state will do.
        A client that was sent a whole state at ``version`` or later on this connection (every
        new socket gets one first) has nothing to catch up on: ``[]``, rather than updates its
        state already holds."""
        if version == current or version <= self.state_sent.get(listener, -1):
            return []
        history = self.history
        first = history[0].version if history else current + 1
        key = seats_key(listener.seats)
        missed = [step for step in history if step.version > version]
        if version > current or version + 1 < first or any(key not in s.texts for s in missed):
            return None
        return [step.texts[key] for step in missed]
