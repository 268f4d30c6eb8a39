"""An acknowledged event survives `kill -9` of the real server process."""

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from tests.client import Game
from tests.conftest import free_port
from tests.proxy import serve


async def start(database: Path, port: int) -> subprocess.Popen[bytes]:
    return await serve(port, f"sqlite:///{database}", database.with_suffix(".log"))


async def test_every_acknowledged_event_survives_kill_9(tmp_path: Path) -> None:
    database, port = tmp_path / "crash.db", free_port()
    server = await start(database, port)
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base) as http:
        game = await Game.create(http)
        players = [await game.add(f"Player {n}") for n in range(6)]
        await game.ok(game.organizer, "start_game")
        # Many commands in flight at once, so several are written in one group commit.
        pairs = list(zip(players[::2], players[1::2], strict=True))
        acked = await asyncio.gather(
            *(game.command(a["token"], "challenge", target=b["code"]) for a, b in pairs)
        )
        assert all(r.status_code == 200 for r in acked)
        last_seq = max(r.json()["seq"] for r in acked)
        views = {p["player_id"]: (await game.view(p["token"]))["view"] for p in players}
        log = await game.events()
    os.kill(server.pid, signal.SIGKILL)
    server.wait()

    server = await start(database, port)
    try:
        async with httpx.AsyncClient(base_url=base) as http:
            game.http = http
            assert await game.events() == log
            assert log[-1]["seq"] == last_seq
            for p in players:
                after = (await game.view(p["token"]))["view"]
                assert after == views[p["player_id"]]
                assert after["duel"] is not None
    finally:
        server.terminate()
        server.wait()


async def test_the_cli_explains_what_is_wrong(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "server.serve.cli", *args],
            capture_output=True,
            text=True,
            timeout=60,
        )

    bad_url = run("serve", "--database-url", "mysql://x/y")
    assert bad_url.returncode == 2 and "unsupported database" in bad_url.stderr
    assert len(bad_url.stderr.strip().splitlines()) == 1
    missing = run("migrate", "--database-url", f"sqlite:///{tmp_path}/no/such/dir/x.db")
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    if os.geteuid() != 0:  # root writes anywhere, so only a normal user can see this refusal
        readonly = run("migrate", "--database-url", f"sqlite:///{locked}/x.db")
        assert readonly.returncode == 2 and "not writable" in readonly.stderr
    with __import__("socket").socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = run("serve", "--port", str(port), "--database-url", f"sqlite:///{tmp_path}/p.db")
    assert busy.returncode == 2 and f"port {port}" in busy.stderr and "in use" in busy.stderr
    ok = run("migrate", "--database-url", f"sqlite:///{tmp_path}/ok.db")
    assert ok.returncode == 0 and (tmp_path / "ok.db").exists()
