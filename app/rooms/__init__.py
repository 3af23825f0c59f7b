"""The in-memory authority of each table (Room) and their keeper (RoomManager).

Dependencies point inward: app/web uses this package; this package uses the engine, the bots'
entry point and app/persistence.
"""

from app.rooms.manager import GameSpec, RoomManager, SeatSpec
from app.rooms.messages import CommandError, RoomClosed
from app.rooms.room import JoinResult, Listener, Room

__all__ = [
    "CommandError",
    "GameSpec",
    "JoinResult",
    "Listener",
    "Room",
    "RoomClosed",
    "RoomManager",
    "SeatSpec",
]
