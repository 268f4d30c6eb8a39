"""Dicts of a state grown cheaply: in place while one command's events are folded, and a little
at a time when a dict is big and a command changes a few of its entries.

A state is never changed: each event makes a new one, with a copy of each dict it changes. A
list of 500 players added at once to a game of 50,000 made 1,500 copies of dicts of 50,000 (the
members, their codes, the fighters): three seconds with the event loop blocked. Nobody looks at
the states between one command's events, only at the last, so within `one_command()` a dict
that an earlier event of the same command made is grown in place instead of copied again.

And most commands change one or two entries of a big dict (a duel changes two fighters of
5,000): copied whole each time, such dicts cost a game of 5,000 a third of each command
(bench.duels, one game with the console open: 1,040 duels/s, and 1,580 without the copies).
`Layered` keeps them as a shared base and the changes since (a small dict), folded into a new
base once the changes are about as many as the square root of the base's size.

A tuple that only ever grows at its end (each duel a fighter began) is `Appended`: one list that
the states share, each seeing as much of it as it had.
"""

from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import islice
from math import isqrt
from typing import Any, Generic, TypeVar, overload

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")

# The dicts this command's fold made, by id; held, so that no other dict takes the id of one
# that is let go. None: no command is being folded, every change copies.
_made: dict[int, Any] | None = None


class OneCommand:
    """Fold one command's events: only the state after the last of them is kept. (A class: a
    generator's context manager cost a microsecond more, on every command.)"""

    __slots__ = ("outer",)

    def __enter__(self) -> None:
        global _made
        self.outer = _made is not None  # already inside one
        if not self.outer:
            _made = {}

    def __exit__(self, *_: object) -> None:
        global _made
        if not self.outer:
            _made = None


def one_command() -> OneCommand:
    return OneCommand()


class Layered(Mapping[K, V]):
    """A dict as a base that many states share and the entries changed since (`top`), which
    override it; iterated in the order the keys first came, as a dict is. Entries are only
    added or replaced, never deleted."""

    __slots__ = ("added", "base", "top")

    def __init__(
        self, base: dict[K, V] | None = None, top: dict[K, V] | None = None, added: int = 0
    ) -> None:
        self.base: dict[K, V] = {} if base is None else base
        self.top: dict[K, V] = {} if top is None else top
        self.added = added  # keys of `top` that `base` has not

    def __getitem__(self, key: K) -> V:
        top = self.top
        return top[key] if key in top else self.base[key]

    @overload
    def get(self, key: K, /) -> V | None: ...
    @overload
    def get(self, key: K, default: V | T, /) -> V | T: ...
    def get(self, key: K, default: Any = None) -> Any:
        top = self.top
        return top[key] if key in top else self.base.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self.top or key in self.base

    def __len__(self) -> int:
        return len(self.base) + self.added

    def __iter__(self) -> Iterator[K]:
        yield from self.base
        if self.added:
            base = self.base
            yield from (key for key in self.top if key not in base)

    def __reduce__(self) -> tuple[Any, ...]:
        return Layered, (dict(self.items()),)  # one plain dict in a snapshot

    def __repr__(self) -> str:
        return f"Layered({dict(self.items())!r})"

    def grown(self, changes: Mapping[K, V]) -> "Layered[K, V]":
        """With the changes: this one itself when this command's fold made it."""
        made, base, top = _made, self.base, self.top
        added = 0  # (a loop: a generator cost more than the one or two keys a change has)
        for key in changes:
            if key not in top and key not in base:
                added += 1
        if made is not None and id(self) in made:
            top.update(changes)
            self.added += added
            return self
        top = {**top, **changes}
        if len(top) > 16 + isqrt(len(base)):
            new = Layered({**base, **top})
        else:
            new = Layered(base, top, self.added + added)
        if made is not None:
            made[id(new)] = new
        return new


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


class Appended(Sequence[T], Generic[T]):
    """A tuple of a state that grows at its end: the first `n` items of a list that the states
    share. A state never sees what was appended after it, so the list is appended to in place
    when this one is its newest (a fighter's thousandth duel copied 999 starts as a tuple, and
    a fighter of bench.duels begins hundreds) and copied first when it is not (a trial's state,
    a command decided again on an older one)."""

    __slots__ = ("items", "n")

    def __init__(self, items: Iterable[T] = ()) -> None:
        self.items = list(items)
        self.n = len(self.items)

    def added(self, item: T) -> "Appended[T]":
        """With `item` at the end."""
        # An empty one's list is copied too: a default may be many fighters' at once.
        items = self.items if 0 < self.n == len(self.items) else self.items[: self.n]
        items.append(item)
        grown: Appended[T] = Appended()
        grown.items, grown.n = items, len(items)
        return grown

    @overload
    def __getitem__(self, index: int, /) -> T: ...
    @overload
    def __getitem__(self, index: slice, /) -> Sequence[T]: ...
    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        if isinstance(index, slice):
            return self.items[: self.n][index]
        return self.items[range(self.n)[index]]  # (-1: this one's last, not the list's)

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[T]:
        return islice(self.items, self.n)

    def __reversed__(self) -> Iterator[T]:
        items = self.items
        return (items[i] for i in range(self.n - 1, -1, -1))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Appended):
            return self.n == other.n and (
                self.items is other.items or self.items[: self.n] == other.items[: other.n]
            )
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return Appended, (self.items[: self.n],)  # only what this one sees, in a snapshot

    def __repr__(self) -> str:
        return f"Appended({self.items[: self.n]!r})"
