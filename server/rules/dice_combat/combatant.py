"""A combatant's sheet: attributes, equipment, lives, and the numbers derived from them."""

from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from server.rules.core import Json
from server.rules.keyed import keyed

Size = Literal["A", "B", "C", "D", "E"]  # A small, B a human, C a horse, D a giant, E a dragon
Hand = Literal["first", "second"]  # which of a combatant's two weapons
# The numbers an item may change for some rounds.
BoostField = Literal[
    "str",
    "agi",
    "armour",
    "shield",
    "movement",
    "athletics",
    "endurance",
    "attacks_per_round",
    "initiative_bonus",
    "weapon_attack",
    "weapon_damage",
    "weapon_defence",
]
Condition = Literal["up", "fainted", "dead"]

Bonus = Field(default=0, ge=-20, le=30)


class WeaponSpec(BaseModel):
    """A weapon as the GM writes it; fists (all zero) by default."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    name: str = Field(default="", max_length=40)
    attack: int = Bonus
    damage: int = Bonus
    defence: int = Bonus
    ranged: bool = False  # shot or thrown: the attack number takes agi, not str
    flat_allowed: bool = False  # has a blunt side to strike "na plocho" with


@dataclass(frozen=True, slots=True)
class Weapon:
    name: str = ""
    attack: int = 0
    damage: int = 0
    defence: int = 0
    ranged: bool = False
    flat_allowed: bool = False

    def dump(self) -> Json:
        return {
            "name": self.name,
            "attack": self.attack,
            "damage": self.damage,
            "defence": self.defence,
            "ranged": self.ranged,
            "flat_allowed": self.flat_allowed,
        }


@dataclass(frozen=True, slots=True)
class Wound:
    """A critical wound: it bleeds every later round until treated or its bearer dies."""

    wound_id: str
    attack_id: str
    dice: int  # d6 rolled each round (a critical from sixes)
    fixed: int  # lives lost each round without a roll (a helpless target's critical)
    cannot_kill: bool  # a helpless attack on size D or larger never kills

    def dump(self) -> Json:
        return {
            "wound_id": self.wound_id,
            "attack_id": self.attack_id,
            "dice": self.dice,
            "fixed": self.fixed,
            "cannot_kill": self.cannot_kill,
        }


@dataclass(frozen=True, slots=True)
class Sprint:
    """How many rounds this combatant can run before it needs a second wind, and has run."""

    rounds: int
    used: int = 0

    @property
    def exhausted(self) -> bool:
        return self.used >= self.rounds

    def dump(self) -> Json:
        return {"rounds": self.rounds, "used": self.used}


@dataclass(frozen=True, slots=True)
class Boost:
    """A number changed by an item for some rounds: undone at the start of `until_round`."""

    field: BoostField
    by: int
    until_round: int

    def dump(self) -> Json:
        return {"field": self.field, "by": self.by, "until_round": self.until_round}


WEAPON = "weapon_"  # a number of the first weapon: weapon_attack, weapon_damage, weapon_defence

# The numbers of a sheet, by their wire names; `str` is a Python builtin, hence `strength` inside.
NUMBERS = (
    "str",
    "agi",
    "lives",
    "max_lives",
    "movement",
    "athletics",
    "endurance",
    "stamina",
    "first_aid",
    "armour",
    "shield",
    "attacks_per_round",
    "initiative_bonus",
)


@dataclass(frozen=True, slots=True)
class Combatant:
    combatant_id: str
    name: str
    side: str
    player_id: str | None  # whose phone rolls for this combatant; None: the GM's
    strength: int  # SIL bonus
    agi: int  # OBR bonus
    lives: int
    max_lives: int
    movement: int  # Pohyblivost, as on the sheet (agi included)
    athletics: int  # Atletika
    endurance: int  # ODO bonus
    stamina: int  # Výdrž skill
    first_aid: int  # První pomoc skill
    armour: int
    shield: int
    weapon: Weapon
    size: Size
    bleeds: bool
    attacks_per_round: int  # granted several attacks, it has as many active defences
    initiative_bonus: int  # spells and curses; skills never count
    second_weapon: Weapon | None = None  # held in the other hand
    dead: bool = False
    fainted: bool = False
    wounds: tuple[Wound, ...] = ()
    sprint: Sprint | None = None
    boosts: tuple[Boost, ...] = ()  # an item's changes in force (the numbers include them)

    @property
    def base_defence(self) -> int:
        """ZO: armour and reflexes, always there."""
        return self.armour + self.agi

    def held(self, hand: Hand) -> Weapon | None:
        """The weapon in that hand (none in the second, unless it holds two)."""
        return self.weapon if hand == "first" else self.second_weapon

    def defence_number(self, hand: Hand = "first") -> int:
        """OČ: ZO with one weapon's defence (never both) and the shield, when defending actively
        in melee."""
        weapon = self.held(hand) or Weapon()
        return self.base_defence + weapon.defence + self.shield

    def attack_number(self, ranged: bool, hand: Hand = "first") -> int:
        """ÚČ: str with the weapon in melee, agi when shooting or throwing."""
        weapon = self.held(hand) or Weapon()
        return (self.agi if ranged else self.strength) + weapon.attack

    @property
    def condition(self) -> Condition:
        return "dead" if self.dead else "fainted" if self.fainted else "up"

    @property
    def up(self) -> bool:
        return not self.dead and not self.fainted

    def number(self, field: str) -> int:
        if field.startswith(WEAPON):
            value: int = getattr(self.weapon, field.removeprefix(WEAPON))
        else:
            value = getattr(self, "strength" if field == "str" else field)
        return value

    def with_number(self, field: str, value: int) -> "Combatant":
        """The combatant with one number of its sheet (or of its first weapon) changed."""
        changes: dict[str, Any] = {field.removeprefix(WEAPON): value}
        if field.startswith(WEAPON):
            return replace(self, weapon=replace(self.weapon, **changes))
        changes = {"strength" if field == "str" else field: value}
        return replace(self, **changes)

    def sheet(self) -> Json:
        """The sheet as written when the combatant was added (the payload of combatant_added)."""
        return {
            "combatant_id": self.combatant_id,
            "name": self.name,
            "side": self.side,
            "player_id": self.player_id,
            **{field: self.number(field) for field in NUMBERS},
            "weapon": self.weapon.dump(),
            "second_weapon": None if self.second_weapon is None else self.second_weapon.dump(),
            "size": self.size,
            "bleeds": self.bleeds,
        }

    def dump(self) -> Json:
        """Everything about this combatant: for the GM and for the player who plays it."""
        return {
            **self.sheet(),
            "condition": self.condition,
            "base_defence": self.base_defence,
            "defence_number": self.defence_number(),
            "attack_number": self.attack_number(self.weapon.ranged),
            "boosts": [boost.dump() for boost in self.boosts],
            "wounds": keyed((wound.dump() for wound in self.wounds), "wound_id"),
            "sprint": None if self.sprint is None else self.sprint.dump(),
        }
