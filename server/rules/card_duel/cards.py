"""Duel cards and which card beats which."""

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from server.rules.core import Json

Kind = Literal["escape", "stun", "wound", "death"]


class CardSpec(BaseModel):
    """A card as the organizer writes it, before it has an id."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    title: str = Field(min_length=1, max_length=80)
    big: int = Field(ge=0, le=99)
    small: int = Field(ge=0, le=99)
    kind: Kind
    ranged: bool = False


@dataclass(frozen=True, slots=True)
class Card:
    card_id: str
    title: str
    big: int
    small: int
    kind: Kind
    ranged: bool
    # The card as JSON, made once: views show the same cards over and over. Never mutated.
    json: Json = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.json:
            names = ("card_id", "title", "big", "small", "kind", "ranged")
            self.json.update({name: getattr(self, name) for name in names})

    @classmethod
    def issue(cls, card_id: str, spec: CardSpec) -> "Card":
        return cls(card_id, spec.title, spec.big, spec.small, spec.kind, spec.ranged)

    @classmethod
    def load(cls, data: Json) -> "Card":
        """A card from an event, whose dict (exactly a card's fields) becomes its JSON."""
        return cls(
            data["card_id"],
            data["title"],
            data["big"],
            data["small"],
            data["kind"],
            data["ranged"],
            data,
        )

    def dump(self) -> Json:
        return self.json


def beats(a: Card, b: Card) -> bool:
    """A wins on a bigger big number, or on a small number bigger by at least two."""
    return a.big > b.big or a.small >= b.small + 2


STARTING_CARDS = (
    CardSpec(title="Rána židlí", big=3, small=2, kind="stun"),
    CardSpec(title="Rána Ankh-Morporskou dýkou", big=2, small=3, kind="wound"),
    CardSpec(title="Ztracení se v davu", big=1, small=4, kind="escape"),
)
