"""Bring a database's schema to the newest Alembic revision.

Alembic is imported only when there is something to do: a SQLite file already at the newest
revision is seen to be so from its `alembic_version` row, without loading Alembic, Mako and
Pygments, which cost a fifth of a second of every start (a restart's first view comes sooner).
"""

import re
import sqlite3
from contextlib import closing
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.engine import URL

from server.store.database import is_sqlite

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
REVISION = re.compile(r'^(down_)?revision: str(?: \| None)? = (?:"([^"]+)"|None)$', re.MULTILINE)


def alembic_config(url: URL) -> "Config":
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["url"] = url
    return config


@cache
def newest() -> str:
    """The head revision, read from the migration files: the one that is no one's parent."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        for down, name in REVISION.findall(path.read_text()):
            if name:
                (parents if down else revisions).add(name)
    (head,) = revisions - parents
    return str(head)


def at_newest(url: URL) -> bool:
    """A SQLite file whose schema is at the newest revision (False when unsure: Alembic looks)."""
    if not is_sqlite(url) or not url.database or url.database == ":memory:":
        return False
    path = Path(url.database)
    if not path.is_file():
        return False
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            found = db.execute("SELECT version_num FROM alembic_version").fetchall()
    except sqlite3.Error:
        return False
    return found == [(newest(),)]


def upgrade(url: URL) -> None:
    """Runs its own event loop: call it before serving, or in a thread."""
    if at_newest(url):
        return
    from alembic import command

    command.upgrade(alembic_config(url), "head")


def check(url: URL) -> None:
    """Raise when the models and the migrations disagree."""
    from alembic import command

    command.check(alembic_config(url))
