"""The computer players of a room: one task at a time thinks for the seat to act.

When a bot seat is to act (the table is not paused and at least one player is connected) the
driver waits ``bot_delay_ms``, takes the bot's seat view, runs ``app.bots.choose_action`` in
the executor (never on the event loop) and sends the answer through the room's one command
path, with the version it saw: a stale answer is dropped and the bot thinks again.

Two more players go the same way, for a human seat:

* the **stand-in** (RULES.md D-22) of a seat it plays (live.py ``stood_in``): a bot of the
  table's ``stand_in`` level, at the bots' pace, its actions marked ``"by": "stand_in"`` (the
  next deal does not wait for that seat's consent: consents.py ``needed``);
* **forced play** (D-23): in the card play, a seat with exactly one legal action held by a
  connection whose ``auto_play`` is on gets it played after ``auto_play_seconds``, marked
  ``"by": "auto"``. Never for a seat with a choice.

Claims (RULES.md §15, D-24): a bot, or the stand-in of a seat it plays, that may claim every
remaining trick (``app.engine.claims.can_claim``, on its seat's view) claims instead of
choosing a card. Once a claim is made (by a player or a bot: ``State.claimer``), the driver
plays the deal out, one card per command at ``CLAIM_PACE_SECONDS`` at most, each action marked
``"by": "claim"``: the claimer's cards in the order that proved the claim, every other seat's
lowest-ranked legal card (``claims.claim_action``). A restart in the middle of it goes on from
the replayed state, whose claim the record's ``by`` marks. A claim is never made for a human
seat by forced play.

One move is made out of turn: in bela for two, the holder of the trump seven may exchange it
while the leader thinks, before the first declare or play (RULES.md §5.4, §14). A bot or
stand-in holder exchanges at once, without the bots' delay, as every level does (the
proposal card is always a higher trump: ``app.bots.bidding.exchange``). A bot leader facing a
human holder waits ``EXCHANGE_WAIT_SECONDS`` before it leads, so that the player has time to
take the offer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from typing import TYPE_CHECKING, Any

from app import metrics
from app.bots import choose_action
from app.engine import (
    Action,
    Phase,
    State,
    current_player,
    legal_actions,
    out_of_turn_actions,
    seat_view,
)
from app.engine.claims import can_claim, claim_action
from app.logging import game_fields
from app.rooms.actions import parse_action
from app.rooms.errors import RoomClosed
from app.rooms.model import Status, owner

if TYPE_CHECKING:
    from app.rooms.room import Room

log = logging.getLogger("atout.rooms")

BOT_THINK_SECONDS = 12.0  # the hard level thinks for well under a second here
EXCHANGE_WAIT_SECONDS = 4.0  # a bot's lead waits this long while a human may exchange
CLAIM_PACE_SECONDS = 0.35  # at most this long between two cards of a claim's play-out


class BotDriver:
    def __init__(self, room: Room) -> None:
        self.room = owner(room)
        self.task: asyncio.Task[None] | None = None
        self.failures = 0
        # (seat, by, version) of the task while it waits before acting: a turn that is no
        # longer the one to play (its player acted first) is cancelled then, not waited for
        self._waiting: tuple[int, str | None, int] | None = None

    def to_act(self) -> tuple[int, str | None] | None:
        """The seat the driver should play now, and its ``by``: None for a bot, "stand_in"
        or "auto" for a human seat; None when nobody should."""
        room = self.room
        state = room.state
        if room.closed or room.status != Status.PLAYING or state is None:
            return None
        if not room.unattended and not any(listener.seats for listener in room.listeners):
            return None  # bots wait for the humans (not at an unattended table)
        seat = current_player(state)
        if seat is None:
            return None
        if room.is_paused():
            return None
        if state.claimer >= 0:
            return seat, "claim"  # a claim's play-out, whoever's seat it is
        early = self.out_of_turn(state)
        if early is not None:
            return early
        kind = room.seats[seat].kind
        if kind == "bot":
            return seat, None
        if room.stand_in_active(seat):
            return seat, "stand_in"
        if self.forced(state, seat):
            return seat, "auto"
        return None

    def out_of_turn(self, state: State) -> tuple[int, str | None] | None:
        """A bot seat, or a seat its stand-in plays, that may act out of turn now (the seven
        exchange), and its ``by``; else None."""
        seat = state.exchange_seat
        if seat < 0 or not out_of_turn_actions(state, seat):
            return None
        if self.room.seats[seat].kind == "bot":
            return seat, None
        if self.room.stand_in_active(seat):
            return seat, "stand_in"
        return None

    def human_may_exchange(self, state: State) -> bool:
        """A human seat (its own player, no stand-in) may still exchange out of turn."""
        seat = state.exchange_seat
        return seat >= 0 and bool(out_of_turn_actions(state, seat))

    def forced(self, state: State, seat: int) -> bool:
        """Forced play (D-23): the seat has one legal action in the card play and one of its
        connections asked for forced cards to be played."""
        if state.phase is not Phase.PLAY:
            return False
        if not any(
            seat in listener.seats and getattr(listener, "auto_play", False)
            for listener in self.room.listeners
        ):
            return False
        return len(legal_actions(state)) == 1

    def schedule(self) -> None:
        room = self.room
        if self.task is not None and not self.task.done():
            waiting = self._waiting
            if waiting is None or (waiting[2] == room.version and self.to_act() == waiting[:2]):
                return
            self.task.cancel()  # still waiting, for a turn that is over
            self.task = self._waiting = None
        turn = self.to_act()
        if turn is None:
            return
        seat, by = turn
        self.task = asyncio.create_task(
            self._turn(seat, by, room.version), name=f"bot-{room.game_id}-{seat}"
        )

    async def choose(self, state: State, seat: int, level: str) -> Action:
        """What a bot of ``level`` plays for ``seat`` in ``state`` (its view only)."""
        return parse_action(await self.think(seat_view(state, seat), level))

    async def think(self, view: dict[str, Any], level: str) -> dict[str, Any]:
        """Run a bot off the event loop (a worker process by default)."""
        seed = self.room.services.settings.test_seed
        if seed is None:
            rng = random.Random(secrets.randbits(64))
        else:  # tests: the same thought at every run
            rng = random.Random(f"{seed}:{self.room.version}:{level}:{view.get('seat')}")
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        # A bot that has not answered in BOT_THINK_SECONDS is given up and asked again (a worker
        # stuck or lost must not stall the table for good): _turn logs it and retries.
        result: dict[str, Any] = await asyncio.wait_for(
            loop.run_in_executor(self.room.services.executor, choose_action, view, level, rng),
            BOT_THINK_SECONDS,
        )
        metrics.BOT_THINK.labels(level=level).observe(time.perf_counter() - started)
        return result

    async def _turn(self, seat: int, by: str | None, version: int) -> None:
        """Play one turn, then hand over: whatever happened (played, stale, failed), the
        next turn is scheduled here, since ``schedule`` called meanwhile (a player's own
        action, for one) found this task alive and left the turn to it."""
        room = self.room
        retry_after = 0.0
        try:
            await self._play(seat, by, version)
            self.failures = 0
        except asyncio.CancelledError:
            raise
        except RoomClosed as exc:
            # expected, handled: the room moved to another process (a woken, fenced-out
            # process) or left memory while the bot thought; whoever holds it now plays on
            log.info(
                "bot move dropped: the room closed here",
                extra=game_fields(
                    room.game_id, seat, event="bot_dropped", error=type(exc).__name__
                ),
            )
            return
        except Exception as exc:
            self.failures += 1
            retry_after = min(30.0, 0.5 * 2 ** min(self.failures, 6))
            log.error(
                "bot failed to act",
                extra=game_fields(
                    room.game_id, seat, event="bot_failed", error=f"{type(exc).__name__}: {exc}"
                ),
            )
        finally:
            if self.task is asyncio.current_task():
                self.task = self._waiting = None
        if retry_after:
            await asyncio.sleep(retry_after)
        self.schedule()

    async def _play(self, seat: int, by: str | None, version: int) -> None:
        """Wait, think, and act for ``seat`` if it is still its turn at ``version``."""
        room = self.room
        turn = (seat, by)
        settings = room.services.settings
        state = room.state
        early = state is not None and bool(out_of_turn_actions(state, seat))
        delay = settings.auto_play_seconds if by == "auto" else settings.bot_delay_ms / 1000
        if by == "claim":
            delay = min(delay, CLAIM_PACE_SECONDS)
        if early:
            delay = 0.0  # the exchange, at once: the leader may play any moment
        elif state is not None and self.human_may_exchange(state):
            delay = max(delay, EXCHANGE_WAIT_SECONDS)
        if delay:
            self._waiting = (seat, by, version)
            await asyncio.sleep(delay)
            self._waiting = None
        state = room.state
        if state is None or room.version != version or self.to_act() != turn:
            return
        claims = by != "auto" and by != "claim" and not early and can_claim(state, seat)

        def still() -> bool:
            return room.version == version and self.to_act() == turn

        if claims:  # a bot, or a stand-in, claims the rest when it may (RULES.md §15)
            await room.post(lambda: room.execute_claim(seat, version, None, None), still)
            return
        if by == "claim":
            action: Action = claim_action(state)
        elif early:
            action = out_of_turn_actions(state, seat)[0]
        elif by == "auto":
            action = legal_actions(state)[0]
        else:
            level = room.stand_in_level() if by else room.seats[seat].level
            action = await self.choose(state, seat, level or "medium")
        await room.post(lambda: room.execute(seat, action, version, None, None, by=by), still)

    async def stop(self) -> None:
        """Cancel the bot that is thinking (the room is closing)."""
        task = self.task
        if task is not None and not task.done():
            task.cancel()
            # its outcome no longer matters: the room is closing
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
