"""Reading and writing games, seats, deals and actions. No game logic lives here.

Writes are small ``work(session)`` functions of a synchronous ``Session``, meant for
``CommitQueue.submit`` (see writer.py); reads are async and take a session of their own.
Together the ``deals`` and ``actions`` rows of a game are exactly its ``belote-record/1``
(RULES.md §12): ``StoredGame.record()`` puts them back together.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from app.engine import stored_options
from app.engine.record import FORMAT
from app.persistence.models import (
    ChatMessage,
    Game,
    GameAction,
    GameDeal,
    GameSeat,
    Identity,
    utcnow,
)

Work = Callable[[Session], Any]  # a write, run by the CommitQueue (writer.py)


def hash_token(token: str) -> str:
    """The SHA-256 hex digest stored for a browser token (the token itself is never stored)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- plain data


@dataclass(frozen=True)
class SeatRow:
    seat: int
    kind: str  # human | bot
    identity_id: int | None
    bot_level: str | None
    display_name: str | None
    stand_in: str | None = None  # away | left: the stand-in holds this human seat
    open: bool = False  # a public table's computer player that gives way to a human
    heir_id: int | None = None  # the human waiting to take this open seat
    heir_name: str | None = None


@dataclass(frozen=True)
class DealRow:
    number: int
    dealer: int
    deck: list[str]


@dataclass(frozen=True)
class ActionRow:
    seq: int
    deal_number: int
    seat: int
    action: dict[str, Any]
    client_id: str | None


@dataclass(frozen=True)
class GameRow:
    id: str
    variant: str
    players: int
    options: dict[str, Any]
    mode: str
    status: str
    spectators: bool
    host_id: int | None
    scores: list[int] | None
    rematch_of: str | None
    rematch_id: str | None
    created_at: datetime
    updated_at: datetime
    consents: dict[str, Any] | None = None
    settings: dict[str, Any] | None = None  # the table's settings (absent keys: defaults)
    clock: dict[str, Any] | None = None  # the running decision clocks (Room.clock)
    public: bool = False  # listed in the lobby


@dataclass(frozen=True)
class StoredGame:
    """Everything stored about one game."""

    game: GameRow
    seats: list[SeatRow]
    deals: list[DealRow]
    actions: list[ActionRow]

    def record(self, meta: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """The game's ``belote-record/1``, every stored deal included; None before the first deal."""
        return build_record(self.game, self.deals, self.actions, meta)


def build_record(
    game: GameRow,
    deals: Sequence[DealRow],
    actions: Sequence[ActionRow],
    meta: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    if not deals:
        return None
    by_deal: dict[int, list[dict[str, Any]]] = {d.number: [] for d in deals}
    for row in actions:
        by_deal.setdefault(row.deal_number, []).append({"seat": row.seat, **row.action})
    record: dict[str, Any] = {
        "format": FORMAT,
        "variant": game.variant,
        "players": game.players,
        "options": stored_options(game.variant, game.options),
        "first_dealer": deals[0].dealer,
        "deals": [
            {"dealer": d.dealer, "deck": list(d.deck), "actions": by_deal[d.number]} for d in deals
        ],
    }
    if meta is not None:
        record["meta"] = meta
    return record


def _game_row(game: Game) -> GameRow:
    return GameRow(
        id=game.id,
        variant=game.variant,
        players=game.players,
        options=dict(game.options or {}),
        mode=game.mode,
        status=game.status,
        spectators=game.spectators,
        host_id=game.host_id,
        scores=list(game.scores) if game.scores is not None else None,
        rematch_of=game.rematch_of,
        rematch_id=game.rematch_id,
        created_at=game.created_at,
        updated_at=game.updated_at,
        consents=dict(game.consents) if game.consents else None,
        settings=dict(game.settings) if game.settings else None,
        clock=dict(game.clock) if game.clock else None,
        public=bool(game.public),
    )


def _seat_row(seat: GameSeat) -> SeatRow:
    return SeatRow(
        seat.seat,
        seat.kind,
        seat.identity_id,
        seat.bot_level,
        seat.display_name,
        seat.stand_in,
        bool(seat.open),
        seat.heir_id,
        seat.heir_name,
    )


# --------------------------------------------------------------------------- identities


@dataclass(frozen=True)
class IdentityRow:
    id: int
    token_hash: str
    display_name: str | None
    last_seen_at: datetime | None


async def find_identity(session: AsyncSession, token_hash: str) -> IdentityRow | None:
    row = (
        await session.execute(select(Identity).where(Identity.token_hash == token_hash))
    ).scalar_one_or_none()
    if row is None:
        return None
    return IdentityRow(row.id, row.token_hash, row.display_name, row.last_seen_at)


def insert_identity(token_hash: str) -> Work:
    def work(session: Session) -> int:
        identity = Identity(token_hash=token_hash)
        session.add(identity)
        session.flush()
        return int(identity.id)

    return work


def touch_identity(identity_id: int) -> Work:
    def work(session: Session) -> None:
        session.execute(
            update(Identity).where(Identity.id == identity_id).values(last_seen_at=utcnow())
        )

    return work


def set_identity_name(identity_id: int, name: str) -> Work:
    """Rename a browser, and its seats in the games that are not finished."""

    def work(session: Session) -> None:
        session.execute(
            update(Identity).where(Identity.id == identity_id).values(display_name=name)
        )
        unfinished = select(Game.id).where(Game.status != "finished")
        session.execute(
            update(GameSeat)
            .where(GameSeat.identity_id == identity_id, GameSeat.game_id.in_(unfinished))
            .values(display_name=name)
        )

    return work


# --------------------------------------------------------------------------- games


def insert_game(
    game: dict[str, Any], seats: Sequence[SeatRow], deal: DealRow | None = None
) -> Work:
    """Create a game with its seats (and its first deal when it starts at once)."""

    def work(session: Session) -> None:
        now = utcnow()
        session.add(Game(**game, created_at=now, updated_at=now))
        session.flush()  # the game row first: seats and deals refer to it
        for s in seats:
            session.add(
                GameSeat(
                    game_id=game["id"],
                    seat=s.seat,
                    kind=s.kind,
                    identity_id=s.identity_id,
                    bot_level=s.bot_level,
                    display_name=s.display_name,
                    stand_in=s.stand_in,
                    open=s.open,
                    heir_id=s.heir_id,
                    heir_name=s.heir_name,
                )
            )
        if deal is not None:
            session.add(
                GameDeal(game_id=game["id"], number=deal.number, dealer=deal.dealer, deck=deal.deck)
            )
        if game.get("rematch_of"):
            session.execute(
                update(Game)
                .where(Game.id == game["rematch_of"])
                .values(rematch_id=game["id"], updated_at=now)
            )

    return work


def save_seats(game_id: str, seats: Sequence[SeatRow], **game_values: Any) -> Work:
    """Rewrite some seats of a game (and optionally columns of the game row)."""

    def work(session: Session) -> None:
        for s in seats:
            session.execute(
                update(GameSeat)
                .where(GameSeat.game_id == game_id, GameSeat.seat == s.seat)
                .values(
                    kind=s.kind,
                    identity_id=s.identity_id,
                    bot_level=s.bot_level,
                    display_name=s.display_name,
                    stand_in=s.stand_in,
                    open=s.open,
                    heir_id=s.heir_id,
                    heir_name=s.heir_name,
                )
            )
        session.execute(
            update(Game).where(Game.id == game_id).values(updated_at=utcnow(), **game_values)
        )

    return work


@dataclass(frozen=True)
class RecordStep:
    """A work (see writer.py) that appends actions and deals to a game's record and, when it
    deals or changes status/scores, updates the game row (and its ``updated_at``).

    Many steps written together (group commit) become one multi-row INSERT per table: the cost of
    a batch grows far slower than its size.
    """

    game_id: str
    actions: tuple[ActionRow, ...] = ()
    deals: tuple[DealRow, ...] = ()
    values: tuple[tuple[str, Any], ...] = ()

    def __call__(self, session: Session) -> None:
        RecordStep.write_many(session, [self])

    @staticmethod
    def write_many(session: Session, steps: Sequence[RecordStep]) -> list[None]:
        now = utcnow()
        deals = [
            {
                "game_id": st.game_id,
                "number": d.number,
                "dealer": d.dealer,
                "deck": d.deck,
                "created_at": now,
            }
            for st in steps
            for d in st.deals
        ]
        actions = [
            {
                "game_id": st.game_id,
                "seq": a.seq,
                "deal_number": a.deal_number,
                "seat": a.seat,
                "action": a.action,
                "client_id": a.client_id,
                "created_at": now,
            }
            for st in steps
            for a in st.actions
        ]
        if deals:
            session.execute(insert(cast(Table, GameDeal.__table__)), deals)
        if actions:
            session.execute(insert(cast(Table, GameAction.__table__)), actions)
        # the game row changes with the deals (updated_at) and the status/scores, not with every
        # action: one statement fewer per move
        for st in steps:
            if st.values or st.deals:
                session.execute(
                    update(Game)
                    .where(Game.id == st.game_id)
                    .values(updated_at=now, **dict(st.values)),
                    execution_options={"synchronize_session": False},
                )
        return [None] * len(steps)


def record_step(
    game_id: str,
    actions: Sequence[ActionRow] = (),
    deals: Sequence[DealRow] = (),
    **game_values: Any,
) -> RecordStep:
    """Append actions and deals to a game's record; update its row (status, scores, ...)."""
    return RecordStep(game_id, tuple(actions), tuple(deals), tuple(sorted(game_values.items())))


async def load_game(session: AsyncSession, game_id: str) -> StoredGame | None:
    game = await session.get(Game, game_id)
    if game is None:
        return None
    seats = (
        (
            await session.execute(
                select(GameSeat).where(GameSeat.game_id == game_id).order_by(GameSeat.seat)
            )
        )
        .scalars()
        .all()
    )
    deals = (
        (
            await session.execute(
                select(GameDeal).where(GameDeal.game_id == game_id).order_by(GameDeal.number)
            )
        )
        .scalars()
        .all()
    )
    actions = (
        (
            await session.execute(
                select(GameAction).where(GameAction.game_id == game_id).order_by(GameAction.seq)
            )
        )
        .scalars()
        .all()
    )
    return StoredGame(
        game=_game_row(game),
        seats=[_seat_row(s) for s in seats],
        deals=[DealRow(d.number, d.dealer, list(d.deck)) for d in deals],
        actions=[
            ActionRow(a.seq, a.deal_number, a.seat, dict(a.action), a.client_id) for a in actions
        ],
    )


async def games_of_identity(
    session: AsyncSession, identity_id: int, *, include_finished: bool = False
) -> list[tuple[GameRow, list[SeatRow]]]:
    """The games where this browser holds a seat, most recently active first."""
    ids = select(GameSeat.game_id).where(GameSeat.identity_id == identity_id)
    query = select(Game).where(Game.id.in_(ids))
    if not include_finished:
        query = query.where(Game.status != "finished")
    games = (await session.execute(query.order_by(Game.updated_at.desc()))).scalars().all()
    return await with_seats(session, games)


async def with_seats(
    session: AsyncSession, games: Sequence[Game]
) -> list[tuple[GameRow, list[SeatRow]]]:
    """Each game's row with its seats in seat order, read in one query, the games' order kept."""
    if not games:
        return []
    seat_rows = (
        (
            await session.execute(
                select(GameSeat)
                .where(GameSeat.game_id.in_([g.id for g in games]))
                .order_by(GameSeat.game_id, GameSeat.seat)
            )
        )
        .scalars()
        .all()
    )
    by_game: dict[str, list[SeatRow]] = {}
    for s in seat_rows:
        by_game.setdefault(s.game_id, []).append(_seat_row(s))
    return [(_game_row(g), by_game.get(g.id, [])) for g in games]


# --------------------------------------------------------------------------- table chat


@dataclass(frozen=True)
class ChatRow:
    """One table-chat line (never part of the record: RULES.md §12)."""

    id: int
    seat: int | None  # None: a spectator
    identity_id: int | None
    name: str | None
    kind: str  # text | phrase | emote
    text: str
    created_at: datetime


def insert_chat(
    game_id: str,
    seat: int | None,
    identity_id: int | None,
    name: str | None,
    kind: str,
    text: str,
    created_at: datetime,
) -> Work:
    """Store a chat line; the work's result is its id."""

    def work(session: Session) -> int:
        row = ChatMessage(
            game_id=game_id,
            seat=seat,
            identity_id=identity_id,
            name=name,
            kind=kind,
            text=text,
            created_at=created_at,
        )
        session.add(row)
        session.flush()
        return int(row.id)

    return work


async def load_chat(session: AsyncSession, game_id: str, limit: int) -> list[ChatRow]:
    """The last ``limit`` chat lines of a game, oldest first."""
    rows = (
        (
            await session.execute(
                select(ChatMessage)
                .where(ChatMessage.game_id == game_id)
                .order_by(ChatMessage.id.desc())
                .limit(limit)
            )
        )
        .scalars()
        .all()
    )
    return [
        ChatRow(r.id, r.seat, r.identity_id, r.name, r.kind, r.text, r.created_at)
        for r in reversed(rows)
    ]
