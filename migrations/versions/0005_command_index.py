"""events: a unique index on (game_id, command_id) again, where command_id is set

Migration 0004 dropped the unique constraint for speed, leaving the server's memory of a game's
answers as the only guard against a command written twice. This index puts the database behind
it again: a second row with a game's command id is refused (the writer gets a conflict, and the
command its answer). Partial: only a command's last event carries its id, and the others (most
of a game's events) need no entry.

A database written under 0004 could hold a command id twice in a game (only by a bug): the index
could not be built on it. The later rows of such a command id lose it (the events stay, and the
hash chain does not cover command ids); the first keeps it, and with it the command's answer.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COMMANDED = sa.text("command_id IS NOT NULL")
# One pass over the table (a correlated query would read a game's events once per event).
TWICE = sa.text(
    "SELECT game_id, command_id, MIN(seq) FROM events WHERE command_id IS NOT NULL "
    "GROUP BY game_id, command_id HAVING COUNT(*) > 1"
)
UNMARK = sa.text(
    "UPDATE events SET command_id = NULL "
    "WHERE game_id = :game_id AND command_id = :command_id AND seq > :first"
)


def upgrade() -> None:
    connection = op.get_bind()
    for game_id, command_id, first in connection.execute(TWICE).all():
        connection.execute(UNMARK, {"game_id": game_id, "command_id": command_id, "first": first})
    op.create_index(
        "uq_events_command",
        "events",
        ["game_id", "command_id"],
        unique=True,
        sqlite_where=COMMANDED,
        postgresql_where=COMMANDED,
    )


def downgrade() -> None:
    op.drop_index("uq_events_command", table_name="events")
