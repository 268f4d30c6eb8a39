"""Deciding an attack: the GM declares it, the dice are rolled (by the linked players' phones or
at once for the GM's combatants), and the last die resolves it."""

from server.rules.core import Context, Member, RuleError
from server.rules.dice_combat import checks, dice
from server.rules.dice_combat.attack import (
    Defence,
    Situation,
    attack_number,
    bonuses,
    defence_number,
    resolve,
)
from server.rules.dice_combat.combatant import Combatant, Hand, Weapon
from server.rules.dice_combat.commands import CancelAttack, DeclareAttack, RollDice
from server.rules.dice_combat.events import (
    AttackCancelled,
    AttackDeclared,
    AttackResolved,
    AttackRolled,
    BonusFace,
    DefenceRolled,
)
from server.rules.dice_combat.harm import hurt, wound
from server.rules.dice_combat.state import Attack, DiceCombat, Fight
from server.rules.story import Story

BIG = frozenset({"D", "E"})  # a helpless attack cannot kill these


def declare(story: Story[DiceCombat], command: DeclareAttack, ctx: Context) -> None:
    state = story.state
    fight = checks.fighting(state, command.attacker_id)
    checks.fighting(state, command.target_id)
    attacker = checks.up(state, command.attacker_id)
    target = checks.alive(state, command.target_id)
    if attacker.combatant_id == target.combatant_id:
        raise RuleError("invalid", "target_id: one does not attack oneself")
    free = attacker.combatant_id in fight.free_attacks.get(target.combatant_id, frozenset())
    checks.awake(fight, attacker)
    if not free:
        checks.on_turn(fight, attacker)
        refusal = fight.done(attacker.combatant_id).attack_refusal(attacker.attacks_per_round)
        if refusal:
            raise RuleError(*refusal)
    weapon = held(attacker, command.weapon)
    held(target, command.defence_weapon)
    ranged = weapon.ranged if command.ranged is None else command.ranged
    modifiers = frozenset(command.modifiers)
    if command.flat and not weapon.flat_allowed:
        raise RuleError("no_flat", f"{attacker.name}'s weapon cannot strike flat")
    if "close_range" in modifiers and not ranged:
        raise RuleError("invalid", "modifiers: close_range is for shooting and throwing")
    if command.cover == "full":
        raise RuleError("full_cover", f"{target.name} is in full cover: it cannot be hit")
    defence = defending(fight, target, command, ranged, free)
    situation = Situation(
        modifiers,
        command.cover,
        command.attackers,
        command.attack_bonus,
        command.defence_bonus,
    )
    applied = bonuses(situation, defence)
    attack_id = ctx.new_id("a")
    declared = AttackDeclared(
        attack_id=attack_id,
        fight_id=fight.fight_id,
        round=fight.round,
        attacker_id=attacker.combatant_id,
        target_id=target.combatant_id,
        ranged=ranged,
        flat=command.flat,
        free=free,
        defence=defence,
        weapon=command.weapon,
        defence_weapon=command.defence_weapon,
        weapon_damage=weapon.damage,  # also for a flat blow (docs/protocol.md)
        attack_number=attack_number(attacker, ranged, applied, command.weapon),
        defence_number=defence_number(target, defence, ranged, applied, command.defence_weapon),
        bonuses=[BonusFace(**bonus.dump()) for bonus in applied],
    )
    story.tell(declared)
    # The GM's own combatants roll at once; a linked player's phone rolls its own part.
    pending = pending_attack(story, attack_id)
    for part in pending.awaiting:
        if state.combatants[pending.roller(part)].player_id is None:
            roll_part(story, ctx, pending, part)
    settle(story, ctx, attack_id)


def held(who: Combatant, hand: Hand) -> Weapon:
    """The weapon an attack or a parry names: the second only when it holds one."""
    weapon = who.held(hand)
    if weapon is None:
        raise RuleError("no_second_weapon", f"{who.name} holds no second weapon")
    return weapon


def defending(
    fight: Fight, target: Combatant, command: DeclareAttack, ranged: bool, free: bool
) -> Defence:
    """Active if the GM does not say passive and nothing forbids it; `active` demanded where
    something forbids it is refused."""
    helpless = "helpless" in command.modifiers or target.fainted
    if helpless and not ranged:
        forbidden = "it is helpless"
    elif helpless:
        forbidden = "it cannot move"
    elif "ambush" in command.modifiers:
        forbidden = "it is ambushed"
    elif fight.surprised_now(target.combatant_id):
        forbidden = "it is surprised"
    elif free:
        forbidden = "it is fleeing"
    elif not fight.can_parry(target):
        forbidden = "it has no active defence left this round"
    else:
        forbidden = ""
    if command.defence == "active" and forbidden:
        raise RuleError("no_active_defence", f"{target.name} cannot defend actively: {forbidden}")
    if helpless and not ranged:
        return "helpless"
    return "passive" if forbidden or command.defence == "passive" else "active"


def pending_attack(story: Story[DiceCombat], attack_id: str) -> Attack:
    return waiting(story.state, attack_id)


def waiting(state: DiceCombat, attack_id: str) -> Attack:
    """An attack declared and still waiting for dice."""
    fight = checks.fight(state)
    attack = fight.attacks.get(attack_id)
    if attack is None:
        raise RuleError("not_found", f"no attack {attack_id} is waiting for dice")
    return attack


def rollable(state: DiceCombat, command: RollDice, actor: Member) -> Attack:
    """The attack whose part this actor may roll now (the guard of `roll`, and of a phone's
    roll button)."""
    attack = waiting(state, command.attack_id)
    roller = state.combatants[attack.roller(command.part)]
    if actor.role != "organizer" and roller.player_id != actor.player_id:
        raise RuleError("forbidden", f"only {roller.name}'s player or the GM rolls this")
    if command.part not in attack.awaiting:
        if command.part in attack.rolls:
            raise RuleError("already_rolled", f"the {command.part} is rolled already")
        raise RuleError("no_roll", f"the defence is {attack.defence}: nothing to roll")
    return attack


def roll(story: Story[DiceCombat], command: RollDice, ctx: Context) -> None:
    attack = rollable(story.state, command, ctx.actor)
    roll_part(story, ctx, attack, command.part)
    settle(story, ctx, attack.attack_id)


def roll_part(story: Story[DiceCombat], ctx: Context, attack: Attack, part: str) -> None:
    rolled = dice.exploding(lambda: ctx.chance.die(6))
    kind = AttackRolled if part == "attack" else DefenceRolled
    story.tell(
        kind(
            attack_id=attack.attack_id,
            combatant_id=attack.roller(part),
            dice=list(rolled.dice),
            sixes=rolled.sixes,
            total=rolled.total,
        )
    )


def settle(story: Story[DiceCombat], ctx: Context, attack_id: str) -> None:
    """Once every die of the attack is rolled: hit or miss, damage, criticals and their wounds."""
    attack = pending_attack(story, attack_id)
    if attack.awaiting:
        return
    outcome = resolve(
        attack.attack_number,
        attack.defence_number,
        attack.rolls["attack"],
        attack.rolls.get("defence"),
        weapon_damage=attack.weapon_damage,
        flat=attack.flat,
        ranged=attack.ranged,
        helpless=attack.defence == "helpless",
    )
    resolved = AttackResolved(
        attack_id=attack_id,
        attacker_id=attack.attacker_id,
        target_id=attack.target_id,
        attack=outcome.attack,
        defence=outcome.defence,
        hit=outcome.hit,
        damage=outcome.damage,
        critical=outcome.critical,
    )
    story.tell(resolved)
    target = story.state.combatants[attack.target_id]
    # A helpless attack on a creature of size D or larger cannot kill it, bleeding and all.
    spared = attack.defence == "helpless" and target.size in BIG
    hurt(story, target.combatant_id, outcome.lost, attack_id, flat=attack.flat, cannot_kill=spared)
    if outcome.critical == "attack":
        wound(story, ctx, target.combatant_id, attack_id, sixes=outcome.critical_dice)
    elif outcome.critical == "helpless":
        fixed = dice.helpless_bleeding(target.max_lives)
        wound(story, ctx, target.combatant_id, attack_id, fixed=fixed, cannot_kill=spared)
    elif outcome.critical == "defence":
        wound(story, ctx, attack.attacker_id, attack_id, sixes=outcome.critical_dice)


def cancel(story: Story[DiceCombat], command: CancelAttack, ctx: Context) -> None:
    attack = pending_attack(story, command.attack_id)
    story.tell(AttackCancelled(attack_id=attack.attack_id, reason="gm"))
