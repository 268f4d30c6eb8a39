"""events: no unique index on (game_id, command_id)

A command's answer is found in memory (the table's answers, loaded from the snapshot and the log
after it), never through this index; and the key (game_id, seq) already refuses a command
decided twice on one state, by two servers or two copies. The index cost every commit a page of
the disk for every game in it: on SQLite half the time of a durable commit.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_constraint("uq_events_command", type_="unique")


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.create_unique_constraint("uq_events_command", ["game_id", "command_id"])
