"""The two ways a room refuses a command."""

from __future__ import annotations

from typing import Any


class CommandError(Exception):
    """A refused command: becomes an ``error`` message; the connection stays open."""

    def __init__(self, code: str, message: str, reason: dict[str, Any] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason  # illegal_action: the rule, as data (the engine's reason)


class RoomClosed(RuntimeError):
    """The room left memory (idle, or shutdown) while a caller was using it: get it again."""


class RoomMoved(RoomClosed):
    """This process lost the room's lease (docs/scaling.md): a fenced write was refused or the
    renewal found the lease taken. The room is closed here; its clients reconnect and reach the
    process that owns it now."""


class OwnedElsewhere(Exception):
    """Another live process holds the room's lease: this one does not load it. The client
    tries again (WebSocket close 4002, HTTP 503 with ``Retry-After``)."""

    def __init__(self, game_id: str, retry_after: int, owner: str = "", epoch: int = 0) -> None:
        super().__init__(f"game {game_id} is served by another process; retry")
        self.game_id = game_id
        self.retry_after = retry_after
        self.owner = owner  # the node id holding the lease ("" when unknown)
        self.epoch = epoch  # its lease's epoch
