"""The chaos suite's databases, and its figures as one table at the end of every run that ran
any of it."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.chaos.harness import FIGURES, SCALE, SEED, table
from tests.conftest import new_postgres_database


@pytest.fixture(params=["SQLite", "PostgreSQL"])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh database of each kind in turn."""
    if request.param == "SQLite":
        yield f"sqlite:///{tmp_path / 'chaos.db'}"
        return
    async for url in new_postgres_database():
        yield url


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not FIGURES:
        return
    terminalreporter.section(f"chaos figures (BIJSE_CHAOS_SCALE={SCALE}, BIJSE_CHAOS_SEED={SEED})")
    for line in table():
        terminalreporter.write_line(line)
