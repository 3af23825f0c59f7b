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

``BotDriver`` keeps the turn's task and its failures, and decides from what the room passes
(whose turn the driver plays, how long it waits first); it holds no room. The room runs the
task: it waits, thinks in the executor (``think``), and posts the action (room.py "computer
players").
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Set as AbstractSet
from concurrent.futures import Executor
from typing import Any

from app import metrics
from app.bots import choose_action
from app.engine import Phase, State, current_player, legal_actions, out_of_turn_actions
from app.rooms.model import Seat, Status
from app.settings import Settings

BOT_THINK_SECONDS = 12.0  # the hard level thinks for well under a second here
EXCHANGE_WAIT_SECONDS = 4.0  # a bot's lead waits this long while a human may exchange
CLAIM_PACE_SECONDS = 0.35  # at most this long between two cards of a claim's play-out

Turn = tuple[int, str | None]  # the seat the driver plays, and its ``by``


def out_of_turn(state: State, seats: list[Seat], stand_in: AbstractSet[int]) -> Turn | None:
    """A bot seat, or a seat its stand-in plays, that may act out of turn now (the seven
    exchange), and its ``by``; else None."""
    seat = state.exchange_seat
    if seat < 0 or not out_of_turn_actions(state, seat):
        return None
    if seats[seat].kind == "bot":
        return seat, None
    if seat in stand_in:
        return seat, "stand_in"
    return None


def human_may_exchange(state: State) -> bool:
    """A human seat (its own player, no stand-in) may still exchange out of turn."""
    seat = state.exchange_seat
    return seat >= 0 and bool(out_of_turn_actions(state, seat))


def forced(state: State, seat: int, auto_play: AbstractSet[int]) -> bool:
    """Forced play (D-23): the seat has one legal action in the card play and one of its
    connections asked for forced cards to be played (``auto_play``: those seats)."""
    if state.phase is not Phase.PLAY or seat not in auto_play:
        return False
    return len(legal_actions(state)) == 1


def to_act(
    state: State | None,
    status: Status,
    seats: list[Seat],
    *,
    players_here: bool,
    paused: bool,
    stand_in: AbstractSet[int],
    auto_play: AbstractSet[int],
) -> Turn | None:
    """The seat the driver should play now, and its ``by``: None for a bot, "stand_in",
    "auto" or "claim" for a human seat; None when nobody should. ``players_here``: a player
    is connected, or the table plays on unattended (bots wait for the humans otherwise)."""
    if status != Status.PLAYING or state is None or not players_here:
        return None
    seat = current_player(state)
    if seat is None or paused:
        return None
    if state.claimer >= 0:
        return seat, "claim"  # a claim's play-out, whoever's seat it is
    early = out_of_turn(state, seats, stand_in)
    if early is not None:
        return early
    if seats[seat].kind == "bot":
        return seat, None
    if seat in stand_in:
        return seat, "stand_in"
    if forced(state, seat, auto_play):
        return seat, "auto"
    return None


def delay(state: State | None, seat: int, by: str | None, settings: Settings) -> float:
    """How long the driver waits before it acts for ``seat``: the bots' pace, forced play's
    delay, a claim's pace; none for the seven exchange; long enough for a human to exchange
    before a bot leads."""
    seconds = settings.auto_play_seconds if by == "auto" else settings.bot_delay_ms / 1000
    if by == "claim":
        seconds = min(seconds, CLAIM_PACE_SECONDS)
    if state is not None and out_of_turn_actions(state, seat):
        return 0.0  # the exchange, at once: the leader may play any moment
    if state is not None and human_may_exchange(state):
        seconds = max(seconds, EXCHANGE_WAIT_SECONDS)
    return float(seconds)


async def think(
    executor: Executor | None,
    view: dict[str, Any],
    level: str,
    seed: int | None,
    version: int,
) -> dict[str, Any]:
    """Run a bot off the event loop (a worker process by default). ``seed`` (tests): the
    same thought at every run, from the seed, the room's version, the level and the seat."""
    if seed is None:
        rng = random.Random(secrets.randbits(64))
    else:
        rng = random.Random(f"{seed}:{version}:{level}:{view.get('seat')}")
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    # A bot that has not answered in BOT_THINK_SECONDS is given up and asked again (a worker
    # stuck or lost must not stall the table for good): the turn logs it and retries.
    result: dict[str, Any] = await asyncio.wait_for(
        loop.run_in_executor(executor, choose_action, view, level, rng), BOT_THINK_SECONDS
    )
    metrics.BOT_THINK.labels(level=level).observe(time.perf_counter() - started)
    return result


class BotDriver:
    """A room's computer-player turn: its task, the turn it waits for, its failures."""

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None
        self.failures = 0
        # (seat, by, version) of the task while it waits before acting: a turn that is no
        # longer the one to play (its player acted first) is cancelled then, not waited for
        self.waiting: tuple[int, str | None, int] | None = None

    def keeps(self, version: int, turn: Turn | None) -> bool:
        """Whether the running task, if any, is still the one to play ``turn`` at
        ``version``: it is past its wait (it plays or hands over itself), or it waits for
        that very turn."""
        if self.task is None or self.task.done():
            return False
        waiting = self.waiting
        return waiting is None or (waiting[2] == version and turn == waiting[:2])

    def retry_after(self) -> float:
        """A failed turn's wait before the next try: doubling, at most 30 s."""
        self.failures += 1
        return min(30.0, 0.5 * 2.0 ** min(self.failures, 6))
