"""The tables. The events table is the truth; games, tokens and snapshots are plain tables beside
it."""

from sqlalchemy import BigInteger, Column, LargeBinary, Text
from sqlmodel import Field, SQLModel

MAX_SEQ = 2**31 - 1  # the events table's seq is a 32-bit integer on PostgreSQL


class EventRow(SQLModel, table=True):
    __tablename__ = "events"
    # UNIQUE(game_id, seq) is the key: two writers can never both get the same seq, so a command
    # decided twice on one state (by two servers, or two copies of it) is written once.

    game_id: str = Field(primary_key=True, max_length=32)
    seq: int = Field(primary_key=True)
    type: str = Field(max_length=64)
    version: int = Field(default=1)
    data: str = Field(sa_column=Column(Text, nullable=False))
    at: int = Field(sa_column=Column(BigInteger, nullable=False))
    actor: str | None = Field(default=None, max_length=64)
    command_id: str | None = Field(default=None, max_length=64)
    prev_hash: str = Field(max_length=64)  # the hash chain: see server/store/chain.py
    hash: str = Field(max_length=64)


class GameRow(SQLModel, table=True):
    __tablename__ = "games"

    game_id: str = Field(primary_key=True, max_length=32)
    ruleset: str = Field(max_length=32)
    seed: str = Field(max_length=64)  # secret until the game ends; never in the log before that
    created_at: int = Field(sa_column=Column(BigInteger, nullable=False))


class TokenRow(SQLModel, table=True):
    __tablename__ = "tokens"

    token: str = Field(primary_key=True, max_length=64)
    game_id: str = Field(index=True, max_length=32)
    player_id: str = Field(max_length=64)
    # When the server first saw the token (the member opened the invite): "joined" on the
    # organizer's console. A table's column, not an event: seeing a token is not a fact of the
    # game (no rule turns on it) and writing it to the log would move the game's seq under a
    # phone that only looked; it survives a restart all the same. None: never seen.
    seen_at: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))


class SnapshotRow(SQLModel, table=True):
    """A game's latest folded state, so that a load reads only the events after it. Disposable:
    used only while the event at `seq` still has `hash` and the running code has its `shape`."""

    __tablename__ = "snapshots"

    game_id: str = Field(primary_key=True, max_length=32)
    seq: int
    hash: str = Field(max_length=64)  # the hash of the log's event at `seq`
    shape: str = Field(
        max_length=64
    )  # server/game/snapshots.py: the state's structure, fingerprinted
    state: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: int = Field(sa_column=Column(BigInteger, nullable=False))
