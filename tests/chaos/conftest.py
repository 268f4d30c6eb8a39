"""The chaos suite's databases: a fresh one of each kind in turn, with no schema (the servers
it starts migrate it)."""

import pytest


@pytest.fixture
def database(empty_database_url: str) -> str:
    return empty_database_url
