"""What commands check before they decide anything: who exists, who is up, whose turn it is."""

from server.rules.core import RuleError
from server.rules.dice_combat.combatant import Combatant
from server.rules.dice_combat.state import DiceCombat, Fight


def combatant(state: DiceCombat, combatant_id: str) -> Combatant:
    found = state.combatants.get(combatant_id)
    if found is None:
        raise RuleError("not_found", f"no combatant {combatant_id}")
    return found


def alive(state: DiceCombat, combatant_id: str) -> Combatant:
    found = combatant(state, combatant_id)
    if found.dead:
        raise RuleError("dead", f"{found.name} is dead")
    return found


def up(state: DiceCombat, combatant_id: str) -> Combatant:
    """Alive and conscious: able to act."""
    found = alive(state, combatant_id)
    if found.fainted:
        raise RuleError("fainted", f"{found.name} has fainted")
    return found


def fight(state: DiceCombat) -> Fight:
    if state.fight is None:
        raise RuleError("no_fight", "no fight is on")
    return state.fight


def fighting(state: DiceCombat, combatant_id: str) -> Fight:
    """The fight this combatant takes part in."""
    current = fight(state)
    who = combatant(state, combatant_id)
    if who.combatant_id not in current.participants:
        raise RuleError("not_in_fight", f"{combatant_id} does not take part in the fight")
    return current


def awake(current: Fight, who: Combatant) -> None:
    """The surprised have no action at all in round 1."""
    if current.surprised_now(who.combatant_id):
        raise RuleError("surprised", f"{who.name} is surprised: no action in round 1")


def on_turn(current: Fight, who: Combatant) -> None:
    """Acting in a fight: only on one's own turn, and not when surprised in round 1."""
    awake(current, who)
    if current.turn != who.combatant_id:
        raise RuleError("not_your_turn", f"it is not {who.name}'s turn")


def distinct(ids: list[str], what: str) -> None:
    if len(set(ids)) != len(ids):
        raise RuleError("invalid", f"{what}: a combatant is named twice")
