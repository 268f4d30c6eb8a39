"""One game driven through a ruleset's pure functions, the way the referee drives it: each
ruleset's test helper adds its own shortcuts to this."""

from collections.abc import Callable
from typing import Any, ClassVar, Generic

from server.rules.core import Command, Context, Event, Json, Member, RuleError, Ruleset, S
from server.rules.roster import opening
from server.store import chain

SEED = b"s" * 32
T0 = 1_700_000_000_000  # a server time in ms


class Driver(Generic[S]):
    # Called after every command that wrote: (driver, state before it, its events, its time).
    watchers: ClassVar[list[Callable[["Driver[Any]", Any, list[Event], int], None]]] = []

    def __init__(
        self,
        ruleset: Ruleset[S],
        config: Json | None = None,
        *,
        seed: bytes = SEED,
        now: int = T0,
        strict: bool = True,
    ) -> None:
        # As the referee does: the organizer's config validated, then stored as JSON.
        settings = ruleset.config.model_validate(config or {}, strict=strict)
        self.ruleset = ruleset
        self.seed = seed
        self.now = now
        self.state, self.log = opening(
            ruleset, "g1", "Test", settings.model_dump(mode="json"), seed, now
        )
        self.firsts: list[int] = [2]  # the seq of the first event of every accepted command
        self.organizer = self.member(self.log[-1].data["player_id"])

    def decide(self, actor: Member, command: Command, at: int | None = None) -> list[Event]:
        """Decide `command` as `actor` at `at` (default: now), evolve and log its events."""
        ctx = Context(
            now=self.now if at is None else at, actor=actor, seq=len(self.log) + 1, seed=self.seed
        )
        before = self.state
        events = self.ruleset.decide(self.state, command, ctx)
        if events:
            self.firsts.append(ctx.seq)
        for event in events:
            self.state = self.ruleset.evolve(self.state, event)
            self.log.append(event)
        for watch in Driver.watchers if events else ():
            watch(self, before, events, ctx.now)
        return events

    def run(self, actor: Member, command: Command, at: int | None = None) -> list[Event]:
        """As `decide`, after the role check the referee makes for every command."""
        if actor.role not in type(command).roles:
            raise RuleError("forbidden", f"a {actor.role} may not do that")
        return self.decide(actor, command, at)

    def view(self, viewer: Member, at: int | None = None) -> Json:
        return self.ruleset.view(self.state, viewer, self.now if at is None else at)

    def member(self, player_id: str) -> Member:
        member: Member = self.state.roster.members[player_id]
        return member

    def lines(self) -> list[Json]:
        """The log as `GET /api/games/{gid}/events` gives it, hash chain included."""
        return chain.seal(
            [
                {"seq": seq, "type": event.type, "at": "", "actor": "", "data": event.data}
                for seq, event in enumerate(self.log, start=1)
            ]
        )
