"""Deciding a chase: each round both run 1d10 + movement + athletics, and the lead changes by
the difference; it ends when the chaser catches up, a runner is exhausted, or the GM says so."""

from typing import Literal

from server.rules.core import Context, RuleError
from server.rules.dice_combat import checks, dice
from server.rules.dice_combat.commands import ChaseRound, EndChase, StartChase
from server.rules.dice_combat.events import ChaseEnded, ChaseRolled, ChaseStarted, Distance
from server.rules.dice_combat.fight import run
from server.rules.dice_combat.state import Chase, DiceCombat
from server.rules.story import Story

EndReason = Literal["caught", "exhausted", "gm", "game_ended"]


def start(story: Story[DiceCombat], command: StartChase, ctx: Context) -> None:
    fleeing = checks.up(story.state, command.fleeing_id)
    chaser = checks.up(story.state, command.chaser_id)
    if fleeing.combatant_id == chaser.combatant_id:
        raise RuleError("invalid", "chaser_id: one does not chase oneself")
    for chase in story.state.chases.values():
        if (chase.fleeing_id, chase.chaser_id) == (fleeing.combatant_id, chaser.combatant_id):
            raise RuleError("already_chasing", f"{chaser.name} chases {fleeing.name} already")
    started = ChaseStarted(
        chase_id=ctx.new_id("h"),
        fleeing_id=fleeing.combatant_id,
        chaser_id=chaser.combatant_id,
        lead=command.lead,
    )
    story.tell(started)


def chase_of(story: Story[DiceCombat], chase_id: str) -> Chase:
    chase = story.state.chases.get(chase_id)
    if chase is None:
        raise RuleError("not_found", f"no chase {chase_id}")
    return chase


def round_of(story: Story[DiceCombat], command: ChaseRound, ctx: Context) -> None:
    chase = chase_of(story, command.chase_id)
    runners = (chase.fleeing_id, chase.chaser_id)
    for runner in runners:
        checks.up(story.state, runner)
    tired = [r for r in runners if (s := story.state.combatants[r].sprint) and s.exhausted]
    if tired:
        end(story, chase, "exhausted", tired)
        return
    for runner in runners:
        run(story, ctx, runner)  # the sprint length of whoever has not run yet
    fleeing, chaser = (distance(story, ctx, runner) for runner in runners)
    lead = dice.chase_lead(chase.lead, fleeing.total, chaser.total)
    rolled = ChaseRolled(
        chase_id=chase.chase_id,
        round=chase.round + 1,
        fleeing=fleeing,
        chaser=chaser,
        lead_before=chase.lead,
        lead=lead,
    )
    story.tell(rolled)
    if lead == 0:
        end(story, chase, "caught", [])


def distance(story: Story[DiceCombat], ctx: Context, runner: str) -> Distance:
    who = story.state.combatants[runner]
    die = ctx.chance.die(10)
    return Distance(
        combatant_id=runner,
        die=die,
        movement=who.movement,
        athletics=who.athletics,
        total=dice.chase_distance(die, who.movement, who.athletics),
    )


def stop(story: Story[DiceCombat], command: EndChase, ctx: Context) -> None:
    end(story, chase_of(story, command.chase_id), "gm", [])


def end(story: Story[DiceCombat], chase: Chase, reason: EndReason, exhausted: list[str]) -> None:
    story.tell(ChaseEnded(chase_id=chase.chase_id, reason=reason, exhausted=exhausted))
