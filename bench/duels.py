"""Duels per second: N simulated phones duel in pairs over WebSockets against a real server.

Prints commands and duels per second, p50/p99 latency from sending a command to both duellists
holding a view that includes it, the server's peak RSS, and (same run, same disk) the raw
durable SQLite single-event insert rate with the ratio of the two.

    .venv/bin/python -m bench.duels [--phones 200] [--per-game 2] [--seconds 10]
"""

import argparse
import asyncio
import os
import random
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import orjson
import websockets

ROOT = Path(__file__).resolve().parent.parent


class Phone:
    def __init__(self, socket: websockets.ClientConnection, token: str) -> None:
        self.socket = socket
        self.token = token
        self.view: dict[str, Any] = {}
        self.seq = 0
        self.acks: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.waiting: list[tuple[int, asyncio.Future[None]]] = []
        self.reader = asyncio.create_task(self.read())

    async def read(self) -> None:
        async for raw in self.socket:
            message = orjson.loads(raw)
            kind = message["type"]
            if kind == "view":
                self.view, self.seq = message["view"], message["seq"]
                still = []
                for seq, future in self.waiting:
                    if seq <= self.seq:
                        future.set_result(None)
                    else:
                        still.append((seq, future))
                self.waiting = still
            elif kind in ("ack", "error"):
                future = self.acks.pop(message["command_id"], None)
                if future is not None:
                    future.set_result(message)

    async def send(self, command: dict[str, Any]) -> dict[str, Any]:
        command_id = uuid.uuid4().hex
        future = asyncio.get_running_loop().create_future()
        self.acks[command_id] = future
        await self.socket.send(
            orjson.dumps({"type": "command", "command_id": command_id, "command": command}).decode()
        )
        return await future

    def holds(self, seq: int) -> asyncio.Future[None]:
        future = asyncio.get_running_loop().create_future()
        if self.seq >= seq:
            future.set_result(None)
        else:
            self.waiting.append((seq, future))
        return future


async def timed(
    sender: Phone, both: tuple[Phone, Phone], command: dict[str, Any], latencies: list[float]
) -> dict[str, Any]:
    start = time.perf_counter()
    answer = await sender.send(command)
    if answer["type"] == "ack":
        await asyncio.gather(*(p.holds(answer["seq"]) for p in both))
        latencies.append(time.perf_counter() - start)
    return answer


async def duel_pair(
    a: Phone, b: Phone, code_b: str, until: float, latencies: list[float], counts: dict[str, int]
) -> None:
    rng = random.Random()
    while time.perf_counter() < until:
        answer = await timed(a, (a, b), {"type": "challenge", "target": code_b}, latencies)
        counts["commands"] += 1
        if answer["type"] != "ack":
            counts["refused"] += 1
            await asyncio.sleep(0.01)
            continue
        duel_id = a.view["duel"]["duel_id"]
        while a.view.get("duel") and a.view["duel"]["duel_id"] == duel_id:
            picks = [
                timed(
                    p,
                    (a, b),
                    {
                        "type": "pick",
                        "duel_id": duel_id,
                        "card_id": rng.choice(p.view["me"]["cards"])["card_id"],
                    },
                    latencies,
                )
                for p in (a, b)
            ]
            answers = await asyncio.gather(*picks)
            counts["commands"] += 2
            counts["refused"] += sum(x["type"] != "ack" for x in answers)
        counts["duels"] += 1


def raw_insert_rate(folder: Path, seconds: float = 3.0) -> float:
    """Durable single-event inserts a second: WAL, synchronous=FULL, one commit per event."""
    path = folder / "raw.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute(
        "CREATE TABLE events (game_id TEXT, seq INTEGER, type TEXT, data TEXT, at INTEGER,"
        " PRIMARY KEY (game_id, seq))"
    )
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        n += 1
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO events VALUES ('g', ?, 'card_picked', '{\"x\": 1}', 0)", (n,))
        db.execute("COMMIT")
    elapsed = time.perf_counter() - start
    db.close()
    return n / elapsed


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def run(args: argparse.Namespace, base: str) -> dict[str, Any]:
    ws_base = base.replace("http", "ws", 1)
    phones: list[tuple[Phone, str]] = []
    limits = httpx.Limits(max_connections=20)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as http:
        for _ in range(args.phones // args.per_game):
            config = {"stun_s": 0, "escape_immunity_s": 0}
            game = (
                await http.post(
                    "/api/games", json={"ruleset": "card-duel", "name": "bench", "config": config}
                )
            ).json()
            org = {"Authorization": f"Bearer {game['organizer_token']}"}
            gid = game["game_id"]
            members = [
                (
                    await http.post(
                        f"/api/games/{gid}/players", json={"name": f"P{n}"}, headers=org
                    )
                ).json()
                for n in range(args.per_game)
            ]
            await http.post(
                f"/api/games/{gid}/commands",
                headers=org,
                json={"command_id": uuid.uuid4().hex, "type": "start_game"},
            )
            for member in members:
                sock = await websockets.connect(
                    f"{ws_base}/ws/games/{gid}?token={member['token']}", max_size=2**22
                )
                phones.append((Phone(sock, member["token"]), member["code"]))
    await asyncio.sleep(0.5)  # every phone has its first view
    latencies: list[float] = []
    counts = {"commands": 0, "duels": 0, "refused": 0}
    start = time.perf_counter()
    until = start + args.seconds
    pairs = [
        (phones[i][0], phones[i + 1][0], phones[i + 1][1]) for i in range(0, len(phones) - 1, 2)
    ]
    await asyncio.gather(*(duel_pair(a, b, code, until, latencies, counts) for a, b, code in pairs))
    elapsed = time.perf_counter() - start
    for phone, _ in phones:
        await phone.socket.close()
    latencies.sort()
    return {
        "elapsed": elapsed,
        "commands_per_s": counts["commands"] / elapsed,
        "duels_per_s": counts["duels"] / elapsed,
        "refused": counts["refused"],
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[int(len(latencies) * 0.99)] * 1000,
        "max_ms": latencies[-1] * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=200)
    parser.add_argument(
        "--per-game",
        type=int,
        default=2,
        help="players per game (2: a game per pair; 200: one big game)",
    )
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument(
        "--database-url",
        default=None,
        help="default: a fresh SQLite file under bench/.data on this disk",
    )
    args = parser.parse_args()
    folder = Path(
        tempfile.mkdtemp(prefix="run-", dir=ROOT / "bench" / ".data")
        if (ROOT / "bench" / ".data").mkdir(exist_ok=True) is None
        else ""
    )
    url = args.database_url or f"sqlite:///{folder / 'bench.db'}"
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--database-url", url],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                httpx.get(f"{base}/healthz")
                break
            except httpx.TransportError:
                time.sleep(0.05)
        result = asyncio.run(run(args, base))
        rss = peak_rss_mb(server.pid)
        cpu = cpu_seconds(server.pid)
    finally:
        server.terminate()
        server.wait()
    raw = raw_insert_rate(folder)
    shutil.rmtree(folder, ignore_errors=True)
    print(
        f"phones {args.phones}, {args.per_game} per game, {result['elapsed']:.1f} s, "
        f"database {url.split(':')[0]}, {os.cpu_count()} cores"
    )
    print(f"commands/s        {result['commands_per_s']:8.0f}   (refused: {result['refused']})")
    print(f"duels/s           {result['duels_per_s']:8.0f}")
    print(f"latency p50       {result['p50_ms']:8.1f} ms   (command sent -> both views hold it)")
    print(f"latency p99       {result['p99_ms']:8.1f} ms   (max {result['max_ms']:.1f} ms)")
    print(f"server peak RSS   {rss:8.0f} MB")
    own = time.process_time()
    print(f"CPU seconds       server {cpu:.1f}, load generator {own:.1f} (whole run)")
    print(f"raw SQLite durable single-event inserts/s {raw:8.0f}")
    print(f"ratio commands/s / raw inserts/s          {result['commands_per_s'] / raw:8.2f}")


if __name__ == "__main__":
    main()
