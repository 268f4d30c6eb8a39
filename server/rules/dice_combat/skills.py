"""Checks the GM asks for: a perception roll (Postřeh) before a fight, to learn who is
surprised, or any other skill. Each combatant rolls an exploding d6 + a number of its sheet (if
one is named) + the GM's value, against the difficulty; the roll spends no action."""

from server.rules.core import Context
from server.rules.dice_combat import checks, dice
from server.rules.dice_combat.commands import Check
from server.rules.dice_combat.events import CheckRoll, CheckRolled
from server.rules.dice_combat.state import DiceCombat
from server.rules.story import Story


def check(story: Story[DiceCombat], command: Check, ctx: Context) -> None:
    checks.distinct(command.combatants, "combatants")
    rolling = [checks.up(story.state, combatant_id) for combatant_id in command.combatants]
    rolls = []
    for who in rolling:
        rolled = dice.exploding(lambda: ctx.chance.die(6))
        number = 0 if command.field is None else who.number(command.field)
        total = rolled.total + number + command.value
        roll = CheckRoll(
            combatant_id=who.combatant_id,
            dice=list(rolled.dice),
            sixes=rolled.sixes,
            number=number,
            total=total,
            success=total >= command.difficulty,
        )
        rolls.append(roll)
    rolled_check = CheckRolled(
        check_id=ctx.new_id("k"),
        check=command.kind,
        name=command.name.strip(),
        field=command.field,
        value=command.value,
        difficulty=command.difficulty,
        rolls=rolls,
    )
    story.tell(rolled_check)
