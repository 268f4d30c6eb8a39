"""hash chain: every event carries prev_hash and hash

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29

Events already in the table are chained here, game by game in seq order, exactly as the server
chains new ones (server/store/chain.py; the rule is repeated below so this migration keeps its
meaning whatever that module becomes).
"""

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime

import orjson
import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GENESIS = "0" * 64


def iso(ms: int) -> str:
    moment = datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.")
    return moment + f"{ms % 1000:03d}Z"


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("prev_hash", sqlmodel.sql.sqltypes.AutoString(length=64)))
        batch.add_column(sa.Column("hash", sqlmodel.sql.sqltypes.AutoString(length=64)))
    connection = op.get_bind()
    rows = connection.execute(
        sa.text("SELECT game_id, seq, type, at, actor, data FROM events ORDER BY game_id, seq")
    )
    previous: dict[str, str] = {}
    update = sa.text(
        "UPDATE events SET prev_hash = :prev, hash = :hash WHERE game_id = :game AND seq = :seq"
    )
    for game_id, seq, type_, at, actor, data in rows.all():
        prev = previous.get(game_id, GENESIS)
        line = {
            "game_id": game_id,
            "seq": seq,
            "type": type_,
            "at": iso(at),
            "actor": actor,
            "data": orjson.loads(data),
            "prev_hash": prev,
        }
        digest = hashlib.sha256(orjson.dumps(line, option=orjson.OPT_SORT_KEYS)).hexdigest()
        connection.execute(update, {"prev": prev, "hash": digest, "game": game_id, "seq": seq})
        previous[game_id] = digest
    with op.batch_alter_table("events") as batch:
        batch.alter_column(
            "prev_hash", existing_type=sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False
        )
        batch.alter_column(
            "hash", existing_type=sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False
        )


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_column("hash")
        batch.drop_column("prev_hash")
