"""Every knob of the server, read from ``ATOUT_*`` environment variables (or a ``.env`` file).

The defaults are chosen so that ``make run`` works with no configuration at all.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Annotated, Any

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")


class Settings(BaseSettings):
    """Server configuration. Each field ``name`` is read from ``ATOUT_NAME``."""

    model_config = SettingsConfigDict(
        env_prefix="ATOUT_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
    )

    database_url: str = Field(
        default="sqlite+aiosqlite:///./data/atout.db",
        description="SQLAlchemy async URL: sqlite+aiosqlite:///path or postgresql+asyncpg://...",
    )
    host: str = Field(default="127.0.0.1", description="Address `atout serve` listens on.")
    port: int = Field(default=8000, ge=1, le=65535, description="Port `atout serve` listens on.")
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description=(
            "Extra origins allowed to open WebSockets (comma-separated). Empty means: the "
            "origin of public_base_url (when set) and the request's own Host only."
        ),
    )
    public_base_url: str = Field(
        default="",
        description=(
            "The URL players use to reach this server, e.g. https://belote.example.org; used "
            "in game and invitation links. Empty (the default): each link follows the host "
            "and port its request was made to."
        ),
    )
    log_level: str = Field(default="INFO", description="CRITICAL, ERROR, WARNING, INFO or DEBUG.")
    bot_delay_ms: int = Field(
        default=600, ge=0, description="Pause before a computer player acts, in milliseconds."
    )
    idle_room_seconds: int = Field(
        default=900, ge=1, description="A room with nobody connected is closed after this long."
    )
    bot_workers: int = Field(
        default=1,
        ge=0,
        le=64,
        description="Worker processes that run the computer players (0: threads of the server).",
    )
    ws_rate: float = Field(
        default=20.0,
        gt=0,
        description="Messages per second one WebSocket may send, sustained (burst: ws_burst).",
    )
    ws_burst: int = Field(
        default=40, ge=1, description="Messages one WebSocket may send at once before ws_rate."
    )
    chat_rate: int = Field(
        default=5, ge=1, description="Table-chat lines one connection may send per chat window."
    )
    chat_window_seconds: float = Field(
        default=10.0, gt=0, description="The table chat's rate-limit window, in seconds."
    )
    ws_compression: bool = Field(
        default=False,
        description="Offer permessage-deflate on game connections (updates are a few hundred "
        "bytes: compressing them costs more CPU than it saves bandwidth).",
    )
    gc_schedule: bool = Field(
        default=True,
        description="Schedule the garbage collector for a server (app/loop.py): four "
        "times a second, collect the young objects and freeze what is alive.",
    )
    gc_full_seconds: float = Field(
        default=0.0,
        ge=0.0,
        description="With gc_schedule: seconds between two full garbage collections, each "
        "run only if memory grew by a quarter (it pauses every table); 0: never.",
    )
    stall_trace_ms: int = Field(
        default=0,
        ge=0,
        description="Name what blocks the event loop for longer than this many milliseconds "
        "(a thread samples its stack; GET /api/stats lists the places); 0: off.",
    )
    group_commit: bool = Field(
        default=True,
        description="Write the moves that arrive together in one database transaction.",
    )
    next_deal_seconds: float = Field(
        default=10.0,
        ge=0.0,
        le=600.0,
        description="Friends games: after a deal's summary, the next deal is dealt when every "
        "connected player pressed Continue or after this many seconds.",
    )
    metrics_token: str = Field(
        default="",
        description="A bearer token that opens /metrics and /api/stats from anywhere "
        "(Authorization: Bearer ...). Empty: only requests from this machine may read them.",
    )
    public_fill_seconds: float = Field(
        default=60.0,
        ge=0.0,
        le=3600.0,
        description="Public tables: a table still waiting for players this long after it was "
        "listed (and with a player at it) starts with computer players in its free seats.",
    )
    public_tables_per_hour: int = Field(
        default=10,
        ge=1,
        description="Public tables one browser may create in an hour (quick play included).",
    )
    vapid_contact: str = Field(
        default="",
        description="Web Push: the contact the push services are given with every notification "
        "(the VAPID 'sub' claim): mailto:you@example.org or an https URL. Empty: the server's "
        "public_base_url.",
    )
    push_insecure_endpoints: bool = Field(
        default=False,
        description="Tests only: accept push subscriptions whose endpoint is http:// or on a "
        "private address (a fake push service on 127.0.0.1).",
    )
    clock_seconds: float | None = Field(
        default=None,
        gt=0,
        description="Tests only: when set, the length in seconds of every friends table's "
        "decision clock, whatever clock the host chose (a table without a clock keeps none).",
    )
    auto_play_seconds: float = Field(
        default=0.8,
        ge=0.0,
        le=10.0,
        description="Forced play: the pause before the server plays a seat's only legal card "
        "for a player who turned it on.",
    )
    analysis_worlds: int = Field(
        default=100,
        ge=1,
        le=1000,
        description="Deal analysis: deals drawn consistent with a player's view, per decision "
        "(each solved exactly; a bid's review draws as many).",
    )
    analysis_cpu_seconds: float = Field(
        default=60.0,
        gt=0,
        description="Deal analysis: the CPU seconds one deal's analysis may spend; decisions "
        "early in a deal draw fewer deals when it runs short (docs/bots.md).",
    )
    analysis_jobs: int = Field(
        default=1,
        ge=1,
        le=64,
        description="Deal analyses computed at once (each in the bots' worker pool, one "
        "chunk after another); the others wait their turn.",
    )
    spectators_default: bool = Field(
        default=True, description="Whether new rooms accept spectators unless the host says no."
    )
    node_id: str = Field(
        default="",
        max_length=64,
        description="This process's name in the room leases (PostgreSQL; docs/scaling.md). "
        "Empty (the default): hostname:pid:random, new at each start.",
    )
    lease_seconds: float = Field(
        default=5.0,
        ge=0.5,
        le=300.0,
        description="PostgreSQL: how long a room's lease lasts without renewal; after a "
        "process dies its rooms move to another process this long after its last renewal.",
    )

    admin_token: str = Field(
        default="",
        description="Switches the admin page (/admin) on: the token its login form asks for. "
        "Empty (the default): /admin answers 404.",
    )
    word_filter: str = Field(
        default="",
        description="Words masked in table chat, comma-separated (any language; a word "
        "matches whole, ignoring case and accents). Empty (the default): no filter.",
    )
    backup_hours: float = Field(
        default=24.0,
        ge=0.0,
        description="Automatic backups: one every this many hours into backup_dir (SQLite: an "
        "online copy through SQLite's backup API; PostgreSQL: pg_dump); 0: none.",
    )
    backup_dir: str = Field(
        default="./data/backups",
        description="Where `atout backup` and the automatic backups write their files.",
    )
    backup_keep: int = Field(
        default=14, ge=1, description="How many backups backup_dir keeps (the oldest go first)."
    )
    pg_bin_dir: str = Field(
        default="",
        description="PostgreSQL: the folder holding pg_dump, pg_restore and psql (e.g. "
        "/usr/lib/postgresql/16/bin). Empty: they are looked for on PATH.",
    )

    pg_statement_timeout_seconds: float = Field(
        default=30.0,
        ge=1.0,
        le=3600.0,
        description="PostgreSQL: no statement of the server runs or waits for longer than "
        "this (statement_timeout; docs/scaling.md).",
    )
    test_seed: int | None = Field(
        default=None,
        description="Tests only: every room deals from a generator seeded with this (and the "
        "variant, and the deals already dealt when a room is restored), and the computer "
        "players think with generators seeded from it and the game's version, so that a "
        "test's games are the same at every run. Unset (the default): real randomness.",
    )
    test_hooks: bool = Field(
        default=False,
        description="Tests only: SIGUSR1 makes the process freeze itself (SIGSTOP) inside its "
        "next room write's transaction (on PostgreSQL after the lease rows are locked), SIGUSR2 "
        "inside the one after (app/persistence/freeze.py; docs/scaling.md).",
    )

    tournament_daily: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Automatic daily robot duplicate events (docs/tournaments.md), "
        "comma-separated: a variant, or variant:players (e.g. classic,coinche,bela:3). Each "
        "gets one event a day, from 00:00 UTC for 24 hours. Empty (the default): none.",
    )
    tournament_boards: int = Field(
        default=8, ge=1, le=32, description="Boards of each automatic daily event."
    )
    tournament_level: str = Field(
        default="hard",
        description="The house computer players' level of the automatic daily events "
        "(easy, medium or hard).",
    )
    tournament_player_events: bool = Field(
        default=True,
        description="Whether any player may create a robot duplicate event (the tournaments "
        "page's form, POST /api/tournaments). Off: only the daily events and the admin's.",
    )
    tournament_tick_seconds: float = Field(
        default=60.0,
        gt=0,
        description="How often the server creates the daily events and plays the datum "
        "tables that are missing.",
    )

    tournament_live_seconds: float = Field(
        default=1.0,
        gt=0,
        description="How often the server takes a step of every live Swiss event that is due "
        "or running (starting it, pairing a round, dealing the next board when a table's end "
        "was missed). A board's end deals the next one at once anyway.",
    )
    tournament_player_swiss: bool = Field(
        default=False,
        description="Whether any player may create a live Swiss event for pairs (the "
        "tournaments page's form). Off: only the admin (the admin page).",
    )

    @field_validator("tournament_daily", mode="before")
    @classmethod
    def _split_daily(cls, value: Any) -> Any:
        """A comma-separated string or a JSON list of variants (``variant[:players]``)."""
        if isinstance(value, str):
            text = value.strip()
            value = json.loads(text) if text.startswith("[") else text.split(",")
        if isinstance(value, list | tuple):
            return [str(item).strip() for item in value if str(item).strip()]
        return value

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: Any) -> Any:
        """Accept a JSON list or a comma-separated string; drop blanks and trailing slashes."""
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                value = json.loads(text)
            else:
                value = text.split(",")
        if isinstance(value, list | tuple):
            return [str(item).strip().rstrip("/") for item in value if str(item).strip()]
        return value

    @field_validator("vapid_contact")
    @classmethod
    def _vapid_contact(cls, value: str) -> str:
        value = value.strip()
        if value and not value.startswith(("mailto:", "https://")):
            raise ValueError("ATOUT_VAPID_CONTACT is mailto:you@example.org or an https:// URL")
        return value

    @field_validator("public_base_url")
    @classmethod
    def _strip_trailing_slash(cls, value: str) -> str:
        return value.strip().rstrip("/")

    def base_url(self, request_base_url: str) -> str:
        """The base of absolute links for a request made to ``request_base_url`` (what the
        browser used, e.g. ``http://127.0.0.1:8741/``): ``public_base_url`` when it is set,
        that request's own scheme, host and port otherwise."""
        return self.public_base_url or request_base_url.rstrip("/")

    def game_url(self, game_id: str, request_base_url: str) -> str:
        """The absolute link of a game for a request made to ``request_base_url``."""
        return f"{self.base_url(request_base_url)}/g/{game_id}"

    @field_validator("log_level", mode="before")
    @classmethod
    def _normalise_level(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip().upper()
            if value not in LOG_LEVELS:
                raise ValueError(f"must be one of {', '.join(LOG_LEVELS)}")
        return value


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings, read once. Tests call ``get_settings.cache_clear()``."""
    return Settings()
