"""Group commit: the one writer of this process.

Appends queue up while the previous transaction is being flushed to disk, and are then written
together in one transaction. On SQLite, where a durable commit costs a disk flush, this turns
"one flush per command" into "one flush per batch" without acknowledging anything early.
"""

import asyncio
import contextlib
from collections.abc import Callable

from server.store import Append, Conflict, Store, Unavailable


class Scribe:
    def __init__(self, store: Store, written: Callable[[list[Append]], None]) -> None:
        self.store = store
        self.written = written  # told of every append that is on disk, in order
        self.queue: list[tuple[Append, asyncio.Future[None]]] = []
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self.run(), name="scribe")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        for _, future in self.queue:
            if not future.done():
                future.set_exception(Unavailable("the server is stopping"))

    async def write(self, append: Append) -> None:
        """Return once the append is on disk; raise Conflict or Unavailable if it is not."""
        future = asyncio.get_running_loop().create_future()
        self.queue.append((append, future))
        self.wake.set()
        await future

    async def run(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            batch, self.queue = self.queue, []
            if batch:
                await self.commit(batch)

    async def commit(self, batch: list[tuple[Append, asyncio.Future[None]]]) -> None:
        try:
            await self.store.append([append for append, _ in batch])
        except Conflict:
            if len({append.game_id for append, _ in batch}) > 1:
                await self.commit_each_game(batch)
                return
            self.fail(batch, Conflict("the game moved on"))
            return
        except Unavailable as error:
            self.fail(batch, error)
            return
        self.done(batch)

    async def commit_each_game(self, batch: list[tuple[Append, asyncio.Future[None]]]) -> None:
        """One game's conflict must not sink the other games of the batch."""
        games: dict[str, list[tuple[Append, asyncio.Future[None]]]] = {}
        for item in batch:
            games.setdefault(item[0].game_id, []).append(item)
        for items in games.values():
            try:
                await self.store.append([append for append, _ in items])
            except (Conflict, Unavailable) as error:
                self.fail(items, error)
            else:
                self.done(items)

    def done(self, items: list[tuple[Append, asyncio.Future[None]]]) -> None:
        self.written([append for append, _ in items])
        for _, future in items:
            if not future.done():
                future.set_result(None)

    @staticmethod
    def fail(items: list[tuple[Append, asyncio.Future[None]]], error: Exception) -> None:
        for _, future in items:
            if not future.done():
                future.set_exception(error)
