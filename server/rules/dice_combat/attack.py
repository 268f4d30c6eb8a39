"""One attack: the numbers before the dice (with every modifier), and what the dice make of it."""

from dataclasses import dataclass
from typing import Literal

from server.rules.core import Json
from server.rules.dice_combat import dice
from server.rules.dice_combat.combatant import Combatant, Hand
from server.rules.dice_combat.dice import Roll

Modifier = Literal[
    "advantage",
    "disadvantage",
    "defender_advantage",
    "defender_disadvantage",
    "attacker_invisible",
    "target_invisible",
    "ambush",
    "prone_target",
    "helpless",
    "close_range",
]
Cover = Literal["none", "half", "three_quarter", "full"]
Defence = Literal["active", "passive", "helpless"]
Critical = Literal["attack", "defence", "helpless"]

# Each modifier as (attack, defence).
MODIFIERS: dict[str, tuple[int, int]] = {
    "advantage": (5, 0),
    "disadvantage": (-5, 0),
    "defender_advantage": (0, 5),
    "defender_disadvantage": (0, -5),
    "attacker_invisible": (5, 0),
    "target_invisible": (0, 5),
    "ambush": (5, 0),  # and the target defends with ZO only
    "prone_target": (5, 0),
    "helpless": (0, 0),  # the defence is 0: see `defence_number`
    "close_range": (-5, 0),  # a missile at less than 2 paces (sáhy)
}
COVER: dict[str, int] = {"none": 0, "half": 3, "three_quarter": 5}  # full: cannot be hit


@dataclass(frozen=True, slots=True)
class Bonus:
    """One modifier as applied to an attack: its name and what it adds to each side."""

    name: str
    attack: int = 0
    defence: int = 0

    def dump(self) -> Json:
        return {"name": self.name, "attack": self.attack, "defence": self.defence}


@dataclass(frozen=True, slots=True)
class Situation:
    """What the GM declares about an attack beyond who strikes whom."""

    modifiers: frozenset[str] = frozenset()
    cover: Cover = "none"
    attackers: int = 1  # how many attack the target this round (outnumbered)
    attack_bonus: int = 0  # anything else the GM rules: spells, curses, terrain
    defence_bonus: int = 0


def bonuses(situation: Situation, defence: Defence) -> list[Bonus]:
    """The modifiers that apply; a helpless target's defence takes only the GM's own bonus."""
    applied = [
        Bonus(name, *MODIFIERS[name])
        for name in sorted(situation.modifiers)
        if MODIFIERS[name] != (0, 0)
    ]
    if COVER.get(situation.cover):
        applied.append(Bonus(f"{situation.cover}_cover", defence=COVER[situation.cover]))
    if dice.outnumbered(situation.attackers):
        applied.append(Bonus("outnumbered", defence=dice.outnumbered(situation.attackers)))
    if defence == "helpless":
        applied = [Bonus(b.name, attack=b.attack) for b in applied if b.attack]
    if situation.attack_bonus or situation.defence_bonus:
        applied.append(Bonus("gm", situation.attack_bonus, situation.defence_bonus))
    return applied


def attack_number(
    attacker: Combatant, ranged: bool, applied: list[Bonus], hand: Hand = "first"
) -> int:
    return attacker.attack_number(ranged, hand) + sum(b.attack for b in applied)


def defence_number(
    target: Combatant, defence: Defence, ranged: bool, applied: list[Bonus], hand: Hand = "first"
) -> int:
    """Before the defender's d6: ZO when passive; OČ with the parrying weapon (`hand`) when
    active, but a weapon does not parry missiles (ZO + shield); 0 when helpless."""
    if defence == "helpless":
        base = 0
    elif defence == "passive":
        base = target.base_defence
    elif ranged:
        base = target.base_defence + target.shield
    else:
        base = target.defence_number(hand)
    return base + sum(b.defence for b in applied)


@dataclass(frozen=True, slots=True)
class Outcome:
    attack: int
    defence: int
    hit: bool
    damage: int  # (attack - defence) + weapon damage on a hit, 0 on a miss; may be negative
    critical: Critical | None
    critical_dice: int  # d6 of the wound a critical opens (none for a helpless one)

    @property
    def lost(self) -> int:
        return max(0, self.damage)


def resolve(
    attack_number: int,
    defence_number: int,
    attack_roll: Roll,
    defence_roll: Roll | None,
    *,
    weapon_damage: int,
    flat: bool = False,
    ranged: bool = False,
    helpless: bool = False,
) -> Outcome:
    """What the dice make of an attack. `defence_roll` is None unless the defence was active."""
    attack = attack_number + attack_roll.total
    defence = defence_number + (defence_roll.total if defence_roll else 0)
    their_sixes = defence_roll.sixes if defence_roll else 0
    if dice.hits(attack, defence):
        damage = dice.damage(attack, defence, 0 if flat else weapon_damage)
        if flat or damage <= 0:  # a flat blow, or one that did not wound, makes no critical
            return Outcome(attack, defence, True, damage, None, 0)
        if helpless and not ranged:  # the automatic critical of a helpless target
            return Outcome(attack, defence, True, damage, "helpless", 0)
        if dice.critical(attack_roll.sixes, their_sixes):
            sixes = dice.critical_dice(attack_roll.sixes)
            return Outcome(attack, defence, True, damage, "attack", sixes)
        return Outcome(attack, defence, True, damage, None, 0)
    if defence_roll and not ranged and dice.critical(their_sixes, attack_roll.sixes):
        # A critical defence: only parrying in melee, and it wounds the attacker the same way.
        sixes = dice.critical_dice(their_sixes)
        return Outcome(attack, defence, False, 0, "defence", sixes)
    return Outcome(attack, defence, False, 0, None, 0)
