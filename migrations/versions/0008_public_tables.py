"""public tables: the lobby's flag, computer seats that give way, the seats' holders

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06 18:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(
            sa.Column("public", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch.create_index("ix_games_public", ["public"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("open", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch.add_column(sa.Column("heir_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("heir_name", sa.String(24), nullable=True))
        batch.create_foreign_key(
            "fk_seats_heir_id_identities", "identities", ["heir_id"], ["id"], ondelete="SET NULL"
        )
    op.create_table(
        "seat_holders",
        sa.Column(
            "game_id",
            sa.String(32),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("deal", sa.Integer(), primary_key=True),
        sa.Column(
            "identity_id",
            sa.Integer(),
            sa.ForeignKey("identities.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("bot_level", sa.String(8), nullable=True),
        sa.Column("name", sa.String(24), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
    )


def downgrade() -> None:
    op.drop_table("seat_holders")
    with op.batch_alter_table("seats") as batch:
        batch.drop_constraint("fk_seats_heir_id_identities", type_="foreignkey")
        batch.drop_column("heir_name")
        batch.drop_column("heir_id")
        batch.drop_column("open")
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_public")
        batch.drop_column("public")
