"""The chaos suite's databases."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import new_postgres_database


@pytest.fixture(params=["SQLite", "PostgreSQL"])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh database of each kind in turn."""
    if request.param == "SQLite":
        yield f"sqlite:///{tmp_path / 'chaos.db'}"
        return
    async for url in new_postgres_database():
        yield url
