"""Every schema change is a migration: the models match them, and old data survives them."""

import asyncio

import orjson
import pytest
from alembic import command
from sqlalchemy import create_engine, text

from server import migrate
from server.archive import export
from server.database import parse_url
from server.models import GameRow
from server.rules.core import Event
from server.store import Append, Snapshot, Store
from server.verify import chained


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
        created = Append("g", 0, [Event("game_created", {})], 1, None, game=game)
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
