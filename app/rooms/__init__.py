"""The in-memory authority of each table (Room) and their keeper (RoomManager).

Dependencies point inward: app/web uses this package; this package uses the engine, the bots'
entry point and app/persistence.
"""

from app.rooms.errors import CommandError, OwnedElsewhere, RoomClosed, RoomMoved
from app.rooms.manager import GameSpec, RoomManager, SeatSpec
from app.rooms.model import JoinResult, Listener, Mode, Status
from app.rooms.room import Room

__all__ = [
    "CommandError",
    "GameSpec",
    "JoinResult",
    "Listener",
    "Mode",
    "Room",
    "OwnedElsewhere",
    "RoomClosed",
    "RoomMoved",
    "RoomManager",
    "SeatSpec",
    "Status",
]
