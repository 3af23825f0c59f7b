"""Reading and writing the deals' analyses (table ``analysis``): one row per game and deal.

Plain functions of a synchronous ``Session``, like persistence/players.py: the write runs in the
writer's transaction (``CommitQueue.submit``), the read with ``AsyncSession.run_sync``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.persistence.models import StoredAnalysis
from app.persistence.repository import Work


def load_analysis(session: Session, game_id: str, deal: int) -> tuple[int, dict[str, Any]] | None:
    """``(version, data)`` of the stored analysis of ``deal``, None when there is none."""
    row = session.get(StoredAnalysis, (game_id, deal))
    if row is None:
        return None
    return row.version, row.data


def save_analysis(game_id: str, deal: int, version: int, data: dict[str, Any]) -> Work:
    """Store the analysis of ``deal`` (replacing one of an older version)."""

    def work(session: Session) -> None:
        row = session.get(StoredAnalysis, (game_id, deal))
        if row is None:
            session.add(StoredAnalysis(game_id=game_id, deal=deal, version=version, data=data))
        else:
            row.version, row.data = version, data

    return work
