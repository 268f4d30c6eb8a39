"""Events as typed, versioned records, and the log's lines they are read from.

A ruleset declares each event kind it writes as a `Fact`: a frozen record whose class names the
kind and its current version. `decide` tells facts; the store keeps each as a line of JSON with
its type and version; loading a game reads every line back into its fact once. A line written by
an older version is upgraded on read by the ruleset's upcasters, one small named function a
version step (`upcast_v1_v2`), so `evolve` and `view` only ever see today's shape. Upcasting
never changes the line itself: the hash chain and an export cover the lines as written.
"""

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, NamedTuple

import msgspec

Json = dict[str, Any]
UNSET = msgspec.UNSET  # a field a line may leave out (None is a value it holds)
Unset = msgspec.UnsetType
convert = msgspec.convert


class Fact(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What happened, in the past tense: one kind of event. Subclasses set `kind` and, when
    their shape changes, raise `version` and add an upcaster from the version before."""

    kind: ClassVar[str] = ""
    version: ClassVar[int] = 1


class Event(NamedTuple):
    """An event as the log holds it (`type`, `version` and `data` as written: what the hash
    covers) and as the rules read it (`fact`, at its kind's current version). A tuple: a long
    log makes millions of them, and a frozen dataclass costs three times as much to make."""

    type: str
    data: Json
    fact: Fact
    version: int = 1

    @classmethod
    def of(cls, fact: Fact) -> "Event":
        """A new event, written at its kind's current version."""
        return cls(fact.kind, msgspec.to_builtins(fact), fact, fact.version)


# An upcaster takes a line's data at one version and answers it at the next.
Upcaster = Callable[[Json], Json]


class UnknownEvent(ValueError):
    """A line no ruleset's catalog can read: an unknown type, a version from the future, or
    data that does not fit its record."""


class Catalog:
    """A ruleset's event kinds by type, and the upcasters that bring old lines up to date."""

    def __init__(
        self, facts: Iterable[type[Fact]], upcasters: Mapping[tuple[str, int], Upcaster] = {}
    ) -> None:
        self.facts: dict[str, type[Fact]] = {}
        for fact in facts:  # a later class of a kind (a ruleset's own player_joined) wins
            self.facts[fact.kind] = fact
        self.upcasters = dict(upcasters)
        for (kind, version), _ in self.upcasters.items():
            if kind not in self.facts or not 0 < version < self.facts[kind].version:
                raise ValueError(f"no step from version {version} of {kind}")
        for kind, fact in self.facts.items():
            missing = [v for v in range(1, fact.version) if (kind, v) not in self.upcasters]
            if missing:
                raise ValueError(f"{kind} has no upcaster from version {missing[0]}")

    def extended(
        self, facts: Iterable[type[Fact]], upcasters: Mapping[tuple[str, int], Upcaster] = {}
    ) -> "Catalog":
        return Catalog([*self.facts.values(), *facts], {**self.upcasters, **upcasters})

    def read(self, type: str, data: Json, version: int = 1) -> Event:
        """A line of the log as an event: its data read into its kind's record, upcast first
        when the line is older than the record."""
        fact = self.facts.get(type)
        if fact is None:
            raise UnknownEvent(f"no event of type {type!r} in this ruleset")
        if not 0 < version <= fact.version:
            raise UnknownEvent(f"{type} has no version {version} (newest: {fact.version})")
        current = data
        for step in range(version, fact.version):  # none for a line of today's version
            current = self.upcasters[(type, step)](current)
        try:
            return Event(type, data, convert(current, fact), version)
        except msgspec.ValidationError as error:
            raise UnknownEvent(f"{type} v{version}: {error}") from error

    def again(self, event: Event) -> Event:
        """The event read back from its JSON, as a server loading the game would read it."""
        return self.read(
            event.type, msgspec.json.decode(msgspec.json.encode(event.data)), event.version
        )
