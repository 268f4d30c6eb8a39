"""Connections coming in: accepted off the listening socket, or handed over by the door with what
it read of them; at the open-file limit too.

At the limit (EMFILE, ENFILE; ENOBUFS and ENOMEM alike) `accept` fails while the connection
stays in the listen queue, so the socket stays readable: the door tried again at once, 45,000
times a second, its event loop never turned again, nothing was answered and SIGTERM was not
heard. Here a process that cannot accept waits BACKOFF_S before it tries again: connections
wait in the listen queue (2,048 of them) meanwhile, and are taken as soon as descriptors are
free. A worker at its limit receives the door's message without the connection's descriptor
(the kernel drops it, and the client sees its connection closed), and waits likewise before it
takes the next. Each process logs it, at most once every SAY_S.
"""

import asyncio
import logging
import resource
import socket
import time
from collections.abc import AsyncIterator

from server.serve.head import HEAD_MAX

BACKOFF_S = 0.1  # between two tries while descriptors are short
SAY_S = 10.0  # between two log lines about it
logger = logging.getLogger("bijse.intake")


def open_files() -> int:
    """Raise this process's soft limit on open files to its hard limit (the workers inherit
    it); the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (OSError, ValueError):
            pass  # a hard limit above what the kernel allows (fs.nr_open): keep the soft one
    return soft


class Shortage:
    """Says that descriptors ran short: the first time, then at most once every SAY_S."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.said = -SAY_S

    def short(self, reason: str) -> None:
        now = time.monotonic()
        if now - self.said >= SAY_S:
            self.said = now
            logger.warning("%s: %s; trying again every %g s", self.what, reason, BACKOFF_S)


async def readable(sock: socket.socket) -> None:
    """Until the socket has something to read."""
    await ready(sock, write=False)


async def writable(sock: socket.socket) -> None:
    """Until the socket takes more."""
    await ready(sock, write=True)


async def ready(sock: socket.socket, write: bool) -> None:
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()

    def now() -> None:  # the loop may call back again before this coroutine runs
        if not done.done():
            done.set_result(None)

    fd = sock.fileno()
    (loop.add_writer if write else loop.add_reader)(fd, now)
    try:
        await done
    finally:
        (loop.remove_writer if write else loop.remove_reader)(fd)


async def accepted(listener: socket.socket) -> AsyncIterator[socket.socket]:
    """Every connection made to `listener`, non-blocking."""
    loop = asyncio.get_running_loop()
    listener.setblocking(False)
    fd = listener.fileno()
    shortage = Shortage("accepting connections")
    waiting: asyncio.Future[None] | None = None

    def wake() -> None:
        if waiting is not None and not waiting.done():
            waiting.set_result(None)

    # Watched for as long as connections come (adding and removing a reader for each one cost
    # more than the rest of taking it), except while descriptors are short: ready all the
    # while, the listener would wake the loop at every turn.
    loop.add_reader(fd, wake)
    try:
        while True:
            try:
                conn, _ = listener.accept()
            except BlockingIOError:
                waiting = loop.create_future()
                await waiting
                waiting = None
                continue
            except OSError as error:  # short of descriptors (or of memory)
                shortage.short(error.strerror or str(error))
                loop.remove_reader(fd)
                await asyncio.sleep(BACKOFF_S)
                loop.add_reader(fd, wake)
                continue
            conn.setblocking(False)
            yield conn
    finally:
        loop.remove_reader(fd)


async def hand_over(pipe: socket.socket, head: bytes, conn: socket.socket) -> None:
    """Send a worker a connection and what was read of it, in one message of the door's
    SOCK_SEQPACKET pipe (which keeps message boundaries); waits while the worker's is full."""
    while True:
        try:
            socket.send_fds(pipe, [head], [conn.fileno()])
            return
        except BlockingIOError:
            await writable(pipe)


async def handed_over(pipe: socket.socket) -> AsyncIterator[tuple[socket.socket, bytes]]:
    """In a worker: each connection the door hands over, with what the door read of it; ends
    when the door is gone."""
    pipe.setblocking(False)
    shortage = Shortage("taking connections from the door")
    while True:
        try:
            head, fds, flags, _ = socket.recv_fds(pipe, HEAD_MAX, 1)
        except BlockingIOError:
            await readable(pipe)
            continue
        except OSError as error:
            shortage.short(error.strerror or str(error))
            await asyncio.sleep(BACKOFF_S)
            continue
        if not head:
            return  # the door is gone
        if flags & socket.MSG_CTRUNC:  # the descriptor did not fit in this process
            for fd in fds:
                socket.close(fd)
            shortage.short("Too many open files: a connection was lost")
            await asyncio.sleep(BACKOFF_S)
            continue
        for fd in fds:
            yield socket.socket(fileno=fd), head
