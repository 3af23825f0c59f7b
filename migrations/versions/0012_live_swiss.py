"""live swiss: the live duplicate Swiss for pairs (pairs, rounds, the event's settings)

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06 22:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tournament_pairs",
        sa.Column("tournament_id", sa.String(length=16), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=24), nullable=True),
        sa.Column("house_partner", sa.Boolean(), nullable=False),
        sa.Column("joined_round", sa.Integer(), nullable=False),
        sa.Column("withdrawn_round", sa.Integer(), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_pairs_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "number", name=op.f("pk_tournament_pairs")),
        sa.UniqueConstraint("code", name=op.f("uq_tournament_pairs_code")),
    )
    op.create_table(
        "tournament_rounds",
        sa.Column("tournament_id", sa.String(length=16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("pairings", sa.JSON(), nullable=False),
        sa.Column("scores", sa.JSON(), nullable=True),
        sa.Column(
            "started_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_rounds_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "round", name=op.f("pk_tournament_rounds")),
    )
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("pair", sa.Integer(), nullable=True))

    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("rounds", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("clock", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("status", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("round", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("max_pairs", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("registration", sa.Boolean(), server_default=sa.true(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_column("registration")
        batch_op.drop_column("max_pairs")
        batch_op.drop_column("round")
        batch_op.drop_column("status")
        batch_op.drop_column("clock")
        batch_op.drop_column("rounds")

    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.drop_column("pair")

    op.drop_table("tournament_rounds")
    op.drop_table("tournament_pairs")
