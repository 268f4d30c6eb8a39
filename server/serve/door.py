"""Several worker processes behind one port, each owning a share of the games (`--workers N`).

One Python process runs on one core. The door, in the parent process, accepts each connection,
reads its request's head (line and headers, within HEAD_S and HEAD_MAX: server/serve/head.py), and
hands the socket itself (its file descriptor) with the bytes it read, in one message of a
SOCK_SEQPACKET Unix socket, to the worker that owns the game the path names: `/ws/games/{gid}`
and `/api/games/{gid}/...` go to worker `crc32(gid) % N`, anything else to the next worker in
turn. The worker takes those bytes as if they had just come, then reads the socket. The door
waits on the socket's readability for the head: it never polls (it once peeked every 10 ms, and
2,000 connections that sent a byte kept a core busy).
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
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from starlette.types import ASGIApp

from server.game.failures import Board
from server.game.shares import worker_of
from server.serve.head import HEAD_MAX, HEAD_S, whole
from server.serve.intake import accepted, hand_over
from server.web.headers import Adding

GAME = re.compile(rb"^[A-Z]+ /(?:ws|api)/games/([^/?# ]+)")


def owner(request_line: bytes, workers: int, turn: int) -> int:
    """The worker for a request: its game's, else the one whose turn it is."""
    found = GAME.match(request_line)
    if found is None:
        return turn % workers
    return worker_of(found[1], workers)


async def read_head(conn: socket.socket) -> bytes:
    """What the client sent up to the end of its request's head, or HEAD_MAX bytes of a head
    that does not end (the worker answers it 431); nothing if it closed first. Within HEAD_S."""
    loop = asyncio.get_running_loop()
    head = bytearray()  # grows in place: a head sent a byte a segment costs no copies
    async with asyncio.timeout(HEAD_S):
        while len(head) < HEAD_MAX:
            data = await loop.sock_recv(conn, HEAD_MAX - len(head))
            if not data:
                return b""  # closed before a whole head
            head += data
            if whole(head, len(head) - len(data)):
                break
    return bytes(head)


class Door:
    def __init__(self, listener: socket.socket, command: Sequence[str], workers: int) -> None:
        self.listener = listener
        self.command = list(command)  # the worker's `bijse serve ... --door-fd` without the fd
        self.count = workers
        self.pipes: list[socket.socket] = []
        self.sending = [asyncio.Lock() for _ in range(workers)]  # one waits on a full pipe
        self.processes: list[subprocess.Popen[bytes]] = []
        self.turn = 0
        self.stopping = False
        self.routing: set[asyncio.Task[None]] = set()
        self.accepting: asyncio.Task[Any] | None = None
        # The workers' board of failed writes (server/game/failures.py, Board): in memory.
        self.board = os.memfd_create("bijse-board")
        os.ftruncate(self.board, Board.size(workers))

    def spawn(self, n: int) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            process = subprocess.Popen(
                [
                    *self.command,
                    *("--door-fd", str(theirs.fileno()), "--worker", f"{n}/{self.count}"),
                    *("--board-fd", str(self.board)),
                ],
                pass_fds=[theirs.fileno(), self.board],
            )
        except OSError:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.setblocking(False)
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
        watcher = asyncio.create_task(self.watch())
        self.accepting = asyncio.current_task()
        try:
            async for conn in accepted(self.listener):
                task = asyncio.create_task(self.route(conn))
                self.routing.add(task)
                task.add_done_callback(self.routing.discard)
                await asyncio.sleep(0)  # the connections taken so far move on before the next
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
                    try:
                        self.spawn(n)
                    except OSError as error:  # short of descriptors: the next round tries again
                        print(f"worker {n} could not be started: {error}")

    async def route(self, conn: socket.socket) -> None:
        try:
            head = await read_head(conn)
            if head:
                self.turn += 1
                n = owner(head.split(b"\n", 1)[0], self.count, self.turn)
                # A worker too busy to take its connections for HEAD_S: they are closed.
                async with asyncio.timeout(HEAD_S), self.sending[n]:
                    await hand_over(self.pipes[n], head, conn)  # the pipe of now, if restarted
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
    command, skip = [sys.executable, "-m", "server.serve.cli"], False
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
