"""tokens: seen_at, when the server first saw the token (the member joined)

The organizer's console shows who has opened the invite; a column beside the token rather than an
event in the log: seeing a token is no fact of the game (no rule turns on it), and an event would
move the game's seq under a phone that only looked. Tokens seen before this revision stay unseen
until they are used again.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tokens") as batch:
        batch.add_column(sa.Column("seen_at", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tokens") as batch:
        batch.drop_column("seen_at")
