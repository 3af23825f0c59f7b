"""tournaments: duplicate events, their boards, entries and tables (docs/tournaments.md)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06 19:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(length=16), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("title", sa.String(length=80), nullable=True),
        sa.Column("variant", sa.String(length=16), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("boards", sa.Integer(), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("house_level", sa.String(length=16), nullable=False),
        sa.Column("house_version", sa.String(length=64), nullable=False),
        sa.Column("cancelled", sa.Boolean(), nullable=False),
        sa.Column("daily_key", sa.String(length=40), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["identities.id"],
            name=op.f("fk_tournaments_created_by_identities"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
        sa.UniqueConstraint("daily_key", name=op.f("uq_tournaments_daily_key")),
    )
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tournaments_ends_at"), ["ends_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_tournaments_starts_at"), ["starts_at"], unique=False)

    op.create_table(
        "tournament_boards",
        sa.Column("tournament_id", sa.String(length=16), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("deck", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_boards_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "number", name=op.f("pk_tournament_boards")),
    )
    op.create_table(
        "tournament_entries",
        sa.Column("tournament_id", sa.String(length=16), nullable=False),
        sa.Column("identity_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=24), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["identity_id"],
            ["identities.id"],
            name=op.f("fk_tournament_entries_identity_id_identities"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_entries_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "identity_id", name=op.f("pk_tournament_entries")),
        sa.UniqueConstraint("tournament_id", "number", name="uq_entry_number"),
    )
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_tournament_entries_identity_id"), ["identity_id"], unique=False
        )

    op.create_table(
        "tournament_tables",
        sa.Column("tournament_id", sa.String(length=16), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("table", sa.Integer(), nullable=False),
        sa.Column("identity_id", sa.Integer(), nullable=True),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_tournament_tables_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["identity_id"],
            ["identities.id"],
            name=op.f("fk_tournament_tables_identity_id_identities"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_tables_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "tournament_id", "board", "table", name=op.f("pk_tournament_tables")
        ),
        sa.UniqueConstraint("game_id", name=op.f("uq_tournament_tables_game_id")),
    )


def downgrade() -> None:
    op.drop_table("tournament_tables")
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tournament_entries_identity_id"))

    op.drop_table("tournament_entries")
    op.drop_table("tournament_boards")
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tournaments_starts_at"))
        batch_op.drop_index(batch_op.f("ix_tournaments_ends_at"))

    op.drop_table("tournaments")
