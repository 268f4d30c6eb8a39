"""The store fails under a real server: its disk fills up, then is freed.

While writes fail, commands get 503, the server's log says why once (not once a command), and
/healthz says the store is failing; once writes succeed again, /healthz is ok, the refused
commands sent again are written once, and nothing acknowledged is lost. Three ways to fill it:
- SQLite on a small tmpfs of its own that really fills up (where this machine lets the test
  mount one: skipped, with the reason, where it does not);
- SQLite whose server may not grow a file any more (its file size limit lowered to the write-
  ahead log's size, as a disk quota would): the kernel refuses the writes (EFBIG), on any Linux;
- PostgreSQL, whose disk is not the test's: the events table refuses inserts with the error
  PostgreSQL gives on a full disk (SQLSTATE 53100, disk_full), until that refusal is dropped.
"""

import asyncio
import contextlib
import os
import resource
import subprocess
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol

import asyncpg
import httpx
import pytest
from sqlalchemy.engine import make_url

from tests.chaos.harness import Server, broken_chain, effects, read_log
from tests.client import Game
from tests.conftest import new_postgres_database
from tests.figures import report

REFUSED_AFTER = 30  # commands sent once the store refuses: each must be refused
FITS = 50  # commands that may still fit in what the disk had left, before the first refusal


class Disk(Protocol):
    url: str
    cause: str  # what the log and /healthz must name while it is full

    async def fill(self, server: int) -> None: ...
    async def free(self, server: int) -> None: ...


class Tmpfs:
    """A SQLite file on a tmpfs of its own, filled up to the last byte by another file."""

    cause = "sqlite3.OperationalError: database or disk is full"

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.filler = folder / "filler"
        self.url = f"sqlite:///{folder / 'bijse.db'}"

    def mount(self) -> None:
        self.folder.mkdir()
        try:
            mounted = subprocess.run(
                ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(self.folder)],
                capture_output=True,
                text=True,
            )
        except FileNotFoundError:
            pytest.skip("no mount command: the full-disk variant needs a tmpfs of its own")
        if mounted.returncode != 0:
            reason = mounted.stderr.strip() or f"exit {mounted.returncode}"
            pytest.skip(f"this machine refuses to mount a tmpfs ({reason}): no disk to fill")

    def unmount(self) -> None:
        if subprocess.run(["umount", str(self.folder)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(self.folder)], check=True)

    async def fill(self, server: int) -> None:
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        try:
            for size in (1 << 20, 4096, 1):
                while True:
                    try:
                        os.write(fd, b"\0" * size)
                    except OSError:
                        break
        finally:
            os.close(fd)

    async def free(self, server: int) -> None:
        self.filler.unlink()


class FileSizeLimit:
    """A SQLite file whose server may not grow a file past the write-ahead log's size."""

    cause = "sqlite3.OperationalError: disk I/O error"

    def __init__(self, folder: Path, log: Path) -> None:
        self.database = folder / "bijse.db"
        self.url = f"sqlite:///{self.database}"
        self.log = log  # the server's standard error: it must still grow by a few lines
        self.limits = (resource.RLIM_INFINITY, resource.RLIM_INFINITY)

    async def fill(self, server: int) -> None:
        size = os.path.getsize(f"{self.database}-wal")  # the file every commit grows
        assert self.log.stat().st_size + 4096 < size, "the log could not be written"
        self.limits = resource.prlimit(server, resource.RLIMIT_FSIZE)
        resource.prlimit(server, resource.RLIMIT_FSIZE, (size, self.limits[1]))

    async def free(self, server: int) -> None:
        resource.prlimit(server, resource.RLIMIT_FSIZE, self.limits)


# What PostgreSQL answers a write on a full disk, raised by the database itself.
REFUSE = """
CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    RAISE EXCEPTION 'could not extend file "base/1/2": No space left on device'
        USING ERRCODE = 'disk_full', HINT = 'Check free disk space.';
END $$;
CREATE TRIGGER disk_full BEFORE INSERT ON events EXECUTE FUNCTION disk_full();
"""


class FullPostgres:
    """A PostgreSQL database whose events table refuses inserts as a full disk does."""

    cause = "asyncpg.exceptions.DiskFullError: could not extend file"

    def __init__(self, url: str) -> None:
        self.url = url

    async def run(self, sql: str) -> None:
        dsn = make_url(self.url).set(drivername="postgresql")
        connection = await asyncpg.connect(dsn.render_as_string(hide_password=False))
        try:
            await connection.execute(sql)
        finally:
            await connection.close()

    async def fill(self, server: int) -> None:
        await self.run(REFUSE)

    async def free(self, server: int) -> None:
        await self.run("DROP TRIGGER disk_full ON events; DROP FUNCTION disk_full();")


@contextlib.asynccontextmanager
async def full_disk(kind: str, tmp_path: Path) -> AsyncIterator[Disk]:
    if kind == "PostgreSQL, disk_full":
        databases = new_postgres_database()  # a database of its own: it gets a trigger
        url = await anext(databases)
        try:
            yield FullPostgres(url)
        finally:
            with contextlib.suppress(StopAsyncIteration):
                await anext(databases)  # dropped
    elif kind == "SQLite, file size limit":
        yield FileSizeLimit(tmp_path, tmp_path / "server.log")
    else:
        disk = Tmpfs(tmp_path / "disk")
        disk.mount()
        try:
            yield disk
        finally:
            disk.unmount()


def grant(command_id: str, player_id: str) -> dict[str, Any]:
    """A card for a player, titled with its command id: the event says which command wrote it."""
    card = {"title": command_id, "big": 1, "small": 1, "kind": "stun"}
    return {"command_id": command_id, "type": "grant_card", "player_id": player_id, "card": card}


async def granting(
    http: httpx.AsyncClient, game: Game, player_id: str, command_id: str
) -> httpx.Response:
    """The organizer's `grant` command with this id, over HTTP."""
    return await http.post(
        f"/api/games/{game.game_id}/commands",
        json=grant(command_id, player_id),
        headers=game.auth(game.organizer),
    )


@pytest.mark.parametrize(
    "kind", ["SQLite on a full tmpfs", "SQLite, file size limit", "PostgreSQL, disk_full"]
)
async def test_a_full_disk_is_logged_once_and_failing_on_healthz_until_writes_work(
    kind: str, tmp_path: Path
) -> None:
    async with full_disk(kind, tmp_path) as disk:
        server = Server(disk.url, tmp_path / "server.log")
        await server.start()
        acked: dict[str, int] = {}  # command id -> seq
        try:
            async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
                game = await Game.create(http)
                anna = (await game.add("Anna"))["player_id"]
                await game.ok(game.organizer, "start_game")

                async def send(command_id: str) -> int:
                    answer = await granting(http, game, anna, command_id)
                    if answer.status_code == 200:
                        acked[command_id] = answer.json()["seq"]
                    else:
                        body = answer.json()["error"]
                        assert (answer.status_code, body["code"]) == (503, "unavailable"), body
                    return answer.status_code

                for _ in range(3):
                    assert await send(uuid.uuid4().hex) == 200
                assert (await http.get("/healthz")).json() == {"ok": True}
                await disk.fill(server.process.pid)
                refused = []
                for _ in range(FITS):  # a write or two may still fit in the disk's last bytes
                    command_id = uuid.uuid4().hex
                    if await send(command_id) == 503:
                        refused.append(command_id)
                        break
                assert refused, f"{FITS} commands were written on a full disk"
                for _ in range(REFUSED_AFTER):
                    refused.append(uuid.uuid4().hex)
                    assert await send(refused[-1]) == 503

                health = await http.get("/healthz")
                assert health.status_code == 503, health.text
                failing = health.json()
                assert failing["ok"] is False and failing["store"] == "failing", failing
                assert disk.cause in failing["cause"] and failing["refused"] == len(refused)
                await asyncio.sleep(0.2)  # the log's lines are written by now
                lines = server.log.read_text().splitlines()
                told = [line for line in lines if "writes to the store fail" in line]
                assert len(told) == 1, told  # once, not once a command
                assert told[0].startswith("WARNING:") and disk.cause in told[0], told

                await disk.free(server.process.pid)
                for command_id in refused:  # sent again with their ids: written now, once
                    assert await send(command_id) == 200
                assert (await http.get("/healthz")).json() == {"ok": True}
                lines = server.log.read_text().splitlines()
                again = [line for line in lines if "writes to the store succeed again" in line]
                assert len(again) == 1, lines
                assert f"{len(refused) - 1} commands by " in again[0], again  # counted, untold
        finally:
            server.stop()
        log = await read_log(disk.url, game.game_id)
    where = {r.command_id: r.seq for r in log if r.command_id is not None}
    lost = [c for c, seq in acked.items() if where.get(c) != seq]
    twice = [c for c, n in effects(log).items() if n > 1]
    problems = broken_chain(log)
    report(
        f"full disk, {kind}",
        f"{len(refused)} commands refused while full, then sent again; {len(acked)} acks",
        f"{len(told)} log line of the cause; {len(lost)} lost, {len(twice)} twice, "
        f"{len(problems)} gaps",
    )
    assert not lost and not twice and not problems, (lost, twice, problems)
    assert all(r.data["card"]["title"] == r.command_id for r in log if r.type == "card_granted")
    assert server.died() == 0, server.log.read_text()


@pytest.mark.parametrize("kind", ["SQLite on a full tmpfs", "PostgreSQL, disk_full"])
async def test_under_a_door_every_worker_says_the_store_fails(kind: str, tmp_path: Path) -> None:
    """Two workers share the store: once the game's worker fails a write, /healthz fails
    whichever worker the door hands it to (Caddy's health check asks any), and is ok again on
    every worker once a write succeeds."""
    async with full_disk(kind, tmp_path) as disk:
        server = Server(disk.url, tmp_path / "server.log", workers=2)
        await server.start()
        try:
            async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
                game = await Game.create(http)
                anna = (await game.add("Anna"))["player_id"]
                await game.ok(game.organizer, "start_game")

                async def send(command_id: str) -> int:
                    return (await granting(http, game, anna, command_id)).status_code

                async def healths() -> dict[int, int]:
                    """Each worker's /healthz status (the door takes turns)."""
                    seen: dict[int, int] = {}
                    for _ in range(8):
                        answer = await http.get("/healthz")
                        seen[answer.json()["worker"]] = answer.status_code
                    return seen

                assert await healths() == {0: 200, 1: 200}
                assert await send(uuid.uuid4().hex) == 200
                assert server.process is not None
                await disk.fill(server.process.pid)
                refused = None
                for _ in range(FITS):
                    command_id = uuid.uuid4().hex
                    if await send(command_id) == 503:
                        refused = command_id
                        break
                assert refused is not None, f"{FITS} commands were written on a full disk"
                assert await healths() == {0: 503, 1: 503}
                answer = await http.get("/healthz")
                assert disk.cause in answer.json()["cause"], answer.json()
                await disk.free(server.process.pid)
                assert await send(refused) == 200
                assert await healths() == {0: 200, 1: 200}
        finally:
            server.stop()
