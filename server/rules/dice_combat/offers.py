"""What a dice-combat viewer may do now (server/rules/offers.py).

The GM's console is one viewer, computed rarely: each of its offers is judged by `tried`, which
decides the command itself. A player's phone shows only the rolls its combatants owe; those are
judged by the roll's own guard (`strike.rollable`), cheap for every phone at every change.
"""

from collections.abc import Iterator

from server.rules import roster
from server.rules.core import Command, Member
from server.rules.dice_combat.actions import LENGTHS
from server.rules.dice_combat.combatant import Combatant, WeaponSpec
from server.rules.dice_combat.commands import (
    Act,
    AddCombatant,
    BeginFight,
    CancelAttack,
    ChaseRound,
    Check,
    Correct,
    DeclareAttack,
    EndChase,
    EndFight,
    FirstAid,
    Flee,
    JoinFight,
    NextTurn,
    Rest,
    RollDice,
    StartChase,
    StopBleeding,
)
from server.rules.dice_combat.decide import decide
from server.rules.dice_combat.state import DiceCombat, Fight
from server.rules.dice_combat.strike import rollable
from server.rules.offers import Offer, judged, tried

# A reason stands for whatever the GM types.
REASON = "…"


def offers(state: DiceCombat, viewer: Member, now: int) -> dict[str, Offer]:
    if viewer.role == "organizer":
        return {name: tried(decide, state, command, viewer, now) for name, command in gm(state)}
    if viewer.role == "player":
        return rolls(state, viewer)
    return {}


def rolls(state: DiceCombat, viewer: Member) -> dict[str, Offer]:
    """`roll:<attack_id>:<part>`: each part of a waiting attack that this player's combatant
    rolls."""
    found: dict[str, Offer] = {}
    if state.fight is None:
        return found
    for attack in state.fight.attacks.values():
        for part in attack.awaiting:
            if state.combatants[attack.roller(part)].player_id != viewer.player_id:
                continue
            command = RollDice.model_validate({"attack_id": attack.attack_id, "part": part})

            def guard(command: RollDice = command) -> None:
                roster.require_not_ended(state.roster)
                roster.require_running(state.roster)
                rollable(state, command, viewer)

            found[f"roll:{attack.attack_id}:{part}"] = Offer(command, judged(guard))
    return found


def gm(state: DiceCombat) -> Iterator[tuple[str, Command]]:
    """What the GM's console shows now, each with the command it sends."""
    combatants = list(state.combatants.values())
    yield "add_combatant", AddCombatant(name="?", side="?")
    if combatants:
        first = combatants[0]
        yield (
            "correct",
            Correct(
                combatant_id=first.combatant_id, field="lives", value=first.lives, reason=REASON
            ),
        )
    up = [c.combatant_id for c in combatants if c.up]
    if up:
        yield "check", Check(combatants=up[:1], difficulty=0)
    fight = state.fight
    if fight is None:
        standing = [c.combatant_id for c in combatants if not c.dead]
        if standing:
            yield "begin_fight", BeginFight(combatants=standing)
    else:
        yield "next_turn", NextTurn()
        yield "end_fight", EndFight()
        yield from in_fight(state, fight)
    yield from care(state, combatants)
    yield from chases(state, combatants)


def in_fight(state: DiceCombat, fight: Fight) -> Iterator[tuple[str, Command]]:
    """The turn's actions and attacks, the free attacks on a fleeing one, the dice waiting."""
    up = [state.combatants[c] for c in fight.participants if state.combatants[c].up]
    for who in up:
        cid = who.combatant_id
        if cid == fight.turn:
            yield from actions(who)
            others = [c.combatant_id for c in up if c.combatant_id != cid]
            if others:
                yield f"flee:{cid}", Flee(combatant_id=cid, opponents=others)
        else:  # a few words go with anybody's turn
            yield (
                f"act:{cid}:speak:instant",
                Act(combatant_id=cid, action="speak", length="instant"),
            )
        target = target_of(state, fight, who)
        if target is not None:
            yield f"attack:{cid}", DeclareAttack(attacker_id=cid, target_id=target)
    for fleeing, attackers in fight.free_attacks.items():
        for attacker in sorted(attackers):
            free = DeclareAttack(attacker_id=attacker, target_id=fleeing)
            yield f"free_attack:{attacker}:{fleeing}", free
    for attack in fight.attacks.values():
        for part in attack.awaiting:
            command = RollDice.model_validate({"attack_id": attack.attack_id, "part": part})
            yield f"roll:{attack.attack_id}:{part}", command
        yield f"cancel_attack:{attack.attack_id}", CancelAttack(attack_id=attack.attack_id)
    for who in state.combatants.values():
        if who.combatant_id not in fight.participants and not who.dead:
            yield f"join_fight:{who.combatant_id}", JoinFight(combatant_id=who.combatant_id)


def actions(who: Combatant) -> Iterator[tuple[str, Command]]:
    """`act:<id>:<action>:<length>` for every action and length, the usual length first."""
    for action, lengths in LENGTHS.items():
        weapon = WeaponSpec(**who.weapon.dump()) if action == "change_weapon" else None
        for length in lengths:
            command = Act.model_validate(
                {
                    "combatant_id": who.combatant_id,
                    "action": action,
                    "length": length,
                    "weapon": weapon,
                }
            )
            yield f"act:{who.combatant_id}:{action}:{length}", command


def target_of(state: DiceCombat, fight: Fight, attacker: Combatant) -> str | None:
    """Whom an attack of this one stands for: a living participant, of another side if any,
    and not one it may strike for free (that is its `free_attack`)."""
    candidates = [
        state.combatants[c]
        for c in fight.participants
        if c != attacker.combatant_id
        and not state.combatants[c].dead
        and attacker.combatant_id not in fight.free_attacks.get(c, frozenset())
    ]
    foes = [c for c in candidates if c.side != attacker.side] or candidates
    return foes[0].combatant_id if foes else None


def care(state: DiceCombat, combatants: list[Combatant]) -> Iterator[tuple[str, Command]]:
    """First aid by each healer (for the first bleeding patient: the patient does not change
    the answer), stopping the bleeding, a rest."""
    bleeding = [c for c in combatants if c.wounds and not c.dead]
    for healer in combatants:
        if bleeding and healer.up:
            command = FirstAid(healer_id=healer.combatant_id, patient_id=bleeding[0].combatant_id)
            yield f"first_aid:{healer.combatant_id}", command
    for patient in bleeding:
        stop = StopBleeding(combatant_id=patient.combatant_id, reason=REASON)
        yield f"stop_bleeding:{patient.combatant_id}", stop
    for who in combatants:
        if who.sprint is not None and not who.dead:
            yield f"rest:{who.combatant_id}", Rest(combatant_id=who.combatant_id)


def chases(state: DiceCombat, combatants: list[Combatant]) -> Iterator[tuple[str, Command]]:
    for chase in state.chases.values():
        yield f"chase_round:{chase.chase_id}", ChaseRound(chase_id=chase.chase_id)
        yield f"end_chase:{chase.chase_id}", EndChase(chase_id=chase.chase_id)
    up = [c for c in combatants if c.up]
    if len(up) >= 2:
        fleeing = up[0]
        chaser = next((c for c in up[1:] if c.side != fleeing.side), up[1])
        command = StartChase(fleeing_id=fleeing.combatant_id, chaser_id=chaser.combatant_id)
        yield "start_chase", command
