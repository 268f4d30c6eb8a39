"""How each dice-combat event changes the state. Never fails, never decides, never rolls."""

from collections.abc import Callable
from dataclasses import replace

from server.rules import roster
from server.rules.core import Event, Json
from server.rules.dice_combat.actions import Length, RoundActions
from server.rules.dice_combat.attack import Bonus
from server.rules.dice_combat.combatant import Combatant, Sprint, Weapon, Wound
from server.rules.dice_combat.dice import Roll
from server.rules.dice_combat.initiative import Initiative
from server.rules.dice_combat.state import RECENT, Attack, Chase, Config, DiceCombat, Fight


def initial_state(config: Json) -> DiceCombat:
    return DiceCombat(roster=roster.Roster(), config=Config.model_validate(config, strict=False))


def evolve(state: DiceCombat, event: Event) -> DiceCombat:
    data = event.data
    if event.type == "number_corrected" and "chase_id" in data:
        return with_chase(state, replace(state.chases[data["chase_id"]], lead=data["after"]))
    if event.type in COMBATANT:
        who = state.combatants[data["combatant_id"]]
        return with_combatant(state, COMBATANT[event.type](who, data))
    if event.type in FIGHT:
        assert state.fight is not None  # these events happen in a fight only
        return FIGHT[event.type](state, state.fight, data)
    if event.type == "combatant_added":
        return with_combatant(state, Combatant.load(data))
    if event.type == "fight_started":
        fight = Fight(data["fight_id"], tuple(data["combatants"]), frozenset(data["surprised"]))
        return replace(state, fight=fight)
    if event.type == "chase_started":
        chase = Chase(data["chase_id"], data["fleeing_id"], data["chaser_id"], data["lead"])
        return with_chase(state, chase)
    if event.type == "chase_rolled":
        chase = replace(state.chases[data["chase_id"]], lead=data["lead"], round=data["round"])
        state = with_chase(state, chase)
        return ran(ran(state, chase.fleeing_id), chase.chaser_id)
    if event.type == "chase_ended":
        chases = {k: v for k, v in state.chases.items() if k != data["chase_id"]}
        return replace(state, chases=chases)
    if event.type == "first_aid_rolled":
        if data["fight_id"] is None:
            return state
        assert state.fight is not None
        return took(state, state.fight, data["healer_id"], "use_skill", "long")
    return replace(state, roster=roster.evolve(state.roster, event))


def with_combatant(state: DiceCombat, who: Combatant) -> DiceCombat:
    return replace(state, combatants={**state.combatants, who.combatant_id: who})


def with_chase(state: DiceCombat, chase: Chase) -> DiceCombat:
    return replace(state, chases={**state.chases, chase.chase_id: chase})


def with_fight(state: DiceCombat, fight: Fight) -> DiceCombat:
    return replace(state, fight=fight)


def ran(state: DiceCombat, combatant_id: str) -> DiceCombat:
    """One more round of running for a combatant (a sprint, a flight, a round of a chase)."""
    who = state.combatants[combatant_id]
    assert who.sprint is not None  # its length is rolled before anybody runs
    return with_combatant(state, replace(who, sprint=replace(who.sprint, used=who.sprint.used + 1)))


def took(
    state: DiceCombat, fight: Fight, combatant_id: str, action: str, length: Length
) -> DiceCombat:
    done = fight.done(combatant_id).took(action, length)
    return with_fight(state, replace(fight, actions={**fight.actions, combatant_id: done}))


def corrected(who: Combatant, data: Json) -> Combatant:
    field, value = data["field"], data["after"]
    if field == "lives":
        dead = data["dead"]
        return replace(
            who, lives=value, dead=dead, fainted=data["fainted"], wounds=() if dead else who.wounds
        )
    if field.startswith("weapon_"):
        return replace(who, weapon=replace(who.weapon, **{field.removeprefix("weapon_"): value}))
    if field == "sprint_rounds":
        return replace(who, sprint=replace(who.sprint or Sprint(value), rounds=value))
    if field == "sprint_used":
        assert who.sprint is not None  # there is no sprint to correct otherwise
        return replace(who, sprint=replace(who.sprint, used=value))
    if field == "initiative":
        return who  # the initiative_rolled that follows carries the new order
    return who.with_number(field, value)


COMBATANT: dict[str, Callable[[Combatant, Json], Combatant]] = {
    "combatant_linked": lambda who, d: replace(who, player_id=d["player_id"]),
    "combatant_hurt": lambda who, d: replace(who, lives=d["lives"]),
    "wound_opened": lambda who, d: replace(who, wounds=(*who.wounds, Wound.load(d))),
    "wound_bled": lambda who, d: replace(who, lives=d["lives"]),
    "combatant_fainted": lambda who, d: replace(who, fainted=True),
    # The dead bleed no more.
    "combatant_died": lambda who, d: replace(who, dead=True, fainted=False, wounds=()),
    "bleeding_stopped": lambda who, d: replace(
        who, wounds=tuple(w for w in who.wounds if w.wound_id not in d["wound_ids"])
    ),
    "sprint_started": lambda who, d: replace(who, sprint=Sprint(d["rounds"])),
    "combatant_rested": lambda who, d: replace(who, sprint=None),
    "number_corrected": corrected,
}


def joined(state: DiceCombat, fight: Fight, data: Json) -> DiceCombat:
    participants = (*fight.participants, data["combatant_id"])
    return with_fight(state, replace(fight, participants=participants))


def round_started(state: DiceCombat, fight: Fight, data: Json) -> DiceCombat:
    fresh = replace(
        fight, round=data["round"], turn=None, had_turn=frozenset(), actions={}, free_attacks={}
    )
    return with_fight(state, fresh)


def initiative_rolled(state: DiceCombat, fight: Fight, data: Json) -> DiceCombat:
    table = {cid: Initiative.load(entry) for cid, entry in data["initiative"].items()}
    return with_fight(state, replace(fight, initiative=table, order=tuple(data["order"])))


def turn_started(state: DiceCombat, fight: Fight, data: Json) -> DiceCombat:
    who = data["combatant_id"]
    return with_fight(state, replace(fight, turn=who, had_turn=fight.had_turn | {who}))


def action_taken(state: DiceCombat, fight: Fight, data: Json) -> DiceCombat:
    who = data["combatant_id"]
    state = took(state, fight, who, data["action"], data["length"])
    if data["weapon"] is not None:
        state = with_combatant(
            state, replace(state.combatants[who], weapon=Weapon.load(data["weapon"]))
        )
    return ran(state, who) if data["action"] == "sprint" else state


def flight_rolled(state: DiceCombat, fight: Fight, data: Json) -> DiceCombat:
    who = data["combatant_id"]
    fight = replace(
        fight, free_attacks={**fight.free_attacks, who: frozenset(data["attacks_first"])}
    )
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


def attack_declared(state: DiceCombat, fight: Fight, data: Json) -> DiceCombat:
    attack = Attack(
        attack_id=data["attack_id"],
        attacker_id=data["attacker_id"],
        target_id=data["target_id"],
        ranged=data["ranged"],
        flat=data["flat"],
        free=data["free"],
        defence=data["defence"],
        weapon_damage=data["weapon_damage"],
        attack_number=data["attack_number"],
        defence_number=data["defence_number"],
        bonuses=tuple(Bonus.load(b) for b in data["bonuses"]),
    )
    fight = budget(fight, attack, +1)
    return with_fight(state, replace(fight, attacks={**fight.attacks, attack.attack_id: attack}))


def rolled(state: DiceCombat, fight: Fight, data: Json, part: str) -> DiceCombat:
    attack = fight.attacks[data["attack_id"]]
    attack = replace(attack, rolls={**attack.rolls, part: Roll.load(data)})
    return with_fight(state, replace(fight, attacks={**fight.attacks, attack.attack_id: attack}))


def attack_resolved(state: DiceCombat, fight: Fight, data: Json) -> DiceCombat:
    attack = replace(fight.attacks[data["attack_id"]], result=data)
    pending = {k: v for k, v in fight.attacks.items() if k != attack.attack_id}
    state = with_fight(state, replace(fight, attacks=pending))
    return replace(state, recent=(*state.recent, attack)[-RECENT:])


def attack_cancelled(state: DiceCombat, fight: Fight, data: Json) -> DiceCombat:
    attack = fight.attacks[data["attack_id"]]
    fight = budget(fight, attack, -1)
    pending = {k: v for k, v in fight.attacks.items() if k != attack.attack_id}
    return with_fight(state, replace(fight, attacks=pending))


FIGHT: dict[str, Callable[[DiceCombat, Fight, Json], DiceCombat]] = {
    "combatant_joined_fight": joined,
    "round_started": round_started,
    "initiative_rolled": initiative_rolled,
    "turn_started": turn_started,
    "action_taken": action_taken,
    "flight_rolled": flight_rolled,
    "attack_declared": attack_declared,
    "attack_rolled": lambda state, fight, data: rolled(state, fight, data, "attack"),
    "defence_rolled": lambda state, fight, data: rolled(state, fight, data, "defence"),
    "attack_resolved": attack_resolved,
    "attack_cancelled": attack_cancelled,
    "fight_ended": lambda state, fight, data: replace(state, fight=None),
}
