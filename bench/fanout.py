"""Fan-out: thousands of connected phones, the server's memory per socket, and how long a change
every screen sees (the organizer's `end_game` in every game at once) takes to reach them all.

Starts a real server (SQLite in a temp dir), creates G games of P players each, connects one
WebSocket per player from a few client processes, and prints the server's RSS before any socket
and with all of them connected and idle (their first views received) -> KiB per socket, then the
time from sending `end_game` in every game until each socket holds a view whose game has ended:
p50, p99 and the max over sockets.

    .venv/bin/python -m bench.fanout [--games 100] [--players 100] [--clients 4]
"""

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import resource
import statistics
import tempfile
import time
import uuid
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx
import orjson
import websockets

from bench.live import Held, cpu_seconds, memory_kib, new_game, server

SETUP_TIMEOUT = 300  # s: the games and their players
CONNECT_TIMEOUT = 300  # s: every socket connected and holding its first view
FANOUT_TIMEOUT = 60  # s: every socket holding the ended game
CONNECTING = 100  # sockets a client process opens at once
# a phone that only listens: no compression, small queues, the server's own pings only
CLIENT: dict[str, Any] = {
    "compression": None,
    "max_size": 2**20,
    "max_queue": 4,
    "write_limit": 4096,
    "ping_interval": None,
    "open_timeout": 60,
    "close_timeout": 2,
}

Seat = tuple[str, str]  # game id, token


def more_files() -> None:
    """Every socket is a file on both ends: lift the soft limit to the hard one."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class Screen:
    """One player's socket: follows views and patches, notes when the game has ended."""

    def __init__(self) -> None:
        self.held = Held()
        self.first = asyncio.Event()
        self.ended_at: float | None = None
        self.mismatches = 0
        self.bytes = 0

    async def follow(self, socket: websockets.ClientConnection) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            while True:
                raw = await socket.recv(decode=False)
                assert isinstance(raw, bytes)
                self.bytes += len(raw)
                message = orjson.loads(raw)
                if message["type"] not in ("view", "patch"):
                    continue
                if not self.held.take(message):
                    self.mismatches += 1
                    continue
                self.first.set()
                if self.ended_at is None and self.held.view["game"]["status"] == "ended":
                    self.ended_at = time.monotonic()  # system-wide: the parent compares it


async def watch(ws_base: str, seats: list[Seat], parent: Connection) -> None:
    gate = asyncio.Semaphore(CONNECTING)
    sockets: list[websockets.ClientConnection] = []
    screens = [Screen() for _ in seats]
    tasks = []

    async def connect(seat: Seat, screen: Screen) -> None:
        async with gate:
            gid, token = seat
            socket = await websockets.connect(f"{ws_base}/ws/games/{gid}?token={token}", **CLIENT)
            sockets.append(socket)
            tasks.append(asyncio.create_task(screen.follow(socket)))
            await screen.first.wait()

    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(CONNECT_TIMEOUT):
            await asyncio.gather(
                *(connect(s, each) for s, each in zip(seats, screens, strict=True))
            )
        parent.send(("ready", sum(each.bytes for each in screens)))
        await loop.run_in_executor(None, parent.recv)  # the parent is sending end_game
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(FANOUT_TIMEOUT):
                while any(each.ended_at is None for each in screens):
                    await asyncio.sleep(0.01)
        parent.send(
            (
                "done",
                [each.ended_at for each in screens],
                sum(each.mismatches for each in screens),
                time.process_time(),
                sum(each.bytes for each in screens),
                sum(each.held.views for each in screens),
            )
        )
    finally:
        await asyncio.gather(*(s.close() for s in sockets), return_exceptions=True)
        for task in tasks:
            task.cancel()


def client(ws_base: str, seats: list[Seat], parent: Connection) -> None:
    """A client process: its share of the sockets."""
    more_files()
    asyncio.run(watch(ws_base, seats, parent))


async def games(base: str, count: int, players: int) -> list[tuple[str, str, list[str]]]:
    """The games: id, organizer token, the players' tokens."""
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        made = []
        for _ in range(count):
            gid, organizer, members = await new_game(http, players)
            made.append((gid, organizer, [m["token"] for m in members]))
        return made


async def end_everywhere(ws_base: str, made: list[tuple[str, str, list[str]]]) -> float:
    """Each organizer's socket sends `end_game` at once; returns when the send began."""
    organizers = [
        await websockets.connect(f"{ws_base}/ws/games/{gid}?token={token}", **CLIENT)
        for gid, token, _ in made
    ]
    for socket in organizers:
        await socket.recv()  # its first view
    messages = [
        orjson.dumps(
            {"type": "command", "command_id": uuid.uuid4().hex, "command": {"type": "end_game"}}
        ).decode()
        for _ in organizers
    ]
    start = time.monotonic()
    for socket, message in zip(organizers, messages, strict=True):
        await socket.send(message)
    async with asyncio.timeout(FANOUT_TIMEOUT):
        for socket in organizers:
            while orjson.loads(await socket.recv())["type"] not in ("ack", "error"):
                pass
    for socket in organizers:
        await socket.close()
    return start


def answer(
    pipe: Connection, process: multiprocessing.process.BaseProcess, kind: str, deadline: float
) -> tuple[Any, ...]:
    """What a client process says next, or an error once it died or the deadline passed."""
    while not pipe.poll(0.2):
        if not process.is_alive():
            raise RuntimeError(f"a client process died before it said {kind}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"a client process did not say {kind} in time")
    message: tuple[Any, ...] = pipe.recv()
    if message[0] != kind:
        raise RuntimeError(f"a client process said {message[0]}, not {kind}")
    return message


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=100, help="players (sockets) per game")
    parser.add_argument("--clients", type=int, default=4, help="client processes")
    args = parser.parse_args()
    more_files()  # the server inherits it
    context = multiprocessing.get_context("spawn")
    with (
        tempfile.TemporaryDirectory(prefix="bench-fanout-") as folder,
        server(f"sqlite:///{Path(folder) / 'bench.db'}") as (base, pid),
    ):
        ws_base = base.replace("http", "ws", 1)
        started = time.monotonic()
        made = asyncio.run(asyncio.wait_for(games(base, args.games, args.players), SETUP_TIMEOUT))
        setup_s = time.monotonic() - started
        before = memory_kib(pid)
        seats = [(gid, token) for gid, _, tokens in made for token in tokens]
        pipes, processes = [], []
        for n in range(args.clients):
            mine, theirs = context.Pipe()
            process = context.Process(
                target=client, args=(ws_base, seats[n :: args.clients], theirs)
            )
            process.start()
            pipes.append(mine)
            processes.append(process)
        try:
            started = time.monotonic()
            deadline = started + CONNECT_TIMEOUT + 30
            clients = list(zip(pipes, processes, strict=True))
            first_bytes = sum(answer(p, c, "ready", deadline)[1] for p, c in clients)
            connect_s = time.monotonic() - started
            time.sleep(1)  # idle
            connected = memory_kib(pid)
            cpu = cpu_seconds(pid)
            for pipe in pipes:
                pipe.send("go")
            start = asyncio.run(end_everywhere(ws_base, made))
            deadline = time.monotonic() + FANOUT_TIMEOUT + 30
            done = [answer(p, c, "done", deadline) for p, c in clients]
            fanout_cpu = cpu_seconds(pid) - cpu
            peak = memory_kib(pid, "VmHWM")
        finally:
            for pipe in pipes:
                pipe.close()  # a client still waiting for "go" stops
            for process in processes:
                process.join(timeout=30)
                if process.is_alive():
                    process.terminate()
                    process.join()
    ended = [at for _, times, *_ in done for at in times]
    reached = sorted(at - start for at in ended if at is not None)
    sockets = len(seats)
    print(
        f"{sockets} sockets: {args.games} games of {args.players} players, "
        f"{args.clients} client processes, {os.cpu_count()} cores"
    )
    print(f"setup             {setup_s:8.1f} s (games and players), connecting {connect_s:.1f} s")
    print(f"first views       {first_bytes / sockets:8.0f} B per socket")
    print(
        f"server RSS        {before / 1024:8.0f} MB before any socket, {connected / 1024:.0f} MB "
        f"with all connected and idle (peak {peak / 1024:.0f} MB)"
    )
    print(f"per socket        {(connected - before) / sockets:8.1f} KiB   (to reach: <= 20 KiB)")
    if reached:
        print(
            f"end_game reached  {len(reached)} of {sockets} sockets: "
            f"p50 {statistics.median(reached) * 1000:.0f} ms, "
            f"p99 {reached[int(len(reached) * 0.99)] * 1000:.0f} ms, "
            f"max {reached[-1] * 1000:.0f} ms   (to reach: all, max < 500 ms)"
        )
    else:
        print(f"end_game reached  none of {sockets} sockets in {FANOUT_TIMEOUT} s")
    fanout_bytes = sum(d[4] for d in done) - first_bytes
    print(f"end_game brought  {fanout_bytes / sockets:8.0f} B per socket")
    print(
        f"whole views       {sum(d[5] for d in done) - sockets:8d} after the first ones, "
        f"{sum(d[2] for d in done)} patches whose base was not held"
    )
    print(
        f"CPU seconds       server {fanout_cpu:.2f} for the fan-out, "
        f"clients {sum(d[3] for d in done):.1f} (whole run)"
    )


if __name__ == "__main__":
    main()
