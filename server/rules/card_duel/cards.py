"""Duel cards and which card beats which."""

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal, Self

import msgspec
from pydantic import BaseModel, ConfigDict, Field, model_validator

from server.rules.core import Json
from server.rules.events import UNSET, Unset

# `special` is any unusual attack: its `effect` is words the loser's phone shows and people
# apply; the server gives it no status of its own.
Kind = Literal["escape", "stun", "wound", "death", "special"]


def absent(value: object) -> bool:
    return value is None


class CardSpec(BaseModel):
    """A card as the organizer writes it, before it has an id."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    title: str = Field(min_length=1, max_length=80)
    big: int = Field(ge=0, le=99)
    small: int = Field(ge=0, le=99)
    kind: Kind
    ranged: bool = False
    # A special card's only (left out of a dump when unset: a plain card reads as it always did).
    effect: str | None = Field(default=None, min_length=1, max_length=200, exclude_if=absent)
    effect_s: int | None = Field(default=None, ge=1, le=86_400, exclude_if=absent)

    @model_validator(mode="after")
    def effect_of_a_special_card(self) -> Self:
        if self.kind == "special" and (self.effect is None or not self.effect.strip()):
            raise ValueError("a special card needs an effect of 1 to 200 characters")
        if self.kind != "special" and (self.effect is not None or self.effect_s is not None):
            raise ValueError(
                f"effect and effect_s belong to a special card, not to a {self.kind} card"
            )
        return self


class CardFace(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A card as events carry it. `effect` and `effect_s` are written for a special card only,
    so a plain card's line is what it was before special cards: no new version."""

    card_id: str
    title: str
    big: int
    small: int
    kind: Kind
    ranged: bool
    effect: str | Unset = UNSET
    effect_s: int | Unset | None = UNSET


FACE = ("card_id", "title", "big", "small", "kind", "ranged")  # what every card shows
EFFECT = ("effect", "effect_s")  # what a special card shows too


@dataclass(frozen=True, slots=True)
class Card:
    card_id: str
    title: str
    big: int
    small: int
    kind: Kind
    ranged: bool
    effect: str | None = None  # a special card's words, and how long they hold (s) if set
    effect_s: int | None = None
    # The card as JSON, made once: views show the same cards over and over. Never mutated.
    json: Json = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.json:
            names = (*FACE, *(EFFECT if self.kind == "special" else ()))
            self.json.update({name: getattr(self, name) for name in names})

    @classmethod
    def issue(cls, card_id: str, spec: CardSpec) -> "Card":
        return cls(
            card_id,
            spec.title,
            spec.big,
            spec.small,
            spec.kind,
            spec.ranged,
            spec.effect,
            spec.effect_s,
        )

    @staticmethod
    @lru_cache(maxsize=4096)
    def load(face: CardFace) -> "Card":
        """A card from an event: the same card for the same face, while remembered (each round
        shows two cards its players were dealt)."""
        effect = None if isinstance(face.effect, Unset) else face.effect
        effect_s = None if isinstance(face.effect_s, Unset) else face.effect_s
        return Card(
            face.card_id,
            face.title,
            face.big,
            face.small,
            face.kind,
            face.ranged,
            effect,
            effect_s,
        )

    def face(self) -> CardFace:
        """The card as an event carries it."""
        special = self.kind == "special"  # which writes its effect_s even when null
        return CardFace(
            card_id=self.card_id,
            title=self.title,
            big=self.big,
            small=self.small,
            kind=self.kind,
            ranged=self.ranged,
            effect=UNSET if self.effect is None else self.effect,
            effect_s=self.effect_s if special else UNSET,
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
