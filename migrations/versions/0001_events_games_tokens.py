"""events, games and tokens

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("game_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("at", sa.BigInteger(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("command_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.PrimaryKeyConstraint("game_id", "seq"),
        sa.UniqueConstraint("game_id", "command_id", name="uq_events_command"),
    )
    op.create_table(
        "games",
        sa.Column("game_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("ruleset", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("seed", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("game_id"),
    )
    op.create_table(
        "tokens",
        sa.Column("token", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("game_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("player_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.PrimaryKeyConstraint("token"),
    )
    op.create_index("ix_tokens_game_id", "tokens", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_tokens_game_id", table_name="tokens")
    op.drop_table("tokens")
    op.drop_table("games")
    op.drop_table("events")
