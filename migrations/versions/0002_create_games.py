"""create games, seats, deals and actions (the game record of RULES.md §12)

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 16:05:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("variant", sa.String(length=16), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("spectators", sa.Boolean(), nullable=False),
        sa.Column("host_id", sa.Integer(), nullable=True),
        sa.Column("scores", sa.JSON(), nullable=True),
        sa.Column("rematch_of", sa.String(length=32), nullable=True),
        sa.Column("rematch_id", sa.String(length=32), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("CURRENT_TIMESTAMP"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("CURRENT_TIMESTAMP"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["host_id"],
            ["identities.id"],
            name=op.f("fk_games_host_id_identities"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_games_host_id"), ["host_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_games_status"), ["status"], unique=False)

    op.create_table(
        "actions",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("deal_number", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.Column("client_id", sa.String(length=64), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("CURRENT_TIMESTAMP"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_actions_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "seq", name=op.f("pk_actions")),
        sa.UniqueConstraint("game_id", "seat", "client_id", name="uq_actions_client"),
    )
    op.create_table(
        "deals",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("deck", sa.JSON(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("CURRENT_TIMESTAMP"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_deals_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "number", name=op.f("pk_deals")),
    )
    op.create_table(
        "seats",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("identity_id", sa.Integer(), nullable=True),
        sa.Column("bot_level", sa.String(length=8), nullable=True),
        sa.Column("display_name", sa.String(length=24), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_seats_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["identity_id"],
            ["identities.id"],
            name=op.f("fk_seats_identity_id_identities"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_seats")),
    )
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_seats_identity_id"), ["identity_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seats_identity_id"))

    op.drop_table("seats")
    op.drop_table("deals")
    op.drop_table("actions")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_status"))
        batch_op.drop_index(batch_op.f("ix_games_host_id"))

    op.drop_table("games")
