"""What every ruleset shares: events, the decision context, rule errors and commands."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path
from types import MemberDescriptorType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from server.rules.events import Catalog, Event, Json

__all__ = ["Catalog", "Event", "Json"]  # re-exported: every ruleset imports them from here
from server.rules.grown import one_command

if TYPE_CHECKING:
    from server.rules.chance import Chance
    from server.rules.offers import Offer
    from server.rules.rows import Rows
    from server.rules.story import Story

Role = Literal["organizer", "leader", "player", "spectator"]
ROLES: tuple[Role, ...] = ("organizer", "leader", "player", "spectator")
# Who may send a command, in every ruleset's words.
ORGANIZER: frozenset[Role] = frozenset({"organizer"})  # the organizer, the game master
PLAYER: frozenset[Role] = frozenset({"player"})
LEADER: frozenset[Role] = frozenset({"leader"})
ORGANIZER_OR_PLAYER: frozenset[Role] = ORGANIZER | PLAYER


class RuleError(Exception):
    """The rules refuse a command; `code` is the wire error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Member:
    """Anyone holding a token of a game: its players, leaders, organizers and spectators."""

    player_id: str
    name: str
    role: Role
    team: str | None
    code: str


@dataclass
class Context:
    """Everything `decide` may know beyond the state: who acts, when, and the game's chance.

    `seq` is the number the first new event will get. Ids are derived from it, so they are
    unique within the game and the same on every replay.
    """

    now: int
    actor: Member
    seq: int
    seed: bytes
    _ids: int = field(default=0, repr=False)

    def new_id(self, prefix: str) -> str:
        self._ids += 1
        return f"{prefix}{self.seq}" if self._ids == 1 else f"{prefix}{self.seq}.{self._ids}"

    @cached_property
    def chance(self) -> "Chance":
        """Dice and shuffles from the game's secret seed and this command's position alone."""
        from server.rules.chance import Chance

        return Chance(self.seed, self.seq)


Id = Field(min_length=1, max_length=64)  # the id of something a command names


class Command(BaseModel):
    """A command's fields; `roles` are the roles that may send it."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    roles: ClassVar[frozenset[Role]] = frozenset()


class HasRoster(Protocol):
    @property
    def roster(self) -> Any: ...


S = TypeVar("S", bound=HasRoster)
T = TypeVar("T")


@dataclass(frozen=True)
class Sight(Generic[S]):
    """A ruleset's view in parts, so that a change costs what it touches, not who watches.

    Every viewer of one `audience` sees the same `shared` part (computed and sent once for all
    of them); `private` is the viewer's own, with keys of its own; `touched(before, events,
    after)` names the members whose private part the events, decided on the state `before` and
    leading to `after`, may have changed (None: anybody's). For every viewer,
    view(state, viewer, now) == {**shared(state, audience(viewer), now), **private(...)}.
    `rows(audience)` describes a shared part that grows with the game (the organizer's) a row at
    a time, so that a change costs the rows it touches (None: the part is small, computed whole).
    """

    audience: Callable[[Member], str]
    shared: Callable[[S, str, int], Json]
    private: Callable[[S, Member, int], Json]
    touched: Callable[[S, list[Event], S], set[str] | None]
    rows: "Callable[[str], Rows[S] | None]" = lambda audience: None


@dataclass(frozen=True)
class Ruleset(Generic[S]):
    """One game's rules as pure functions: the decider shape."""

    id: str
    title: str
    config: type[BaseModel]
    commands: Mapping[str, type[Command]]
    initial_state: Callable[[Json], S]
    # Decides a command: its events and the state after them (server/rules/story.py).
    play: "Callable[[S, Command, Context], Story[S]]"
    evolve: Callable[[S, Event], S]
    view: Callable[[S, Member, int], Json]
    events: Catalog  # its event kinds and their upcasters (server/rules/events.py)
    sight: Sight[S] | None = None  # without one, every viewer's whole view is private
    # What a viewer may do now, by action (server/rules/offers.py); the view carries it as `may`.
    offers: "Callable[[S, Member, int], Mapping[str, Offer]]" = lambda state, viewer, now: {}
    # What the directory of members adds to a member's line, by player id, with a tag that
    # changes whenever any of it does (the directory's ETag): e.g. the keys every phone needs.
    directory: "Callable[[S], tuple[str, Mapping[str, Json]]]" = lambda state: ("", {})
    # The folder of its phone side when it lives outside the PWA's tree (a ruleset of another
    # package); None: pwa/js/rulesets/<id>/.
    phone: Path | None = None
    # Raise it when what the state means changes but not its shape (its dataclasses' fields):
    # snapshots of the old meaning are then ignored (server/game/snapshots.py).
    state_version: int = 1

    def decide(self, state: S, command: Command, ctx: Context) -> list[Event]:
        """The events a command causes, or a RuleError that refuses it."""
        return self.play(state, command, ctx).events

    def read(self, type: str, data: Json, version: int = 1) -> Event:
        """A line of this ruleset's log as an event (server/rules/events.py)."""
        return self.events.read(type, data, version)

    @cached_property
    def parts(self) -> Sight[S]:
        if self.sight is not None:
            return self.sight
        return Sight(
            audience=lambda viewer: f"member:{viewer.player_id}",
            shared=lambda state, audience, now: {},
            private=self.view,
            touched=lambda before, events, after: None,
        )


_KEEP: Any = object()


REPLACERS: dict[type, Callable[..., Any]] = {}


def replacer(cls: type) -> Callable[..., Any]:
    """A `replace` written out for one dataclass, so that Python binds the changed fields as
    keyword arguments instead of looking each field up by name. The new object is filled in
    directly: a frozen dataclass's own __init__ looks up `object.__setattr__` for every field,
    which made it the bulk of replaying a log."""
    if cls in REPLACERS:
        return REPLACERS[cls]
    names = [f.name for f in fields(cls)]
    parameters = ", ".join(f"{name}=_KEEP" for name in names)
    namespace: dict[str, Any] = {
        "cls": cls,
        "_KEEP": _KEEP,
        "_new": object.__new__,
        "_set": object.__setattr__,
    }
    values = {name: f"obj.{name} if {name} is _KEEP else {name}" for name in names}
    if hasattr(cls, "__post_init__"):  # the class finishes itself: let its __init__ run
        body = f"    return cls({', '.join(values.values())})"
    else:
        sets = []
        for name, value in values.items():
            slot = cls.__dict__.get(name)
            if isinstance(slot, MemberDescriptorType):  # a slot: set through its descriptor,
                namespace[f"_set_{name}"] = slot.__set__  # without a lookup by name
                sets.append(f"    _set_{name}(new, {value})\n")
            else:
                sets.append(f"    _set(new, {name!r}, {value})\n")
        body = f"    new = _new(cls)\n{''.join(sets)}    return new"
    exec(f"def replace(obj, *, {parameters}):\n{body}", namespace)
    made: Callable[..., Any] = namespace["replace"]
    REPLACERS[cls] = made
    return made


def replace(obj: T, **changes: Any) -> T:
    """`dataclasses.replace`, several times faster: evolve calls it for nearly every event, and
    replaying a long log is mostly this."""
    made: T = replacer(type(obj))(obj, **changes)
    return made


def fold(ruleset: Ruleset[Any], events: list[Event], state: Any = None) -> Any:
    """Replay a game's whole log, whose first event is `game_created`; or, given the `state`
    an earlier part of the log folded to (a snapshot), the events after it."""
    if state is None:
        from server.rules.roster import GameCreated  # (the roster is built on this module)

        created = events[0].fact
        if not isinstance(created, GameCreated):
            raise RuleError("invalid", "a game's log opens with game_created")
        state = ruleset.initial_state(created.config)
    evolve = ruleset.evolve
    with one_command():  # only the last state is kept: its dicts grow in place
        for event in events:
            state = evolve(state, event)
    return state
