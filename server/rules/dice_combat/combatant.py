"""A combatant's sheet: attributes, equipment, lives, and the numbers derived from them."""

from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from server.rules.core import Json
from server.rules.keyed import keyed

Size = Literal["A", "B", "C", "D", "E"]  # A small, B a human, C a horse, D a giant, E a dragon
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
    dead: bool = False
    fainted: bool = False
    wounds: tuple[Wound, ...] = ()
    sprint: Sprint | None = None

    @property
    def base_defence(self) -> int:
        """ZO: armour and reflexes, always there."""
        return self.armour + self.agi

    @property
    def defence_number(self) -> int:
        """OČ: ZO with the weapon's defence and the shield, when defending actively in melee."""
        return self.base_defence + self.weapon.defence + self.shield

    def attack_number(self, ranged: bool) -> int:
        """ÚČ: str with the weapon in melee, agi when shooting or throwing."""
        return (self.agi if ranged else self.strength) + self.weapon.attack

    @property
    def condition(self) -> Condition:
        return "dead" if self.dead else "fainted" if self.fainted else "up"

    @property
    def up(self) -> bool:
        return not self.dead and not self.fainted

    def number(self, field: str) -> int:
        value: int = getattr(self, "strength" if field == "str" else field)
        return value

    def with_number(self, field: str, value: int) -> "Combatant":
        changes: dict[str, Any] = {"strength" if field == "str" else field: value}
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
            "size": self.size,
            "bleeds": self.bleeds,
        }

    def dump(self) -> Json:
        """Everything about this combatant: for the GM and for the player who plays it."""
        return {
            **self.sheet(),
            "condition": self.condition,
            "base_defence": self.base_defence,
            "defence_number": self.defence_number,
            "attack_number": self.attack_number(self.weapon.ranged),
            "wounds": keyed((wound.dump() for wound in self.wounds), "wound_id"),
            "sprint": None if self.sprint is None else self.sprint.dump(),
        }
