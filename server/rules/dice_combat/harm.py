"""Losing lives: from a blow or from bleeding, and fainting or dying of it."""

from server.rules.core import Context
from server.rules.dice_combat import dice
from server.rules.dice_combat.combatant import Wound
from server.rules.dice_combat.events import (
    CombatantDied,
    CombatantFainted,
    CombatantHurt,
    WoundBled,
    WoundOpened,
)
from server.rules.dice_combat.state import DiceCombat
from server.rules.story import Story


def hurt(
    story: Story[DiceCombat],
    combatant_id: str,
    lost: int,
    attack_id: str,
    *,
    flat: bool = False,
    cannot_kill: bool = False,
) -> None:
    """Take `lost` lives from a combatant; at 0 a flat blow makes it faint, anything else kills."""
    victim = story.state.combatants[combatant_id]
    if victim.dead:
        return
    after = dice.lives_after(victim.lives, lost, flat=flat, cannot_kill=cannot_kill)
    if after == victim.lives:
        return
    taken = victim.lives - after
    story.tell(
        CombatantHurt(combatant_id=combatant_id, attack_id=attack_id, lost=taken, lives=after)
    )
    fell(story, combatant_id, flat=flat)


def fell(story: Story[DiceCombat], combatant_id: str, *, flat: bool = False) -> None:
    """After a loss: at 0 or below one dies, unless a flat blow left it fainted at 0."""
    victim = story.state.combatants[combatant_id]
    if victim.lives > 0 or victim.dead:
        return
    if flat and victim.lives == 0:
        if not victim.fainted:
            story.tell(CombatantFainted(combatant_id=combatant_id))
        return
    story.tell(CombatantDied(combatant_id=combatant_id))


def bleed(story: Story[DiceCombat], ctx: Context, combatant_id: str, wound: Wound) -> None:
    """One round of a critical wound: its d6 rolled again (or its fixed quarter) are lost."""
    victim = story.state.combatants[combatant_id]
    if victim.dead:
        return
    rolled = [ctx.chance.die(6) for _ in range(wound.dice)]
    after = dice.lives_after(victim.lives, sum(rolled) + wound.fixed, cannot_kill=wound.cannot_kill)
    # The dice rolled, if any, are recorded in `chance` (a fixed loss rolls none).
    bled = WoundBled(
        wound_id=wound.wound_id,
        combatant_id=combatant_id,
        dice=rolled,
        lost=victim.lives - after,
        lives=after,
    )
    story.tell(bled)
    if after != victim.lives:
        fell(story, combatant_id)


def wound(
    story: Story[DiceCombat],
    ctx: Context,
    combatant_id: str,
    attack_id: str,
    *,
    sixes: int = 0,
    fixed: int = 0,
    cannot_kill: bool = False,
) -> None:
    """A critical opens a wound on a combatant that bleeds, and it bleeds at once."""
    bearer = story.state.combatants[combatant_id]
    if bearer.dead or not bearer.bleeds:
        return
    opened = Wound(ctx.new_id("w"), attack_id, sixes, fixed, cannot_kill)
    story.tell(
        WoundOpened(
            combatant_id=combatant_id,
            wound_id=opened.wound_id,
            attack_id=attack_id,
            dice=sixes,
            fixed=fixed,
            cannot_kill=cannot_kill,
        )
    )
    bleed(story, ctx, combatant_id, opened)
