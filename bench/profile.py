"""Where a server's CPU goes: py-spy samples the running `bijse serve` (no change to it, a few
per cent of its time), and each sample is put in the part of the work it was in.

A sample is put where its innermost frame of a known part is: the socket framing (uvicorn's
and websockets' protocol, Starlette's WebSocket), JSON (parsing and checking bodies; orjson
itself is C, so its time shows in the Python line that calls it), the rules (decide/evolve),
the views (the hub, patches, the rulesets' views), the store (the scribe, SQL, the database
driver and its thread), the referee (the command pipeline), and the event loop itself.
Under `--workers N` the door and every worker are sampled and summed. py-spy counts a thread
blocked in a system call it does not know as idle (the disk's flush, the writers' lock, a pool
thread waiting for work) as running: those samples go to their part, so the parts add up to
more than the cores the process really used (which bench.duels prints beside them).
py-spy sees Python frames only, and the server's busiest modules run compiled to C
(server/__init__.py): their time falls to the interpreted frame that called them (the socket's
reader, the scribe's task). Run the bench under BIJSE_PURE=1 to split the sources' time.
"""

import subprocess
import sys
from collections import Counter
from pathlib import Path

RATE = 200  # samples a second

PARTS: list[tuple[str, tuple[str, ...]]] = [
    ("JSON", ("server/web/wire.py",)),
    ("views", ("server/game/hub.py", "server/game/patch.py", "/view.py", "server/rules/keyed.py")),
    ("rules", ("server/rules/",)),
    (
        "store",
        (
            "server/game/scribe.py",
            "server/store.py",
            "server/store/backends.py",
            "sqlite3",
            "aiosqlite",
            "sqlalchemy",
            "asyncpg",
        ),
    ),
    (
        "referee",
        (
            "server/game/referee.py",
            "server/web/sockets.py",
            "server/web/limits.py",
            "server/web/api.py",
        ),
    ),
    (
        "socket framing",
        ("websockets/", "uvicorn/protocols", "server/web/socket_protocol.py", "starlette/"),
    ),
    ("event loop", ("asyncio/", "uvloop", "uvicorn/")),
]


def record(pids: list[int], seconds: float, out: Path) -> list[subprocess.Popen[bytes]]:
    """Start sampling each process (the one server, or the door and its workers) for `seconds`
    into `out`.<pid> (collapsed stacks)."""
    spy = Path(sys.executable).with_name("py-spy")
    duration = str(max(1, round(seconds)))
    return [
        subprocess.Popen(
            [
                *(str(spy), "record", "--pid", str(pid), "--duration", duration),
                *("--rate", str(RATE), "--format", "raw", "--nonblocking", "--threads"),
                *("--output", f"{out}.{pid}"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for pid in pids
    ]


def part(stack: str) -> tuple[str, str]:
    """The part a sample was in, and the frame that put it there."""
    frames = stack.split(";")
    for frame in reversed(frames):  # innermost first
        for name, marks in PARTS:
            if any(mark in frame for mark in marks):
                return name, frame
    return "other", frames[-1]


def split(path: Path) -> tuple[Counter[str], dict[str, Counter[str]], int]:
    """Samples by part, by frame within each part, and the samples in all (of every process
    sampled into `path`.<pid>)."""
    parts: Counter[str] = Counter()
    frames: dict[str, Counter[str]] = {}
    lines = [
        line
        for each in path.parent.glob(f"{path.name}.*")
        for line in each.read_text().splitlines()
    ]
    for line in lines:
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            name, frame = part(stack)
            parts[name] += int(count)
            frames.setdefault(name, Counter())[frame.split(" (")[0]] += int(count)
    return parts, frames, sum(parts.values())


def show(path: Path, seconds: float, commands: int) -> None:
    """Print the split: share of one core, and microseconds of CPU per command."""
    parts, frames, total = split(path)
    window = RATE * seconds
    print(
        f"CPU split of the server (all its processes) over {seconds:.0f} s "
        f"({total} samples at {RATE}/s):"
    )
    for name, count in parts.most_common():
        top = ", ".join(f"{f} {n / count:.0%}" for f, n in frames[name].most_common(3))
        print(
            f"  {name:<15} {count / window:6.1%} of a core   "
            f"{count / RATE / max(commands, 1) * 1e6:7.1f} µs a command   ({top})"
        )
    print(f"  {'on a core':<15} {total / window:6.1%}")
