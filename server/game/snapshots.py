"""Snapshots: a game's folded state kept beside its log, so that a load folds only what follows.

A snapshot holds the state at its `seq` and the game's command-id answers, pickled (trusted
data: our own database writes and reads it) by a forked child, so that the pickling of a big
game does not hold the event loop's GIL. It is used only when
- its `shape` is the running code's: a fingerprint of the state's dataclasses (names, fields,
  annotations, walked recursively) and of the ruleset's `state_version`. After a change of either,
  a game is folded from its log again and snapshotted anew: that is the upgrade;
- the log's event at its seq still has the hash the snapshot was taken at.
The log stays the truth: a snapshot missing, stale or unreadable only makes a load longer, and a
snapshot that fails to be written is logged and forgotten.
"""

import asyncio
import dataclasses
import gc
import hashlib
import logging
import os
import pickle
import typing
import warnings
import zlib
from typing import Any

import orjson
from pydantic import BaseModel

import server
from server.clock import now_ms
from server.game.table import Table
from server.rules.core import Ruleset
from server.store import Snapshot, Store

EVERY = 10_000  # events folded beyond a game's snapshot before it gets a new one, at least
# A snapshot costs the server in proportion to its size (the pages the fork's copy-on-write
# copies while the child packs, the write): in one game of 5,000 with 100 pairs duelling, 1.4 MB
# packed every 10,000 events took 13 % of the server's CPU a command and doubled its p99
# (bench.duels --one-game --watchers 4800: 1,700 duels/s and p99 57 ms, against 2,076 and 25 ms
# with none), about as much as folding those events. And a long game's snapshot grows with it
# (every command id's answer is in it), so that a snapshot every EVERY events cost a game the
# square of its length. One event folded a BYTES_AN_EVENT of the last snapshot keeps their cost
# a fraction of the folding, and a load still folds at most one of those gaps (100,000 events a
# second: bench.replay).
BYTES_AN_EVENT = 16
logger = logging.getLogger("bijse.snapshots")
SHAPES: dict[tuple[object, ...], str] = {}  # a Ruleset holds dicts: it cannot be a key itself


def fingerprint(root: Any) -> list[str]:
    """One line per class the type reaches: its qualified name, and each field's name and
    annotation (as written out by `repr`, with the qualified names of the types it names)."""
    lines: list[str] = []
    seen: set[type] = set()

    def walk(hint: Any) -> None:
        for arg in typing.get_args(hint):
            walk(arg)
        cls = typing.get_origin(hint) or hint
        if not isinstance(cls, type) or cls in seen:
            return
        seen.add(cls)
        if dataclasses.is_dataclass(cls):
            hints = typing.get_type_hints(cls)
            names = [f.name for f in dataclasses.fields(cls)]
        elif issubclass(cls, BaseModel):
            hints = {name: f.annotation for name, f in cls.model_fields.items()}
            names = list(hints)
        else:
            return  # a builtin or a plain value class: its name is in the annotation
        fields = ", ".join(f"{name}: {hints[name]!r}" for name in names)
        lines.append(f"{cls.__module__}.{cls.__qualname__}({fields})")
        for name in names:
            walk(hints[name])

    walk(root)
    return lines


def shape(ruleset: Ruleset[Any]) -> str:
    """The running code's shape of a ruleset's state: the type `initial_state` returns."""
    key = (ruleset.id, ruleset.state_version, ruleset.initial_state)
    known = SHAPES.get(key)
    if known is None:
        built = server.record().get("shapes", {}) if server.NATIVE else {}
        if ruleset.id in built:
            # Compiled (server/__init__.py), the classes' annotations lose their arguments
            # (`tuple[int, ...]` is `tuple`): the build read the shape from the sources. Marked
            # apart: a compiled state and one from source are pickled differently, and a
            # snapshot is only read back by the kind of server that packed it.
            text = f"compiled {built[ruleset.id]} {ruleset.state_version}"
        else:
            root = typing.get_type_hints(ruleset.initial_state)["return"]
            text = "\n".join([f"{ruleset.id} {ruleset.state_version}", *fingerprint(root)])
        known = SHAPES[key] = hashlib.sha256(text.encode()).hexdigest()
    return known


def gap(packed: int) -> int:
    """Events folded beyond a snapshot of `packed` bytes before the next one."""
    return max(EVERY, packed // BYTES_AN_EVENT)


def pack(state: Any, answers: bytes) -> bytes:
    # zlib's fastest level shrinks a state several times (ids and card titles repeat) for
    # little time, and the database then writes and reads that much less.
    return zlib.compress(pickle.dumps((state, answers), pickle.HIGHEST_PROTOCOL), 1)


def packed_apart(state: Any, answers: bytes) -> bytes:
    """`pack`, done by a child process (a fork: it sees the state as it is, copy-on-write), for a
    thread of this one to wait on. Pickling holds the GIL: for a game of 50,000 members it took
    1.4 s, and the event loop waited up to 200 ms at a time for its turn (a list of players
    added meanwhile took four times as long); the fork holds it 3 ms. The child runs nothing
    but the pickling, the compression and the writes to the pipe, and takes no lock."""
    read, write = os.pipe()
    with warnings.catch_warnings():  # Python 3.12 warns of forking a process with threads
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child
        code = 1
        gc.disable()  # it lives for one pickling: a collection would only go through the game
        try:
            os.close(read)
            data = memoryview(pack(state, answers))
            while data:
                data = data[os.write(write, data) :]
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    try:
        with open(read, "rb") as pipe:
            packed = pipe.read()
    finally:
        _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"the process packing the snapshot ended with {status}")
    return packed


def unpack(data: bytes) -> tuple[Any, dict[str, int]]:
    state, answers = pickle.loads(zlib.decompress(data))
    if isinstance(answers, dict):  # a snapshot from before the answers were JSON
        return state, answers
    found: dict[str, int] = orjson.loads(answers)
    return state, found


async def latest(
    store: Store, game_id: str, ruleset: Ruleset[Any]
) -> tuple[int, Any, dict[str, int], int] | None:
    """The game's snapshot as (seq, state, answers, its packed size), if it may be used."""
    snapshot = await store.snapshot(game_id)
    if snapshot is None or snapshot.shape != shape(ruleset):
        return None
    if await store.hash_at(game_id, snapshot.seq) != snapshot.hash:
        logger.warning(
            "the snapshot of game %s does not match its log at seq %d: ignored",
            game_id,
            snapshot.seq,
        )
        return None
    try:
        state, answers = unpack(snapshot.state)
    except Exception:  # the log can always rebuild it
        logger.exception("the snapshot of game %s cannot be read: ignored", game_id)
        return None
    return snapshot.seq, state, answers, len(snapshot.state)


class Snapshots:
    """Writes snapshots in the background: never in the way of a command or its answer."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.writing: set[asyncio.Task[None]] = set()

    def take(self, table: Table) -> None:
        """Snapshot a game's state on disk (at its committed seq); its table is told how big the
        snapshot was. The state is immutable; the answers go on changing, so they are serialized
        here, on the event loop: as JSON, 5 ms for a big game's 160,000 where pickling them (in
        the thread, but holding the GIL) took 22."""
        answers = orjson.dumps(table.answers)
        seq, state = table.committed_seq, table.committed_state
        task = asyncio.create_task(self.write(table, seq, state, answers))
        self.writing.add(task)
        task.add_done_callback(self.writing.discard)

    async def write(self, table: Table, seq: int, state: Any, answers: bytes) -> None:
        game_id = table.game_id
        try:
            data = await asyncio.to_thread(packed_apart, state, answers)
            table.snapshot_bytes = len(data)
            await self.store.save_snapshot(
                game_id, Snapshot(seq, "", shape(table.ruleset), data), now_ms()
            )
        except Exception:
            logger.warning("no snapshot of game %s at seq %d", game_id, seq, exc_info=True)

    async def stop(self) -> None:
        """Let the writes under way finish (they hold a database connection)."""
        await asyncio.gather(*self.writing, return_exceptions=True)
