"""Properties of `dice-combat` over random fights (tests/rules/plays/dice_combat.py) beyond the
shared ones (tests/rules/test_properties.py): a strict initiative order, and criticals that need
two more sixes."""

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules.core import Event
from server.rules.dice_combat import RULESET
from server.rules.dice_combat.attack import resolve
from server.rules.dice_combat.dice import Roll
from server.rules.dice_combat.events import AttackResolved, InitiativeRolled
from server.rules.dice_combat.evolve import initiative
from server.rules.dice_combat.state import DiceCombat
from server.rules.roster import GameCreated
from tests.rules.plays.dice_combat import games, play

PROPERTIES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- the properties ------------------------------------------------------------------------------


def strict_order(rolled: InitiativeRolled) -> None:
    entries = {cid: initiative(entry) for cid, entry in rolled.initiative.items()}
    keys = [entries[cid].key() for cid in rolled.order]
    assert set(rolled.order) == set(entries) and len(rolled.order) == len(entries)
    assert len(set(keys)) == len(keys), keys  # nobody ties: a strict order
    assert keys == sorted(keys, reverse=True)  # best first
    for entry in entries.values():
        assert entry.tiebreak == () or all(1 <= die <= 6 for die in entry.tiebreak)


@PROPERTIES
@given(games)
def test_the_initiative_order_is_a_strict_order_of_all_in_the_fight(game: tuple[Any, ...]) -> None:
    played = play(game)
    rolled = [e.fact for e in played.table.log if isinstance(e.fact, InitiativeRolled)]
    assert rolled  # the first round at least
    for fact in rolled:
        strict_order(fact)
    assert played.rounds_checked >= 1


def criticals(log: list[Event]) -> list[tuple[str | None, int, int]]:
    """(critical, attacker's sixes, defender's sixes) of every resolved attack in a log."""
    created = log[0].fact
    assert isinstance(created, GameCreated)
    state: DiceCombat = RULESET.initial_state(created.config)
    found = []
    for event in log:
        resolved = event.fact
        if isinstance(resolved, AttackResolved):
            assert state.fight is not None
            attack = state.fight.attacks[resolved.attack_id]
            theirs = attack.rolls["defence"].sixes if "defence" in attack.rolls else 0
            found.append((resolved.critical, attack.rolls["attack"].sixes, theirs))
        state = RULESET.evolve(state, event)
    return found


@PROPERTIES
@given(games)
def test_a_critical_needs_two_more_sixes_than_the_other_side(game: tuple[Any, ...]) -> None:
    for critical, mine, theirs in criticals(play(game).table.log):
        if critical == "attack":
            assert mine >= 2 and mine >= theirs + 2
        if critical == "defence":
            assert theirs >= 2 and theirs >= mine + 2


rolls = st.lists(st.just(6), max_size=4).flatmap(
    lambda sixes: st.integers(1, 5).map(lambda last: Roll((*sixes, last)))
)


@PROPERTIES
@given(st.integers(-10, 30), st.integers(-10, 30), rolls, st.none() | rolls, st.booleans())
def test_resolve_makes_a_critical_only_with_two_more_sixes(
    attack: int, defence: int, mine: Roll, theirs: Roll | None, ranged: bool
) -> None:
    outcome = resolve(attack, defence, mine, theirs, weapon_damage=1, ranged=ranged)
    their_sixes = theirs.sixes if theirs else 0
    assert outcome.hit is (outcome.attack > outcome.defence)
    if outcome.critical == "attack":
        assert outcome.hit and mine.sixes >= their_sixes + 2 and mine.sixes >= 2
        assert outcome.critical_dice == mine.sixes - 1
    elif outcome.critical == "defence":
        assert not outcome.hit and not ranged and theirs is not None
        assert their_sixes >= mine.sixes + 2 and outcome.critical_dice == their_sixes - 1
    else:
        assert outcome.critical is None
        assert not (outcome.hit and mine.sixes >= their_sixes + 2 and mine.sixes >= 2)
