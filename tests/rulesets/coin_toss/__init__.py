"""`coin-toss`: the smallest ruleset, proof that a ruleset is one folder on each side.

It lives under tests/ and is loaded by `BIJSE_RULESETS=tests.rulesets` exactly as the four real
ones are by their package; its phone side (`pwa/`) is served at `js/rulesets/coin-toss/` as
theirs is from the PWA's tree. Each player tosses a coin a few times; the most heads wins.
"""

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from server.rules import roster
from server.rules.core import Command, Context, Event, Json, Member, Role, RuleError, Ruleset
from server.rules.events import UNSET, Fact, Unset
from server.rules.offers import Offer, judged, may
from server.rules.roster import Roster
from server.rules.story import Decider, Story

PLAYER: frozenset[Role] = frozenset({"player"})
Side = Literal["heads", "tails"]


class Config(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    tosses: int = Field(default=3, ge=1, le=20)  # each player's


class Toss(Command):
    roles: ClassVar[frozenset[Role]] = PLAYER


class CoinTossed(Fact, frozen=True):
    kind = "coin_tossed"
    player_id: str
    side: Side
    chance: Json | Unset = UNSET


EVENTS = roster.EVENTS.extended([CoinTossed])


@dataclass(frozen=True, slots=True)
class CoinToss:
    roster: Roster = field(default_factory=Roster)
    tosses: dict[str, tuple[Side, ...]] = field(default_factory=dict)

    def left(self, player_id: str) -> int:
        allowed: int = self.roster.config.get("tosses", 3)
        return allowed - len(self.tosses.get(player_id, ()))


def initial_state(config: Json) -> CoinToss:
    return CoinToss()


def evolve(state: CoinToss, event: Event) -> CoinToss:
    fact = event.fact
    if isinstance(fact, CoinTossed):
        tossed = (*state.tosses.get(fact.player_id, ()), fact.side)
        return replace(state, tosses={**state.tosses, fact.player_id: tossed})
    return replace(state, roster=roster.evolve(state.roster, event))


def may_toss(state: CoinToss, actor: Member) -> None:
    """The guard of a toss: decide raises it, the view shows it."""
    roster.require_running(state.roster)
    if state.left(actor.player_id) <= 0:
        raise RuleError("no_tosses_left", "you have tossed every coin you had")


def toss(story: Story[CoinToss], command: Toss, ctx: Context) -> None:
    may_toss(story.state, ctx.actor)
    side: Side = "heads" if ctx.chance.die(2) == 1 else "tails"
    story.tell(CoinTossed(player_id=ctx.actor.player_id, side=side))


def offers(state: CoinToss, viewer: Member, now: int) -> dict[str, Offer]:
    if viewer.role != "player":
        return {}
    return {"toss": Offer(Toss(), judged(lambda: may_toss(state, viewer)))}


def tally(state: CoinToss) -> Json:
    """Heads and tails by player: everybody's to see (names, never codes)."""
    return {
        pid: {
            "name": m.name,
            "heads": state.tosses.get(pid, ()).count("heads"),
            "tails": state.tosses.get(pid, ()).count("tails"),
        }
        for pid, m in state.roster.members.items()
        if m.role == "player"
    }


def view(state: CoinToss, viewer: Member, now: int) -> Json:
    me: Json = {"player_id": viewer.player_id, "name": viewer.name, "role": viewer.role}
    if viewer.role in ("player", "organizer"):
        me["code"] = viewer.code
    if viewer.role == "player":
        me["tosses"] = list(state.tosses.get(viewer.player_id, ()))
        me["left"] = state.left(viewer.player_id)
    return {
        "game": roster.game_view(state.roster),
        "me": me,
        "tally": tally(state),
        "may": may(offers(state, viewer, now)),
    }


def play(state: CoinToss, command: Command, ctx: Context) -> Story[CoinToss]:
    return DECIDER(state, command, ctx)


DECIDER: Decider[CoinToss] = Decider(handlers={Toss: toss}, evolve=evolve)

RULESET: Ruleset[Any] = Ruleset(
    id="coin-toss",
    title="Coin toss (a test ruleset)",
    config=Config,
    commands={**roster.COMMON_COMMANDS, "toss": Toss},
    initial_state=initial_state,
    play=play,
    evolve=evolve,
    view=view,
    events=EVENTS,
    offers=offers,
    phone=Path(__file__).parent / "pwa",
)
