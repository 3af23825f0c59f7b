"""create player tables: profiles, ratings, results, leavers, transfer codes

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 16:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player_profiles",
        sa.Column("identity_id", sa.Integer(), nullable=False),
        sa.Column("xp", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("CURRENT_TIMESTAMP"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["identity_id"],
            ["identities.id"],
            name=op.f("fk_player_profiles_identity_id_identities"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("identity_id", name=op.f("pk_player_profiles")),
    )
    op.create_table(
        "player_ratings",
        sa.Column("identity_id", sa.Integer(), nullable=False),
        sa.Column("family", sa.String(length=16), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("CURRENT_TIMESTAMP"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["identity_id"],
            ["identities.id"],
            name=op.f("fk_player_ratings_identity_id_identities"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("identity_id", "family", name=op.f("pk_player_ratings")),
    )
    with op.batch_alter_table("player_ratings", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_player_ratings_family"), ["family"], unique=False)

    op.create_table(
        "transfer_codes",
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("identity_id", sa.Integer(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("CURRENT_TIMESTAMP"),
            nullable=False,
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["identity_id"],
            ["identities.id"],
            name=op.f("fk_transfer_codes_identity_id_identities"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("code_hash", name=op.f("pk_transfer_codes")),
    )
    with op.batch_alter_table("transfer_codes", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_transfer_codes_identity_id"), ["identity_id"], unique=False
        )

    op.create_table(
        "game_leavers",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("identity_id", sa.Integer(), nullable=False),
        sa.Column("deal_number", sa.Integer(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("CURRENT_TIMESTAMP"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_game_leavers_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["identity_id"],
            ["identities.id"],
            name=op.f("fk_game_leavers_identity_id_identities"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_game_leavers")),
    )
    with op.batch_alter_table("game_leavers", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_game_leavers_identity_id"), ["identity_id"], unique=False
        )

    op.create_table(
        "player_results",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("part", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("identity_id", sa.Integer(), nullable=False),
        sa.Column("family", sa.String(length=16), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("left_early", sa.Boolean(), nullable=False),
        sa.Column("deals_won", sa.Integer(), nullable=False),
        sa.Column("tricks_won", sa.Integer(), nullable=False),
        sa.Column("xp", sa.Integer(), nullable=False),
        sa.Column("xp_detail", sa.JSON(), nullable=False),
        sa.Column("rating_before", sa.Integer(), nullable=True),
        sa.Column("rating_after", sa.Integer(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("CURRENT_TIMESTAMP"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_player_results_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["identity_id"],
            ["identities.id"],
            name=op.f("fk_player_results_identity_id_identities"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "part", "seat", name=op.f("pk_player_results")),
    )
    with op.batch_alter_table("player_results", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_player_results_identity_id"), ["identity_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("player_results", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_player_results_identity_id"))

    op.drop_table("player_results")
    with op.batch_alter_table("game_leavers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_leavers_identity_id"))

    op.drop_table("game_leavers")
    with op.batch_alter_table("transfer_codes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_transfer_codes_identity_id"))

    op.drop_table("transfer_codes")
    with op.batch_alter_table("player_ratings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_player_ratings_family"))

    op.drop_table("player_ratings")
    op.drop_table("player_profiles")
