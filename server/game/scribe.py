"""Group commit: the one writer of this process.

Appends queue up while the previous transaction is being flushed to disk, and are then written
together in one transaction. On SQLite, where a durable commit costs a disk flush, this turns
"one flush per command" into "one flush per batch" without acknowledging anything early.
A batch that fails for a reason of one of its appends (a conflict in one game, a value the
database cannot hold) is written again apart, so that only that append and those decided on
top of it fail; a database that is down fails the whole batch at once. An append decided on top
of a write that failed fails too, unwritten, even when a later batch would take it. A write that
fails for the database's sake (or a bug's) is told to `failures`: the log and /healthz.
"""

import asyncio
import contextlib
from collections.abc import Callable

from server.game.failures import Failures
from server.store import Append, Conflict, Store, Unavailable, Unstorable

# An append, the future its writer waits on, and the future of the write it was decided on top
# of (None: the state on disk).
Item = tuple[Append, asyncio.Future[None], asyncio.Future[None] | None]
Batch = list[Item]


class Scribe:
    def __init__(self, store: Store, written: Callable[[list[Append]], None]) -> None:
        self.store = store
        self.written = written  # told of every append that is on disk, in order
        self.queue: Batch = []
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.failures = Failures()
        # Bound once: every asyncio.get_running_loop() asks the kernel for the process's id.
        self.loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.task = self.loop.create_task(self.run(), name="scribe")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        for _, future, _ in self.queue:
            if not future.done():
                future.set_exception(Unavailable("the server is stopping"))

    async def write(self, append: Append) -> None:
        """Return once the append is on disk; raise Conflict or Unavailable if it is not."""
        await self.submit(append)

    def submit(
        self, append: Append, basis: asyncio.Future[None] | None = None
    ) -> asyncio.Future[None]:
        """Queue an append; its future is done once it is on disk, or failed (Conflict,
        Unavailable). `basis` is the write it was decided on top of: when that one fails, this
        one fails with it, unwritten, even if its seq would fit the log's end by then (another
        server wrote as many events): it was decided on a state the log never had."""
        loop = self.loop or asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self.queue.append((append, future, basis))
        self.wake.set()
        return future

    async def run(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            batch, self.queue = self.queue, []
            if batch:
                await self.commit(batch)

    async def commit(self, batch: Batch) -> bool:
        """Write the batch in one transaction; True if all of it is on disk."""
        kept = self.founded(batch)
        if not kept:
            return False
        try:
            await self.store.append([append for append, _, _ in kept])
        except Conflict:
            games: dict[str, Batch] = {}
            for item in kept:
                games.setdefault(item[0].game_id, []).append(item)
            if len(games) > 1:  # one game's conflict must not sink the other games
                return await self.commit_apart(list(games.values()))
            self.fail(kept, Conflict("the game moved on"))
            return False
        except Unstorable as error:
            if len(kept) > 1:  # one append's value must not sink the others
                return await self.commit_apart([[item] for item in kept])
            self.fail(kept, error)
            return False
        except Unavailable as error:
            self.failures.failed(error.detail, len(kept))
            self.fail(kept, error)
            return False
        except Exception as error:  # a bug; whichever append it lies in, the scribe must go on
            if len(kept) > 1:
                return await self.commit_apart([[item] for item in kept])
            self.failures.failed(f"a bug: {type(error).__name__}: {error}", 1, error)
            self.fail(kept, Unavailable("the append failed"))
            return False
        self.done(kept)
        return len(kept) == len(batch)

    async def commit_apart(self, groups: list[Batch]) -> bool:
        """Each group in a transaction of its own, in order. A group that fails takes with it
        the later groups of its game: they were decided on top of it. (Written alone, one of
        them could land on another server's events at the seqs the failed one left free.)"""
        sunk: set[str] = set()
        for items in groups:
            game_id = items[0][0].game_id
            if game_id in sunk:
                self.fail(items, Conflict("an earlier command of this game was not written"))
            elif not await self.commit(items):
                sunk.add(game_id)
        return not sunk

    @staticmethod
    def founded(batch: Batch) -> Batch:
        """The appends whose basis did not fail; the others fail now, unwritten. (A basis in
        this same batch is written or fails with it: one game's appends are all or nothing.)"""
        kept = []
        for append, future, basis in batch:
            if basis is not None and basis.done() and basis.exception() is not None:
                if not future.done():
                    future.set_exception(Conflict("decided on top of a write that failed"))
            else:
                kept.append((append, future, basis))
        return kept

    def done(self, items: Batch) -> None:
        self.failures.succeeded()
        self.written([append for append, _, _ in items])
        for _, future, _ in items:
            if not future.done():
                future.set_result(None)

    @staticmethod
    def fail(items: Batch, error: Exception) -> None:
        for _, future, _ in items:
            if not future.done():
                future.set_exception(error)
