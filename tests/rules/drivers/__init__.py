"""Drivers of one game through a ruleset's pure functions, the way the referee drives it: a base
`Driver` and, for each ruleset, `<Ruleset>Game` with that ruleset's shortcuts; `DRIVERS` by id."""

from typing import Any

from tests.rules.drivers.base import SEED, T0, Driver
from tests.rules.drivers.card_duel import CardDuelGame
from tests.rules.drivers.dice_combat import DiceCombatGame
from tests.rules.drivers.rank_bases import RankBasesGame
from tests.rules.drivers.stamina_deck import StaminaDeckGame

DRIVERS: dict[str, type[Driver[Any]]] = {
    "card-duel": CardDuelGame,
    "dice-combat": DiceCombatGame,
    "rank-bases": RankBasesGame,
    "stamina-deck": StaminaDeckGame,
}

__all__ = [
    "DRIVERS",
    "SEED",
    "T0",
    "CardDuelGame",
    "DiceCombatGame",
    "Driver",
    "RankBasesGame",
    "StaminaDeckGame",
]
