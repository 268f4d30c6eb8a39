"""A shared part of a view that grows with the game, kept a row at a time.

The organizer's console shows every player, duel and member of a game: rebuilt and compared
whole after every write, it cost a game of 5,000 fifteen times what the duel itself cost.
`Rows` describes such a part as a small `head` (computed whole each time) beside collections of
rows by id; the hub then recomputes only the rows a change names, and the rows whose content
changes with time alone once their time comes (a stun that runs out changes `challengeable`),
so that what it holds always equals the part computed whole at the same moment.
"""

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Generic

from server.rules.core import Json, S

Row = tuple[str, str]  # (collection, id)
# One row's content (None: there is no such row) and the moment it would change with time alone
# (None: not with time).
Made = tuple[Json | None, int | None]


@dataclass(frozen=True)
class Collection(Generic[S]):
    """Rows of one kind: the ids of all of them, and one row's content at a moment."""

    ids: Callable[[S], Iterable[str]]
    row: Callable[[S, str, int], Made]


@dataclass(frozen=True)
class Rows(Generic[S]):
    """`head` is the small part, computed whole; `collections` the rows by collection name;
    `named(state, touched, shown)` the rows that the members a change touched name, in the new
    state or in the part as last shown (a duel that ended is named only there)."""

    head: Callable[[S, int], Json]
    collections: Mapping[str, Collection[S]]
    named: Callable[[S, set[str], Json], Iterable[Row]]

    def build(self, state: S, now: int) -> tuple[Json, list[tuple[int, Row]]]:
        """The whole part, and when each of its rows changes with time alone."""
        part = self.head(state, now)
        due: list[tuple[int, Row]] = []
        for name, collection in self.collections.items():
            rows = part[name] = {}
            for row_id in collection.ids(state):
                content, until = collection.row(state, row_id, now)
                if content is not None:
                    rows[row_id] = content
                if until is not None:
                    due.append((until, (name, row_id)))
        return part, due

    def whole(self, state: S, now: int) -> Json:
        return self.build(state, now)[0]
