"""What the chaos tests share: real `bijse serve` processes, the log as the database holds it
and its checks, and the figures every test reports (printed as one table at the end of the run:
see tests/figures.py).

`BIJSE_CHAOS_SCALE` multiplies every budget (1 in the normal run: the whole suite in well under
a minute and a half); `BIJSE_CHAOS_SEED` picks the seed the random faults and moments come from.
"""

import contextlib
import os
import random
import signal
import subprocess
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from server.store import Recorded, Store
from tests.chaos.crowd import alive, children
from tests.conftest import free_port
from tests.proxy import serve, stop

SCALE = max(1, int(os.environ.get("BIJSE_CHAOS_SCALE") or 1))
SEED = int(os.environ.get("BIJSE_CHAOS_SEED") or 20240601)
ENV = {"BIJSE_RATE_LIMITS": "off"}  # the load is many phones' worth, from one address
DIED = ("Exception in ASGI application", "Traceback (most recent call last)")


def rng(name: str) -> random.Random:
    """A random source of its own for each test and phone, from the run's seed."""
    return random.Random(f"{SEED}:{name}")


@dataclass
class Server:
    """One `bijse serve` process, restartable on the same port and database."""

    database_url: str
    log: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    workers: int = 1  # `bijse serve --workers N`: a door and N worker processes

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        more = ("--workers", str(self.workers))
        self.process = await serve(self.port, self.database_url, self.log, *more, env=ENV)

    def kill(self) -> None:
        """kill -9, of the door and of every worker: nothing is flushed, nothing is closed."""
        assert self.process is not None
        workers = children(self.process.pid)
        self.process.kill()
        for pid in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.process.wait()
        for pid in workers:  # reaped by init once gone: wait until they are
            while alive(pid):
                time.sleep(0.01)

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)

    def tail(self, size: int = 4000) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return text[-size:]

    def died(self) -> int:
        """Requests and socket handlers that ended in an uncaught exception (uvicorn logs each
        with its traceback)."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return max(text.count(marker) for marker in DIED)


@asynccontextmanager
async def servers(database_url: str, count: int, logs: Path) -> AsyncIterator[list[Server]]:
    """`count` servers on one database, started one after the other (the first migrates)."""
    started = [Server(database_url, logs / f"server{n}.log") for n in range(count)]
    try:
        for server in started:
            await server.start()
        yield started
    except BaseException:
        for server in started:  # shown with the failure: what the servers said
            print(f"--- {server.log}:\n{server.tail()}")
        raise
    finally:
        for server in started:
            server.stop()


async def read_log(database_url: str, game_id: str) -> list[Recorded]:
    """The game's log as the database holds it, command ids included (the exported log has
    none), read beside the servers."""
    store = Store.open(database_url)
    try:
        return await store.events(game_id)
    finally:
        await store.close()


def broken_chain(log: list[Recorded]) -> list[str]:
    """What is wrong with the log's numbering and hash chain: gaps, repeats, broken links."""
    problems = []
    for n, (before, recorded) in enumerate(zip([None, *log], log, strict=False), start=1):
        if recorded.seq != n:
            problems.append(f"event {n} has seq {recorded.seq}")
        if before is not None and recorded.prev_hash != before.hash:
            problems.append(f"seq {recorded.seq} does not chain to seq {before.seq}")
    return problems


def effects(log: list[Recorded]) -> Counter[str]:
    """How many times each command id was written (it goes on its command's last event)."""
    return Counter(r.command_id for r in log if r.command_id is not None)
