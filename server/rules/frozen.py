"""Values of a state built at the speed of compiled code, and as immutable as frozen dataclasses.

A frozen dataclass stays a class of Python's when its module is compiled: its __init__ sets
each field through `object.__setattr__`, and building Fighters, Duels and states was the bulk of
folding an event (card-duel: 7 µs an event, bench/replay.py). A `Frozen` value is declared as

    @mypyc_attr(acyclic=True)
    @dataclass(init=False, unsafe_hash=True)
    class Duel(Frozen):
        duel_id: Final[str]
        ...
        def __init__(self, duel_id: str, ...) -> None:
            self.duel_id = duel_id

Compiled, it is a C struct that its own __init__ fills in directly (0.03 µs against 0.53 for a
frozen dataclass of four fields), its fields are read-only (`Final`: mypy refuses an assignment
outside __init__, the compiled class at run time), and the collector never visits it
(`acyclic`: a value is built from values made before it, so none is ever part of a cycle).
From source, the same class runs as a plain dataclass. Either way the dataclass gives it `==`,
`hash`, `repr`, `fields` and `replace`; its __init__'s parameters are its fields, in their
order.
"""

from collections.abc import Callable
from dataclasses import fields
from operator import attrgetter
from typing import Any, Final

from mypy_extensions import mypyc_attr


@mypyc_attr(acyclic=True)
class Frozen:
    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (a snapshot) as its class and its fields: a compiled class has no other way
        to be made again."""
        kind = type(self)
        read = _READERS.get(kind)
        if read is None:
            read = _READERS[kind] = reader(kind)
        return kind, read(self)


# Each Frozen class's fields read as a tuple in one call, made once a class: a snapshot of a
# festival's game pickles millions of values, and finding a value's fields took most of it.
_READERS: dict[type, Callable[[Any], tuple[Any, ...]]] = {}


def reader(kind: type) -> Callable[[Any], tuple[Any, ...]]:
    """A function that reads a value's fields in their order, as a tuple."""
    names = [f.name for f in fields(kind)]
    if len(names) == 1:  # attrgetter of one name answers the value itself
        name = names[0]
        return lambda value: (getattr(value, name),)
    return attrgetter(*names)


class Keep:
    """A field as it was: the default of a function that makes a changed copy of a value."""


KEEP: Final = Keep()
