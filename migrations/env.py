"""Alembic environment: async engines, batch mode so SQLite can alter tables."""

import asyncio
import os

from alembic import context
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool
from sqlmodel import SQLModel

import server.store.models  # noqa: F401  (registers the tables on SQLModel.metadata)
from server.store.database import parse_url

config = context.config
url = config.attributes.get("url") or parse_url(
    os.environ.get("DATABASE_URL", "sqlite:///bijse.db")
)
target_metadata = SQLModel.metadata


def run_migrations_offline() -> None:
    context.configure(url=url, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def migrate(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


async def run_migrations_online() -> None:
    engine = create_async_engine(url, poolclass=NullPool)
    async with engine.connect() as connection:
        await connection.run_sync(migrate)
        await connection.commit()
    await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    asyncio.run(run_migrations_online())
