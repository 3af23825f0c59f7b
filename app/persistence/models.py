"""Tables. Each change here comes with a new migration under migrations/versions/."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    false,
    func,
    true,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.persistence.db import Base


def utcnow() -> datetime:
    return datetime.now(UTC)


class Identity(Base):
    """A browser that holds a secret token; only the token's SHA-256 hex digest is stored."""

    __tablename__ = "identities"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    display_name: Mapped[str | None] = mapped_column(String(24))
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )
    last_seen_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )


class Game(Base):
    """One table: a match of one variant (``duel``: a series of deals), its seats and record.

    The record itself (RULES.md §12) is the ``deals`` and ``actions`` rows; ``scores`` and
    ``status`` are caches written in the same transaction as the action that changes them.
    """

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    variant: Mapped[str] = mapped_column(String(16))
    players: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    mode: Mapped[str] = mapped_column(String(16))  # friends | computer | local
    status: Mapped[str] = mapped_column(String(16), index=True)  # waiting | playing | finished
    spectators: Mapped[bool] = mapped_column(Boolean)
    host_id: Mapped[int | None] = mapped_column(
        ForeignKey("identities.id", ondelete="SET NULL"), index=True
    )
    scores: Mapped[list[int] | None] = mapped_column(JSON)
    rematch_of: Mapped[str | None] = mapped_column(String(32))
    rematch_id: Mapped[str | None] = mapped_column(String(32))
    # the consent being collected: {"kind", "version", "seats"} (see Room.consent)
    consents: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # the table's settings (docs/protocol.md "Table settings"): clock, stand_in, away_seconds,
    # chat, spectator_chat; absent keys take their defaults (older games have none)
    settings: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # the running decision clock, written with the step that starts it: {"version", "seat",
    # "deadline"} (epoch ms); None when no clock runs (RULES.md D-21)
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # listed in the lobby (friends tables; docs/protocol.md "The lobby")
    public: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false(), index=True)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )


class GameSeat(Base):
    """A seat of a game: held by a browser identity (or free), or played by a bot."""

    __tablename__ = "seats"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))  # human | bot
    identity_id: Mapped[int | None] = mapped_column(
        ForeignKey("identities.id", ondelete="SET NULL"), index=True
    )
    bot_level: Mapped[str | None] = mapped_column(String(8))
    display_name: Mapped[str | None] = mapped_column(String(24))
    # the stand-in holds this human seat (RULES.md D-22): "away" (the others agreed) or "left"
    stand_in: Mapped[str | None] = mapped_column(String(8))
    # a public table's computer player that gives the seat to a human at the end of a deal,
    # and the human waiting for it (app/rooms/public.py)
    open: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    heir_id: Mapped[int | None] = mapped_column(ForeignKey("identities.id", ondelete="SET NULL"))
    heir_name: Mapped[str | None] = mapped_column(String(24))


class SeatHolder(Base):
    """Who holds a seat from a deal on, when it changed hands during a match: a public table's
    computer player gave it to a human at the end of a deal (``identity_id``), or took a free
    seat (``bot_level``). The seat's record says who played each decision through these rows
    (docs/record-format.md, "Seat holders")."""

    __tablename__ = "seat_holders"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)  # the first deal it holds
    identity_id: Mapped[int | None] = mapped_column(
        ForeignKey("identities.id", ondelete="SET NULL")
    )
    bot_level: Mapped[str | None] = mapped_column(String(8))
    name: Mapped[str | None] = mapped_column(String(24))
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )


class GameDeal(Base):
    """A deal of a game: its dealer and its deck order (``D[0]`` first, RULES.md §12)."""

    __tablename__ = "deals"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    dealer: Mapped[int] = mapped_column(Integer)
    deck: Mapped[list[str]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )


class GameAction(Base):
    """One applied action, in order (``seq`` counts from 0 over the whole game)."""

    __tablename__ = "actions"
    __table_args__ = (UniqueConstraint("game_id", "seat", "client_id", name="uq_actions_client"),)

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    deal_number: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]] = mapped_column(JSON)  # RULES.md §12 form, without "seat"
    client_id: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )


# --------------------------------------------------------------------------- players
# Experience, ratings, results, leavers and transfer codes (docs/players.md). The rules that
# fill these tables live in app/players/; these are only the rows.


class PlayerProfile(Base):
    """A browser's experience: total XP, finished matches and matches won (duel: games)."""

    __tablename__ = "player_profiles"

    identity_id: Mapped[int] = mapped_column(
        ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True
    )
    xp: Mapped[int] = mapped_column(Integer, default=0)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )


class PlayerRating(Base):
    """A browser's skill rating in one variant family (openskill mu and sigma)."""

    __tablename__ = "player_ratings"

    identity_id: Mapped[int] = mapped_column(
        ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True
    )
    family: Mapped[str] = mapped_column(String(16), primary_key=True, index=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )


class PlayerResult(Base):
    """What one seat earned in one finished match (``part`` 0) or duel game (``part`` = deal).

    Written in the same transaction as the action that finished the match, once: its primary
    key makes the award idempotent.
    """

    __tablename__ = "player_results"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    part: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    identity_id: Mapped[int] = mapped_column(
        ForeignKey("identities.id", ondelete="CASCADE"), index=True
    )
    family: Mapped[str] = mapped_column(String(16))
    mode: Mapped[str] = mapped_column(String(16))
    won: Mapped[bool] = mapped_column(Boolean)
    left_early: Mapped[bool] = mapped_column(Boolean)
    deals_won: Mapped[int] = mapped_column(Integer)
    tricks_won: Mapped[int] = mapped_column(Integer)
    xp: Mapped[int] = mapped_column(Integer)
    xp_detail: Mapped[dict[str, Any]] = mapped_column(JSON)
    rating_before: Mapped[int | None] = mapped_column(Integer)
    rating_after: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )


class GameLeaver(Base):
    """A browser that left a seat of a friends game before the end (a bot took the seat)."""

    __tablename__ = "game_leavers"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    identity_id: Mapped[int] = mapped_column(
        ForeignKey("identities.id", ondelete="CASCADE"), index=True
    )
    deal_number: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )


class TransferCode(Base):
    """A one-time code that moves an identity to another browser; only its SHA-256 is kept."""

    __tablename__ = "transfer_codes"

    code_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    identity_id: Mapped[int] = mapped_column(
        ForeignKey("identities.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ChatMessage(Base):
    """One table-chat line of a friends game. Never part of the game's record (RULES.md §12)."""

    __tablename__ = "chat_messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int | None] = mapped_column(Integer)  # None: a spectator
    identity_id: Mapped[int | None] = mapped_column(
        ForeignKey("identities.id", ondelete="SET NULL")
    )
    name: Mapped[str | None] = mapped_column(String(24))
    kind: Mapped[str] = mapped_column(String(8))  # text | phrase | emote
    text: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )


class RoomLease(Base):
    """Which server process owns a room (holds it in memory and appends to its game), until
    ``expires_at``; ``epoch`` grows at each takeover and fences the writes of an older owner."""

    __tablename__ = "room_leases"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    owner: Mapped[str] = mapped_column(String(64))
    epoch: Mapped[int] = mapped_column(Integer)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class StoredAnalysis(Base):
    """The analysis of one finished deal (app/bots/analysis.py), computed once: ``version`` is
    the analysis code's (``ANALYSIS_VERSION``); a row of another version is computed again."""

    __tablename__ = "analysis"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    version: Mapped[int] = mapped_column(Integer)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )


# --------------------------------------------------------------------------- tournaments
# Duplicate events (docs/tournaments.md); the rules that fill them live in app/tournaments/.


class Tournament(Base):
    """A duplicate event: a variant, its boards, a window, and the house players' level (with
    the version of the bots' code, so that every entrant meets the same one)."""

    __tablename__ = "tournaments"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # robot
    title: Mapped[str | None] = mapped_column(String(80))
    variant: Mapped[str] = mapped_column(String(16))
    players: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    boards: Mapped[int] = mapped_column(Integer)
    starts_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    ends_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    house_level: Mapped[str] = mapped_column(String(16))
    house_version: Mapped[str] = mapped_column(String(64))
    cancelled: Mapped[bool] = mapped_column(Boolean, default=False)
    # the automatic daily event's key ("<variant>:<date>"): one per variant and day
    daily_key: Mapped[str | None] = mapped_column(String(40), unique=True)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("identities.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )
    # the live duplicate Swiss for pairs (kind "swiss"; null for robot events):
    # rounds R (``boards`` is B, the boards per round), the tables' clock in seconds,
    # ``status`` open | running | finished, the round being played (0 before the start),
    # the most pairs (null: no limit) and whether registration is open
    rounds: Mapped[int | None] = mapped_column(Integer)
    clock: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str | None] = mapped_column(String(16))
    round: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    max_pairs: Mapped[int | None] = mapped_column(Integer)
    registration: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())


class TournamentBoard(Base):
    """A board of an event: a deck (``D[0]`` first) and its dealer, drawn once from a seed."""

    __tablename__ = "tournament_boards"

    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True)  # from 1
    dealer: Mapped[int] = mapped_column(Integer)
    deck: Mapped[list[str]] = mapped_column(JSON)


class TournamentEntry(Base):
    """A browser entered in an event; ``number`` is its table number (from 1)."""

    __tablename__ = "tournament_entries"
    __table_args__ = (UniqueConstraint("tournament_id", "number", name="uq_entry_number"),)

    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    identity_id: Mapped[int] = mapped_column(
        ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    number: Mapped[int] = mapped_column(Integer)
    name: Mapped[str | None] = mapped_column(String(24))
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )
    # a live Swiss event: the pair (TournamentPair.number) this player belongs to
    pair: Mapped[int | None] = mapped_column(Integer)


class TournamentPair(Base):
    """A pair of a live Swiss event: its players are the entries with this ``pair``. A pair
    registered with a partner link has a ``code`` until the partner joins (the link is then
    spent); ``house_partner``: a single player with the house player as partner (flagged in
    the standings). ``joined_round``: the first round it plays (later than 1: it joined late);
    ``withdrawn_round``: the round it missed entirely (it plays no more)."""

    __tablename__ = "tournament_pairs"

    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True)  # from 1
    code: Mapped[str | None] = mapped_column(String(24), unique=True)
    house_partner: Mapped[bool] = mapped_column(Boolean, default=False)
    joined_round: Mapped[int] = mapped_column(Integer, default=1)
    withdrawn_round: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )


class TournamentRound(Base):
    """A round of a live Swiss event: its pairings (``[{"table", "ns", "ew"}]``, pair numbers,
    0 for a pair of house players), then, once its last board is over, each pair's scores."""

    __tablename__ = "tournament_rounds"

    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    round: Mapped[int] = mapped_column(Integer, primary_key=True)  # from 1
    pairings: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    scores: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    started_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class TournamentTable(Base):
    """One table's play of one board: an ordinary game (one deal). ``table`` 0 is the datum
    table of house players; ``result`` is cached from the game's record once it is over."""

    __tablename__ = "tournament_tables"

    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    board: Mapped[int] = mapped_column(Integer, primary_key=True)
    table: Mapped[int] = mapped_column(Integer, primary_key=True)
    identity_id: Mapped[int | None] = mapped_column(
        ForeignKey("identities.id", ondelete="SET NULL")
    )
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), unique=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, server_default=func.now()
    )
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


# the host's tools: admin sessions and audit, sanctions, reports, blocks, closed games
from app.persistence.admin_tables import (  # noqa: E402,F401
    AdminAudit,
    AdminSession,
    Block,
    ClosedGame,
    Report,
    Sanction,
)

# Web Push: the VAPID key pair and the browsers' subscriptions
from app.persistence.push_tables import PushKey, PushSubscription  # noqa: E402,F401
