"""Losing lives: from a blow or from bleeding, and fainting or dying of it."""

from server.rules.core import Context, Json
from server.rules.dice_combat import dice
from server.rules.dice_combat.combatant import Wound
from server.rules.dice_combat.story import Story


def hurt(
    story: Story,
    combatant_id: str,
    lost: int,
    cause: Json,
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
    story.tell(
        "combatant_hurt",
        {"combatant_id": combatant_id, **cause, "lost": victim.lives - after, "lives": after},
    )
    fell(story, combatant_id, flat=flat)


def fell(story: Story, combatant_id: str, *, flat: bool = False) -> None:
    """After a loss: at 0 or below one dies, unless a flat blow left it fainted at 0."""
    victim = story.state.combatants[combatant_id]
    if victim.lives > 0 or victim.dead:
        return
    if flat and victim.lives == 0:
        if not victim.fainted:
            story.tell("combatant_fainted", {"combatant_id": combatant_id})
        return
    story.tell("combatant_died", {"combatant_id": combatant_id})


def bleed(story: Story, ctx: Context, combatant_id: str, wound: Wound) -> None:
    """One round of a critical wound: its d6 rolled again (or its fixed quarter) are lost."""
    victim = story.state.combatants[combatant_id]
    if victim.dead:
        return
    rolled = [ctx.chance.die(6) for _ in range(wound.dice)]
    after = dice.lives_after(victim.lives, sum(rolled) + wound.fixed, cannot_kill=wound.cannot_kill)
    data: Json = {
        "wound_id": wound.wound_id,
        "combatant_id": combatant_id,
        "dice": rolled,
        "lost": victim.lives - after,
        "lives": after,
    }
    if rolled:
        data["chance"] = ctx.chance.record()
    story.tell("wound_bled", data)
    if after != victim.lives:
        fell(story, combatant_id)


def wound(
    story: Story,
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
    story.tell("wound_opened", {"combatant_id": combatant_id, **opened.dump()})
    bleed(story, ctx, combatant_id, opened)
