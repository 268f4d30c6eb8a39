"""A command's story, told fact by fact (server/rules/story.py): compiled, as every event a
command causes is told through it."""

from collections.abc import Callable
from typing import Any, Generic

import msgspec

from server.rules.core import Command, Context, Event, S
from server.rules.events import Fact


class Story(Generic[S]):
    """The events one command causes, and the state they lead to."""

    def __init__(self, state: S, evolve: Callable[[S, Event], S], ctx: Context) -> None:
        self.state = state
        self.evolve = evolve
        self.ctx = ctx
        self.events: list[Event] = []

    def tell(self, fact: Fact) -> None:
        # A fact that can carry the draws it used gets them, for the verifier (docs/protocol.md).
        drawn = self.ctx.__dict__.get("chance")  # drawn at all: `Context.chance` is made lazily
        if drawn is not None and drawn.draws and "chance" in fact.__struct_fields__:
            fact = msgspec.structs.replace(fact, chance=drawn.record())
        event = told(fact)
        self.events.append(event)
        self.state = self.evolve(self.state, event)


def told(fact: Fact) -> Event:
    """`Event.of(fact)`, made by tuple's own __new__: a NamedTuple's is Python's, and every
    event a command causes is made here."""
    return tuple.__new__(Event, (fact.kind, msgspec.to_builtins(fact), fact, fact.version))


# A command's handler; `Any`: each handler takes its own command class.
Handler = Callable[[Story[S], Any, Context], None]


def tells(decide: Callable[[S, Any, Context], list[Fact]]) -> Handler[S]:
    """A handler from a function that decides every fact of a command on the state before it."""

    def handler(story: Story[S], command: Command, ctx: Context) -> None:
        for fact in decide(story.state, command, ctx):
            story.tell(fact)

    return handler
