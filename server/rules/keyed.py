"""Collections as views carry them: an object keyed by id, so that a merge patch touches only
the entries that changed (an array would be resent whole)."""

from collections.abc import Iterable

from server.rules.core import Json


def keyed(entries: Iterable[Json], key: str) -> Json:
    """Each entry under its `key` field, which the entry then no longer repeats."""
    return {entry[key]: {k: v for k, v in entry.items() if k != key} for entry in entries}
