"""Properties of `stamina-deck` over random fights (tests/rules/plays/stamina_deck.py) beyond
the shared ones (tests/rules/test_properties.py): every card in exactly one pile, at every step
and after the end; who attacks when a bout starts."""

from collections import Counter

from hypothesis import HealthCheck, given, settings

from server.rules.core import Event
from server.rules.roster import EndGame
from server.rules.stamina_deck.state import StaminaDeck
from tests.rules.plays.stamina_deck import Played, Random, fights, play

PROPERTIES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def piles_hold_every_card_once(played: Played) -> None:
    state = played.fight.state
    everywhere = Counter(
        card for c in state.characters.values() for pile in c.piles() for card in pile
    ) + Counter(aid.card_id for aid in state.aids.values())
    assert everywhere == Counter(list(state.cards)), "a card is lost or in two places"
    for c in state.characters.values():
        held = Counter(card for pile in c.piles() for card in pile)
        held += Counter(a.card_id for a in state.aids.values() if a.placed_by == c.character_id)
        owned = {card for card, k in played.owner.items() if k == c.character_id}
        assert held == Counter(owned), c.character_id
    # A face-down card is one its fighter played.
    for bout in state.bouts.values():
        for k, down in bout.plays.items():
            assert down.card_id is None or down.card_id in state.characters[k].played


@PROPERTIES
@given(fights)
def test_every_card_is_in_exactly_one_pile_at_every_step_and_after_the_end(fight: Random) -> None:
    played = play(fight, check=piles_hold_every_card_once)
    if played.fight.state.roster.status != "ended":
        played.fight.by_gm(EndGame())  # the end puts face-down cards back where they came from
    piles_hold_every_card_once(played)


def poor(state: StaminaDeck, character_id: str) -> bool:
    """Fights unarmed (no weapon that serves in melee) with `unarmed` below 2."""
    me = state.characters[character_id]
    return (me.weapon is None or not me.weapon.melee) and me.unarmed < 2


def initiative(state: StaminaDeck, character_id: str) -> tuple[int, int]:
    """The kept card's value and agi: what the initiative order ranks by before cards drawn."""
    me = state.characters[character_id]
    card = state.card(me.initiative)
    return 0 if card is None else card.value, me.agi


def openers_as_the_rules_say(before: StaminaDeck, events: list[Event]) -> None:
    """Every bout the step started, judged on the state before it: a poor unarmed fighter never
    attacks one who is not; otherwise the mover into contact attacks, and after the GM's
    `engage` the one standing ahead in the round's order (before any order: never the lower
    kept card and agi)."""
    mover = None
    for event in events:
        if event.type == "character_moved":
            mover = event.data["character_id"]
        if event.type != "bout_started":
            continue
        attacker, defender = event.data["attacker"], event.data["defender"]
        assert not poor(before, attacker) or poor(before, defender), event.data
        if poor(before, attacker) != poor(before, defender):
            continue
        if event.data["cause"] == "contact":
            assert attacker == mover, event.data
            continue
        order = before.order
        if attacker in order and defender in order:
            assert order.index(attacker) < order.index(defender), (order, event.data)
        elif defender in order:
            raise AssertionError(f"{attacker} has no place in {order}, {defender} has")
        elif attacker not in order:
            assert initiative(before, attacker) >= initiative(before, defender), event.data


@PROPERTIES
@given(fights)
def test_a_bout_opens_with_the_mover_or_the_higher_initiative_never_a_poor_unarmed_fighter(
    fight: Random,
) -> None:
    last: list[tuple[StaminaDeck, int]] = []  # the state and the log's length before a step

    def check(played: Played) -> None:
        fight = played.fight
        if last:
            before, seen = last.pop()
            openers_as_the_rules_say(before, fight.log[seen:])
        last.append((fight.state, len(fight.log)))

    play(fight, check=check)
