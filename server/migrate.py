"""Bring a database's schema to the newest Alembic revision."""

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import URL

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def alembic_config(url: URL) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["url"] = url
    return config


def upgrade(url: URL) -> None:
    """Runs its own event loop: call it before serving, or in a thread."""
    command.upgrade(alembic_config(url), "head")


def check(url: URL) -> None:
    """Raise when the models and the migrations disagree."""
    command.check(alembic_config(url))
