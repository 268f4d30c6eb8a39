"""Properties of `dice-combat` over random fights (tests/rules/plays/dice_combat.py) beyond the
shared ones (tests/rules/test_properties.py): a strict initiative order; criticals that need two
more sixes and a blow that wounded; no short move beside a movement action; everybody surprised is
a plain fight; checks as rolled; items that heal up to the maximum and wear off."""

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules.core import Event, RuleError
from server.rules.dice_combat import RULESET
from server.rules.dice_combat.actions import MOVING
from server.rules.dice_combat.attack import resolve
from server.rules.dice_combat.dice import Roll
from server.rules.dice_combat.events import (
    ActionTaken,
    AttackResolved,
    CheckRolled,
    CombatantAdded,
    FightStarted,
    FlightRolled,
    InitiativeRolled,
    ItemTookEffect,
    RoundStarted,
    WoundOpened,
)
from server.rules.dice_combat.evolve import initiative
from server.rules.dice_combat.state import DiceCombat
from server.rules.roster import GameCreated
from tests.rules.drivers.dice_combat import DiceCombatGame
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


@PROPERTIES
@given(games)
def test_a_critical_never_opens_a_wound_without_damage_above_0(game: tuple[Any, ...]) -> None:
    resolved: dict[str, AttackResolved] = {}
    for event in play(game).table.log:
        fact = event.fact
        if isinstance(fact, AttackResolved):
            resolved[fact.attack_id] = fact
            if fact.critical in ("attack", "helpless"):
                assert fact.damage > 0, fact
        if isinstance(fact, WoundOpened):
            blow = resolved[fact.attack_id]
            assert blow.critical == "defence" or blow.damage > 0, (blow, fact)


@PROPERTIES
@given(games)
def test_a_short_move_is_never_accepted_beside_a_movement_action(game: tuple[Any, ...]) -> None:
    done: dict[str, set[str]] = {}  # this round's actions of each combatant
    for event in play(game).table.log:
        fact = event.fact
        if isinstance(fact, RoundStarted):
            done = {}
        elif isinstance(fact, ActionTaken):
            done.setdefault(fact.combatant_id, set()).add(fact.action)
        elif isinstance(fact, FlightRolled):  # a flight is a sprint
            done.setdefault(fact.combatant_id, set()).add("sprint")
        for actions in done.values():
            assert not ("short_move" in actions and MOVING & actions), actions


@PROPERTIES
@given(games)
def test_when_every_side_is_surprised_nobody_is(game: tuple[Any, ...]) -> None:
    sides: dict[str, str] = {}
    for event in play(game).table.log:
        fact = event.fact
        if isinstance(fact, CombatantAdded):
            sides[fact.combatant_id] = fact.side
        if isinstance(fact, FightStarted):
            every = {sides[c] for c in fact.combatants}
            if fact.everyone_surprised:
                assert fact.surprised == []
            elif fact.surprised:
                assert {sides[c] for c in fact.surprised} < every


@PROPERTIES
@given(games)
def test_checks_and_items_do_what_they_say(game: tuple[Any, ...]) -> None:
    played = play(game)
    state: DiceCombat | None = None
    for event in played.table.log:
        fact = event.fact
        if isinstance(fact, CheckRolled):
            for roll in fact.rolls:
                assert roll.total == sum(roll.dice) + roll.number + fact.value
                assert roll.success is (roll.total >= fact.difficulty)
        if isinstance(fact, ItemTookEffect):
            assert state is not None
            target = state.combatants[fact.target_id]
            assert fact.healed >= 0 and fact.lives == target.lives + fact.healed
            assert fact.lives <= max(target.max_lives, target.lives)  # up to the maximum
        state = RULESET.evolve(state, event) if state else initial(event)
    assert state is not None
    # The game is over: every change an item made has worn off.
    assert all(not who.boosts for who in state.combatants.values())


def initial(event: Event) -> DiceCombat:
    created = event.fact
    assert isinstance(created, GameCreated)
    return RULESET.evolve(RULESET.initial_state(created.config), event)


# -- the rules of the second reading, each over many fair draws ----------------------------------

seeds = st.binary(min_size=32, max_size=32)  # a game's seed: its own fair dice


FOCUSED = settings(PROPERTIES, max_examples=60)


@FOCUSED
@given(seeds, st.integers(-20, 5), st.integers(0, 6), st.booleans())
def test_only_a_blow_that_wounded_opens_a_critical_wound(
    seed: bytes, damage: int, skill: int, helpless: bool
) -> None:
    """Thirty blows of a weapon of low (often negative) damage at an unarmoured target: whatever
    the sixes, a critical opens a wound only when the damage was above 0."""
    table = DiceCombatGame(seed=seed)
    table.start()
    weapon = {"attack": skill, "damage": damage}
    a = table.add("Útočník", "a", weapon=weapon, lives=99, attacks_per_round=10)
    b = table.add("Terč", "b", lives=999, size="E")  # a helpless blow never kills it
    table.begin(a, b)
    modifiers = ["helpless"] if helpless else []
    blows = 0
    for _ in range(3):
        table.turn_of(a)
        for _ in range(10):
            events = table.attack(a, b, defence="passive", modifiers=modifiers)
            (blow,) = [e.fact for e in events if isinstance(e.fact, AttackResolved)]
            opened = [e.fact for e in events if isinstance(e.fact, WoundOpened)]
            assert blow.critical is None or blow.damage > 0, blow
            assert bool(opened) is (blow.critical is not None)
            blows += 1
            if table.who(b).dead:
                return
        table.order("next_turn")
    assert blows == 30


acts = st.lists(
    st.sampled_from(["short_move", "sprint", "crawl", "retreat", "flee", "stand_up", "next"]),
    min_size=5,
    max_size=40,
)


@FOCUSED
@given(seeds, acts)
def test_a_short_move_is_refused_beside_every_movement_action(
    seed: bytes, steps: list[str]
) -> None:
    """Whatever a combatant tries on its turns, a short move and a movement action (a flight is
    one) never share a round."""
    table = DiceCombatGame(seed=seed)
    table.start()
    a = table.add("Běžec", "a", endurance=20, lives=99)
    b = table.add("Stín", "b", lives=99)
    table.begin(a, b)
    for step in steps:
        table.turn_of(a)
        done = table.fight.done(a)
        moved = "short_move" in done.instants
        ran = bool(MOVING & {done.long, *done.shorts})
        if step == "next":
            table.order("next_turn")
            continue
        try:
            if step == "flee":
                table.order("flee", combatant_id=a, opponents=[b])
            else:
                table.order("act", combatant_id=a, action=step)
        except RuleError as error:  # a short move fits any round but beside a movement
            if step == "short_move" and ran and not moved:
                assert error.code == "moving"
            continue
        assert not (step == "short_move" and ran), "a short move beside a movement action"
        assert not ((step in MOVING or step == "flee") and moved), "a movement after a short move"
