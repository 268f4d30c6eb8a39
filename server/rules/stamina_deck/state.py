"""The state of a stamina-deck fight: characters, their cards, the mat, and what is waited for."""

from dataclasses import dataclass, field
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from server.rules.core import Json
from server.rules.roster import Roster
from server.rules.stamina_deck.cards import Card, FaceValues
from server.rules.stamina_deck.character import Character
from server.rules.stamina_deck.fight import Aid, Bout, Debt, Leave, Shot

Phase = Literal["setup", "initiative", "actions"]
FEED = 20  # public results kept for the screens


class Config(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    face_values: FaceValues = Field(default_factory=FaceValues)
    stamina_deck_size: int = Field(default=20, ge=1, le=52)
    wound_light: int = Field(default=2, ge=0, le=99)  # lives lost, at most, of a light wound
    wound_medium: int = Field(default=5, ge=0, le=99)  # of a medium wound; beyond it, heavy
    mat_size: int = Field(default=20, ge=4, le=60)  # squares on each side of the battle mat

    @model_validator(mode="after")
    def thresholds_rise(self) -> Self:
        if self.wound_medium < self.wound_light:
            raise ValueError("wound_medium must be at least wound_light")
        return self


@dataclass(frozen=True, slots=True)
class StaminaDeck:
    roster: Roster
    config: Config
    cards: dict[str, Card] = field(default_factory=dict)  # every card dealt, by id
    characters: dict[str, Character] = field(default_factory=dict)
    bouts: dict[str, Bout] = field(default_factory=dict)
    aids: dict[str, Aid] = field(default_factory=dict)
    round: int = 0
    phase: Phase = "setup"
    seats: tuple[str, ...] = ()  # who draws initiative this round
    limping: tuple[str, ...] = ()  # out of the fight with a medium wound: they move last
    order: tuple[str, ...] = ()
    turn: int | None = None  # index into order; None before the first and after the last turn
    shot: Shot | None = None
    debts: tuple[Debt, ...] = ()
    leaving: Leave | None = None
    feed: tuple[Json, ...] = ()

    def bouts_of(self, character_id: str) -> list[Bout]:
        return [b for b in self.bouts.values() if character_id in b.fighters]

    def in_melee(self, character_id: str) -> bool:
        return any(character_id in b.fighters for b in self.bouts.values())

    def engaged(self, a: str, b: str) -> bool:
        return any({a, b} == set(bout.fighters) for bout in self.bouts.values())

    def on_turn(self) -> str | None:
        return None if self.turn is None else self.order[self.turn]

    def debt(self, character_id: str) -> Debt | None:
        return next((d for d in self.debts if d.character_id == character_id), None)

    def occupant(self, x: int, y: int) -> Character | None:
        return next((c for c in self.characters.values() if (c.x, c.y) == (x, y)), None)

    def card(self, card_id: str | None) -> Card | None:
        return None if card_id is None else self.cards[card_id]
