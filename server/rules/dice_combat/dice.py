"""The dice of dice-combat and the arithmetic around them: pure functions of the values rolled.

Nothing here draws: `decide` draws from the game's chance and hands the values in, so every rule
can be checked on fixed rolls (the worked examples of the seed) as well as on seeded ones.
"""

from collections.abc import Callable
from dataclasses import dataclass

from server.rules.core import Json

FIRST_AID = 14  # "První pomoc (OBR) vs. 14": the total that stops bleeding


@dataclass(frozen=True, slots=True)
class Roll:
    """An exploding d6: every six rolls again and adds (6, 6, 3 is 15 with two sixes)."""

    dice: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.dice)

    @property
    def sixes(self) -> int:
        return self.dice.count(6)

    def dump(self) -> Json:
        return {"dice": list(self.dice), "sixes": self.sixes, "total": self.total}


def exploding(d6: Callable[[], int]) -> Roll:
    dice = [d6()]
    while dice[-1] == 6:
        dice.append(d6())
    return Roll(tuple(dice))


def hits(attack: int, defence: int) -> bool:
    return attack > defence


def damage(attack: int, defence: int, weapon_damage: int) -> int:
    """(Attack - Defence) + weapon damage; either side may be negative, and so may the result."""
    return attack - defence + weapon_damage


def critical(sixes: int, other_sixes: int) -> bool:
    """Two or more sixes make a critical; against sixes of the other side, two more than theirs."""
    return sixes >= 2 and sixes >= other_sixes + 2


def critical_dice(sixes: int) -> int:
    """The first six counts for nothing; each further six is a d6 lost every round."""
    return max(0, sixes - 1)


def helpless_bleeding(max_lives: int) -> int:
    """A helpless target's automatic critical: a quarter of its maximum (rounded down, >= 1)."""
    return max(1, max_lives // 4)


def lives_after(lives: int, lost: int, *, flat: bool = False, cannot_kill: bool = False) -> int:
    """Lives after a loss: a flat blow stops at 0 (the target faints), a helpless attack on a
    creature of size D or larger stops at 1 (it cannot kill them)."""
    after = lives - max(0, lost)
    if flat:
        return max(0, after)
    if cannot_kill:  # a fainted giant at 0 stays at 0, alive
        return max(min(lives, 1), after)
    return after


def initiative(die: int, agi: int, bonus: int) -> int:
    return die + agi + bonus


def chase_distance(die: int, movement: int, athletics: int) -> int:
    """How far a runner gets in a round of a chase, in sáhy: 1d10 + movement + athletics."""
    return die + movement + athletics


def chase_lead(lead: int, fleeing: int, chaser: int) -> int:
    """The lead changes by the difference of the distances; at 0 the chaser has caught up."""
    return max(0, lead + fleeing - chaser)


def sprint_rounds(die: int, endurance: int, stamina: int) -> int:
    """1d10 + endurance (ODO) + stamina (Výdrž) rounds of running; anybody manages one round."""
    return max(1, die + endurance + stamina)


def outnumbered(attackers: int) -> int:
    """-1 defence for each attacker when two or three attack one target, at most -3."""
    return -min(attackers, 3) if attackers >= 2 else 0
