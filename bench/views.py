"""What a scripted client of a table holds: the views it merges from ``state`` and ``update``
messages (docs/protocol.md, "update"). The scripted table client (table_client.py: the
load, lobby, soak and failover benchmarks and tests/web/wsclient.py) and the leak checker all
hold views this way.

A ``state`` carries whole views; an ``update``'s ``view`` (and ``views``, one per seat held, for
a socket holding several seats) holds only the fields that changed since the previous version:
merged into the held view, a field left out stays as it was, and an update with no change
(``{}``) leaves the view as it was. A view is ``None`` while the table waits for its first deal;
the update that deals it is whole.
"""

from __future__ import annotations

from typing import Any

View = dict[str, Any]


def merge_view(held: View | None, change: View | None) -> View | None:
    """The view after an update whose view is ``change``, ``held`` the view before it."""
    if change is None or held is None:
        return change
    return {**held, **change}


def merge_views(
    held: dict[str, View | None], change: dict[str, View | None]
) -> dict[str, View | None]:
    """``merge_view`` for each seat of an update's ``views`` (the seats it names)."""
    return {seat: merge_view(held.get(seat), view) for seat, view in change.items()}


def held_after(message: dict[str, Any], held: View | None) -> View | None:
    """The view held after ``message``: a ``state``'s whole view, an ``update`` merged into
    ``held``; any other message leaves ``held`` as it is."""
    kind = message.get("type")
    if kind == "state":
        view: View | None = message.get("view")
        return view
    if kind == "update":
        return merge_view(held, message.get("view"))
    return held
