"""`stamina-deck`: card combat with stamina decks, run by a GM on a battle mat."""

from server.rules import roster
from server.rules.core import Ruleset
from server.rules.stamina_deck.commands import COMMANDS
from server.rules.stamina_deck.decide import decide
from server.rules.stamina_deck.events import EVENTS
from server.rules.stamina_deck.evolve import evolve, initial_state
from server.rules.stamina_deck.offers import offers
from server.rules.stamina_deck.state import Config, StaminaDeck
from server.rules.stamina_deck.view import view

RULESET: Ruleset[StaminaDeck] = Ruleset(
    id="stamina-deck",
    title="Card combat with stamina decks",
    config=Config,
    commands={**roster.COMMON_COMMANDS, **COMMANDS},
    initial_state=initial_state,
    play=decide,
    evolve=evolve,
    view=view,
    events=EVENTS,
    offers=offers,
)
