"""What the benches share: a real server process, games full of players, and a held view that
follows the wire (a whole `view`, then RFC 7396 merge `patch`es on the view held at `base`)."""

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from tests.proxy import stop

ROOT = Path(__file__).resolve().parent.parent
BULK = 500  # the most players one `POST /players` adds


def merge(target: Any, patch: Any) -> Any:
    """RFC 7396: objects merge key by key, null deletes, anything else replaces. Merges in place
    (a phone holds one view and nobody else looks at it)."""
    if not isinstance(patch, dict):
        return patch
    if not isinstance(target, dict):
        target = {}
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = merge(target.get(key), value)
    return target


class Held:
    """The view a phone holds and its seq."""

    def __init__(self) -> None:
        self.view: dict[str, Any] = {}
        self.seq = 0
        self.views = 0  # whole views taken: 1 on a healthy socket

    def take(self, message: dict[str, Any]) -> bool:
        """Applies a `view` or `patch`; False when a patch's base is not the held seq (the
        phone must reconnect with `after=`)."""
        if message["type"] == "view":
            self.view, self.seq = message["view"], message["seq"]
            self.views += 1
        elif message["base"] != self.seq:
            return False
        else:
            self.view = merge(self.view, message["patch"])
            self.seq = message["seq"]
        return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def family(pid: int) -> list[int]:
    """The process and its children (a server with --workers runs them as children)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return [pid]
    return [pid, *(p for child in children for p in family(int(child)))]


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[Path]:
    """A fresh folder under bench/.data (on this disk, not a tmpfs: a database's flush is
    measured), removed afterwards."""
    (ROOT / "bench" / ".data").mkdir(exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=ROOT / "bench" / ".data"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def cpu_seconds(pid: int) -> float:
    """CPU seconds of the process and its children: those running, and those that ended and
    were waited for (a worker's snapshot children, each packing a game for a moment)."""
    return sum(spent(each) for each in family(pid))


def cpu_by_process(pid: int) -> dict[str, float]:
    """CPU seconds of each process of a server: "door" and "worker n" under --workers (a
    worker's with its ended children's), "server" for one process."""
    workers = {}
    for each in family(pid)[1:]:
        with contextlib.suppress(OSError):
            args = Path(f"/proc/{each}/cmdline").read_bytes().split(b"\0")
            if b"--worker" in args:
                n = args[args.index(b"--worker") + 1].split(b"/")[0].decode()
                workers[f"worker {n}"] = spent(each)
    # A door's children are its workers, counted apart; one process's (a snapshot being packed)
    # are its own work. (Its children alone do not tell which it is: one process may have one.)
    top = {"door": spent(pid, children=False)} if workers else {"server": spent(pid)}
    return {**top, **workers}


def spent(pid: int, children: bool = True) -> float:
    """CPU seconds of a process (utime, stime), and of its children it waited for (cutime,
    cstime); 0 for a process gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(n) for n in fields[11 : 15 if children else 13]) / os.sysconf("SC_CLK_TCK")


def memory_kib(pid: int, field: str = "VmRSS") -> int:
    """A /proc/<pid>/status figure (VmRSS now, VmHWM the peak), summed over its children."""
    total = 0
    for each in family(pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{each}/status").read_text().splitlines():
                if line.startswith(f"{field}:"):
                    total += int(line.split()[1])
    return total


@contextlib.contextmanager
def server(database_url: str, start_timeout: float = 20) -> Iterator[tuple[str, int]]:
    """A server process on a loopback port without rate limits: yields its base URL and pid."""
    port = free_port()
    command = [sys.executable, "-m", "server.serve.cli", "serve", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--database-url", database_url],
        cwd=ROOT,
        env={**os.environ, "BIJSE_RATE_LIMITS": "off"},
        stdout=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + start_timeout
        while True:
            try:
                httpx.get(f"{base}/healthz")
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.05)
        yield base, process.pid
    finally:
        stop(process)


async def new_game(
    http: httpx.AsyncClient, players: int, config: dict[str, Any] | None = None
) -> tuple[str, str, list[dict[str, Any]]]:
    """A running card-duel game of `players` players: its id, organizer token and members
    (each with `token` and `code`), added in bulk."""
    game = (
        await http.post(
            "/api/games", json={"ruleset": "card-duel", "name": "bench", "config": config or {}}
        )
    ).json()
    gid, token = game["game_id"], game["organizer_token"]
    org = {"Authorization": f"Bearer {token}"}
    members: list[dict[str, Any]] = []
    for first in range(0, players, BULK):
        names = [{"name": f"P{n}"} for n in range(first, min(players, first + BULK))]
        answer = await http.post(f"/api/games/{gid}/players", json={"players": names}, headers=org)
        answer.raise_for_status()
        members += answer.json()["players"]
    started = await http.post(
        f"/api/games/{gid}/commands",
        headers=org,
        json={"command_id": uuid.uuid4().hex, "type": "start_game"},
    )
    started.raise_for_status()
    return gid, token, members
