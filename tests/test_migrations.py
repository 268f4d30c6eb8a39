"""Every schema change is a migration: the models match them, and old data survives them."""

import asyncio
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, text

from server.log.archive import export
from server.log.verify import chained
from server.store import Append, Snapshot, Store, migrate
from server.store.database import parse_url
from server.store.models import GameRow
from tests.lines import Line

ROOT = Path(__file__).resolve().parent.parent


async def test_events_written_before_the_hash_chain_get_it(empty_database_url: str) -> None:
    url = parse_url(empty_database_url)
    config = migrate.alembic_config(url)
    await asyncio.to_thread(command.upgrade, config, "0001")
    rows = [
        {
            "game_id": "old",
            "seq": n,
            "type": t,
            "version": 1,
            "data": orjson.dumps(d).decode(),
            "at": 1_700_000_000_000 + n,
            "actor": None,
            "command_id": None,
        }
        for n, (t, d) in enumerate(
            [
                ("game_created", {"game_id": "old", "name": "Léto", "config": {}}),
                ("player_joined", {"player_id": "p2", "name": "Žofie"}),
                ("game_started", {}),
            ],
            start=1,
        )
    ]
    store = Store.open(empty_database_url)
    insert = text(
        "INSERT INTO events (game_id, seq, type, version, data, at, actor, command_id) "
        "VALUES (:game_id, :seq, :type, :version, :data, :at, :actor, :command_id)"
    )
    if url.get_backend_name() == "sqlite":
        engine = create_engine(url.set(drivername="sqlite"))
        with engine.begin() as conn:
            conn.execute(insert, rows)
        engine.dispose()
    else:
        from sqlalchemy.ext.asyncio import create_async_engine

        async_engine = create_async_engine(url)
        async with async_engine.begin() as aconn:
            await aconn.execute(insert, rows)
        await async_engine.dispose()
    await asyncio.to_thread(command.upgrade, config, "head")
    lines = await export(store, "old")
    await store.close()
    assert [line["seq"] for line in lines] == [1, 2, 3]
    assert lines[0]["prev_hash"] == "0" * 64
    assert chained(lines) == []  # the migration chained them exactly as the server does
    assert lines[1]["data"]["name"] == "Žofie"


async def test_migrations_match_the_models(empty_database_url: str) -> None:
    url = parse_url(empty_database_url)
    await asyncio.to_thread(migrate.upgrade, url)
    await asyncio.to_thread(migrate.check, url)  # raises when autogenerate finds a difference


async def test_the_snapshots_table_comes_and_goes_with_its_migration(
    empty_database_url: str,
) -> None:
    url = parse_url(empty_database_url)
    config = migrate.alembic_config(url)
    await asyncio.to_thread(command.upgrade, config, "head")
    store = Store.open(empty_database_url)
    try:
        game = GameRow(game_id="g", ruleset="card-duel", seed="00" * 32, created_at=1)
        created = Append("g", 0, [Line("game_created", {})], 1, None, game=game)
        await store.append([created])
        await store.save_snapshot("g", Snapshot(1, "", "shape", b"\x00state"), 2)
        saved = await store.snapshot("g")
        assert saved is not None and saved.state == b"\x00state"
        assert saved.hash == await store.hash_at("g", 1)
        await asyncio.to_thread(command.downgrade, config, "0002")
        with pytest.raises(Exception, match="snapshots"):
            await store.snapshot("g")  # the table is gone; the log is not
        assert [r.type for r in await store.events("g")] == ["game_created"]
        await asyncio.to_thread(command.upgrade, config, "head")
        assert await store.snapshot("g") is None
    finally:
        await store.close()


def test_the_newest_revision_read_from_the_files_is_alembics_head(tmp_path: Path) -> None:
    config = migrate.alembic_config(parse_url(f"sqlite:///{tmp_path / 'x.db'}"))
    assert migrate.newest() == ScriptDirectory.from_config(config).get_current_head()


async def test_a_file_at_the_newest_revision_starts_without_alembic(tmp_path: Path) -> None:
    url = parse_url(f"sqlite:///{tmp_path / 'x.db'}")
    assert not migrate.at_newest(url)  # no file yet
    await asyncio.to_thread(command.upgrade, migrate.alembic_config(url), "0003")
    assert not migrate.at_newest(url)  # behind: Alembic must run
    await asyncio.to_thread(migrate.upgrade, url)
    assert migrate.at_newest(url)
    probe = (
        "import sys; from server.store import migrate; "
        "from server.store.database import parse_url; "
        f"migrate.upgrade(parse_url({str(url)!r})); print('alembic' in sys.modules)"
    )
    ran = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert ran.stdout.strip() == "False", ran.stderr
