"""The store's failed writes, as an operator meets them.

In the server's log: the first failure of a cause at once, with its cause; later failures of the
same cause within a minute are only counted, and told with the next line of that cause (the next
failure a minute or more after its last line) or with the line saying writes succeed again
(itself at most one a minute: a disk on the edge of full lets some commits through). A full disk
refusing hundreds of commands a second costs a few lines, not one a command.

On `/healthz`: failing from a failed write until a write succeeds. Under a door's workers, each
answers for all of them (`Board`): whichever the door hands `/healthz` to, a full disk shows.

The lines go to uvicorn's own logger, so they take the server log's format and `--log-level`;
they are warnings, shown at the default level.
"""

import json
import logging
import math
import mmap
import time
from collections.abc import Callable
from typing import Any

from server.clock import iso, now_ms

EVERY_S = 60.0
logger = logging.getLogger("uvicorn.error")


class Board:
    """What the workers of one door know of each other's writes: a slot a worker in a memory
    file the door made (no disk: a full one does not stop it), holding its failure, if any, as
    JSON. A slot read while being written does not parse, and counts as no failure."""

    SLOT = 512

    def __init__(self, fd: int, workers: int, me: int) -> None:
        self.memory = mmap.mmap(fd, self.SLOT * workers)
        self.workers, self.me = workers, me

    @classmethod
    def size(cls, workers: int) -> int:
        return cls.SLOT * workers

    def tell(self, failing: dict[str, Any] | None) -> None:
        text = b"" if failing is None else json.dumps(failing).encode()[: self.SLOT]
        start = self.me * self.SLOT
        self.memory[start : start + self.SLOT] = text.ljust(self.SLOT, b"\0")

    def elsewhere(self) -> tuple[int, dict[str, Any]] | None:
        """Another worker's failure, if one fails now."""
        for n in range(self.workers):
            if n == self.me:
                continue
            raw = self.memory[n * self.SLOT : (n + 1) * self.SLOT].rstrip(b"\0")
            if not raw:
                continue
            try:
                failing = json.loads(raw)
            except ValueError:
                continue
            if isinstance(failing, dict):
                return n, failing
        return None


class Failures:
    def __init__(
        self, every_s: float = EVERY_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.board: Board | None = None  # under a door: the other workers learn of failures
        self.every_s = every_s
        self.clock = clock
        self.failing: str | None = None  # the cause of the last write's failure, until one works
        self.since = ""  # when writes began to fail (ISO 8601)
        self.refused = 0  # commands refused since then
        self.told: dict[str, float] = {}  # cause -> when its last line was written
        self.untold: dict[str, int] = {}  # cause -> commands refused since its last line
        self.recovery_told = -math.inf  # when the last "succeed again" line was written

    def failed(self, cause: str, commands: int, bug: BaseException | None = None) -> None:
        """A write of `commands` commands failed for `cause` (their clients are told 503); a
        bug's line is an error, with its traceback."""
        now = self.clock()
        if self.failing is None:
            self.since, self.refused = iso(now_ms()), 0
        self.failing = cause
        self.refused += commands
        if self.board is not None:
            self.board.tell({"cause": cause[:300], "since": self.since, "refused": self.refused})
        last = self.told.get(cause)
        if last is not None and now - last < self.every_s:
            self.untold[cause] = self.untold.get(cause, 0) + commands
            return
        # A cause quiet for a minute has nothing untold left but what its next line says.
        self.told = {c: t for c, t in self.told.items() if now - t < self.every_s}
        self.told[cause] = now
        refused = counted(commands + self.untold.pop(cause, 0))
        since = "" if last is None else f" in the last {now - last:.0f} s"
        logger.log(
            logging.WARNING if bug is None else logging.ERROR,
            "writes to the store fail: %s (%s refused with 503 unavailable%s; more of this "
            "cause are counted, and logged %.0f s after this line at the soonest)",
            cause,
            refused,
            since,
            self.every_s,
            exc_info=bug,
        )

    def succeeded(self) -> None:
        """A write is on disk."""
        if self.failing is None and not self.untold:
            return
        self.failing = None
        if self.board is not None:
            self.board.tell(None)
        now = self.clock()
        if now - self.recovery_told < self.every_s:
            return  # flapping: what it refused meanwhile is told with a later line
        self.recovery_told = now
        untold = "; ".join(f"{counted(n)} by {cause}" for cause, n in self.untold.items())
        self.untold.clear()
        logger.warning(
            "writes to the store succeed again%s",
            f" (refused since the last line: {untold})" if untold else "",
        )


def counted(commands: int) -> str:
    return f"{commands} command{'' if commands == 1 else 's'}"
