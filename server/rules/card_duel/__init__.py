"""`card-duel`: rock-paper-scissors with cards, between two people who touched."""

from server.rules import roster
from server.rules.card_duel.commands import COMMANDS
from server.rules.card_duel.config import Config
from server.rules.card_duel.decide import decide
from server.rules.card_duel.directory import directory
from server.rules.card_duel.events import EVENTS
from server.rules.card_duel.evolve import evolve, initial_state
from server.rules.card_duel.offers import offers
from server.rules.card_duel.state import CardDuel
from server.rules.card_duel.view import audience, private, rows, shared, touched, view
from server.rules.core import Ruleset, Sight

RULESET: Ruleset[CardDuel] = Ruleset(
    id="card-duel",
    title="Card duels (Bij se, srabe!)",
    config=Config,
    commands={**roster.COMMON_COMMANDS, **COMMANDS},
    initial_state=initial_state,
    play=decide,
    evolve=evolve,
    view=view,
    sight=Sight(audience=audience, shared=shared, private=private, touched=touched, rows=rows),
    events=EVENTS,
    offers=offers,
    directory=directory,
)
