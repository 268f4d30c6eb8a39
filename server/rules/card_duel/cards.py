"""Duel cards and which card beats which."""

from dataclasses import dataclass, field
from typing import Literal

import msgspec
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


class CardFace(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A card as events carry it."""

    card_id: str
    title: str
    big: int
    small: int
    kind: Kind
    ranged: bool


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
    def load(cls, face: CardFace) -> "Card":
        """A card from an event."""
        return cls(face.card_id, face.title, face.big, face.small, face.kind, face.ranged)

    def face(self) -> CardFace:
        """The card as an event carries it."""
        return CardFace(
            card_id=self.card_id,
            title=self.title,
            big=self.big,
            small=self.small,
            kind=self.kind,
            ranged=self.ranged,
        )

    def dump(self) -> Json:
        return self.json


def beats(a: Card, b: Card) -> bool:
    """A wins on a bigger big number, or on a small number bigger by at least two."""
    return a.big > b.big or a.small >= b.small + 2


def why(a: Card, b: Card) -> Literal["big", "small"]:
    """Which number made the winning card `a` beat `b` (the big one when both did)."""
    return "big" if a.big > b.big else "small"


STARTING_CARDS = (
    CardSpec(title="Rána židlí", big=3, small=2, kind="stun"),
    CardSpec(title="Rána Ankh-Morporskou dýkou", big=2, small=3, kind="wound"),
    CardSpec(title="Ztracení se v davu", big=1, small=4, kind="escape"),
)
