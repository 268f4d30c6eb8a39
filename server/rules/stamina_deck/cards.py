"""The standard 52-card deck: suits, ranks, values, and the pairs an aimed shot needs."""

from dataclasses import dataclass, field
from typing import Literal

import msgspec
from pydantic import BaseModel, ConfigDict, Field

from server.rules.core import Json

Suit = Literal["clubs", "diamonds", "hearts", "spades"]
Rank = Literal["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS: tuple[Suit, ...] = ("clubs", "diamonds", "hearts", "spades")
RANKS: tuple[Rank, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


class FaceValues(BaseModel):
    """What the face cards and the ace are worth; 2 to 10 count as printed."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    J: int = Field(default=11, ge=0, le=99)
    Q: int = Field(default=12, ge=0, le=99)
    K: int = Field(default=13, ge=0, le=99)
    A: int = Field(default=14, ge=0, le=99)

    def of(self, rank: Rank) -> int:
        return int(getattr(self, rank)) if rank in ("J", "Q", "K", "A") else int(rank)


class CardFace(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A card as events carry it."""

    card_id: str
    suit: Suit
    rank: Rank
    value: int


@dataclass(frozen=True, slots=True)
class Card:
    card_id: str
    suit: Suit
    rank: Rank
    value: int
    # The card as JSON, made once: views show the same cards over and over. Never mutated.
    json: Json = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.json.update(card_id=self.card_id, suit=self.suit, rank=self.rank, value=self.value)

    @classmethod
    def load(cls, face: CardFace) -> "Card":
        """A card from an event."""
        return cls(face.card_id, face.suit, face.rank, face.value)

    def face(self) -> CardFace:
        """The card as an event carries it."""
        return CardFace(card_id=self.card_id, suit=self.suit, rank=self.rank, value=self.value)

    def dump(self) -> Json:
        return self.json


def standard_deck(owner: str, values: FaceValues) -> list[Card]:
    """One 52-card deck of a character; a card's id names its owner, rank and suit."""
    return [
        Card(f"{owner}-{rank}{suit[0].upper()}", suit, rank, values.of(rank))
        for suit in SUITS
        for rank in RANKS
    ]


def aimed_pair(a: Card, b: Card) -> bool:
    """Two cards of one suit whose ranks follow each other (the ace is high only)."""
    return a.suit == b.suit and abs(RANKS.index(a.rank) - RANKS.index(b.rank)) == 1


def value(card: Card | None) -> int:
    """A card's value; no card at all (an empty deck) counts 0."""
    return 0 if card is None else card.value
