"""A write's rows: each command's events (`Append`), checked to continue its game exactly where
the log ends and chained to the hash before them, as the events table will hold them. The same
for both databases (server/store/backends.py), and compiled (server/__init__.py): the writer
runs it on every event it writes."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from server.store import chain
from server.store.chain import Json
from server.store.errors import Conflict, Unstorable
from server.store.models import EventRow, GameRow, TokenRow

EVENTS = EventRow.__table__  # type: ignore[attr-defined]
GAMES = GameRow.__table__  # type: ignore[attr-defined]
TOKENS = TokenRow.__table__  # type: ignore[attr-defined]


class Line(Protocol):
    """What the store writes of an event: it knows no rules (server/rules/events.py)."""

    @property
    def type(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def data(self) -> Json: ...


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


@dataclass(frozen=True, slots=True)
class Rows:
    """A write's appends, each game's in order. The backend turns them into the tables' rows."""

    appends: Sequence[Append]

    @property
    def events(self) -> int:
        return sum(len(a.events) for a in self.appends)

    @property
    def lengths(self) -> list[tuple[str, int, int]]:
        """(game_id, expected_seq, number of events) per append."""
        return [(a.game_id, a.expected_seq, len(a.events)) for a in self.appends]

    def heads(self) -> dict[str, int]:
        """Each game's seq its first append continues from."""
        heads: dict[str, int] = {}
        for a in self.appends:
            heads.setdefault(a.game_id, a.expected_seq)
        return heads


def heads_after(rows: Rows) -> dict[str, int]:
    """Each game's last seq once the rows are written."""
    return {game_id: expected + count for game_id, expected, count in rows.lengths}


GAME_COLUMNS = tuple(c.name for c in GAMES.columns)
TOKEN_COLUMNS = tuple(c.name for c in TOKENS.columns)
EVENT_COLUMNS = tuple(c.name for c in EVENTS.columns)
Row = tuple[Any, ...]  # a table's row, in its columns' order


@dataclass(frozen=True, slots=True)
class Prepared:
    """What a write's rows need that the log's end does not change, made before the transaction."""

    games: list[Row]
    tokens: list[Row]
    # Per append, each event's data as the table holds it (the keys in the order given) and
    # canonical (for its hash).
    datas: list[list[tuple[str, bytes]]]


def prepare(rows: Rows) -> Prepared:
    try:
        datas = [
            [(orjson.dumps(e.data).decode(), chain.canonical(e.data)) for e in a.events]
            for a in rows.appends
        ]
    except (TypeError, ValueError, OverflowError) as error:  # data JSON cannot hold
        raise Unstorable(str(error)) from error
    return Prepared(
        games=[
            tuple(getattr(a.game, name) for name in GAME_COLUMNS)
            for a in rows.appends
            if a.game is not None
        ],
        tokens=[  # not seen yet
            (token, a.game_id, player, None) for a in rows.appends for token, player in a.tokens
        ],
        datas=datas,
    )


Ends = dict[str, tuple[int, str]]  # game_id -> the seq and hash of its last event


def check_and_seal(rows: Rows, prepared: Prepared, found: Ends) -> tuple[list[Row], Ends]:
    """Each append must continue its game exactly where the log ends (`found`; no gap, no
    overlap); every new event is chained to the one before it. Answers the events table's rows,
    and where they leave each game."""
    ends = dict(found)
    events: list[Row] = []
    for a, datas in zip(rows.appends, prepared.datas, strict=True):
        game_id, at, actor = a.game_id, a.at, a.actor
        seq, previous = ends.get(game_id, (0, chain.GENESIS))
        if a.expected_seq != seq:
            raise Conflict(f"game {game_id} is at seq {seq}, not {a.expected_seq}")
        parts = chain.shared(game_id, at, actor)
        last = seq + len(a.events)
        for event, (stored, canonical) in zip(a.events, datas, strict=True):
            seq += 1
            type_, version = event.type, event.version
            digest = chain.event_digest(parts, canonical, previous, seq, type_, version)
            command_id = a.command_id if seq == last else None
            events.append(
                (game_id, seq, type_, version, stored, at, actor, command_id, previous, digest)
            )
            previous = digest
        ends[game_id] = seq, previous
    return events, ends
