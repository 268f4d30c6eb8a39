"""A crowd of plain TCP connections from this process, that connect and send little or nothing,
and what a server process spends on them (its descriptors and its CPU, from /proc)."""

import os
import resource
import socket
import struct
from pathlib import Path


def room(count: int) -> None:
    """This process may hold `count` connections (and its own files besides): its soft limit
    on open files raised to its hard limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    assert hard >= count + 200, f"the test needs {count + 200} open files; the hard limit is {hard}"


def crowd(port: int, count: int, first: bytes = b"") -> list[socket.socket]:
    """`count` connections to 127.0.0.1:port (the kernel completes them while they wait to be
    accepted), each sending `first`."""
    made = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        # Closed with a reset: thousands of connections a run leave no ports in TIME_WAIT.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.setblocking(False)
        if first:
            sock.send(first)
        made.append(sock)
    return made


def disperse(made: list[socket.socket]) -> None:
    for sock in made:
        sock.close()
    made.clear()


def descriptors(pid: int) -> int:
    """How many files a process holds open."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_s(pid: int) -> float:
    """The CPU seconds a process has used (user and system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """A process's children (a door's workers)."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()] if path.exists() else []


def alive(pid: int) -> bool:
    """Running, not a zombie waiting for its parent."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
