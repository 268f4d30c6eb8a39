"""Every ruleset's random games, for the shared properties (tests/rules/properties.py): a
ruleset registered in server.rules.RULESETS must have its Supply here."""

from typing import Any

from tests.rules.plays import card_duel, dice_combat, rank_bases, stamina_deck
from tests.rules.properties import Supply

SUPPLIES: dict[str, Supply[Any]] = {
    "card-duel": card_duel.SUPPLY,
    "dice-combat": dice_combat.SUPPLY,
    "rank-bases": rank_bases.SUPPLY,
    "stamina-deck": stamina_deck.SUPPLY,
}
