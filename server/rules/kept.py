"""View parts made again only when what they are made of is another object.

A state is never changed (grown.py): the same object makes the same part. A part of a view made
of one or two objects of the state (a fighter, a duel's rounds) is kept with them and given
again while the state still holds those very objects: most of a duellist's private part is as it
was when the opponent picks, and the patch's `diff` passes over a part that is the same object
without looking inside. A part given again is shared by the views that hold it: nobody changes
a view once made (the hub and the patches only read them).
"""

from collections.abc import Hashable
from typing import Generic, TypeVar

V = TypeVar("V")

LIMIT = 20_000  # parts kept (the objects they were made of stay alive until they are let go)


class Kept(Generic[V]):
    """The last part made under each key, with the one or two objects it was made of."""

    __slots__ = ("made",)

    def __init__(self) -> None:
        self.made: dict[Hashable, tuple[object, object, V]] = {}

    def get(self, key: Hashable, a: object, b: object = None) -> V | None:
        """The part kept under `key`, if it was made of these very objects."""
        made = self.made.get(key)
        if made is not None and made[0] is a and made[1] is b:
            return made[2]
        return None

    def put(self, key: Hashable, part: V, a: object, b: object = None) -> V:
        if len(self.made) >= LIMIT:  # a bound, not a policy: they are made again at worst
            self.made.clear()
        self.made[key] = (a, b, part)
        return part
