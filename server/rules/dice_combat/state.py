"""The state of a dice-combat game: the combatants, the fight in progress and the chases."""

from dataclasses import dataclass, field

import msgspec
from pydantic import BaseModel, ConfigDict

from server.rules.core import Json
from server.rules.dice_combat.actions import RoundActions
from server.rules.dice_combat.attack import Bonus, Defence
from server.rules.dice_combat.combatant import Combatant, Hand
from server.rules.dice_combat.dice import Roll
from server.rules.dice_combat.events import EffectFace
from server.rules.dice_combat.initiative import Initiative
from server.rules.roster import Roster

RECENT = 10  # resolved attacks kept for the views


class Config(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    initiative_once: bool = False  # roll initiative in round 1 only; it holds for the whole fight


@dataclass(frozen=True, slots=True)
class Attack:
    """An attack declared by the GM, waiting for its dice (or, in `recent`, resolved)."""

    attack_id: str
    attacker_id: str
    target_id: str
    ranged: bool
    flat: bool
    free: bool  # an attack on a fleeing combatant before it gets away: out of turn, no action
    defence: Defence
    weapon: Hand  # the attacker's
    defence_weapon: Hand  # the target's
    weapon_damage: int  # the attacker's, as it was when the attack was declared
    attack_number: int
    defence_number: int
    bonuses: tuple[Bonus, ...]
    rolls: dict[str, Roll] = field(default_factory=dict)  # "attack", "defence": the dice rolled
    result: Json | None = None  # attack_resolved's payload, once resolved

    @property
    def awaiting(self) -> list[str]:
        parts = ["attack", "defence"] if self.defence == "active" else ["attack"]
        return [part for part in parts if part not in self.rolls]

    def roller(self, part: str) -> str:
        return self.attacker_id if part == "attack" else self.target_id

    def dump(self) -> Json:
        return {
            "attack_id": self.attack_id,
            "attacker_id": self.attacker_id,
            "target_id": self.target_id,
            "ranged": self.ranged,
            "flat": self.flat,
            "free": self.free,
            "defence": self.defence,
            "weapon": self.weapon,
            "defence_weapon": self.defence_weapon,
            "weapon_damage": self.weapon_damage,
            "attack_number": self.attack_number,
            "defence_number": self.defence_number,
            "bonuses": [bonus.dump() for bonus in self.bonuses],
            "rolls": {part: roll.dump() for part, roll in self.rolls.items()},
            "awaiting": self.awaiting,
            "result": self.result,
        }


@dataclass(frozen=True, slots=True)
class Used:
    """An item used this round whose effect works at the start of the next."""

    combatant_id: str
    effect: EffectFace

    def dump(self) -> Json:
        return {"combatant_id": self.combatant_id, "effect": msgspec.to_builtins(self.effect)}


@dataclass(frozen=True, slots=True)
class Fight:
    fight_id: str
    participants: tuple[str, ...]
    surprised: frozenset[str]  # no action in round 1, and ZO only
    everyone_surprised: bool = False  # so nobody was: a plain fight
    round: int = 0
    initiative: dict[str, Initiative] = field(default_factory=dict)
    order: tuple[str, ...] = ()  # best initiative first; a strict order
    turn: str | None = None
    had_turn: frozenset[str] = frozenset()  # this round
    actions: dict[str, RoundActions] = field(default_factory=dict)  # this round
    free_attacks: dict[str, frozenset[str]] = field(default_factory=dict)  # fleeing -> attackers
    attacks: dict[str, Attack] = field(default_factory=dict)  # declared, waiting for dice
    used: tuple[Used, ...] = ()  # items whose effect works at the start of the next round

    def done(self, combatant_id: str) -> RoundActions:
        return self.actions.get(combatant_id, RoundActions())

    def surprised_now(self, combatant_id: str) -> bool:
        return self.round == 1 and combatant_id in self.surprised

    def can_parry(self, who: Combatant) -> bool:
        """Whether `who` would defend actively against an attack now (short of ambush and
        the like, which the attack itself declares)."""
        return (
            who.up
            and not self.surprised_now(who.combatant_id)
            and self.done(who.combatant_id).may_parry(who.attacks_per_round)
        )


@dataclass(frozen=True, slots=True)
class Chase:
    chase_id: str
    fleeing_id: str
    chaser_id: str
    lead: int  # paces (sáhy)
    round: int = 0


@dataclass(frozen=True, slots=True)
class DiceCombat:
    roster: Roster
    config: Config
    combatants: dict[str, Combatant] = field(default_factory=dict)
    fight: Fight | None = None
    chases: dict[str, Chase] = field(default_factory=dict)
    recent: tuple[Attack, ...] = ()  # the last resolved attacks, oldest first
    checks: tuple[Json, ...] = ()  # the last RECENT checks (check_rolled's payloads), oldest first
