"""rating scale: newcomers start level with easy; the displayed rating is mu on the bots' scale

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06 23:00:00

Before: a newcomer started at mu 25 (medium's mu) with sigma 25/3, and a player saw the
conservative ``1000 + 25 * (mu - 3 sigma)``. Now (app/players/ratings.py, docs/players.md):
a newcomer starts at easy's mu of his family, and a player sees ``1500 + 25 * (mu - 25)``.

``player_ratings``: a stored mu is moved as if the player had started from the new prior. In
a Gaussian update the prior's mean still weighs ``sigma^2 / sigma0^2`` in the posterior mean
(sigma0 = 25/3, sigma the stored one), so mu moves by that share of (easy's mu - 25); sigma,
games and wins stay. Downgrading moves it back exactly.

``player_results``: ``rating_before`` and ``rating_after`` are displayed numbers. The new
number of a player's first rated match's ``rating_before`` (a newcomer's) and of his last
``rating_after`` (today's rating) are exact; the matches between are moved by the offsets
interpolated in match order between those two (sigma was not stored with them). Downgrading
applies the same offsets back.

The constants are the anchors of this revision, written out: a later change of the anchors
must not change what this migration did.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_START_MU = 25.0
START_SIGMA = 25 / 3
# easy's mu per family at this revision: where a newcomer starts now
NEW_START_MU = {"classic": 22.2, "bulgarian": 21.36, "bela": 23.3, "duel": 22.33}


def old_display(mu: float, sigma: float) -> float:
    return 1000 + 25 * (mu - 3 * sigma)


def new_display(mu: float) -> float:
    return 1500 + 25 * (mu - 25)


def prior_shift(family: str, sigma: float) -> float:
    """How far the new start moves a rating of uncertainty ``sigma`` (see the docstring)."""
    share = min(1.0, (sigma / START_SIGMA) ** 2)
    return share * (NEW_START_MU[family] - OLD_START_MU)


def _ratings(bind: Any) -> list[Any]:
    return list(bind.execute(sa.text("SELECT identity_id, family, mu, sigma FROM player_ratings")))


def _results(bind: Any) -> dict[tuple[int, str], list[Any]]:
    rows = bind.execute(
        sa.text(
            "SELECT game_id, part, seat, identity_id, family, rating_before, rating_after"
            " FROM player_results WHERE rating_after IS NOT NULL"
            " ORDER BY identity_id, family, created_at, game_id, part, seat"
        )
    )
    chains: dict[tuple[int, str], list[Any]] = defaultdict(list)
    for row in rows:
        chains[(int(row.identity_id), str(row.family))].append(row)
    return chains


def _moved(value: int | None, offset: float) -> int | None:
    return None if value is None else round(value + offset)


def _convert(upgrade: bool) -> None:
    bind = op.get_bind()
    chains = _results(bind)
    set_mu = sa.text("UPDATE player_ratings SET mu = :mu WHERE identity_id = :i AND family = :f")
    set_result = sa.text(
        "UPDATE player_results SET rating_before = :before, rating_after = :after"
        " WHERE game_id = :game AND part = :part AND seat = :seat"
    )
    for rating in _ratings(bind):
        family = str(rating.family)
        if family not in NEW_START_MU:
            continue
        sigma = float(rating.sigma)
        shift = prior_shift(family, sigma)
        old_mu, new_mu = (
            (float(rating.mu), float(rating.mu) + shift)
            if upgrade
            else (float(rating.mu) - shift, float(rating.mu))
        )
        mu = new_mu if upgrade else old_mu
        bind.execute(set_mu, {"mu": mu, "i": rating.identity_id, "f": family})
        chain = chains.get((int(rating.identity_id), family), [])
        if not chain:
            continue
        first = new_display(NEW_START_MU[family]) - old_display(OLD_START_MU, START_SIGMA)
        last = new_display(new_mu) - old_display(old_mu, sigma)
        sign = 1 if upgrade else -1
        offsets = [
            sign * (first + (last - first) * at / len(chain)) for at in range(len(chain) + 1)
        ]
        for k, row in enumerate(chain):
            bind.execute(
                set_result,
                {
                    "before": _moved(row.rating_before, offsets[k]),
                    "after": _moved(row.rating_after, offsets[k + 1]),
                    "game": row.game_id,
                    "part": row.part,
                    "seat": row.seat,
                },
            )


def upgrade() -> None:
    _convert(upgrade=True)


def downgrade() -> None:
    _convert(upgrade=False)
