"""The initiative order: by the kept card, then agility, then cards drawn until one is higher;
and who of two stands ahead in it."""

from dataclasses import dataclass
from itertools import groupby

from server.rules.stamina_deck.cards import Card
from server.rules.stamina_deck.state import StaminaDeck


@dataclass(frozen=True, slots=True)
class Seat:
    character_id: str
    value: int  # of the initiative card; 0 without one
    agi: int
    deck: tuple[Card, ...]  # the top first: the cards a tie would draw


def ranking(seats: list[Seat]) -> tuple[list[list[str]], dict[str, list[str]]]:
    """The seats from first to last, as groups; a group of several stayed tied when every
    tied deck ran out. Also the cards each tie-breaker drew, in order."""
    drawn: dict[str, list[str]] = {}
    groups: list[list[Seat]] = []
    for _, tied in groupby(sorted(seats, key=lambda s: (-s.value, -s.agi)), key=first_keys):
        groups += break_tie(list(tied), 0, drawn)
    return [[seat.character_id for seat in group] for group in groups], drawn


def first_keys(seat: Seat) -> tuple[int, int]:
    return seat.value, seat.agi


def break_tie(tied: list[Seat], depth: int, drawn: dict[str, list[str]]) -> list[list[Seat]]:
    """Each tied seat draws its next card; the higher card goes first; ties draw again."""
    if len(tied) == 1 or all(depth >= len(seat.deck) for seat in tied):
        return [tied]
    for seat in tied:
        if depth < len(seat.deck):
            drawn.setdefault(seat.character_id, []).append(seat.deck[depth].card_id)

    def card(seat: Seat) -> int:
        return seat.deck[depth].value if depth < len(seat.deck) else -1  # no card: lowest

    groups: list[list[Seat]] = []
    for _, sub in groupby(sorted(tied, key=lambda s: -card(s)), key=card):
        groups += break_tie(list(sub), depth + 1, drawn)
    return groups


def ahead(state: StaminaDeck, one: str, other: str) -> str:
    """Of two characters, who stands ahead in the initiative: the earlier in the round's order,
    which holds every tie-break; one with a place in it before one without (added during the
    round). With a place for neither (before the first round's order, or while initiative is
    chosen): the higher face-up initiative card, then the higher agi, then the one added first;
    no card is drawn outside the round's order, so no deck is shown or shuffled for it."""
    order = {k: n for n, k in enumerate(state.order)}
    added = {k: n for n, k in enumerate(state.characters)}

    def standing(character_id: str) -> tuple[int, ...]:
        if character_id in order:
            return 0, order[character_id]
        me = state.characters[character_id]
        card = state.card(me.initiative)
        return 1, -(0 if card is None else card.value), -me.agi, added[character_id]

    return min((one, other), key=standing)
