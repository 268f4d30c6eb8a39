"""The server at its open-file limit: run under `prlimit --nofile=1024` (Debian's default soft
limit), with one process and with a door and two workers, bursts of connections past the limit
leave it answering within seconds once they are gone, and SIGTERM ends it even while it is short.

At ee02b0e the door, at EMFILE, retried `accept` at once for good: its event loop never turned
again, nothing was answered and SIGTERM was not heard."""

import asyncio
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.chaos.crowd import alive, children, crowd, descriptors, disperse, room
from tests.conftest import free_port
from tests.figures import report
from tests.proxy import ROOT, healthy, stop, until

LIMIT = 1024
BURST = 1200  # past the limit of any one process
SHORT = LIMIT - 24  # descriptors held by a process that has run short, give or take a few
LOST = "taking connections from the door: Too many open files"
SHORT_OF_FILES = "accepting connections: Too many open files"
BACK_S = 5.0  # from the end of a burst to an answer
TERM_S = 5.0  # from SIGTERM to every process gone
# A WebSocket that has not said hello: its worker holds it for 10 s.
SOCKET = (
    b"GET /ws/games/0123456789abcdef HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
    b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    b"Sec-WebSocket-Version: 13\r\n\r\n"
)


async def start(port: int, database: str, log: Path, workers: int) -> subprocess.Popen[bytes]:
    prlimit = shutil.which("prlimit")
    assert prlimit, "the test runs the server under prlimit (util-linux)"
    more = ["--workers", str(workers)]
    serve = [sys.executable, "-m", "server.serve.cli", "serve", "--port", str(port)]
    with log.open("ab") as output:
        process = subprocess.Popen(
            [prlimit, f"--nofile={LIMIT}", *serve, "--database-url", database, *more],
            stdout=output,
            stderr=output,
            cwd=ROOT,
        )
    await until(lambda: healthy(f"http://127.0.0.1:{port}"), log.read_text(), process)
    return process


async def until_short(pids: list[int], log: Path) -> None:
    """Until one of the processes holds nearly all the descriptors it may."""

    async def short() -> bool:
        return max(descriptors(pid) for pid in pids) >= SHORT

    await until(short, f"no process ran short: {log.read_text()[-2000:]}")


async def until_said(log: Path, words: str) -> None:
    """Until the server's log says it: holding many descriptors is not yet having run out."""

    async def said() -> bool:
        return words in log.read_text()

    await until(said, f"the log never said {words!r}: {log.read_text()[-2000:]}")


async def answering(base: str, workers: int) -> float:
    """Seconds until /healthz is answered (by every worker, under a door)."""
    started = time.monotonic()
    seen: set[object] = set()
    async with httpx.AsyncClient(base_url=base, timeout=1) as http:
        while time.monotonic() - started < BACK_S:
            try:
                answer = await http.get("/healthz")
            except httpx.TransportError:
                continue
            if answer.status_code == 200:
                seen.add(answer.json().get("worker"))
                if len(seen) == workers:
                    return time.monotonic() - started
            await asyncio.sleep(0.05)
    raise AssertionError(f"/healthz not answered (by {workers} workers) {BACK_S} s after")


@pytest.mark.parametrize("workers", [1, 2])
async def test_a_burst_past_the_open_file_limit_leaves_the_server_serving(
    tmp_path: Path, workers: int
) -> None:
    room(BURST)
    port, log = free_port(), tmp_path / "server.log"
    base = f"http://127.0.0.1:{port}"
    server = await start(port, f"sqlite:///{tmp_path / 'd.db'}", log, workers)
    pids = [server.pid, *children(server.pid)]
    try:
        # WebSockets waiting for their hello, all of one game: its worker (under a door) holds
        # them, runs short, and loses what the door hands it meanwhile.
        burst = crowd(port, BURST, SOCKET)
        await until_short(pids, log)
        if workers > 1:  # and it has lost one, not merely come close
            await until_said(log, LOST)
        disperse(burst)
        sockets_back = await answering(base, workers)
        # Connections that send nothing: the door (or the one process) holds them, runs short
        # and leaves the rest in the listen queue.
        burst = crowd(port, BURST)
        await until_short(pids[:1], log)
        await until_said(log, SHORT_OF_FILES)  # nearly all is not yet out of them
        disperse(burst)
        idle_back = await answering(base, workers)
        said = log.read_text()
        # Short again, it still hears SIGTERM: the door, and its workers with it, end.
        burst = crowd(port, BURST)
        await until_short(pids[:1], log)
        server.send_signal(signal.SIGTERM)
        started = time.monotonic()
        while any(alive(pid) for pid in pids) and time.monotonic() - started < TERM_S:
            await asyncio.sleep(0.05)
        ended = time.monotonic() - started
        running = [pid for pid in pids if alive(pid)]
        disperse(burst)
    finally:
        stop(server)
    report(
        f"open-file limit {LIMIT}, " + ("one process" if workers == 1 else f"{workers} workers"),
        f"{BURST} WebSockets waiting, then {BURST} idle connections, then SIGTERM while short",
        f"answering {sockets_back:.1f} s and {idle_back:.1f} s after; ended in {ended:.1f} s",
    )
    assert SHORT_OF_FILES in said, "running short was not logged"
    if workers > 1:  # the worker of the game lost the connections the door handed it while short
        assert LOST in said
    assert f"open files: up to {LIMIT:,} a process" in log.read_text()  # the start line
    assert not running, f"SIGTERM: {len(running)} of {len(pids)} processes still running"
