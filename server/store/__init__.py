"""The event store: one append-only table of events per game, with a gapless `seq`.

SQLite (WAL, synchronous=FULL) or PostgreSQL behind the same interface. An append is a list of
batches, each a command's events for one game, written in one transaction: all or nothing. That
lets the referee commit many commands with one disk flush (group commit) while each command's
events still land together.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import orjson
from sqlalchemy.engine import URL

from server.store import database
from server.store.backends import (
    Backend,
    Conflict,
    Rows,
    SqlBackend,
    SqliteBackend,
    Unavailable,
    Unstorable,
)
from server.store.chain import Json
from server.store.models import GameRow


class Line(Protocol):
    """What the store writes of an event: it knows no rules (server/rules/events.py)."""

    @property
    def type(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def data(self) -> Json: ...


E = TypeVar("E")
# Reads a line of the log (type, data, version) into an event: a ruleset's `read`.
Reader = Callable[[str, Json, int], E]

__all__ = ["Append", "Conflict", "Recorded", "Snapshot", "Store", "Unavailable", "Unstorable"]


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


@dataclass(slots=True)
class Append:
    """One command's events for one game, numbered from `expected_seq + 1`.

    The command id goes on the last event: its seq is the command's answer.
    """

    game_id: str
    expected_seq: int
    events: Sequence[Line]
    at: int
    actor: str | None
    command_id: str | None = None
    tokens: list[tuple[str, str]] = field(default_factory=list)  # (token, player_id)
    game: GameRow | None = None  # set when the append creates the game

    def rows(self) -> list[dict[str, Any]]:
        """The events table's rows; `prev_hash` and `hash` are sealed by the writer, which
        alone knows the hash the log ends with."""
        last = len(self.events) - 1
        return [
            {
                "game_id": self.game_id,
                "seq": self.expected_seq + 1 + n,
                "type": event.type,
                "version": event.version,
                "data": orjson.dumps(event.data).decode(),
                "at": self.at,
                "actor": self.actor,
                "command_id": self.command_id if n == last else None,
                "prev_hash": None,
                "hash": None,
            }
            for n, event in enumerate(self.events)
        ]


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
        try:
            rows = batches_rows(batches)
        except (TypeError, ValueError, OverflowError) as error:  # data JSON cannot hold
            raise Unstorable(str(error)) from error
        await self.backend.write(rows)

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


def batches_rows(batches: Sequence[Append]) -> Rows:
    """The rows of a write, each game's batches in order."""
    heads: dict[str, int] = {}
    for b in batches:
        heads.setdefault(b.game_id, b.expected_seq)
    return Rows(
        heads=heads,
        lengths=[(b.game_id, b.expected_seq, len(b.events)) for b in batches],
        games=[b.game.model_dump() for b in batches if b.game is not None],
        events=[row for b in batches for row in b.rows()],
        datas=[event.data for b in batches for event in b.events],
        tokens=[
            {"token": token, "game_id": b.game_id, "player_id": player_id, "seen_at": None}
            for b in batches
            for token, player_id in b.tokens
        ],
    )
