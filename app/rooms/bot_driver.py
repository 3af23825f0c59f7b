"""The computer players of a room: one task at a time thinks for the bot seat to act.

When a bot seat is to act (the table is not paused and at least one player is connected) the
driver waits ``bot_delay_ms``, takes the bot's seat view, runs ``app.bots.choose_action`` in
the executor (never on the event loop) and sends the answer through the room's one command
path, with the version it saw: a stale answer is dropped and the bot thinks again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from typing import TYPE_CHECKING, Any

from app.bots import choose_action
from app.engine import action_from_json, current_player, seat_view
from app.rooms.model import Status, owner

if TYPE_CHECKING:
    from app.rooms.room import Room

log = logging.getLogger("atout.rooms")

BOT_THINK_SECONDS = 12.0  # the hard level thinks for well under a second here


class BotDriver:
    def __init__(self, room: Room) -> None:
        self.room = owner(room)
        self.task: asyncio.Task[None] | None = None
        self.failures = 0

    def to_act(self) -> int | None:
        """The bot seat that should act now, if any."""
        room = self.room
        state = room.state
        if room.closed or room.status != Status.PLAYING or state is None:
            return None
        seat = current_player(state)
        if seat is None or room.seats[seat].kind != "bot":
            return None
        if room.is_paused() or not any(listener.seats for listener in room.listeners):
            return None  # bots wait for the humans
        return seat

    def schedule(self) -> None:
        if self.task is not None and not self.task.done():
            return
        seat = self.to_act()
        if seat is None:
            return
        room = self.room
        self.task = asyncio.create_task(
            self._turn(seat, room.version), name=f"bot-{room.game_id}-{seat}"
        )

    async def think(self, view: dict[str, Any], level: str) -> dict[str, Any]:
        """Run a bot off the event loop (a worker process by default)."""
        rng = random.Random(secrets.randbits(64))
        loop = asyncio.get_running_loop()
        # A bot that has not answered in BOT_THINK_SECONDS is given up and asked again (a worker
        # stuck or lost must not stall the table for good): _turn logs it and retries.
        result: dict[str, Any] = await asyncio.wait_for(
            loop.run_in_executor(self.room.services.executor, choose_action, view, level, rng),
            BOT_THINK_SECONDS,
        )
        return result

    async def _turn(self, seat: int, version: int) -> None:
        room = self.room
        retry_after = 0.0
        try:
            delay = room.services.settings.bot_delay_ms / 1000
            if delay:
                await asyncio.sleep(delay)
            state = room.state
            if state is None or room.version != version or self.to_act() != seat:
                return
            level = room.seats[seat].level or "medium"
            action = action_from_json(await self.think(seat_view(state, seat), level))
            async with room.lock:
                if room.closed or room.version != version or self.to_act() != seat:
                    return
                await room.execute(seat, action, version, None, None)
            self.failures = 0
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.failures += 1
            retry_after = min(30.0, 0.5 * 2 ** min(self.failures, 6))
            log.error(
                "bot failed to act",
                extra={
                    "event": "bot_failed",
                    "game": room.game_id,
                    "seat": seat,
                    "error": f"{type(exc).__name__}: {exc}",
                },
            )
        finally:
            self.task = None
        if retry_after:
            await asyncio.sleep(retry_after)
        self.schedule()

    async def stop(self) -> None:
        """Cancel the bot that is thinking (the room is closing)."""
        task = self.task
        if task is not None and not task.done():
            task.cancel()
            # its outcome no longer matters: the room is closing
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
