"""Dicts of a state grown in place while one command's events are folded.

A state is never changed: each event makes a new one, with a copy of each dict it changes. A
list of 500 players added at once to a game of 50,000 made 1,500 copies of dicts of 50,000 (the
members, their codes, the fighters): three seconds with the event loop blocked. Nobody looks at
the states between one command's events, only at the last, so within `one_command()` a dict
that an earlier event of the same command made is grown in place instead of copied again.
"""

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")

# The dicts this command's fold made, by id; held, so that no other dict takes the id of one
# that is let go. None: no command is being folded, every change copies.
_made: dict[int, Any] | None = None


@contextmanager
def one_command() -> Iterator[None]:
    """Fold one command's events: only the state after the last of them is kept."""
    global _made
    if _made is not None:  # already inside one
        yield
        return
    _made = {}
    try:
        yield
    finally:
        _made = None


def grow(mapping: dict[K, V], changes: Mapping[K, V]) -> dict[K, V]:
    """`{**mapping, **changes}`, or `mapping` itself with the changes when this command's fold
    made it."""
    made = _made
    if made is not None and id(mapping) in made:
        mapping.update(changes)
        return mapping
    new = {**mapping, **changes}
    if made is not None:
        made[id(new)] = new
    return new
