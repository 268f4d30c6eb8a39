"""Group commit: the one writer of this process.

Appends queue up while the previous transaction is being flushed to disk, and are then written
together in one transaction. On SQLite, where a durable commit costs a disk flush, this turns
"one flush per command" into "one flush per batch" without acknowledging anything early.
"""

import asyncio
import contextlib
from collections.abc import Callable

from server.store import Append, Conflict, Store, Unavailable

# An append, the future its writer waits on, and the future of the write it was decided on top
# of (None: the state on disk).
Item = tuple[Append, asyncio.Future[None], asyncio.Future[None] | None]


class Scribe:
    def __init__(self, store: Store, written: Callable[[list[Append]], None]) -> None:
        self.store = store
        self.written = written  # told of every append that is on disk, in order
        self.queue: list[Item] = []
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self.run(), name="scribe")

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
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
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

    async def commit(self, batch: list[Item]) -> None:
        batch = self.founded(batch)
        if not batch:
            return
        try:
            await self.store.append([append for append, _, _ in batch])
        except Conflict:
            if len({append.game_id for append, _, _ in batch}) > 1:
                await self.commit_each_game(batch)
                return
            self.fail(batch, Conflict("the game moved on"))
            return
        except Unavailable as error:
            self.fail(batch, error)
            return
        self.done(batch)

    @staticmethod
    def founded(batch: list[Item]) -> list[Item]:
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

    async def commit_each_game(self, batch: list[Item]) -> None:
        """One game's conflict must not sink the other games of the batch."""
        games: dict[str, list[Item]] = {}
        for item in batch:
            games.setdefault(item[0].game_id, []).append(item)
        for items in games.values():
            try:
                await self.store.append([append for append, _, _ in items])
            except (Conflict, Unavailable) as error:
                self.fail(items, error)
            else:
                self.done(items)

    def done(self, items: list[Item]) -> None:
        self.written([append for append, _, _ in items])
        for _, future, _ in items:
            if not future.done():
                future.set_result(None)

    @staticmethod
    def fail(items: list[Item], error: Exception) -> None:
        for _, future, _ in items:
            if not future.done():
                future.set_exception(error)
