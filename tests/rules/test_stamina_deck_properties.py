"""Properties of `stamina-deck` over random fights (tests/rules/plays/stamina_deck.py) beyond
the shared ones (tests/rules/test_properties.py): every card in exactly one pile, at every step
and after the end."""

from collections import Counter

from hypothesis import HealthCheck, given, settings

from server.rules.roster import EndGame
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
