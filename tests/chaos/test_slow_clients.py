"""Clients that never finish their request's head are closed HEAD_S after they connect, with one
process and behind the door alike, while everyone else is served; a head that does not end
within HEAD_MAX is refused; a connection kept alive after an answer outlives a client's idle
pool; and 2,000 connections that sent a byte cost the door nothing.

At ee02b0e one process held idle, slow-line and slow-header clients for good; behind the door,
slow headers were held for good by the worker (the door had read only the request line), and
the door peeked every 10 ms at each request line that had not all come (a core, for 2,000)."""

import asyncio
import time
from pathlib import Path

import httpx

from server.serve.head import HEAD_MAX, HEAD_S
from tests.chaos.crowd import cpu_s, crowd, disperse, room
from tests.chaos.harness import Server
from tests.figures import report

EACH = 10  # clients of each kind
MARGIN_S = 3.0  # past HEAD_S, for a closed connection to be seen on a busy machine
LINE = b"GET /healthz HTTP/1.1\r\n"
SLOW = {  # what a client sends at once, then a byte a second
    "idle": (b"", b""),
    "slow line": (b"", LINE),
    "slow headers": (LINE + b"Host: x\r\n", b"X-Slow: " + b"a" * 40),
}


async def slow(port: int, first: bytes, drip: bytes) -> tuple[float, bytes]:
    """Seconds until the server closes the connection, and what it answered before."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    started = time.monotonic()
    writer.write(first)

    async def dripping() -> None:
        for byte in drip:
            await asyncio.sleep(1)
            writer.write(bytes([byte]))

    dripper = asyncio.create_task(dripping())
    try:
        answer = await asyncio.wait_for(reader.read(), HEAD_S + MARGIN_S)
    except ConnectionResetError:
        answer = b""
    except TimeoutError:
        return float("inf"), b""  # held
    finally:
        dripper.cancel()
        writer.close()
    return time.monotonic() - started, answer


async def head_of(port: int, size: int) -> bytes:
    """The status line of the answer to a request whose head is `size` bytes long."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    start = LINE + b"Host: x\r\nX-Pad: "
    writer.write(start + b"a" * (size - len(start) - 4) + b"\r\n\r\n")
    try:
        line = await asyncio.wait_for(reader.readline(), 5)
    finally:
        writer.close()
    return line.strip()


async def ask(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> list[bytes]:
    """The head of /healthz's answer on a connection kept alive, a line a row (lower case), its
    body read whole."""
    writer.write(LINE + b"Host: x\r\n\r\n")
    head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)).lower().split(b"\r\n")
    length = next(int(line.split(b":")[1]) for line in head if line.startswith(b"content-length:"))
    await reader.readexactly(length)
    return head


async def kept(port: int, idle_s: float) -> tuple[list[bytes], bytes]:
    """The head of /healthz's answer, and the status line of the next after `idle_s` of quiet
    on the same connection. At 670726e one process closed it after 5 s (uvicorn's default),
    the end of httpx's own idle pool: a request sent at that moment got no answer (a browser
    test's ReadError in CI)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        first = await ask(reader, writer)
        await asyncio.sleep(idle_s)
        try:
            again = (await ask(reader, writer))[0]
        except (asyncio.IncompleteReadError, ConnectionError):
            again = b"closed"
    finally:
        writer.close()
    return first, again


async def slow_clients(server: Server) -> None:
    """Slow clients of each kind, and /healthz meanwhile, on a started server."""
    quiet = asyncio.create_task(kept(server.port, HEAD_S))
    served: list[float] = []
    clients = {
        kind: [asyncio.create_task(slow(server.port, *sent)) for _ in range(EACH)]
        for kind, sent in SLOW.items()
    }
    async with httpx.AsyncClient(base_url=server.base, timeout=5) as http:
        while not all(c.done() for cs in clients.values() for c in cs):
            started = time.monotonic()
            assert (await http.get("/healthz")).status_code == 200
            served.append(time.monotonic() - started)
            await asyncio.sleep(0.5)
    closed = {kind: [c.result() for c in cs] for kind, cs in clients.items()}
    before, after = await quiet
    fits = await head_of(server.port, HEAD_MAX - 100)
    over = await head_of(server.port, HEAD_MAX + 100)
    times = {kind: sorted(t for t, _ in done) for kind, done in closed.items()}
    report(
        "slow clients, " + ("one process" if server.workers == 1 else f"{server.workers} workers"),
        f"{EACH} idle, {EACH} slow-line, {EACH} slow-header clients; /healthz meanwhile",
        "; ".join(f"{kind} closed at {t[0]:.1f}-{t[-1]:.1f} s" for kind, t in times.items())
        + f"; /healthz {len(served)} times, slowest {max(served):.2f} s"
        + f"; a connection kept alive, after {HEAD_S:g} s of quiet: "
        + ("answered again" if after == b"http/1.1 200 ok" else after.decode())
        + (" (a worker's answer says Connection: close)" if server.workers > 1 else ""),
    )
    for kind, done in closed.items():
        for took, answer in done:
            assert HEAD_S - 0.5 <= took <= HEAD_S + MARGIN_S, (server.workers, kind, took)
            assert answer == b"", (server.workers, kind, answer)  # closed without an answer
    assert len(served) >= HEAD_S and max(served) < 2, (server.workers, served)
    assert fits == b"HTTP/1.1 200 OK" and over.startswith(b"HTTP/1.1 431"), (fits, over)
    assert before[0] == b"http/1.1 200 ok", (server.workers, before)
    if server.workers == 1:
        assert after == b"http/1.1 200 ok", after
    else:  # a worker's answer closes it: the next request goes through the door, to its game's
        assert b"connection: close" in before and after == b"closed", (before, after)


async def test_heads_that_never_come_whole_are_closed(tmp_path: Path) -> None:
    """One process and a door with two workers at once (each waits HEAD_S)."""
    servers = [
        Server(f"sqlite:///{tmp_path / f'{n}.db'}", tmp_path / f"{n}.log", workers=n)
        for n in (1, 2)
    ]
    try:
        for server in servers:
            await server.start()
        await asyncio.gather(*(slow_clients(server) for server in servers))
    finally:
        for server in servers:
            server.stop()


async def test_a_crowd_that_sent_a_byte_costs_the_door_nothing(tmp_path: Path) -> None:
    count, measured_s = 2000, 3.0
    room(count)
    server = Server(f"sqlite:///{tmp_path / 'c.db'}", tmp_path / "c.log", workers=2)
    await server.start()
    assert server.process is not None
    try:
        made = crowd(server.port, count, b"G")
        await asyncio.sleep(1)  # the door has taken them all
        before = cpu_s(server.process.pid)
        await asyncio.sleep(measured_s)
        used = (cpu_s(server.process.pid) - before) / measured_s
        async with httpx.AsyncClient(base_url=server.base, timeout=5) as http:
            assert (await http.get("/healthz")).status_code == 200
        disperse(made)
    finally:
        server.stop()
    report(
        "slow clients, 2 workers",
        f"{count} connections that sent one byte, for {measured_s:g} s",
        f"the door used {used:.0%} of a core",
    )
    assert used < 1 / 3, f"the door used {used:.0%} of a core"
