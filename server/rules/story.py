"""One way to decide, for every ruleset: a table from command type to its handler, one
accumulator of the events a command causes, and the hooks of what every game does (members join,
the game starts, the game ends).

A handler tells facts to the `Story`; each is applied at once (`evolve`), so a later step of the
same command sees what an earlier one did (a hit before the bleeding it opens), and the state
after the command comes with its events: nobody folds them twice. The Story and `tells` run
compiled (server/rules/telling.py: every event a command causes is told through them); the
Decider and the Lifecycle stay Python's (mypyc's classes of generic dataclasses fail).
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic

from server.rules import roster
from server.rules.core import Command, Context, Event, RuleError, S
from server.rules.events import Fact
from server.rules.telling import Handler, Story, tells

__all__ = ["Decider", "Handler", "Lifecycle", "Story", "tells"]


def nobody_objects(state: Any, command: roster.AddPlayer, ctx: Context) -> None:
    return None


def as_it_is(state: Any, joined: roster.PlayerJoined, ctx: Context) -> Fact:
    return joined


def nothing(story: Story[Any], ctx: Context) -> None:
    return None


@dataclass(frozen=True)
class Lifecycle(Generic[S]):
    """What a ruleset adds to what every game does, each hook optional:
    - `admit(state, command, ctx)` refuses a member the ruleset cannot take (raise RuleError);
    - `joined(state, fact, ctx)` answers the fact a member joins by (a player dealt cards);
    - `started(story, ctx)`, told after `game_started`, checks the setup and hands things out;
    - `ending(story, ctx)`, told before `game_ended`, closes everything still open."""

    admit: Callable[[S, roster.AddPlayer, Context], None] = nobody_objects
    joined: Callable[[S, roster.PlayerJoined, Context], Fact] = as_it_is
    started: Callable[[Story[S], Context], None] = nothing
    ending: Callable[[Story[S], Context], None] = nothing


@dataclass(frozen=True)
class Decider(Generic[S]):
    """A ruleset's `decide`: its handlers by command type, beside the common commands."""

    handlers: Mapping[type[Command], Handler[S]]
    evolve: Callable[[S, Event], S]
    lifecycle: Lifecycle[S] = field(default_factory=Lifecycle)

    def __call__(self, state: S, command: Command, ctx: Context) -> Story[S]:
        story = Story(state, self.evolve, ctx)
        kind = type(command)
        handler = self.handlers.get(kind)
        if handler is not None:
            handler(story, command, ctx)
        elif isinstance(command, roster.AddPlayer):
            self.join(story, command, ctx)
        elif kind is roster.StartGame:
            roster.require_lobby(state.roster)
            story.tell(roster.GameStarted())
            self.lifecycle.started(story, ctx)
        elif kind is roster.EndGame:
            roster.require_not_ended(state.roster)
            self.lifecycle.ending(story, ctx)
            story.tell(roster.GameEnded(seed=ctx.seed.hex()))
        else:
            raise RuleError("invalid", f"unknown command {kind.__name__}")
        return story

    def join(self, story: Story[S], command: roster.AddPlayer, ctx: Context) -> None:
        state = story.state
        roster.admit(state.roster, command)
        self.lifecycle.admit(state, command, ctx)
        joined = roster.joining(state.roster, command, ctx)
        story.tell(self.lifecycle.joined(state, joined, ctx))
