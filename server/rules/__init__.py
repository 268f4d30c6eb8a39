"""The rulesets the server knows, by id."""

from typing import Any

from server.rules.card_duel import RULESET as CARD_DUEL
from server.rules.core import Ruleset

RULESETS: dict[str, Ruleset[Any]] = {r.id: r for r in (CARD_DUEL,)}
