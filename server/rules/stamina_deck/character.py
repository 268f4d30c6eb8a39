"""A character: numbers from the character sheet, piles of stamina cards, wounds."""

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Severity = Literal["light", "medium", "heavy"]
ACTIONS = 3  # cards a character may play as actions in a round
LIMPING_MOVES = 2  # moves a round of a character out of the fight with a medium wound


class Weapon(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    name: str = Field(min_length=1, max_length=40)
    sz: int = Field(default=0, ge=0, le=30)  # síla zbraně, the attack of a ranged weapon
    melee_cards: int = Field(default=0, ge=0, le=10)  # bonus cards in melee
    reload_speed: int = Field(default=0, ge=0, le=20)
    melee: bool = False  # usable in melee; otherwise its bearer fights unarmed
    ranged: bool = True  # shoots or is thrown; a sword has ranged false


def severity(lost: int, lives: int, light: int, medium: int) -> Severity | None:
    """How bad the wounds are, by all the lives lost so far; no life left is always heavy."""
    if lost <= 0:
        return None
    if lost >= lives or lost > medium:
        return "heavy"
    return "light" if lost <= light else "medium"


@dataclass(frozen=True, slots=True)
class Character:
    character_id: str
    name: str
    side: str
    player_id: str | None  # the player whose phone plays this character's cards
    lives: int
    agi: int
    shooting: int
    melee: int
    unarmed: int
    weapon: Weapon | None
    armour: int
    x: int
    y: int
    loaded: bool = True
    reload_progress: int = 0
    cover: int = 0
    lives_lost: int = 0
    wound: Severity | None = None
    # The piles: card ids, the deck top first. `choice` holds the initiative draw until one is kept.
    deck: tuple[str, ...] = ()
    hand: tuple[str, ...] = ()
    played: tuple[str, ...] = ()
    threat: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    choice: tuple[str, ...] = ()
    initiative: str | None = None
    actions: int = 0  # used this round

    @property
    def square(self) -> tuple[int, int]:
        return self.x, self.y

    @property
    def fighting(self) -> bool:
        """A medium or heavy wound puts a character out of the fight."""
        return self.wound in (None, "light")

    @property
    def actions_left(self) -> int:
        if self.wound == "heavy":
            return 0
        return (ACTIONS if self.fighting else LIMPING_MOVES) - self.actions

    @property
    def armed(self) -> bool:
        """Whether the weapon serves in melee; without one the character fights unarmed."""
        return self.weapon is not None and self.weapon.melee

    @property
    def can_shoot(self) -> bool:
        return self.weapon is not None and self.weapon.ranged

    @property
    def melee_hand(self) -> int:
        """Cards in hand in melee: skill plus the weapon's bonus, or the unarmed skill alone."""
        if self.weapon is not None and self.weapon.melee:
            return self.melee + self.weapon.melee_cards
        return self.unarmed

    @property
    def entry_cards(self) -> int:
        """Cards drawn on entering melee short of a full hand: the weapon's bonus only."""
        return self.weapon.melee_cards if self.weapon is not None and self.weapon.melee else 0

    @property
    def clumsy(self) -> bool:
        """Unarmed below level 2: always enters melee without the initiative."""
        return not self.armed and self.unarmed < 2

    @property
    def attack_number(self) -> int:
        return (self.weapon.sz if self.weapon is not None else 0) + self.agi

    @property
    def defence_number(self) -> int:
        return self.armour + self.agi

    @property
    def reload_needed(self) -> int:
        speed = self.weapon.reload_speed if self.weapon is not None else 0
        return max(1, speed - self.shooting)

    @property
    def initiative_draw(self) -> int:
        return max(1, 1 + self.agi)

    def piles(self) -> tuple[tuple[str, ...], ...]:
        """Every pile holding this character's cards now, the initiative card as one more."""
        initiative = () if self.initiative is None else (self.initiative,)
        return (
            self.deck,
            self.hand,
            self.played,
            self.threat,
            self.discard,
            self.choice,
            initiative,
        )
