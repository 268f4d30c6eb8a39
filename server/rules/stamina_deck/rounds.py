"""A round: the last one's cards discarded, initiative drawn and kept, the order, the draw to a
ranged or melee hand, then turns in initiative order."""

from server.rules import roster
from server.rules.core import Member, RuleError
from server.rules.stamina_deck.cards import Card
from server.rules.stamina_deck.character import Character
from server.rules.stamina_deck.commands import ChooseInitiative, EndTurn, StartRound
from server.rules.stamina_deck.events import (
    InitiativeChosen,
    InitiativeDrawn,
    InitiativeOrdered,
    RoundEnded,
    RoundStarted,
    TurnEnded,
    Withdrawn,
)
from server.rules.stamina_deck.guards import acting, controlled, free
from server.rules.stamina_deck.initiative import Seat, ranking
from server.rules.stamina_deck.melee import draw
from server.rules.stamina_deck.stamina import owe
from server.rules.stamina_deck.state import StaminaDeck
from server.rules.story import Story


def starting(state: StaminaDeck) -> None:
    """The guard of `start_round`: a running game, nothing waited for, initiative all chosen."""
    roster.require_running(state.roster)
    free(state)
    if state.phase == "initiative":
        raise RuleError("wrong_phase", "initiative is still being chosen")


def start_round(story: Story[StaminaDeck], command: StartRound) -> None:
    state = story.state
    starting(state)
    if state.round > 0:
        end_round(story)
    state = story.state
    seats = [c.character_id for c in state.characters.values() if c.fighting]
    limping = [c.character_id for c in state.characters.values() if c.wound == "medium"]
    story.tell(RoundStarted(round=state.round + 1, seats=seats, limping=limping))
    for character_id in seats:
        me = story.state.characters[character_id]
        cards = list(me.deck[: me.initiative_draw])
        if cards:
            faces = [story.state.cards[c].face() for c in cards]
            story.tell(InitiativeDrawn(character_id=character_id, cards=faces))
        if len(cards) <= 1:  # nothing to choose
            keep(story, character_id, cards[0] if cards else None)
    if not any(story.state.characters[c].choice for c in seats):
        begin_actions(story)


def end_round(story: Story[StaminaDeck]) -> None:
    """Face-down cards of unfinished exchanges go back; played cards and threat piles are
    discarded."""
    state = story.state
    withdrawn = [
        Withdrawn(
            character_id=character_id,
            card_id=down.card_id,
            to="deck" if down.source == "deck" else "hand",
            actions=down.actions,
        )
        for bout in state.bouts.values()
        for character_id, down in bout.plays.items()
    ]
    sealed = {item.card_id for item in withdrawn}
    discarded = {
        c.character_id: [*(p for p in c.played if p not in sealed), *c.threat]
        for c in state.characters.values()
        if c.threat or set(c.played) - sealed
    }
    story.tell(RoundEnded(round=state.round, discarded=discarded, withdrawn=withdrawn))


def keep(story: Story[StaminaDeck], character_id: str, card_id: str | None) -> None:
    """The kept card lies face up as initiative; the other drawn cards and last round's
    initiative card go back into the deck, shuffled in."""
    me = story.state.characters[character_id]
    returned = [c for c in me.choice if c != card_id]
    if me.initiative is not None:
        returned.append(me.initiative)
    deck = [*me.deck, *returned]
    if returned:
        deck = story.ctx.chance.shuffle(deck)
    chosen = InitiativeChosen(
        character_id=character_id,
        card=story.state.cards[card_id].face() if card_id is not None else None,
        returned=returned,
        deck=deck,
    )
    story.tell(chosen)


def choosing(state: StaminaDeck, actor: Member, command: ChooseInitiative) -> Character:
    """The guard of `choose_initiative`: one of the cards this character drew for it."""
    roster.require_running(state.roster)
    me = controlled(state, actor, command.character_id)
    if state.phase != "initiative" or not me.choice:
        raise RuleError("nothing_to_choose", f"{me.name} has no initiative to choose")
    if command.card_id not in me.choice:
        raise RuleError("not_your_card", f"{me.name} drew no card {command.card_id}")
    return me


def choose_initiative(story: Story[StaminaDeck], command: ChooseInitiative) -> None:
    me = choosing(story.state, story.ctx.actor, command)
    keep(story, me.character_id, command.card_id)
    if not any(c.choice for c in story.state.characters.values()):
        begin_actions(story)


def begin_actions(story: Story[StaminaDeck]) -> None:
    """Everybody's initiative is down: the order, then each draws their hand for the round."""
    state = story.state
    chance = story.ctx.chance
    kept = {c: state.card(state.characters[c].initiative) for c in state.seats}
    seats = [
        Seat(c, 0 if card is None else card.value, state.characters[c].agi, deck(state, c))
        for c, card in kept.items()
    ]
    groups, drawn = ranking(seats)
    # Decks exhausted and still tied: a fair shuffle settles it. Tie-break cards go back in.
    order = [c for group in groups for c in (chance.shuffle(group) if len(group) > 1 else group)]
    decks = {c: chance.shuffle(list(state.characters[c].deck)) for c in drawn}
    ordered = InitiativeOrdered(
        round=state.round,
        order=[*order, *state.limping],
        cards={c: None if card is None else card.face() for c, card in kept.items()},
        tiebreaks={c: [state.cards[d].face() for d in ids] for c, ids in drawn.items()},
        decks=decks,
    )
    story.tell(ordered)
    for character_id in order:
        draw_hand(story, character_id)


def deck(state: StaminaDeck, character_id: str) -> tuple[Card, ...]:
    return tuple(state.cards[card_id] for card_id in state.characters[character_id].deck)


def draw_hand(story: Story[StaminaDeck], character_id: str) -> None:
    """In melee: up to the melee hand, extra cards back on the deck top. Otherwise: up to the
    shooting skill, keeping any more."""
    state = story.state
    me = state.characters[character_id]
    melee = state.in_melee(character_id)
    limit = me.melee_hand if melee else me.shooting
    count = min(limit - len(me.hand), len(me.deck))
    if count > 0:
        draw(story, me, count, "melee" if melee else "ranged", limit)
    elif melee and len(me.hand) > limit:
        owe(story, character_id, len(me.hand) - limit, "deck")


def ending_turn(state: StaminaDeck, actor: Member, command: EndTurn) -> Character:
    """The guard of `end_turn`: the character on turn, nothing waited for."""
    roster.require_running(state.roster)
    me = controlled(state, actor, command.character_id)
    acting(state)
    free(state)
    if state.on_turn() != me.character_id:
        raise RuleError("not_your_turn", f"it is not {me.name}'s turn")
    return me


def end_turn(story: Story[StaminaDeck], command: EndTurn) -> None:
    state = story.state
    me = ending_turn(state, story.ctx.actor, command)
    assert state.turn is not None
    later = [c for c in state.order[state.turn + 1 :] if state.characters[c].wound != "heavy"]
    story.tell(TurnEnded(character_id=me.character_id, next=later[0] if later else None))
