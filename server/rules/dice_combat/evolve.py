"""How each dice-combat event changes the state. Never fails, never decides, never rolls."""

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import msgspec

from server.rules import roster
from server.rules.core import Event, Json
from server.rules.dice_combat.actions import Length, RoundActions
from server.rules.dice_combat.attack import Bonus
from server.rules.dice_combat.combatant import Boost, Combatant, Sprint, Weapon, Wound
from server.rules.dice_combat.dice import Roll
from server.rules.dice_combat.events import (
    ActionTaken,
    AttackCancelled,
    AttackDeclared,
    AttackResolved,
    AttackRolled,
    BleedingStopped,
    ChaseEnded,
    ChaseRolled,
    ChaseStarted,
    CheckRolled,
    CombatantAdded,
    CombatantDied,
    CombatantFainted,
    CombatantHurt,
    CombatantJoinedFight,
    CombatantLinked,
    CombatantRested,
    DefenceRolled,
    FightEnded,
    FightStarted,
    FirstAidRolled,
    FlightRolled,
    InitiativeFace,
    InitiativeRolled,
    ItemTookEffect,
    ItemWoreOff,
    NumberCorrected,
    RoundStarted,
    SprintStarted,
    TurnStarted,
    WeaponFace,
    WoundBled,
    WoundOpened,
)
from server.rules.dice_combat.initiative import Initiative
from server.rules.dice_combat.state import RECENT, Attack, Chase, Config, DiceCombat, Fight, Used
from server.rules.events import Fact


def initial_state(config: Json) -> DiceCombat:
    return DiceCombat(roster=roster.Roster(), config=Config.model_validate(config, strict=False))


def evolve(state: DiceCombat, event: Event) -> DiceCombat:
    change = CHANGES.get(type(event.fact))
    if change is None:  # the roster's
        return replace(state, roster=roster.evolve(state.roster, event))
    return change(state, event.fact)


def with_combatant(state: DiceCombat, who: Combatant) -> DiceCombat:
    return replace(state, combatants={**state.combatants, who.combatant_id: who})


def with_chase(state: DiceCombat, chase: Chase) -> DiceCombat:
    return replace(state, chases={**state.chases, chase.chase_id: chase})


def with_fight(state: DiceCombat, fight: Fight) -> DiceCombat:
    return replace(state, fight=fight)


def weapon(face: WeaponFace) -> Weapon:
    return Weapon(face.name, face.attack, face.damage, face.defence, face.ranged, face.flat_allowed)


def initiative(face: InitiativeFace) -> Initiative:
    return Initiative(face.die, face.agi, face.bonus, face.total, face.since, tuple(face.tiebreak))


def added(state: DiceCombat, fact: CombatantAdded) -> DiceCombat:
    sheet = Combatant(
        combatant_id=fact.combatant_id,
        name=fact.name,
        side=fact.side,
        player_id=fact.player_id,
        strength=fact.strength,
        agi=fact.agi,
        lives=fact.lives,
        max_lives=fact.max_lives,
        movement=fact.movement,
        athletics=fact.athletics,
        endurance=fact.endurance,
        stamina=fact.stamina,
        first_aid=fact.first_aid,
        armour=fact.armour,
        shield=fact.shield,
        weapon=weapon(fact.weapon),
        second_weapon=None if fact.second_weapon is None else weapon(fact.second_weapon),
        size=fact.size,
        bleeds=fact.bleeds,
        attacks_per_round=fact.attacks_per_round,
        initiative_bonus=fact.initiative_bonus,
    )
    return with_combatant(state, sheet)


def ran(state: DiceCombat, combatant_id: str) -> DiceCombat:
    """One more round of running for a combatant (a sprint, a flight, a round of a chase)."""
    who = state.combatants[combatant_id]
    assert who.sprint is not None  # its length is rolled before anybody runs
    return with_combatant(state, replace(who, sprint=replace(who.sprint, used=who.sprint.used + 1)))


def took(
    state: DiceCombat,
    fight: Fight,
    combatant_id: str,
    action: str,
    length: Length,
    dropped: bool = False,
) -> DiceCombat:
    done = fight.done(combatant_id).took(action, length, dropped)
    return with_fight(state, replace(fight, actions={**fight.actions, combatant_id: done}))


def corrected(state: DiceCombat, fact: NumberCorrected) -> DiceCombat:
    """A chase's lead, or a number of a combatant's."""
    if isinstance(fact.chase_id, str):
        return with_chase(state, replace(state.chases[fact.chase_id], lead=fact.after))
    assert isinstance(fact.combatant_id, str)  # a correction names one or the other
    return with_combatant(state, corrected_number(state.combatants[fact.combatant_id], fact))


def corrected_number(who: Combatant, fact: NumberCorrected) -> Combatant:
    field, value = fact.field, fact.after
    if field == "lives":
        assert isinstance(fact.dead, bool) and isinstance(fact.fainted, bool)  # with lives
        dead = fact.dead
        return replace(
            who, lives=value, dead=dead, fainted=fact.fainted, wounds=() if dead else who.wounds
        )
    if field == "sprint_rounds":
        return replace(who, sprint=replace(who.sprint or Sprint(value), rounds=value))
    if field == "sprint_used":
        assert who.sprint is not None  # there is no sprint to correct otherwise
        return replace(who, sprint=replace(who.sprint, used=value))
    if field == "initiative":
        return who  # the initiative_rolled that follows carries the new order
    return who.with_number(field, value)


def chase_started(state: DiceCombat, fact: ChaseStarted) -> DiceCombat:
    return with_chase(state, Chase(fact.chase_id, fact.fleeing_id, fact.chaser_id, fact.lead))


def chase_rolled(state: DiceCombat, fact: ChaseRolled) -> DiceCombat:
    chase = replace(state.chases[fact.chase_id], lead=fact.lead, round=fact.round)
    state = with_chase(state, chase)
    return ran(ran(state, chase.fleeing_id), chase.chaser_id)


def chase_ended(state: DiceCombat, fact: ChaseEnded) -> DiceCombat:
    chases = {k: v for k, v in state.chases.items() if k != fact.chase_id}
    return replace(state, chases=chases)


def fight_started(state: DiceCombat, fact: FightStarted) -> DiceCombat:
    fight = Fight(
        fact.fight_id,
        tuple(fact.combatants),
        frozenset(fact.surprised),  # as written: a v1 line may name everybody
        fact.everyone_surprised,
    )
    return replace(state, fight=fight)


def check_rolled(state: DiceCombat, fact: CheckRolled) -> DiceCombat:
    return replace(state, checks=(*state.checks, msgspec.to_builtins(fact))[-RECENT:])


def item_took_effect(state: DiceCombat, fact: ItemTookEffect) -> DiceCombat:
    who = state.combatants[fact.target_id]
    wounds = tuple(w for w in who.wounds if w.wound_id not in fact.wound_ids)
    # Lives restored bring a fainted combatant to (decide leaves the dead be).
    who = replace(who, lives=fact.lives, wounds=wounds, fainted=who.fainted and fact.lives <= 0)
    if fact.field is not None and fact.until_round is not None:
        boost = Boost(fact.field, fact.by, fact.until_round)
        who = who.with_number(fact.field, who.number(fact.field) + fact.by)
        who = replace(who, boosts=(*who.boosts, boost))
    state = with_combatant(state, who)
    if state.fight is None:
        return state
    used = list(state.fight.used)
    for index, item in enumerate(used):  # the first of that user's items for that target
        if item.combatant_id == fact.combatant_id and item.effect.target_id == fact.target_id:
            del used[index]
            break
    return with_fight(state, replace(state.fight, used=tuple(used)))


def item_wore_off(state: DiceCombat, fact: ItemWoreOff) -> DiceCombat:
    who = state.combatants[fact.combatant_id]
    boosts = list(who.boosts)
    for index, boost in enumerate(boosts):
        if boost.field == fact.field and boost.by == fact.by:
            del boosts[index]
            break
    who = who.with_number(fact.field, who.number(fact.field) - fact.by)
    return with_combatant(state, replace(who, boosts=tuple(boosts)))


def first_aid_rolled(state: DiceCombat, fact: FirstAidRolled) -> DiceCombat:
    if fact.fight_id is None:
        return state
    assert state.fight is not None
    return took(state, state.fight, fact.healer_id, "use_skill", "long")


# What an event does to the combatant it names (its `combatant_id`).
COMBATANT: dict[type[Fact], Callable[[Combatant, Any], Combatant]] = {
    CombatantLinked: lambda who, e: replace(who, player_id=e.player_id),
    CombatantHurt: lambda who, e: replace(who, lives=e.lives),
    WoundOpened: lambda who, e: replace(
        who, wounds=(*who.wounds, Wound(e.wound_id, e.attack_id, e.dice, e.fixed, e.cannot_kill))
    ),
    WoundBled: lambda who, e: replace(who, lives=e.lives),
    CombatantFainted: lambda who, e: replace(who, fainted=True),
    # The dead bleed no more.
    CombatantDied: lambda who, e: replace(who, dead=True, fainted=False, wounds=()),
    BleedingStopped: lambda who, e: replace(
        who, wounds=tuple(w for w in who.wounds if w.wound_id not in e.wound_ids)
    ),
    SprintStarted: lambda who, e: replace(who, sprint=Sprint(e.rounds)),
    CombatantRested: lambda who, e: replace(who, sprint=None),
}


def joined(state: DiceCombat, fight: Fight, fact: CombatantJoinedFight) -> DiceCombat:
    participants = (*fight.participants, fact.combatant_id)
    return with_fight(state, replace(fight, participants=participants))


def round_started(state: DiceCombat, fight: Fight, fact: RoundStarted) -> DiceCombat:
    fresh = replace(
        fight, round=fact.round, turn=None, had_turn=frozenset(), actions={}, free_attacks={}
    )
    return with_fight(state, fresh)


def initiative_rolled(state: DiceCombat, fight: Fight, fact: InitiativeRolled) -> DiceCombat:
    table = {cid: initiative(entry) for cid, entry in fact.initiative.items()}
    return with_fight(state, replace(fight, initiative=table, order=tuple(fact.order)))


def turn_started(state: DiceCombat, fight: Fight, fact: TurnStarted) -> DiceCombat:
    who = fact.combatant_id
    return with_fight(state, replace(fight, turn=who, had_turn=fight.had_turn | {who}))


def action_taken(state: DiceCombat, fight: Fight, fact: ActionTaken) -> DiceCombat:
    who = fact.combatant_id
    if fact.effect is not None:
        fight = replace(fight, used=(*fight.used, Used(who, fact.effect)))
    state = took(state, fight, who, fact.action, fact.length, fact.dropped)
    if fact.weapon is not None:
        new = weapon(fact.weapon)
        holder = state.combatants[who]
        if fact.hand == "first":
            holder = replace(holder, weapon=new)
        else:
            holder = replace(holder, second_weapon=new)
        state = with_combatant(state, holder)
    return ran(state, who) if fact.action == "sprint" else state


def flight_rolled(state: DiceCombat, fight: Fight, fact: FlightRolled) -> DiceCombat:
    who = fact.combatant_id
    fight = replace(fight, free_attacks={**fight.free_attacks, who: frozenset(fact.attacks_first)})
    return ran(took(state, fight, who, "sprint", "long"), who)


def budget(fight: Fight, attack: Attack, step: int) -> Fight:
    """What an attack costs: the attacker's attack (a free one is owed, not spent), and the
    target's active defence. `step` -1 gives it back when the attack is cancelled."""
    actions = dict(fight.actions)
    free = dict(fight.free_attacks)
    if attack.free:
        owed = free.get(attack.target_id, frozenset())
        attacker = frozenset({attack.attacker_id})
        free[attack.target_id] = owed - attacker if step > 0 else owed | attacker
    else:
        done = fight.done(attack.attacker_id)
        actions[attack.attacker_id] = replace(done, attacks=done.attacks + step)
    if attack.defence == "active":
        done = actions.get(attack.target_id, RoundActions())
        actions[attack.target_id] = replace(done, defences=done.defences + step)
    return replace(fight, actions=actions, free_attacks=free)


def attack_declared(state: DiceCombat, fight: Fight, fact: AttackDeclared) -> DiceCombat:
    attack = Attack(
        attack_id=fact.attack_id,
        attacker_id=fact.attacker_id,
        target_id=fact.target_id,
        ranged=fact.ranged,
        flat=fact.flat,
        free=fact.free,
        defence=fact.defence,
        weapon=fact.weapon,
        defence_weapon=fact.defence_weapon,
        weapon_damage=fact.weapon_damage,
        attack_number=fact.attack_number,
        defence_number=fact.defence_number,
        bonuses=tuple(Bonus(b.name, b.attack, b.defence) for b in fact.bonuses),
    )
    fight = budget(fight, attack, +1)
    return with_fight(state, replace(fight, attacks={**fight.attacks, attack.attack_id: attack}))


def rolled(state: DiceCombat, fight: Fight, fact: AttackRolled | DefenceRolled) -> DiceCombat:
    part = "attack" if isinstance(fact, AttackRolled) else "defence"
    attack = fight.attacks[fact.attack_id]
    attack = replace(attack, rolls={**attack.rolls, part: Roll(tuple(fact.dice))})
    return with_fight(state, replace(fight, attacks={**fight.attacks, attack.attack_id: attack}))


def attack_resolved(state: DiceCombat, fight: Fight, fact: AttackResolved) -> DiceCombat:
    # The views show the resolution as it was written.
    attack = replace(fight.attacks[fact.attack_id], result=msgspec.to_builtins(fact))
    pending = {k: v for k, v in fight.attacks.items() if k != attack.attack_id}
    state = with_fight(state, replace(fight, attacks=pending))
    return replace(state, recent=(*state.recent, attack)[-RECENT:])


def attack_cancelled(state: DiceCombat, fight: Fight, fact: AttackCancelled) -> DiceCombat:
    attack = fight.attacks[fact.attack_id]
    fight = budget(fight, attack, -1)
    pending = {k: v for k, v in fight.attacks.items() if k != attack.attack_id}
    return with_fight(state, replace(fight, attacks=pending))


# What an event of the fight in progress does to it (these happen in a fight only).
FIGHT: dict[type[Fact], Callable[[DiceCombat, Fight, Any], DiceCombat]] = {
    CombatantJoinedFight: joined,
    RoundStarted: round_started,
    InitiativeRolled: initiative_rolled,
    TurnStarted: turn_started,
    ActionTaken: action_taken,
    FlightRolled: flight_rolled,
    AttackDeclared: attack_declared,
    AttackRolled: rolled,
    DefenceRolled: rolled,
    AttackResolved: attack_resolved,
    AttackCancelled: attack_cancelled,
    FightEnded: lambda state, fight, fact: replace(state, fight=None),
}

Change = Callable[[DiceCombat, Any], DiceCombat]


def on_combatant(effect: Callable[[Combatant, Any], Combatant]) -> Change:
    def change(state: DiceCombat, fact: Any) -> DiceCombat:
        return with_combatant(state, effect(state.combatants[fact.combatant_id], fact))

    return change


def in_fight(effect: Callable[[DiceCombat, Fight, Any], DiceCombat]) -> Change:
    def change(state: DiceCombat, fact: Any) -> DiceCombat:
        assert state.fight is not None  # these events happen in a fight only
        return effect(state, state.fight, fact)

    return change


# The events of the rules' own: any other is the roster's.
CHANGES: dict[type[Fact], Change] = {
    **{kind: on_combatant(effect) for kind, effect in COMBATANT.items()},
    **{kind: in_fight(effect) for kind, effect in FIGHT.items()},
    CombatantAdded: added,
    NumberCorrected: corrected,
    FightStarted: fight_started,
    CheckRolled: check_rolled,
    ItemTookEffect: item_took_effect,
    ItemWoreOff: item_wore_off,
    ChaseStarted: chase_started,
    ChaseRolled: chase_rolled,
    ChaseEnded: chase_ended,
    FirstAidRolled: first_aid_rolled,
}
