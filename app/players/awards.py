"""Awarding XP and ratings when a match (or a ``duel`` game) finishes, and the level cache.

The room calls ``Awards.prepare(room, state)`` when an action ends a match (or a played duel
deal). It returns a work that runs **in the same transaction** as that action's row: the
result rows, the profiles and the ratings are committed together with the end of the match or
not at all. The work first looks for result rows of the game's part: if any exist it does
nothing, so running it again (a retried group commit, ``Room.after_load`` after a restart)
never awards twice.

Who earns what for a seat (docs/players.md, "Leaving"):

* a browser that **left** the seat (``game_leavers``: the stand-in played it on) — no XP, and
  the match is rated as a loss for it, whatever its side's result;
* a browser whose seat the **stand-in played** for more than half of the seat's actions of the
  match (actions marked ``"by": "stand_in"``, RULES.md D-22) — the same: it left;
* a browser whose seat had **no open connection** when the match ended — the same;
* otherwise the browser that holds the seat;
* in a ``local`` game one browser holds every seat: it earns the XP of seat 0 only and the game
  is not rated; bots earn nothing and keep their anchor ratings;
* a public table's seat that a **computer player held for part of the match** and a human took
  at the end of a deal (``seat_holders``): the human answers for it when he played at least
  half of the seat's actions of the match; otherwise he earns the XP of the result but is not
  rated, and the seat counts as the computer player (its level's anchor) in everyone else's
  rating (``partly_held``);
* a table whose host said "not rated" (``settings.rated`` false) rates nobody.

Every rated match weighs what share of a full match it was (``Outcome.share``,
``ratings.match_share``), for every player it rates, a leaver's loss and a late holder's
seat included; a match of share 0 (ended before anybody scored) is not rated. A player's
first rated match in a family starts from ``ratings.newcomer``.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Session

from app.engine import VARIANTS, Phase, State
from app.engine.record import dump
from app.logging import game_fields
from app.persistence import players as store
from app.persistence import public as public_store
from app.persistence.repository import Work
from app.players.levels import level_for
from app.players.ratings import (
    RATED_MODES,
    Member,
    Rating,
    bot,
    display,
    family_of,
    newcomer,
    rate,
)
from app.players.xp import Outcome, duel_outcome, outcomes, xp_for

log = logging.getLogger("atout.players")


@dataclass(frozen=True)
class SeatInfo:
    """A seat as the award sees it (copied from the room)."""

    seat: int
    kind: str  # human | bot
    identity_id: int | None
    bot_level: str | None


@dataclass(frozen=True)
class Holder:
    """Who answers for a seat in one finished match."""

    seat: int
    identity_id: int | None
    bot_level: str | None
    left_early: bool = False
    rated: bool = True  # False: a human who joined late; the seat rates as ``bot_level``


@dataclass
class AwardResult:
    game_id: str
    part: int
    xp: dict[int, int] = field(default_factory=dict)  # identity -> new total XP


def holders(
    seats: Sequence[SeatInfo],
    leavers: Sequence[store.LeaverRow],
    present: set[int] | None,
    *,
    variant: str,
    part: int,
    stood_in: set[int] | frozenset[int] = frozenset(),
) -> list[Holder]:
    """One holder per seat; see the module docstring. ``present``: the seats connected when
    the match ended, or None when unknown (the award is caught up after a restart);
    ``stood_in``: the seats the stand-in played for more than half of the time."""
    left_at = {}
    for row in leavers:
        # each deal its own game (the duel): a leaver answers only for the deal he left
        if not VARIANTS[variant].deal_is_game or row.deal_number == part:
            left_at[row.seat] = row
    out = []
    for s in seats:
        if s.seat in left_at:
            out.append(Holder(s.seat, left_at[s.seat].identity_id, None, left_early=True))
        elif s.kind == "bot":
            out.append(Holder(s.seat, None, s.bot_level or "medium"))
        else:
            gone = (present is not None and s.seat not in present) or s.seat in stood_in
            out.append(Holder(s.seat, s.identity_id, None, left_early=gone))
    return out


def stood_in_seats(state: State, by: Mapping[tuple[int, int], str], part: int | None) -> set[int]:
    """The seats whose stand-in played more than half of their actions in the match (a duel:
    in deal ``part`` only), from the actions' ``by`` (``Room.by``)."""
    if not by:
        return set()
    record = dump(state, by=by)
    total: Counter[int] = Counter()
    stand_in: Counter[int] = Counter()
    for number, deal in enumerate(record["deals"]):
        if part is not None and number != part:
            continue
        for action in deal["actions"]:
            total[action["seat"]] += 1
            if action.get("by") == "stand_in":
                stand_in[action["seat"]] += 1
    return {seat for seat, count in total.items() if 2 * stand_in[seat] > count}


def seat_actions(state: State, part: int | None) -> dict[int, dict[int, int]]:
    """seat -> deal -> how many actions the seat made in that deal (a duel: deal ``part``)."""
    record = dump(state)
    out: dict[int, dict[int, int]] = {}
    for number, deal in enumerate(record["deals"]):
        if part is not None and number != part:
            continue
        for action in deal["actions"]:
            seat = out.setdefault(action["seat"], {})
            seat[number] = seat.get(number, 0) + 1
    return out


def partly_held(
    found: list[Holder],
    holders: Sequence[Any],
    actions: Mapping[int, Mapping[int, int]],
) -> list[Holder]:
    """``found`` with each human who took a computer's seat during the match (``holders``:
    ``seat_holders`` rows) marked unrated when he played fewer than half of the seat's
    actions; the seat then rates as the computer player it replaced."""
    out = []
    for h in found:
        took = [r for r in holders if r.seat == h.seat and r.identity_id == h.identity_id]
        if h.identity_id is None or h.left_early or not took:
            out.append(h)
            continue
        since = max(r.deal for r in took)
        if since == 0:
            out.append(h)
            continue
        counts = actions.get(h.seat, {})
        total = sum(counts.values())
        his = sum(n for deal, n in counts.items() if deal >= since)
        if 2 * his >= total:
            out.append(h)
            continue
        before = [r for r in holders if r.seat == h.seat and r.bot_level is not None]
        level = before[0].bot_level if before else "medium"
        out.append(Holder(h.seat, h.identity_id, level, rated=False))
    return out


def rated_as_loss(ranks: Sequence[int], side: int) -> tuple[int, ...]:
    """``ranks`` with ``side`` alone in last place: how a leaver's game is rated."""
    last = max(ranks) + 1
    return tuple(last if i == side else r for i, r in enumerate(ranks))


def award_work(
    game_id: str,
    variant: str,
    mode: str,
    outcome: Outcome,
    seats: Sequence[SeatInfo],
    present: set[int] | None,
    stood_in: set[int] | frozenset[int] = frozenset(),
    *,
    rated_table: bool = True,
    actions: Mapping[int, Mapping[int, int]] | None = None,
) -> Work:
    """The work that records ``outcome``: result rows, profiles, ratings (once).
    ``actions`` (``seat_actions``): counts the share of a seat taken from a computer."""

    def work(session: Session) -> AwardResult | None:
        if store.is_awarded(session, game_id, outcome.part):
            return None
        family = family_of(variant)
        found = holders(
            seats,
            store.leavers(session, game_id),
            present,
            variant=variant,
            part=outcome.part,
            stood_in=stood_in,
        )
        if actions is not None:
            found = partly_held(found, public_store.holders_of(session, game_id), actions)
        # who earns XP: every human holder, once per browser; in local games seat 0 only
        earners: dict[int, Holder] = {}
        for h in found:
            if h.identity_id is None or h.identity_id in earners:
                continue
            if mode == "local" and h.seat != 0:
                continue
            earners[h.identity_id] = h
        # a match that ended before anybody scored (the eight-card belot in its first deal)
        # weighs nothing (share 0): it is not rated
        rated = (
            rated_table
            and mode in RATED_MODES
            and outcome.share > 0
            and all(h.identity_id is not None or h.bot_level is not None for h in found)
        )
        start = newcomer(family)
        before: dict[int, Rating] = {}
        after: dict[int, Rating] = {}
        if rated:
            rows = store.ratings(session, earners, family)
            before = {r.identity_id: Rating(r.mu, r.sigma) for r in rows}
            teams: list[list[Member]] = [[] for _ in outcome.ranks]
            for h in found:
                side = outcome.sides[h.seat]
                if h.identity_id is not None and h.rated:
                    teams[side].append(Member(h.identity_id, before.get(h.identity_id, start)))
                else:
                    assert h.bot_level is not None
                    teams[side].append(bot(h.bot_level, family))
            try:
                # the match weighs what share of a full match it was, for everyone it rates
                share = outcome.share
                after = {cast(int, k): v for k, v in rate(teams, outcome.ranks, share).items()}
                # a leaver is rated as having lost, even when his side won
                for h in found:
                    side = outcome.sides[h.seat]
                    if h.left_early and h.identity_id in after:
                        lost = rated_as_loss(outcome.ranks, side)
                        if lost != tuple(outcome.ranks):
                            after[h.identity_id] = rate(teams, lost, share)[h.identity_id]
            except ValueError as exc:
                log.warning(
                    "game not rated",
                    extra=game_fields(game_id, event="not_rated", error=str(exc)),
                )
                after = {}
        result = AwardResult(game_id, outcome.part)
        rows_out = []
        for identity_id, h in earners.items():
            seat = outcome.seats[h.seat]
            award = xp_for(seat, left=h.left_early)
            won = seat.won and not h.left_early
            new = after.get(identity_id)
            rows_out.append(
                store.ResultRow(
                    game_id=game_id,
                    part=outcome.part,
                    seat=h.seat,
                    identity_id=identity_id,
                    family=family,
                    mode=mode,
                    won=won,
                    left_early=h.left_early,
                    deals_won=seat.deals_won,
                    tricks_won=seat.tricks_won,
                    xp=award.total,
                    xp_detail=award.as_json(),
                    rating_before=display(before.get(identity_id, start)) if new else None,
                    rating_after=display(new) if new else None,
                )
            )
            result.xp[identity_id] = store.add_to_profile(
                session,
                identity_id,
                xp=award.total,
                games=0 if h.left_early else 1,
                wins=int(won),
            )
            if new is not None:
                store.save_rating(session, identity_id, family, new.mu, new.sigma, won)
        store.add_results(session, rows_out)
        return result

    return work


class RoomLike(Protocol):
    """What the award needs from a room (app/rooms/room.py)."""

    game_id: str
    variant: str
    mode: str
    seats: Any

    def connected_seats(self) -> set[int]: ...


def outcome_of(state: State) -> Outcome | None:
    """The match or duel game that ``state`` has just finished, or None (replays the record of
    a match to count each seat's tricks: tens of milliseconds for a long match)."""
    if state.rules.deal_is_game:
        return duel_outcome(state)
    if state.phase is not Phase.MATCH_OVER:
        return None
    found = outcomes(dump(state))
    return found[-1] if found else None


def seat_infos(room: RoomLike) -> list[SeatInfo]:
    return [SeatInfo(s.seat, s.kind, s.identity_id, s.level) for s in room.seats]


class LevelCache:
    """identity -> level, for the badges at the tables (``room_json``, synchronous).

    Filled from the database by ``ensure`` (a browser joining a table, a room being loaded) and
    updated after each award. A browser unknown here shows no badge until it is loaded.
    """

    def __init__(self, sessionmaker: async_sessionmaker[AsyncSession], size: int = 50_000):
        self.sessionmaker = sessionmaker
        self.size = size
        self._levels: OrderedDict[int, int] = OrderedDict()
        # told the identities whose XP changed here (app/web/runtime.py: the other processes)
        self.changed: Callable[[list[int]], None] | None = None

    def drop(self, identity_ids: Iterable[int]) -> None:
        for identity_id in identity_ids:
            self._levels.pop(identity_id, None)

    def clear(self) -> None:
        self._levels.clear()

    def get(self, identity_id: int | None) -> int | None:
        if identity_id is None:
            return None
        return self._levels.get(identity_id)

    def set_xp(self, identity_id: int, xp: int) -> None:
        self._levels[identity_id] = level_for(xp)
        self._levels.move_to_end(identity_id)
        while len(self._levels) > self.size:
            self._levels.popitem(last=False)

    async def ensure(self, identity_ids: Iterable[int | None]) -> None:
        missing = {i for i in identity_ids if i is not None and i not in self._levels}
        if not missing:
            return
        found = await store.read(self.sessionmaker, lambda session: store.xp_of(session, missing))
        for identity_id, xp in found.items():
            self.set_xp(identity_id, xp)


class Awards:
    """The hook the rooms call (``RoomServices.awards``)."""

    def __init__(self, levels: LevelCache) -> None:
        self.levels = levels

    async def prepare(
        self,
        room: RoomLike,
        state: State,
        *,
        live: bool = True,
        by: Mapping[tuple[int, int], str] | None = None,
    ) -> Work | None:
        """The award work for the action that produced ``state``, or None. Never raises: a
        failure here is logged and must not stop a game. ``by``: who played the actions
        (``Room.by``, with the action that produced ``state``)."""
        try:
            if state.rules.deal_is_game:
                outcome = duel_outcome(state)
            elif state.phase is Phase.MATCH_OVER:
                outcome = await asyncio.to_thread(outcome_of, state)
            else:
                return None
            if outcome is None:
                return None
            present = room.connected_seats() if live else None
            if by is None:
                by = getattr(room, "by", None) or {}
            part = outcome.part if state.rules.deal_is_game else None
            stood_in = stood_in_seats(state, by, part)
            settings = getattr(room, "settings", None) or {}
            public = bool(getattr(room, "public", False))
            return award_work(
                room.game_id,
                room.variant,
                room.mode,
                outcome,
                seat_infos(room),
                present,
                stood_in,
                rated_table=bool(settings.get("rated", True)),
                actions=seat_actions(state, part) if public else None,
            )
        except Exception:
            log.exception("could not prepare an award", extra=game_fields(room.game_id))
            return None

    def committed(self, result: AwardResult | None) -> None:
        if result is None:
            return
        for identity_id, xp in result.xp.items():
            self.levels.set_xp(identity_id, xp)
        if self.levels.changed is not None and result.xp:
            self.levels.changed(list(result.xp))
        log.info(
            "xp awarded",
            extra=game_fields(
                result.game_id,
                event="xp_awarded",
                part=result.part,
                xp={str(k): v for k, v in result.xp.items()},
            ),
        )
