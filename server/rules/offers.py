"""What a viewer may do now, as its view tells it.

A ruleset's `offers(state, viewer, now)` names each action a phone or console shows, with the
command it sends (a representative one where the player fills in a number or a name) and the
refusal `decide` would give that command now. The view carries them under `may`: `true` for an
action that would be accepted, `{"code"}` for a refused one (`"until"` too when the refusal ends
by time alone: a stun running out, as an ISO time). The screens offer, grey and explain from
`may` alone; the property suite checks every offer against `decide` (tests/rules/properties.py).
"""

from collections.abc import Callable, Mapping
from typing import Any, ParamSpec

from server.clock import iso
from server.rules.core import Command, Context, Json, Member, RuleError
from server.rules.refusal import Refusal
from server.rules.roster import EndGame, Roster, StartGame, require_lobby, require_not_ended

P = ParamSpec("P")


def trial(viewer: Member, now: int) -> Context:
    """A context for trying a command without writing it: its ids and draws are never used."""
    return Context(now=now, actor=viewer, seq=1 << 40, seed=bytes(32))


class Offer:
    """An action a view offers: the command it sends, and decide's refusal of it now."""

    # A class of its own, not a NamedTuple: compiled, it is made in a tenth of the time (a
    # NamedTuple's __new__ is Python's), and a fighter's view makes three or four at every
    # change.
    def __init__(
        self,
        command: Command | Callable[[], Command],
        refused: str | None = None,
        until: int | None = None,
    ) -> None:
        # The command (or what makes it: a view is computed far more often than a command is
        # tried, and a command model costs more to build than the judgement).
        self.command = command
        self.refused = refused  # the refusal code decide gives now, None: accepted
        self.until = until  # when the refusal ends with time alone, None: not with time

    def __repr__(self) -> str:
        return f"Offer({self.sent()!r}, {self.refused!r}, {self.until!r})"

    def sent(self) -> Command:
        """The command the action sends."""
        return self.command if isinstance(self.command, Command) else self.command()

    def wire(self) -> bool | Json:
        if self.refused is None:
            return True
        if self.until is None:
            return {"code": self.refused}
        return {"code": self.refused, "until": iso(self.until)}


def may(offers: Mapping[str, Offer]) -> Json:
    """The `may` of a view: each offered action, true or its refusal."""
    return {name: offer.wire() for name, offer in offers.items()}


def judged(guard: Callable[P, object], *args: P.args, **kwargs: P.kwargs) -> str | None:
    """The refusal code of a guard (a function that answers a Refusal or raises a RuleError)
    given these arguments, None when it passes."""
    try:
        found = guard(*args, **kwargs)
    except RuleError as error:
        return error.code
    return found.code if isinstance(found, Refusal) else None


def tried(
    play: Callable[[Any, Command, Context], object],
    state: Any,
    command: Command,
    viewer: Member,
    now: int,
) -> Offer:
    """An offer judged by deciding the command itself (and throwing its events away): the
    surest agreement with decide, for a view computed rarely (a game master's console)."""
    if viewer.role not in type(command).roles:  # the referee's check, before decide's
        return Offer(command, "forbidden")
    ctx = trial(viewer, now)
    return Offer(command, judged(lambda: play(state, command, ctx)))


def console(status: Roster, ready: Callable[[], object] = lambda: None) -> dict[str, Offer]:
    """An organizer's start and end, judged as every Decider judges them (server/rules/story.py);
    `ready` is the ruleset's own check at the start (its Lifecycle's `started`)."""

    def start() -> None:
        require_lobby(status)
        ready()

    return {
        "start_game": Offer(StartGame(), judged(start)),
        "end_game": Offer(EndGame(), judged(lambda: require_not_ended(status))),
    }
