"""The parts of a fight that wait for someone: melee bouts, shots, owed cards, a leaving mover;
and the arithmetic of a shot and of a melee exchange."""

from dataclasses import dataclass, field
from typing import Literal

Source = Literal["hand", "deck", "none"]  # where a played card came from; none: no card was left
Destination = Literal["discard", "threat", "deck"]
Result = Literal["attacker", "tie", "defender"]
EXCHANGES = 3  # exchanges of a bout in a round
MELEE_COVER = 5  # the defence bonus of a target in melee against an aimed shot


@dataclass(frozen=True, slots=True)
class FaceDown:
    """A card played face down in a bout, sealed until the other fighter's card is down too."""

    card_id: str | None
    source: Source
    actions: int  # 1, or 0 when it did not count as an action


@dataclass(frozen=True, slots=True)
class Bout:
    """A melee fight between two characters; the attacker holds the bout's initiative."""

    bout_id: str
    attacker: str
    defender: str
    exchanges: int = 0  # this round
    plays: dict[str, FaceDown] = field(default_factory=dict)
    opportunity: bool = False  # the next exchange is an attack of opportunity on a leaver

    @property
    def fighters(self) -> tuple[str, str]:
        return self.attacker, self.defender

    def opponent(self, character_id: str) -> str:
        return self.defender if character_id == self.attacker else self.attacker


@dataclass(frozen=True, slots=True)
class Shot:
    """A shot fired, waiting for the target's defence card."""

    shot_id: str
    shooter: str
    target: str
    attack: int
    bonus: int  # cover +5 of an aimed shot into melee


@dataclass(frozen=True, slots=True)
class Debt:
    """Cards a character must give from hand (and deck) to a pile: their own choice which."""

    character_id: str
    count: int
    to: Destination


@dataclass(frozen=True, slots=True)
class Leave:
    """A character moving out of melee, waiting for the attacks of opportunity on them."""

    character_id: str
    x: int
    y: int
    waiting: tuple[str, ...]  # bouts whose attack of opportunity is not yet revealed


@dataclass(frozen=True, slots=True)
class Aid:
    """A card put on the field under a name; whoever uses the aid takes the card into hand."""

    aid_id: str
    name: str
    card_id: str
    placed_by: str
    x: int
    y: int


def damage(attack: int, defence: int) -> int:
    """Stamina cards a hit costs: the margin by which the attack beats the defence."""
    return max(0, attack - defence)


def exchange(attacker: int, defender: int) -> tuple[Result, int]:
    """Who wins a melee exchange by the values of the two cards, and by how much."""
    if attacker > defender:
        return "attacker", attacker - defender
    if attacker < defender:
        return "defender", defender - attacker
    return "tie", 0
