"""A game's log leaves the server (`bijse export`, GET …/events) hash-chained, verifies, and
loads into another database (`bijse import`) only when it verifies (and replays through its
rules: tests/test_import_hostile.py)."""

import itertools
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import orjson
import pytest

from server.store import Store
from tests.client import Game


def bijse(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.serve.cli", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
    )


@pytest.fixture
async def http(live_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server) as client:
        yield client


async def played(http: httpx.AsyncClient) -> Game:
    game = await Game.create(http, stun_s=60)
    anna, bob = await game.add("Anna"), await game.add("Bob")
    await game.ok(game.organizer, "start_game")
    await game.ok(anna["token"], "challenge", target=bob["code"])
    await game.ok(game.organizer, "end_game")
    return game


async def test_export_verify_import(
    http: httpx.AsyncClient, session_dir: Path, tmp_path: Path
) -> None:
    game = await played(http)
    live = f"sqlite:///{session_dir / 'live.db'}"
    exported = bijse("export", game.game_id, "--database-url", live)
    assert exported.returncode == 0, exported.stderr
    lines = [orjson.loads(line) for line in exported.stdout.splitlines()]
    assert lines == await game.events()  # the route and the CLI hand out the same lines
    assert lines[0]["prev_hash"] == "0" * 64
    assert all(b["prev_hash"] == a["hash"] for a, b in itertools.pairwise(lines))
    assert {"game_id", "seq", "type", "at", "actor", "data", "prev_hash", "hash"} == set(lines[0])
    path = tmp_path / "game.ndjson"
    path.write_text(exported.stdout, encoding="utf-8")
    assert bijse("verify", str(path)).returncode == 0

    other = f"sqlite:///{tmp_path / 'other.db'}"
    imported = bijse("import", str(path), "--database-url", other)
    assert imported.returncode == 0, imported.stderr
    assert f"imported game {game.game_id}" in imported.stdout
    again = bijse("export", game.game_id, "--database-url", other)
    assert again.stdout == exported.stdout  # the very same log, hashes and all
    store = Store.open(other)
    token = imported.stdout.split("organizer token ")[1].strip()
    assert await store.token(token) == (game.game_id, lines[1]["data"]["player_id"])
    await store.close()
    twice = bijse("import", str(path), "--database-url", other)
    assert twice.returncode == 2 and "already has game" in twice.stderr


async def test_a_tampered_log_is_caught_and_not_imported(
    http: httpx.AsyncClient, session_dir: Path, tmp_path: Path
) -> None:
    game = await played(http)
    text = bijse(
        "export", game.game_id, "--database-url", f"sqlite:///{session_dir / 'live.db'}"
    ).stdout
    tampered = text.replace('"name":"Bob"', '"name":"Bab"', 1)
    assert tampered != text
    path = tmp_path / "bad.ndjson"
    path.write_text(tampered, encoding="utf-8")
    verdict = bijse("verify", str(path))
    assert verdict.returncode == 1 and "was changed" in verdict.stderr
    refused = bijse("import", str(path), "--database-url", f"sqlite:///{tmp_path / 'x.db'}")
    assert refused.returncode == 1 and refused.stderr.startswith("bijse: import: line ")
    assert refused.stderr.endswith(
        "(player_joined): the event was changed: its hash does not match its content\n"
    )
    missing = bijse("export", "nosuchgame", "--database-url", f"sqlite:///{tmp_path / 'x.db'}")
    assert missing.returncode == 2 and "no game nosuchgame" in missing.stderr
