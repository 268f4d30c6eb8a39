"""The GM's word on any number, with a reason: an event like any other."""

from server.rules.core import Context, RuleError
from server.rules.dice_combat import checks
from server.rules.dice_combat.chase import chase_of
from server.rules.dice_combat.combatant import Combatant
from server.rules.dice_combat.commands import Correct
from server.rules.dice_combat.events import NumberCorrected
from server.rules.dice_combat.fight import correct_initiative
from server.rules.dice_combat.state import DiceCombat
from server.rules.events import UNSET, Unset
from server.rules.story import Story

LEAST = {"max_lives": 1, "attacks_per_round": 1, "sprint_rounds": 0, "sprint_used": 0, "lead": 0}


def correct(story: Story[DiceCombat], command: Correct, ctx: Context) -> None:
    field, value = command.field, command.value
    if value < LEAST.get(field, value):
        raise RuleError("invalid", f"value: {field} is at least {LEAST[field]}")
    if command.chase_id is not None:
        chase = chase_of(story, command.chase_id)
        story.tell(noted(command, chase.lead, chase_id=chase.chase_id))
        return
    assert command.combatant_id is not None  # the command names one or the other
    who = checks.combatant(story.state, command.combatant_id)
    target = who.combatant_id
    if field == "initiative":
        fight = checks.fighting(story.state, who.combatant_id)
        entry = fight.initiative.get(who.combatant_id)
        if entry is None:
            raise RuleError("no_initiative", f"{who.name} has no initiative in this round")
        story.tell(noted(command, entry.total, combatant_id=target))
        correct_initiative(story, ctx, who.combatant_id, value)
        return
    if field.startswith("sprint_"):
        if who.sprint is None and field == "sprint_used":
            raise RuleError("no_sprint", f"{who.name} has not run since the last rest")
        before = None if who.sprint is None else getattr(who.sprint, field.removeprefix("sprint_"))
        story.tell(noted(command, before, combatant_id=target))
        return
    if field.startswith("weapon_"):
        before = getattr(who.weapon, field.removeprefix("weapon_"))
        story.tell(noted(command, before, combatant_id=target))
        return
    if field == "lives":
        dead, fainted = condition(who, value)
        story.tell(noted(command, who.lives, combatant_id=target, dead=dead, fainted=fainted))
        return
    story.tell(noted(command, who.number(field), combatant_id=target))


def noted(
    command: Correct,
    before: int | None,
    *,
    combatant_id: str | Unset = UNSET,
    chase_id: str | Unset = UNSET,
    dead: bool | Unset = UNSET,
    fainted: bool | Unset = UNSET,
) -> NumberCorrected:
    """The correction of a combatant's number or of a chase's lead: only the id of the one it
    names is written, and `dead` and `fainted` only for lives."""
    return NumberCorrected(
        combatant_id=combatant_id,
        chase_id=chase_id,
        field=command.field,
        before=before,
        after=command.value,
        reason=command.reason,
        dead=dead,
        fainted=fainted,
    )


def condition(who: Combatant, lives: int) -> tuple[bool, bool]:
    """Dead and fainted after lives are set: above 0 a combatant is up (even back from the
    dead: the GM's word); a fainted one stays fainted at 0; anybody else at 0 or below is dead."""
    if lives > 0:
        return False, False
    if who.fainted and lives == 0:
        return False, True
    return True, False
