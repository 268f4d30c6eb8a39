"""Shared fixtures: real databases (a SQLite file, a PostgreSQL server) and a real server."""

import asyncio
import os
import secrets
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import uvicorn
from sqlalchemy.engine import make_url
from starlette.types import ASGIApp

from server.store import Store, migrate
from server.store.database import parse_url
from server.web.app import create_app
from server.web.socket_protocol import OPTIONS as SOCKET_OPTIONS

POSTGRES_URL = os.environ.get("BIJSE_TEST_POSTGRES_URL")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def new_postgres_database() -> AsyncIterator[str]:
    """A fresh database on the PostgreSQL server, dropped afterwards.

    Without BIJSE_TEST_POSTGRES_URL the PostgreSQL tests are skipped on a developer's machine;
    CI sets BIJSE_REQUIRE_POSTGRES=1, which turns that skip into a failure.
    """
    if not POSTGRES_URL:
        if os.environ.get("BIJSE_REQUIRE_POSTGRES"):
            pytest.fail("BIJSE_REQUIRE_POSTGRES is set but BIJSE_TEST_POSTGRES_URL is not")
        pytest.skip("set BIJSE_TEST_POSTGRES_URL to run the PostgreSQL tests")
    name = f"bijse_test_{secrets.token_hex(4)}"
    admin = make_url(POSTGRES_URL).set(drivername="postgresql")
    dsn = admin.render_as_string(hide_password=False)
    conn = await asyncpg.connect(dsn)
    await conn.execute(f'CREATE DATABASE "{name}"')
    await conn.close()
    yield admin.set(database=name).render_as_string(hide_password=False)
    conn = await asyncpg.connect(dsn)
    await conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    await conn.close()


@pytest.fixture(scope="session")
async def postgres_url() -> AsyncIterator[str]:
    """One database for the run's PostgreSQL tests (each game has its own id)."""
    async for url in new_postgres_database():
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
async def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """Each backend in turn, with no schema at all: for tests of the migrations themselves."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'bijse.db'}"
        return
    async for url in new_postgres_database():
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each backend in turn: the conformance suites run against both."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'bijse.db'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


async def serve(database_url: str, port: int = 0, **options: Any) -> AsyncIterator[str]:
    """A real uvicorn on a loopback port (a free one unless given) serving create_app(...)."""
    app = create_app(database_url, **{"rate_limits": False, **options})  # on where a test says
    async for url in serve_app(app, port):
        yield url


async def serve_app(app: ASGIApp, port: int = 0) -> AsyncIterator[str]:
    """A real uvicorn on a loopback port (a free one unless given) serving `app`."""
    port = port or free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        **SOCKET_OPTIONS,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[Store]:
    """A store on each backend in turn, its schema migrated."""
    await asyncio.to_thread(migrate.upgrade, parse_url(database_url))
    opened = Store.open(database_url)
    yield opened
    await opened.close()


@pytest.fixture(scope="session")
def session_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("live")


@pytest.fixture(scope="session")
async def live_server(session_dir: Path) -> AsyncIterator[str]:
    """A real uvicorn on a loopback port, serving the app from a fresh SQLite file."""
    async for url in serve(f"sqlite:///{session_dir / 'live.db'}"):
        yield url


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from tests.chaos.harness import SCALE, SEED
    from tests.figures import FIGURES, table

    if FIGURES:
        terminalreporter.section(
            f"reliability figures (BIJSE_CHAOS_SCALE={SCALE}, BIJSE_CHAOS_SEED={SEED})"
        )
        for line in table():
            terminalreporter.write_line(line)
