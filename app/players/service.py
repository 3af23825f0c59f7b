"""What the profile, ranking, history and transfer pages ask for, as plain JSON-able dicts.

Each function reads with a synchronous ``Session``: the web layer runs it on the request's
session (``SessionDep``) with ``AsyncSession.run_sync``. Writes go through the writer.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from app.persistence import players as store
from app.players.levels import level_for, progress
from app.players.ratings import (
    ANCHORS,
    FAMILIES,
    MIN_RANKED_GAMES,
    Rating,
    display,
    newcomer,
    plays_like,
)
from app.players.xp import full_targets

# Transfer codes: 12 characters of an alphabet without look-alikes (no I, O, 0, 1): 60 bits.
CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_LENGTH = 12
CODE_LIFETIME = timedelta(hours=24)


def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def rating_json(row: store.RatingRow | None) -> dict[str, Any] | None:
    if row is None:
        return None
    rating = Rating(row.mu, row.sigma)
    return {
        "rating": display(rating),
        "games": row.games,
        "wins": row.wins,
        "plays_like": plays_like(rating, row.family),
        "ranked": row.games >= MIN_RANKED_GAMES,
    }


def profile_json(session: Session, identity_id: int) -> dict[str, Any]:
    row = store.profile(session, identity_id)
    if row is None:
        raise LookupError(identity_id)
    by_family = {r.family: r for r in store.ratings(session, [identity_id])}
    modes = store.mode_totals(session, identity_id)
    return {
        "name": row.name,
        "progress": progress(row.xp).as_json(),
        "games": row.games,
        "wins": row.wins,
        "modes": {
            mode: modes.get(mode, {"xp": 0, "games": 0, "wins": 0, "left": 0})
            for mode in ("friends", "computer", "local")
        },
        "ratings": {family: rating_json(by_family.get(family)) for family in FAMILIES},
    }


def new_profile_json() -> dict[str, Any]:
    """The profile of a browser that has no identity yet: a player who has played nothing."""
    return {
        "name": None,
        "progress": progress(0).as_json(),
        "games": 0,
        "wins": 0,
        "modes": {
            mode: {"xp": 0, "games": 0, "wins": 0, "left": 0}
            for mode in ("friends", "computer", "local")
        },
        "ratings": {family: rating_json(None) for family in FAMILIES},
    }


def ranking_json(session: Session, family: str, limit: int = 100) -> dict[str, Any]:
    """The ranking of a family: players with enough rated matches, and the bots' anchors."""
    if family not in FAMILIES:
        raise LookupError(family)
    rows = store.ranking(session, family, MIN_RANKED_GAMES, limit)
    players = [
        {
            "rank": i + 1,
            "identity_id": r.identity_id,
            "name": r.name,
            "level": level_for(r.xp),
            "rating": display(Rating(r.mu, r.sigma)),
            "games": r.games,
            "wins": r.wins,
        }
        for i, r in enumerate(rows)
    ]
    anchors = [
        {"level": level, "rating": display(rating)} for level, rating in ANCHORS[family].items()
    ]
    return {
        "family": family,
        "min_games": MIN_RANKED_GAMES,
        "players": players,
        "anchors": anchors,
        # where a new player starts, and the targets a match of full weight reaches (empty: each
        # deal is a whole game)
        "newcomer": display(newcomer(family)),
        "full_targets": full_targets(family),
    }


def history_json(session: Session, identity_id: int) -> list[dict[str, Any]]:
    return [
        {
            "game_id": h.game_id,
            "variant": h.variant,
            "players": h.players,
            "mode": h.mode,
            "status": h.status,
            "scores": h.scores,
            "names": h.names,
            "seats": h.seats,
            "games": h.parts,
            "won": h.won,
            "left": h.left_early,
            "xp": h.xp,
            "finished_at": iso(h.finished_at),
        }
        for h in store.history(session, identity_id)
    ]


def awards_json(session: Session, game_id: str, identity_id: int) -> dict[str, Any]:
    """What this browser earned in a game (match end screen): each part with the level before
    it and the progress right after it; ``progress`` is today's."""
    results = store.results_of_game(session, game_id, identity_id)
    row = store.profile(session, identity_id)
    xp = row.xp if row is not None else 0
    out = []
    for r in results:
        # the XP right after this part: today's, less what was earned since (a match reopened
        # days later shows the level it left, and "level up" only where it made one)
        if r.created_at is not None:
            after = max(0, xp - store.xp_earned_after(session, identity_id, r))
        else:
            after = max(0, xp - sum(o.xp for o in results if o.part > r.part))
        out.append(
            {
                "part": r.part,
                "seat": r.seat,
                "family": r.family,
                "mode": r.mode,
                "won": r.won,
                "left": r.left_early,
                "deals_won": r.deals_won,
                "tricks_won": r.tricks_won,
                "xp": r.xp_detail,
                "level_before": level_for(max(0, after - r.xp)),
                "progress": progress(after).as_json(),
                "rating_before": r.rating_before,
                "rating_after": r.rating_after,
            }
        )
    return {"results": out, "progress": progress(xp).as_json()}


# --------------------------------------------------------------------------- transfer codes


def new_code() -> str:
    """A fresh transfer code, grouped for reading: ``ABCD-EFGH-JKLM``."""
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return "-".join(raw[i : i + 4] for i in range(0, CODE_LENGTH, 4))


def normalize_code(text: str) -> str | None:
    """The code as stored (upper case, no separators), or None when it cannot be one."""
    raw = "".join(c for c in text.upper() if c.isalnum())
    if len(raw) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in raw):
        return None
    return raw


def hash_code(raw: str) -> str:
    return hashlib.sha256(("atout-transfer:" + raw).encode("ascii")).hexdigest()


def code_expiry(now: datetime | None = None) -> datetime:
    return (now or datetime.now(UTC)) + CODE_LIFETIME
