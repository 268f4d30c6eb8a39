"""`dice-combat`: a combat tracker for a tabletop GM; it does the arithmetic and rolls fair dice."""

from server.rules import roster
from server.rules.core import Ruleset
from server.rules.dice_combat.commands import COMMANDS
from server.rules.dice_combat.decide import decide
from server.rules.dice_combat.events import EVENTS
from server.rules.dice_combat.evolve import evolve, initial_state
from server.rules.dice_combat.offers import offers
from server.rules.dice_combat.state import Config, DiceCombat
from server.rules.dice_combat.view import view

RULESET: Ruleset[DiceCombat] = Ruleset(
    id="dice-combat",
    title="Dice combat (tabletop RPG tracker)",
    config=Config,
    commands={**roster.COMMON_COMMANDS, **COMMANDS},
    initial_state=initial_state,
    play=decide,
    evolve=evolve,
    view=view,
    events=EVENTS,
    offers=offers,
)
