"""Database URLs as a person writes them, and the async engines behind them."""

import os
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine


class BadDatabaseUrl(ValueError):
    pass


def parse_url(text: str) -> URL:
    """`sqlite:///file.db` or `postgresql://…`, mapped to the async drivers we use."""
    try:
        url = make_url(text)
    except ArgumentError:
        raise BadDatabaseUrl(f"not a database URL: {text!r}") from None
    backend = url.get_backend_name()
    if backend == "sqlite":
        if not url.database or url.database == ":memory:":
            raise BadDatabaseUrl("SQLite needs a file: sqlite:///path/to/bijse.db")
        return url.set(drivername="sqlite+aiosqlite")
    if backend in ("postgresql", "postgres"):
        return url.set(drivername="postgresql+asyncpg")
    raise BadDatabaseUrl(f"unsupported database {backend!r}: use sqlite:/// or postgresql://")


def is_sqlite(url: URL) -> bool:
    return url.get_backend_name() == "sqlite"


def check_writable(url: URL) -> None:
    """Fail early, with the path in the message, where a SQLite file cannot be written."""
    if not is_sqlite(url) or url.database is None:
        return
    path = Path(url.database)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise BadDatabaseUrl(f"the folder of the database does not exist: {folder}")
    target = path if path.exists() else folder
    if not os.access(target, os.W_OK):
        raise BadDatabaseUrl(f"the database is not writable: {path}")


def engine(url: URL) -> AsyncEngine:
    """A PostgreSQL engine (asyncpg). SQLite is read and written through plain sqlite3
    connections instead (server/store/backends.py); Alembic alone reaches it through SQLAlchemy."""
    return create_async_engine(url, pool_size=5, max_overflow=5)
