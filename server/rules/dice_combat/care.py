"""Treatment and rest: first aid stops bleeding, so does the GM; a rest gives a second wind."""

from typing import Literal

from server.rules.core import Context, RuleError
from server.rules.dice_combat import checks, dice
from server.rules.dice_combat.commands import FirstAid, Rest, StopBleeding
from server.rules.dice_combat.events import BleedingStopped, CombatantRested, FirstAidRolled
from server.rules.dice_combat.state import DiceCombat
from server.rules.story import Story


def first_aid(story: Story[DiceCombat], command: FirstAid, ctx: Context) -> None:
    """Exploding d6 + the healer's agi + first aid skill against 14; in a fight it is the
    healer's long action (use a skill), on its turn."""
    state = story.state
    healer = checks.up(state, command.healer_id)
    patient = checks.alive(state, command.patient_id)
    if not patient.wounds:
        raise RuleError("not_bleeding", f"{patient.name} does not bleed")
    fight = state.fight
    fight_id = None
    if fight is not None and healer.combatant_id in fight.participants:
        checks.on_turn(fight, healer)
        refusal = fight.done(healer.combatant_id).refusal("use_skill", "long")
        if refusal:
            raise RuleError(*refusal)
        fight_id = fight.fight_id
    rolled = dice.exploding(lambda: ctx.chance.die(6))
    total = rolled.total + healer.agi + healer.first_aid
    success = total >= dice.FIRST_AID
    aid = FirstAidRolled(
        fight_id=fight_id,
        healer_id=healer.combatant_id,
        patient_id=patient.combatant_id,
        dice=list(rolled.dice),
        sixes=rolled.sixes,
        agi=healer.agi,
        skill=healer.first_aid,
        total=total,
        needed=dice.FIRST_AID,
        success=success,
    )
    story.tell(aid)
    if success:
        stopped(story, patient.combatant_id, "first_aid", None)


def stop_bleeding(story: Story[DiceCombat], command: StopBleeding, ctx: Context) -> None:
    """The GM's potion, spell or surgeon."""
    patient = checks.alive(story.state, command.combatant_id)
    if not patient.wounds:
        raise RuleError("not_bleeding", f"{patient.name} does not bleed")
    stopped(story, patient.combatant_id, "gm", command.reason)


def stopped(
    story: Story[DiceCombat],
    combatant_id: str,
    by: Literal["first_aid", "gm"],
    reason: str | None,
) -> None:
    wounds = [w.wound_id for w in story.state.combatants[combatant_id].wounds]
    story.tell(BleedingStopped(combatant_id=combatant_id, wound_ids=wounds, by=by, reason=reason))


def rest(story: Story[DiceCombat], command: Rest, ctx: Context) -> None:
    who = checks.alive(story.state, command.combatant_id)
    if who.sprint is None:
        raise RuleError("not_tired", f"{who.name} has not run since the last rest")
    story.tell(CombatantRested(combatant_id=who.combatant_id))
