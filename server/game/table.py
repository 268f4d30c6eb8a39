"""One game in memory: its state as decided and as on disk, and what waits for the disk."""

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from server.rules.core import Event, Member, Ruleset

# Told the seq of a command's write as soon as it is on disk, with its views: a socket acks it in
# the same write as its patch, without waiting for its coroutine to be resumed.
Told = Callable[[int], None]


@dataclass
class Table:
    """One game in memory."""

    game_id: str
    ruleset: Ruleset[Any]
    seed: bytes
    state: Any  # after every decided event, written or not
    seq: int
    committed_state: Any  # after the last event on disk: the only state anybody is shown
    committed_seq: int
    answers: dict[str, int] = field(default_factory=dict)  # command_id -> seq of its last event
    # command_id -> (seq of its last event, its write) of the commands on their way to disk
    inflight: dict[str, tuple[int, asyncio.Future[None]]] = field(default_factory=dict)
    # seq -> (state, members touched, told of the write) of the decided writes not yet on disk
    waiting: dict[int, tuple[Any, set[str] | None, Told | None]] = field(default_factory=dict)
    used: float = field(default_factory=time.monotonic)  # last asked for
    writing: asyncio.Future[None] | None = None  # the last write sent to the scribe
    snapshot_seq: int = 0  # the seq of the game's latest snapshot (taken, if not yet written)
    snapshot_bytes: int = 0  # how big the latest snapshot this server packed was (0: none yet)
    joined: set[str] | None = None  # the members whose token the server has seen (None: unread)

    def member(self, player_id: str) -> Member:
        member: Member = self.committed_state.roster.members[player_id]
        return member

    def joined_once(self, read: set[str]) -> set[str]:
        """The members read from the store, unless another read set them first."""
        if self.joined is None:
            self.joined = read
        return self.joined


@dataclass(frozen=True, slots=True)
class Answer:
    seq: int
    duplicate: bool
    events: list[Event]
    tokens: list[str] = field(default_factory=list)  # the new players' tokens, for add_player
