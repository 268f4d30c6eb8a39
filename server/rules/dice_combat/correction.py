"""The GM's word on any number, with a reason: an event like any other."""

from server.rules.core import Context, Json, RuleError
from server.rules.dice_combat import checks
from server.rules.dice_combat.chase import chase_of
from server.rules.dice_combat.combatant import Combatant
from server.rules.dice_combat.commands import Correct
from server.rules.dice_combat.fight import correct_initiative
from server.rules.dice_combat.story import Story

LEAST = {"max_lives": 1, "attacks_per_round": 1, "sprint_rounds": 0, "sprint_used": 0, "lead": 0}


def correct(story: Story, ctx: Context, command: Correct) -> None:
    field, value = command.field, command.value
    if value < LEAST.get(field, value):
        raise RuleError("invalid", f"value: {field} is at least {LEAST[field]}")
    if command.chase_id is not None:
        chase = chase_of(story, command.chase_id)
        story.tell("number_corrected", noted(command, {"chase_id": chase.chase_id}, chase.lead))
        return
    assert command.combatant_id is not None  # the command names one or the other
    who = checks.combatant(story.state, command.combatant_id)
    target = {"combatant_id": who.combatant_id}
    if field == "initiative":
        fight = checks.fighting(story.state, who.combatant_id)
        entry = fight.initiative.get(who.combatant_id)
        if entry is None:
            raise RuleError("no_initiative", f"{who.name} has no initiative in this round")
        story.tell("number_corrected", noted(command, target, entry.total))
        correct_initiative(story, ctx, who.combatant_id, value)
        return
    if field.startswith("sprint_"):
        if who.sprint is None and field == "sprint_used":
            raise RuleError("no_sprint", f"{who.name} has not run since the last rest")
        before = None if who.sprint is None else getattr(who.sprint, field.removeprefix("sprint_"))
        story.tell("number_corrected", noted(command, target, before))
        return
    if field.startswith("weapon_"):
        before = getattr(who.weapon, field.removeprefix("weapon_"))
        story.tell("number_corrected", noted(command, target, before))
        return
    data = noted(command, target, who.number(field))
    if field == "lives":
        data.update(condition(who, value))
    story.tell("number_corrected", data)


def noted(command: Correct, target: Json, before: int | None) -> Json:
    return {
        **target,
        "field": command.field,
        "before": before,
        "after": command.value,
        "reason": command.reason,
    }


def condition(who: Combatant, lives: int) -> Json:
    """Above 0 a combatant is up (even back from the dead: the GM's word); a fainted one stays
    fainted at 0; anybody else at 0 or below is dead."""
    if lives > 0:
        return {"dead": False, "fainted": False}
    if who.fainted and lives == 0:
        return {"dead": False, "fainted": True}
    return {"dead": True, "fainted": False}
