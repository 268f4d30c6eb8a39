"""`rank-bases`: secret ranks, duels for rank papers, and raids on bases for parts of a book."""

from server.rules import roster
from server.rules.core import Ruleset, Sight
from server.rules.rank_bases.commands import COMMANDS
from server.rules.rank_bases.decide import decide
from server.rules.rank_bases.events import EVENTS
from server.rules.rank_bases.evolve import evolve, initial_state
from server.rules.rank_bases.offers import offers
from server.rules.rank_bases.state import Config, RankBases
from server.rules.rank_bases.view import audience, private, rows, shared, touched, view

RULESET: Ruleset[RankBases] = Ruleset(
    id="rank-bases",
    title="Ranks and bases (summer camp)",
    config=Config,
    commands={**roster.COMMON_COMMANDS, **COMMANDS},
    initial_state=initial_state,
    play=decide,
    evolve=evolve,
    view=view,
    sight=Sight(audience=audience, shared=shared, private=private, touched=touched, rows=rows),
    events=EVENTS,
    offers=offers,
)
