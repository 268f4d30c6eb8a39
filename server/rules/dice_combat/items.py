"""Items with an effect (a potion): used in one round, they work at the start of the next, and a
number they change is changed back when its rounds are over, or when the fight ends."""

from server.rules.dice_combat import checks
from server.rules.dice_combat.combatant import BoostField, Combatant
from server.rules.dice_combat.commands import ItemEffect
from server.rules.dice_combat.events import EffectFace, ItemTookEffect, ItemWoreOff
from server.rules.dice_combat.state import DiceCombat, Fight, Used
from server.rules.story import Story


def effect_of(state: DiceCombat, user: Combatant, effect: ItemEffect | None) -> EffectFace | None:
    """The effect as the action records it, its target named (the user, unless another)."""
    if effect is None:
        return None
    target = checks.alive(state, effect.target_id or user.combatant_id)
    return EffectFace(
        target_id=target.combatant_id,
        heal=effect.heal,
        treat=effect.treat,
        field=effect.field,
        by=effect.by,
        rounds=effect.rounds,
    )


def start_of_round(story: Story[DiceCombat], fight: Fight) -> None:
    """Changes whose rounds are over are undone; last round's items work."""
    for who in list(story.state.combatants.values()):
        for boost in who.boosts:
            if boost.until_round <= fight.round:
                wear_off(story, fight, who.combatant_id, boost.field, boost.by)
    for used in fight.used:
        work(story, fight, used, lasting=True)


def end_of_fight(story: Story[DiceCombat], fight: Fight) -> None:
    """Items used in the last round still work, but a change lasts no longer than the fight."""
    for used in fight.used:
        work(story, fight, used, lasting=False)
    for who in list(story.state.combatants.values()):
        for boost in who.boosts:
            wear_off(story, fight, who.combatant_id, boost.field, boost.by)


def work(story: Story[DiceCombat], fight: Fight, used: Used, lasting: bool) -> None:
    effect = used.effect
    target = story.state.combatants[effect.target_id]
    if target.dead:  # too late: nothing works on the dead
        healed, wound_ids, field = 0, [], None
    else:
        healed = max(0, min(effect.heal, target.max_lives - target.lives))
        wound_ids = [w.wound_id for w in target.wounds] if effect.treat else []
        field = effect.field if lasting else None
    took = ItemTookEffect(
        fight_id=fight.fight_id,
        round=fight.round,
        combatant_id=used.combatant_id,
        target_id=target.combatant_id,
        healed=healed,
        lives=target.lives + healed,
        wound_ids=wound_ids,
        field=field,
        by=effect.by if field else 0,
        until_round=fight.round + effect.rounds if field else None,
    )
    story.tell(took)


def wear_off(
    story: Story[DiceCombat], fight: Fight, combatant_id: str, field: BoostField, by: int
) -> None:
    gone = ItemWoreOff(
        fight_id=fight.fight_id, round=fight.round, combatant_id=combatant_id, field=field, by=by
    )
    story.tell(gone)
