"""Several worker processes behind one port, each owning a share of the games (`--workers N`).

One Python process runs on one core. The door, in the parent process, accepts each connection,
peeks at its request line without reading it, and hands the socket itself (its file descriptor,
over a Unix socket) to the worker that owns the game the path names: `/ws/games/{gid}` and
`/api/games/{gid}/...` go to worker `crc32(gid) % N`, anything else to the next worker in turn.
A worker names the games it creates so that they are its own: games are shared out as their
creations take turns, evenly, not as their random ids happen to fall (100 games of two phones
split 41/59 as often as not, and the busier worker set the pace).
The worker serves the connection as if it had accepted it. So every game has one writer, in
one order, as with one process: its sockets, its commands and its catch-ups all live in one
worker, which alone decides and writes its events. A worker answers plain HTTP with
`Connection: close`, so that the next request (maybe for another game) comes through the door
again; WebSockets stay with their game's worker for as long as they live.

A worker that dies is started again; its phones reconnect through the door and find their game
loaded from the log by the new worker: nothing acknowledged is lost (acks follow the disk).
"""

import asyncio
import contextlib
import re
import signal
import socket
import subprocess
import sys
import zlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from starlette.types import ASGIApp

from server.headers import Adding

GAME = re.compile(rb"^[A-Z]+ /(?:ws|api)/games/([^/?# ]+)")
HEAD = 8192  # bytes of a request line looked at before the connection is refused
HEAD_S = 10.0  # seconds a connection may take to send its request line
PEEK_S = 0.01  # between looks at a request line that has not all come yet


def worker_of(game_id: bytes, workers: int) -> int:
    """The worker that owns a game."""
    return zlib.crc32(game_id) % workers


def owns(worker: int, workers: int) -> Callable[[str], bool]:
    """Whether a game is this worker's."""
    return lambda game_id: worker_of(game_id.encode(), workers) == worker


def owner(request_line: bytes, workers: int, turn: int) -> int:
    """The worker for a request: its game's, else the one whose turn it is."""
    found = GAME.match(request_line)
    if found is None:
        return turn % workers
    return worker_of(found[1], workers)


async def readable(sock: socket.socket) -> None:
    """Until the socket has something to read."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def ready_now() -> None:  # the loop may call back again before this coroutine runs
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(sock.fileno(), ready_now)
    try:
        await ready
    finally:
        loop.remove_reader(sock.fileno())


async def request_line(conn: socket.socket) -> bytes | None:
    """The first line of what the client sent, peeked at (left in the socket for the worker)."""
    async with asyncio.timeout(HEAD_S):
        await readable(conn)
        while True:
            seen = conn.recv(HEAD, socket.MSG_PEEK)
            if not seen:
                return None  # closed before a word
            if b"\n" in seen or len(seen) >= HEAD:
                return seen.split(b"\n", 1)[0]
            # Peeked bytes stay in the socket, which stays readable: waiting to read again
            # would spin. Wait a moment for the rest of the line instead.
            await asyncio.sleep(PEEK_S)


class Door:
    def __init__(self, listener: socket.socket, command: Sequence[str], workers: int) -> None:
        self.listener = listener
        self.command = list(command)  # the worker's `bijse serve ... --door-fd` without the fd
        self.count = workers
        self.pipes: list[socket.socket] = []
        self.processes: list[subprocess.Popen[bytes]] = []
        self.turn = 0
        self.stopping = False
        self.routing: set[asyncio.Task[None]] = set()
        self.accepting: asyncio.Task[Any] | None = None

    def spawn(self, n: int) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        process = subprocess.Popen(
            [*self.command, "--door-fd", str(theirs.fileno()), "--worker", f"{n}/{self.count}"],
            pass_fds=[theirs.fileno()],
        )
        theirs.close()
        if n < len(self.pipes):
            self.pipes[n].close()
            self.pipes[n], self.processes[n] = ours, process
        else:
            self.pipes.append(ours)
            self.processes.append(process)

    async def run(self) -> None:
        for n in range(self.count):
            self.spawn(n)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.stop)
        self.listener.setblocking(False)
        watcher = asyncio.create_task(self.watch())
        self.accepting = asyncio.current_task()
        try:
            while not self.stopping:
                with contextlib.suppress(OSError):
                    conn, _ = await loop.sock_accept(self.listener)
                    task = asyncio.create_task(self.route(conn))
                    self.routing.add(task)
                    task.add_done_callback(self.routing.discard)
        except asyncio.CancelledError:
            pass  # stopped
        finally:
            watcher.cancel()
            self.listener.close()
            self.shutdown()

    def stop(self) -> None:
        self.stopping = True
        if self.accepting is not None:
            self.accepting.cancel()  # the accept above ends, and with it run()

    async def watch(self) -> None:
        """Start a worker again when it dies."""
        while True:
            await asyncio.sleep(0.2)
            for n, process in enumerate(self.processes):
                if process.poll() is not None and not self.stopping:
                    print(f"worker {n} exited with {process.returncode}; starting it again")
                    self.spawn(n)

    async def route(self, conn: socket.socket) -> None:
        try:
            line = await request_line(conn)
            if line:
                self.turn += 1
                pipe = self.pipes[owner(line, self.count, self.turn)]
                socket.send_fds(pipe, [b"c"], [conn.fileno()])
        except (OSError, TimeoutError):
            pass
        finally:
            conn.close()  # the worker holds its own copy

    def shutdown(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def open_door(listener: socket.socket, workers: int) -> int:
    """Run the door in this process, with `workers` workers that are this same command line."""
    command, skip = [sys.executable, "-m", "server.cli"], False
    for arg in sys.argv[1:]:
        if skip or arg.startswith("--workers="):
            skip = False
            continue
        skip = arg == "--workers"  # and the value after it
        if not skip:
            command.append(arg)
    asyncio.run(Door(listener, command, workers).run())
    return 0


def closing(app: ASGIApp) -> ASGIApp:
    """Plain HTTP from a worker says `Connection: close`: the next request comes through the
    door, which knows its game's worker."""
    return Adding(app, {"Connection": "close"})


async def receive_connections(
    pipe: socket.socket, serve: Callable[[socket.socket], Awaitable[object]]
) -> None:
    """In a worker: take each connection the door hands over and serve it (`serve(sock)`)."""
    pipe.setblocking(False)
    while True:
        await readable(pipe)
        while True:
            try:
                data, fds, _, _ = socket.recv_fds(pipe, 16, 64)
            except BlockingIOError:
                break
            if not data:
                return  # the door is gone
            for fd in fds:
                await serve(socket.socket(fileno=fd))
