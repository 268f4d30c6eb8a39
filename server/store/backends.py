"""The two databases behind the store: SQLAlchemy (asyncpg) for PostgreSQL, sqlite3 for SQLite.

Both write the same rows: they check that every batch continues its game exactly where the log
ends (no gap, no overlap: optimistic concurrency), chain the new events' hashes, and write
everything in one transaction. Both read rows back as plain tuples in the events table's column
order (`COLUMNS`).
"""

import asyncio
import fcntl
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager, suppress
from functools import partial
from queue import SimpleQueue
from typing import IO, Any, Protocol, TypeVar

import asyncpg
from sqlalchemy import BigInteger, LargeBinary, cast, insert, literal, select, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from server.store.errors import Conflict, Unavailable, Unstorable
from server.store.models import SnapshotRow
from server.store.seal import (
    EVENT_COLUMNS,
    EVENTS,
    GAME_COLUMNS,
    GAMES,
    TOKEN_COLUMNS,
    TOKENS,
    Prepared,
    Row,
    Rows,
    check_and_seal,
    heads_after,
    prepare,
)

SNAPSHOTS = SnapshotRow.__table__  # type: ignore[attr-defined]


def cause(error: BaseException) -> str:
    """Why a database failed, as an operator needs it: the driver's own error and the first line
    of its message (a SQLAlchemy error's text adds the statement, and may add its parameters:
    tokens, among others)."""
    if isinstance(error, DBAPIError) and error.orig is not None:
        error = error.orig.__cause__ or error.orig  # asyncpg's own, under SQLAlchemy's adapter
    kind = type(error)
    module = "" if kind.__module__ == "builtins" else f"{kind.__module__}."
    lines = str(error).splitlines()
    return f"{module}{kind.__qualname__}: {lines[0] if lines else ''}"[:300]


def data_exception(error: DBAPIError) -> bool:
    """PostgreSQL's SQLSTATE class 22, data exception: the value, not the database."""
    return str(getattr(error.orig, "sqlstate", "")).startswith("22")


COLUMNS = ("seq", "type", "data", "at", "actor", "command_id", "version", "prev_hash", "hash")
EventTuple = tuple[int, str, str, int, str | None, str | None, int, str, str]
HistoryTuple = tuple[int, str, str, int, str | None]  # seq, type, data, version, command_id
SnapshotTuple = tuple[int, str, str, bytes]  # seq, hash, shape, state


# Told of a game's new last seq, written by any server on the same database; (None, 0) after
# (re)connecting, when anything may have been missed.
Heard = Callable[[str | None, int], None]
CHANNEL = "bijse_events"


class Backend(Protocol):
    async def write(self, rows: Rows) -> None: ...
    async def game(self, game_id: str) -> dict[str, Any] | None: ...
    async def events(self, game_id: str, after: int, limit: int | None) -> list[EventTuple]: ...
    async def history(self, game_id: str, after: int) -> list[HistoryTuple]: ...
    async def hash_at(self, game_id: str, seq: int) -> str | None: ...
    async def snapshot(self, game_id: str) -> SnapshotTuple | None: ...
    async def save_snapshot(
        self, game_id: str, seq: int, shape: str, state: bytes, created_at: int
    ) -> None: ...
    async def token(self, token: str) -> tuple[str, str] | None: ...
    async def tokens(self, game_id: str) -> dict[str, str]: ...
    async def seen(self, token: str, at: int) -> None: ...
    async def joined(self, game_id: str) -> set[str]: ...
    async def listen(self, heard: Heard) -> None: ...
    async def close(self) -> None: ...


LOCK = text(
    "SELECT pg_advisory_xact_lock(hashtext(g)) FROM unnest(CAST(:games AS text[])) AS g ORDER BY g"
)
# Each game's last event, through the key's index (a LEFT JOIN: a new game has none).
HEADS = text(
    "SELECT g, e.seq, e.hash FROM unnest(CAST(:games AS text[])) AS g LEFT JOIN LATERAL "
    "(SELECT seq, hash FROM events WHERE game_id = g ORDER BY seq DESC LIMIT 1) AS e ON true"
)
NOTIFY = text("SELECT pg_notify(:channel, p) FROM unnest(CAST(:payloads AS text[])) AS p")


def named(columns: tuple[str, ...], rows: list[Row]) -> list[dict[str, Any]]:
    return [dict(zip(columns, row, strict=True)) for row in rows]


CLOSING_S = 5.0  # how long a closing store waits for the connections still out


class SqlBackend:
    """Through SQLAlchemy's async engine: asyncpg on PostgreSQL."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.busy = 0  # connections checked out now (`connected`)
        self.idle = asyncio.Event()  # set while none is
        self.idle.set()
        self.closed = False

    @asynccontextmanager
    async def connected(self, begin: bool = False) -> AsyncIterator[AsyncConnection]:
        """A connection of the pool (in a transaction, committed at the end, with `begin`),
        counted while out: `close` waits for it, else its task would hold it past the pool's
        end and it would never be closed. After `close`, none: the store is unavailable."""
        if self.closed:
            raise Unavailable("the store is closed")
        self.busy += 1
        self.idle.clear()
        try:
            async with self.engine.begin() if begin else self.engine.connect() as conn:
                yield conn
        finally:
            self.busy -= 1
            if not self.busy:
                self.idle.set()

    async def write(self, rows: Rows) -> None:
        prepared = prepare(rows)
        game_ids = sorted(rows.heads())
        try:
            async with self.connected(begin=True) as conn:
                # A statement for all the batch's games at once, not one per game: a batch
                # holds many games, and each round trip costs the event loop more than the
                # database. The locks (transaction-scoped, one per game) are taken in a fixed
                # order, so two appenders never wait on each other in a cycle.
                await conn.execute(LOCK, {"games": game_ids})
                found = {
                    game_id: (seq, digest)
                    for game_id, seq, digest in await conn.execute(HEADS, {"games": game_ids})
                    if seq is not None
                }
                events, _ = check_and_seal(rows, prepared, found)
                if prepared.games:
                    await conn.execute(insert(GAMES), named(GAME_COLUMNS, prepared.games))
                await conn.execute(insert(EVENTS), named(EVENT_COLUMNS, events))
                if prepared.tokens:
                    await conn.execute(insert(TOKENS), named(TOKEN_COLUMNS, prepared.tokens))
                # A wake-up for the other servers on this database, sent at commit. It is never
                # the data: they read the events from the table (see listen).
                payloads = [f"{game_id}:{head}" for game_id, head in heads_after(rows).items()]
                await conn.execute(NOTIFY, {"channel": CHANNEL, "payloads": payloads})
        except IntegrityError as error:
            raise Conflict(str(error.orig)) from error
        except DBAPIError as error:
            if data_exception(error):
                raise Unstorable(str(error)) from error
            raise Unavailable(cause(error)) from error
        except OSError as error:
            raise Unavailable(cause(error)) from error

    async def game(self, game_id: str) -> dict[str, Any] | None:
        async with self.connected() as conn:
            row = (await conn.execute(select(GAMES).where(GAMES.c.game_id == game_id))).first()
        return None if row is None else row._asdict()

    async def events(self, game_id: str, after: int, limit: int | None) -> list[EventTuple]:
        query = (
            select(*(EVENTS.c[name] for name in COLUMNS))
            .where(EVENTS.c.game_id == game_id, EVENTS.c.seq > after)
            .order_by(EVENTS.c.seq)
            .limit(limit)
        )
        async with self.connected() as conn:
            return [tuple(row) for row in (await conn.execute(query)).all()]

    async def history(self, game_id: str, after: int) -> list[HistoryTuple]:
        columns = (
            EVENTS.c.seq,
            EVENTS.c.type,
            EVENTS.c.data,
            EVENTS.c.version,
            EVENTS.c.command_id,
        )
        query = (
            select(*columns)
            .where(EVENTS.c.game_id == game_id, EVENTS.c.seq > after)
            .order_by(EVENTS.c.seq)
        )
        async with self.connected() as conn:
            return [tuple(row) for row in (await conn.execute(query)).all()]

    async def hash_at(self, game_id: str, seq: int) -> str | None:
        query = select(EVENTS.c.hash).where(EVENTS.c.game_id == game_id, EVENTS.c.seq == seq)
        async with self.connected() as conn:
            digest: str | None = (await conn.execute(query)).scalar()
        return digest

    async def snapshot(self, game_id: str) -> SnapshotTuple | None:
        columns = (SNAPSHOTS.c.seq, SNAPSHOTS.c.hash, SNAPSHOTS.c.shape, SNAPSHOTS.c.state)
        query = select(*columns).where(SNAPSHOTS.c.game_id == game_id)
        async with self.connected() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else (row.seq, row.hash, row.shape, row.state)

    async def save_snapshot(
        self, game_id: str, seq: int, shape: str, state: bytes, created_at: int
    ) -> None:
        # As SAVE_SNAPSHOT on SQLite. The casts tell PostgreSQL the parameters' types, which
        # a SELECT list does not.
        source = select(
            EVENTS.c.game_id,
            EVENTS.c.seq,
            EVENTS.c.hash,
            cast(literal(shape), SNAPSHOTS.c.shape.type),
            cast(literal(state), LargeBinary),
            cast(literal(created_at), BigInteger),
        ).where(EVENTS.c.game_id == game_id, EVENTS.c.seq == seq)
        upsert = pg_insert(SNAPSHOTS).from_select(
            ["game_id", "seq", "hash", "shape", "state", "created_at"], source
        )
        newer = upsert.excluded
        upsert = upsert.on_conflict_do_update(
            index_elements=["game_id"],
            set_={name: newer[name] for name in ("seq", "hash", "shape", "state", "created_at")},
            where=(SNAPSHOTS.c.seq <= newer.seq) | (SNAPSHOTS.c.shape != newer.shape),
        )
        async with self.connected(begin=True) as conn:
            await conn.execute(upsert)

    async def token(self, token: str) -> tuple[str, str] | None:
        query = select(TOKENS.c.game_id, TOKENS.c.player_id).where(TOKENS.c.token == token)
        async with self.connected() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else (row.game_id, row.player_id)

    async def tokens(self, game_id: str) -> dict[str, str]:
        query = select(TOKENS.c.player_id, TOKENS.c.token).where(TOKENS.c.game_id == game_id)
        async with self.connected() as conn:
            return {r.player_id: r.token for r in (await conn.execute(query)).all()}

    async def seen(self, token: str, at: int) -> None:
        unseen = (TOKENS.c.token == token) & TOKENS.c.seen_at.is_(None)
        async with self.connected(begin=True) as conn:
            await conn.execute(update(TOKENS).where(unseen).values(seen_at=at))

    async def joined(self, game_id: str) -> set[str]:
        query = select(TOKENS.c.player_id).where(
            TOKENS.c.game_id == game_id, TOKENS.c.seen_at.is_not(None)
        )
        async with self.connected() as conn:
            return {r.player_id for r in (await conn.execute(query)).all()}

    async def listen(self, heard: Heard) -> None:
        """LISTEN for other servers' writes until cancelled, reconnecting after a lost
        connection; after every (re)connect, `heard(None, 0)`: catch up from the table."""
        dsn = self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)

        def on_notify(connection: object, pid: int, channel: str, payload: str) -> None:
            game_id, _, seq = payload.rpartition(":")
            if seq.isdigit():
                heard(game_id, int(seq))

        delay = 0.5
        while True:
            try:
                connection = await asyncpg.connect(dsn)
            except (OSError, asyncpg.PostgresError):
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10)
                continue
            delay = 0.5
            lost = asyncio.Event()
            connection.add_termination_listener(lambda _, lost=lost: lost.set())
            try:
                await connection.add_listener(CHANNEL, on_notify)
                heard(None, 0)
                await lost.wait()
            finally:
                await connection.close()

    async def close(self) -> None:
        self.closed = True
        with suppress(TimeoutError):  # a database that hangs does not hold the server's exit
            await asyncio.wait_for(self.idle.wait(), CLOSING_S)
        await self.engine.dispose()


T = TypeVar("T")


def settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():  # its awaiter gave up; the job is done or failed all the same
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


class Worker:
    """One thread that runs jobs in order, each awaited on the event loop that queued it. The event
    loop's cost of a hop is about half of run_in_executor's (no concurrent Future to chain, no
    idle semaphore)."""

    def __init__(self, name: str) -> None:
        self.jobs: SimpleQueue[
            tuple[asyncio.AbstractEventLoop, asyncio.Future[Any], Callable[[], Any]] | None
        ] = SimpleQueue()
        self.closed = False
        # A daemon: a process that exits without closing the store must not hang on it (a write
        # cut short was never acknowledged, and SQLite rolls it back).
        self.thread = threading.Thread(target=self.work, name=name, daemon=True)
        self.thread.start()

    def work(self) -> None:
        while (job := self.jobs.get()) is not None:
            self.do(*job)
            del job  # a long import's rows are not kept while the thread waits

    @staticmethod
    def do(
        loop: asyncio.AbstractEventLoop, future: asyncio.Future[T], call: Callable[[], T]
    ) -> None:
        result, error = None, None
        try:
            result = call()
        except BaseException as caught:  # the awaiter's to handle, as with run_in_executor
            error = caught
        with suppress(RuntimeError):  # its event loop is closed: nobody waits for it
            loop.call_soon_threadsafe(settle, future, result, error)

    async def run(self, call: Callable[[], T]) -> T:
        if self.closed:
            raise RuntimeError("the store is closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self.jobs.put((loop, future, call))
        return await future

    def shutdown(self) -> None:
        """Finish the jobs queued, then stop."""
        self.closed = True
        self.jobs.put(None)
        self.thread.join()


def rollback(db: sqlite3.Connection) -> None:
    """Undo a failed transaction, if SQLite has not already: a full disk or an I/O error ends
    it by itself, and a ROLLBACK then would raise an error of its own in the place of the cause."""
    if db.in_transaction:
        db.execute("ROLLBACK")


def insert_sql(table: Any) -> str:
    """Positional parameters: sqlite3 binds a tuple faster than it looks names up in a dict."""
    columns = [c.name for c in table.columns]
    return (
        f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    )


INLINE_EVENTS = 1024  # a bigger write leaves the event loop free while it is done (see below)
LOCK_WAIT_S = 0.05  # another writer holding the lock longer is waited for in the writer thread


class SqliteBackend:
    """Plain sqlite3 connections, each in a thread of its own.

    A write of up to INLINE_EVENTS events (the scribe's group commits) is done on the event loop's
    own thread, blocking it for the transaction and its flush (a millisecond or two): the hop to a
    writer thread and back, and the GIL passed between the two threads at every row, cost 10 %
    of a command's CPU under the 200-phone bench (bench/duels.py), and the acks wait for the
    flush either way. A bigger write (an imported log) goes to the writer thread, so that the
    sockets are served meanwhile; so does a write that finds the lock held for longer than
    LOCK_WAIT_S (another process's import, a big game's snapshot). The event loop never waits
    for the lock itself: it tries it again every millisecond and goes on meanwhile (another
    worker's commit takes one or two).

    Through the async driver every statement is a hop between threads, and SQLAlchemy's async
    layer adds more: a durable append cost milliseconds where SQLite needs a tenth of one, and
    reading a long log back took many times longer than folding it.
    The writer: BEGIN IMMEDIATE takes the write lock up front (a deferred BEGIN would turn a second
    writer into "database is locked"), busy_timeout makes another process's writer wait for it,
    and synchronous=FULL means COMMIT returns only once the events are on disk. The readers see
    the last committed state without waiting for the writer (WAL).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.writer = Worker("sqlite-writer")
        self.readers = ThreadPoolExecutor(2, thread_name_prefix="sqlite-reader")
        self.snapshotter = ThreadPoolExecutor(1, thread_name_prefix="sqlite-snapshots")
        self.local = threading.local()
        self.opened: list[sqlite3.Connection] = []
        self.sql = {t.name: insert_sql(t) for t in (GAMES, EVENTS, TOKENS)}
        self.locks: list[IO[str]] = []  # the writers' lock files, one a writing thread
        # The writer's alone: each game's last event as this process wrote it (seq, hash).
        self.heads: dict[str, tuple[int, str]] = {}

    def connection(self) -> sqlite3.Connection:
        """This thread's connection."""
        db: sqlite3.Connection | None = getattr(self.local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA busy_timeout=10000")
            self.local.db = db
            self.opened.append(db)
        return db

    def write_now(self, rows: Rows, prepared: Prepared | None = None) -> None:
        prepared = prepare(rows) if prepared is None else prepared
        db = self.connection()
        with self.write_lock():
            self.write_locked(db, rows, prepared)

    def lock_file(self) -> IO[str]:
        """This thread's own open file for the writers' lock (flock shuts out other open files,
        not other threads)."""
        lock: IO[str] | None = getattr(self.local, "lock", None)
        if lock is None:
            lock = self.local.lock = open(f"{self.path}-writer.lock", "a")  # noqa: SIM115
            self.locks.append(lock)
        return lock

    @contextmanager
    def write_lock(self) -> Iterator[None]:
        """The processes that write this file (the workers of `--workers N`) take turns through
        a lock the kernel hands on at once: SQLite's own busy handler sleeps a millisecond or
        more each time it finds the file locked, and commits take a fraction of that."""
        lock = self.lock_file()
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)

    async def locked_soon(self) -> IO[str] | None:
        """The write lock, taken on the event loop's thread if it is free within LOCK_WAIT_S
        (tried every millisecond, the event loop going on meanwhile); None when another writer
        holds it longer (an import, a big snapshot)."""
        lock = self.lock_file()
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return lock
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return None
                await asyncio.sleep(0.001)

    def write_locked(self, db: sqlite3.Connection, rows: Rows, prepared: Prepared) -> None:
        db.execute("BEGIN IMMEDIATE")
        try:
            found = {}
            for game_id, expected in rows.heads().items():
                known = self.heads.get(game_id)
                if known is not None and known[0] == expected:
                    # Where this process's last write left the game: had another process written
                    # to it since, the insert below would collide with its event on the key.
                    found[game_id] = known
                    continue
                last = db.execute(  # the game's last event, through the key's index
                    "SELECT seq, hash FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
                    (game_id,),
                ).fetchone()
                if last is not None:
                    found[game_id] = (last[0], last[1])
            events, ends = check_and_seal(rows, prepared, found)
            if prepared.games:
                db.executemany(self.sql["games"], prepared.games)
            db.executemany(self.sql["events"], events)
            if prepared.tokens:
                db.executemany(self.sql["tokens"], prepared.tokens)
            db.execute("COMMIT")
        except BaseException:
            rollback(db)
            raise
        self.heads.update(ends)

    async def write(self, rows: Rows) -> None:
        try:
            if rows.events > INLINE_EVENTS:
                await self.writer.run(partial(self.write_now, rows))
                return
            prepared = prepare(rows)
            lock = await self.locked_soon()
            if lock is None:
                await self.writer.run(partial(self.write_now, rows, prepared))
                return
            try:
                self.write_locked(self.connection(), rows, prepared)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        except sqlite3.IntegrityError as error:
            raise Conflict(str(error)) from error
        except (sqlite3.DataError, ValueError, OverflowError) as error:  # a surrogate, a big int
            raise Unstorable(str(error)) from error
        except (sqlite3.Error, OSError) as error:
            raise Unavailable(cause(error)) from error

    async def read(self, sql: str, *args: Any) -> list[Any]:
        def query() -> list[Any]:
            return self.connection().execute(sql, args).fetchall()

        return await asyncio.get_running_loop().run_in_executor(self.readers, query)

    async def game(self, game_id: str) -> dict[str, Any] | None:
        names = [c.name for c in GAMES.columns]
        rows = await self.read(f"SELECT {', '.join(names)} FROM games WHERE game_id = ?", game_id)
        return dict(zip(names, rows[0], strict=True)) if rows else None

    async def events(self, game_id: str, after: int, limit: int | None) -> list[EventTuple]:
        return await self.read(
            f"SELECT {', '.join(COLUMNS)} FROM events WHERE game_id = ? AND seq > ?"
            " ORDER BY seq LIMIT ?",
            game_id,
            after,
            -1 if limit is None else limit,
        )

    async def history(self, game_id: str, after: int) -> list[HistoryTuple]:
        return await self.read(
            "SELECT seq, type, data, version, command_id FROM events WHERE game_id = ? AND seq > ?"
            " ORDER BY seq",
            game_id,
            after,
        )

    async def hash_at(self, game_id: str, seq: int) -> str | None:
        rows = await self.read(
            "SELECT hash FROM events WHERE game_id = ? AND seq = ?", game_id, seq
        )
        return rows[0][0] if rows else None

    async def snapshot(self, game_id: str) -> SnapshotTuple | None:
        rows = await self.read(
            "SELECT seq, hash, shape, state FROM snapshots WHERE game_id = ?", game_id
        )
        return tuple(rows[0]) if rows else None

    def save_snapshot_now(
        self, game_id: str, seq: int, shape: str, state: bytes, created_at: int
    ) -> None:
        db = self.connection()
        # This thread writes only snapshots, which the log can always rebuild: no flush of
        # its own (a later durable commit flushes the WAL up to it anyway).
        db.execute("PRAGMA synchronous=NORMAL")
        with self.write_lock():
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(SAVE_SNAPSHOT, (shape, state, created_at, game_id, seq))
                db.execute("COMMIT")
            except BaseException:
                rollback(db)
                raise

    async def save_snapshot(
        self, game_id: str, seq: int, shape: str, state: bytes, created_at: int
    ) -> None:
        """In a thread of its own, never the writer's: a snapshot never waits behind appends
        in the queue (it holds SQLite's write lock only for its own short transaction)."""
        args = (game_id, seq, shape, state, created_at)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self.snapshotter, self.save_snapshot_now, *args)

    async def token(self, token: str) -> tuple[str, str] | None:
        rows = await self.read("SELECT game_id, player_id FROM tokens WHERE token = ?", token)
        return (rows[0][0], rows[0][1]) if rows else None

    async def tokens(self, game_id: str) -> dict[str, str]:
        rows = await self.read("SELECT player_id, token FROM tokens WHERE game_id = ?", game_id)
        return dict(rows)

    def seen_now(self, token: str, at: int) -> None:
        db = self.connection()
        with self.write_lock():
            db.execute(
                "UPDATE tokens SET seen_at = ? WHERE token = ? AND seen_at IS NULL", (at, token)
            )

    async def seen(self, token: str, at: int) -> None:
        """In the snapshots' thread, never the writer's: a first join never waits behind
        appends (one short transaction of its own)."""
        try:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(self.snapshotter, self.seen_now, token, at)
        except (sqlite3.Error, OSError) as error:
            raise Unavailable(cause(error)) from error

    async def joined(self, game_id: str) -> set[str]:
        rows = await self.read(
            "SELECT player_id FROM tokens WHERE game_id = ? AND seen_at IS NOT NULL", game_id
        )
        return {row[0] for row in rows}

    async def listen(self, heard: Heard) -> None:
        """One server per SQLite file: nobody else writes, nothing to hear."""

    async def close(self) -> None:
        for pool in (self.writer, self.readers, self.snapshotter):
            pool.shutdown()
        for db in self.opened:
            db.close()
        self.opened.clear()
        for lock in self.locks:
            lock.close()
        self.locks.clear()


# The hash is taken from the event itself, in the same statement: a snapshot names an event on
# disk, or is not written. A newer snapshot is not replaced by an older one of the same shape.
SAVE_SNAPSHOT = """
INSERT INTO snapshots (game_id, seq, hash, shape, state, created_at)
SELECT game_id, seq, hash, ?, ?, ? FROM events WHERE game_id = ? AND seq = ?
ON CONFLICT (game_id) DO UPDATE SET
    seq = excluded.seq, hash = excluded.hash, shape = excluded.shape, state = excluded.state,
    created_at = excluded.created_at
WHERE snapshots.seq <= excluded.seq OR snapshots.shape <> excluded.shape
"""
