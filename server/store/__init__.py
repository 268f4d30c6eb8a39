"""The event store: one append-only table of events per game, with a gapless `seq`.

SQLite (WAL, synchronous=FULL) or PostgreSQL behind the same interface. An append is a list of
batches, each a command's events for one game, written in one transaction: all or nothing. That
lets the referee commit many commands with one disk flush (group commit) while each command's
events still land together.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import orjson
from sqlalchemy.engine import URL

from server.store import database
from server.store.backends import Backend, SqlBackend, SqliteBackend
from server.store.chain import Json
from server.store.errors import Conflict, Unavailable, Unstorable
from server.store.models import GameRow
from server.store.seal import Append, Line, Rows

E = TypeVar("E")
# Reads a line of the log (type, data, version) into an event: a ruleset's `read`.
Reader = Callable[[str, Json, int], E]

__all__ = [
    "Append",
    "Conflict",
    "Line",
    "Recorded",
    "Snapshot",
    "Store",
    "Unavailable",
    "Unstorable",
]


@dataclass(frozen=True, slots=True)
class Recorded:
    """An event as the log holds it."""

    seq: int
    type: str
    data: Json
    at: int
    actor: str | None
    command_id: str | None
    version: int = 1
    prev_hash: str = ""
    hash: str = ""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A game's state folded up to `seq`, packed (server/game/snapshots.py)."""

    seq: int
    hash: str  # the log's event hash at `seq`; unknown ("") until written
    shape: str
    state: bytes


class Store:
    def __init__(self, url: URL) -> None:
        self.url = url
        self.backend: Backend = (
            SqliteBackend(url.database or "")
            if database.is_sqlite(url)
            else SqlBackend(database.engine(url))
        )

    @classmethod
    def open(cls, url: str) -> "Store":
        return cls(database.parse_url(url))

    async def close(self) -> None:
        await self.backend.close()

    async def append(self, batches: Sequence[Append]) -> None:
        """Write every batch in one transaction, or none of them."""
        await self.backend.write(Rows(batches))

    async def game(self, game_id: str) -> GameRow | None:
        row = await self.backend.game(game_id)
        return None if row is None else GameRow.model_validate(row)

    async def events(
        self, game_id: str, after: int = 0, limit: int | None = None
    ) -> list[Recorded]:
        loads = orjson.loads
        return [
            Recorded(seq, type_, loads(data), at, actor, command_id, version, prev_hash, digest)
            for seq, type_, data, at, actor, command_id, version, prev_hash, digest in (
                await self.backend.events(game_id, after, limit)
            )
        ]

    async def history(
        self, game_id: str, read: Reader[E], after: int = 0
    ) -> tuple[list[E], dict[str, int]]:
        """A game's log after `after` as the rules replay it (each line read once by `read`:
        the ruleset's), and its command ids' answers: the least a server reads to load a game
        (`events` carries all an export needs, and costs more)."""
        loads = orjson.loads
        rows = await self.backend.history(game_id, after)
        events = [read(type_, loads(data), version) for _, type_, data, version, _ in rows]
        answers = {command_id: seq for seq, *_, command_id in rows if command_id is not None}
        return events, answers

    async def hash_at(self, game_id: str, seq: int) -> str | None:
        """The hash of the game's event at `seq`, if the log has one there."""
        return await self.backend.hash_at(game_id, seq)

    async def snapshot(self, game_id: str) -> Snapshot | None:
        """The game's latest snapshot, unchecked (server/game/snapshots.py checks it)."""
        row = await self.backend.snapshot(game_id)
        return None if row is None else Snapshot(*row)

    async def save_snapshot(self, game_id: str, snapshot: Snapshot, created_at: int) -> None:
        """Keep a snapshot, in a transaction of its own (never with an append). Its hash is
        the log's own at its seq: a seq not on disk writes nothing."""
        await self.backend.save_snapshot(
            game_id, snapshot.seq, snapshot.shape, snapshot.state, created_at
        )

    async def token(self, token: str) -> tuple[str, str] | None:
        """The game and player a token acts for."""
        return await self.backend.token(token)

    async def tokens(self, game_id: str) -> dict[str, str]:
        """Every token of a game, by player: the organizer reprints invites from these."""
        return await self.backend.tokens(game_id)

    async def seen(self, token: str, at: int) -> None:
        """Note that a token was used (the first time only: `seen_at` is never moved)."""
        await self.backend.seen(token, at)

    async def joined(self, game_id: str) -> set[str]:
        """The members of a game whose token the server has seen."""
        return await self.backend.joined(game_id)
