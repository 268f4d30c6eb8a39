"""Melee: bouts of two, melee hands, and exchanges of two face-down cards revealed at once."""

from typing import NamedTuple

from server.rules import roster
from server.rules.core import Member, RuleError
from server.rules.stamina_deck.cards import value
from server.rules.stamina_deck.character import Character
from server.rules.stamina_deck.commands import Disengage, Engage, Play
from server.rules.stamina_deck.events import (
    BoutCause,
    BoutStarted,
    CardPlayed,
    DrawMode,
    ExchangeRevealed,
    HandDrawn,
)
from server.rules.stamina_deck.fight import EXCHANGES, Bout, Source, exchange
from server.rules.stamina_deck.guards import (
    acting,
    character,
    controlled,
    end_bout,
    fighting,
    free,
    in_hand,
)
from server.rules.stamina_deck.initiative import ahead
from server.rules.stamina_deck.mat import adjacent
from server.rules.stamina_deck.stamina import owe
from server.rules.stamina_deck.state import StaminaDeck
from server.rules.story import Story


def start_bout(
    story: Story[StaminaDeck], one: str, other: str, cause: BoutCause, mover: str | None = None
) -> None:
    """A bout begins, its attacker as `opener` says; who was not in melee yet settles their
    hand for it."""
    attacker = opener(story.state, one, other, mover)
    defender = other if attacker == one else one
    entering = [c for c in (attacker, defender) if not story.state.in_melee(c)]
    bout_id = story.ctx.new_id("b")
    story.tell(BoutStarted(bout_id=bout_id, attacker=attacker, defender=defender, cause=cause))
    for character_id in entering:
        enter(story, character_id)


def enter(story: Story[StaminaDeck], character_id: str) -> None:
    """Into melee: short of a melee hand, draw the weapon's bonus cards only; over it, return the
    extra cards to the deck top."""
    me = story.state.characters[character_id]
    limit = me.melee_hand
    if len(me.hand) < limit:
        count = min(me.entry_cards, limit - len(me.hand), len(me.deck))
        if count:
            draw(story, me, count, "entry", limit)
    elif len(me.hand) > limit:
        owe(story, character_id, len(me.hand) - limit, "deck")


def draw(story: Story[StaminaDeck], me: Character, count: int, mode: DrawMode, limit: int) -> None:
    cards = [story.state.cards[card_id].face() for card_id in me.deck[:count]]
    story.tell(HandDrawn(character_id=me.character_id, cards=cards, mode=mode, limit=limit))


def opener(state: StaminaDeck, one: str, other: str, mover: str | None = None) -> str:
    """Who attacks (holds the initiative) when a bout starts: never a poor unarmed fighter
    against one who is not; otherwise the mover into contact, or without one (the GM's
    `engage`) whoever stands ahead in the initiative. Two poor fighters: somebody must open."""
    clumsy = {k: state.characters[k].clumsy for k in (one, other)}
    if clumsy[one] != clumsy[other]:
        return other if clumsy[one] else one
    return mover if mover is not None else ahead(state, one, other)


def engage_adjacent(story: Story[StaminaDeck], mover_id: str) -> None:
    """A bout with every enemy in contact after a move, each a separate fight."""
    state = story.state
    me = state.characters[mover_id]
    if not me.fighting:
        return
    for other in list(state.characters.values()):
        if (
            other.side != me.side
            and other.fighting
            and adjacent(me.square, other.square)
            and not story.state.engaged(mover_id, other.character_id)
        ):
            start_bout(story, mover_id, other.character_id, "contact", mover_id)


def engaging(state: StaminaDeck, command: Engage) -> tuple[str, str]:
    """The guard of `engage`: two characters in the fight, in contact, not fighting yet."""
    roster.require_running(state.roster)
    one, other = (character(state, k) for k in command.fighters)
    if one.character_id == other.character_id:
        raise RuleError("invalid", "a character cannot fight itself")
    free(state)
    fighting(one)
    fighting(other)
    if not adjacent(one.square, other.square):
        raise RuleError("not_adjacent", f"{one.name} and {other.name} are not in contact")
    if state.engaged(one.character_id, other.character_id):
        raise RuleError("already_engaged", f"{one.name} and {other.name} already fight")
    return one.character_id, other.character_id


def engage(story: Story[StaminaDeck], command: Engage) -> None:
    one, other = engaging(story.state, command)
    start_bout(story, one, other, "gm")


def disengaging(state: StaminaDeck, command: Disengage) -> None:
    """The guard of `disengage`: a bout, and nothing waited for."""
    roster.require_running(state.roster)
    if command.bout_id not in state.bouts:
        raise RuleError("not_found", f"no bout {command.bout_id}")
    free(state)


def disengage(story: Story[StaminaDeck], command: Disengage) -> None:
    disengaging(story.state, command)
    end_bout(story, command.bout_id, "gm")


class Down(NamedTuple):
    """A card a fighter may put down now: whose, in which bout, from where, at what cost."""

    me: Character
    bout: Bout
    card_id: str | None
    source: Source
    actions: int


def playing(state: StaminaDeck, actor: Member, command: Play) -> Down:
    """The guard of `play`: a fighter of the bout with no card down yet, in the actions phase,
    an exchange left (or an attack of opportunity), an action for it unless defending from the
    deck."""
    roster.require_running(state.roster)
    me = controlled(state, actor, command.character_id)
    bout = state.bouts.get(command.bout_id)
    if bout is None:
        raise RuleError("not_found", f"no bout {command.bout_id}")
    if me.character_id not in bout.fighters:
        raise RuleError("not_in_bout", f"{me.name} does not fight in {bout.bout_id}")
    acting(state)
    if state.leaving is None or bout.bout_id not in state.leaving.waiting:
        free(state)  # while someone leaves melee, only their attacks of opportunity go on
    if me.character_id in bout.plays:
        raise RuleError("already_played", f"{me.name} has a card down in this exchange")
    if not bout.opportunity and bout.exchanges >= EXCHANGES:
        raise RuleError("exchanges_done", f"this bout had its {EXCHANGES} exchanges this round")
    defending = me.character_id == bout.defender
    cost = 0 if bout.opportunity else 1
    tired = cost == 1 and me.actions_left < 1  # only a defender may still react, from the deck
    if tired and (not defending or command.card_id is not None):
        raise RuleError("no_actions_left", f"{me.name} has no actions left: defend from the deck")
    card_id, source = face_down(me, command.card_id, tired)
    return Down(me, bout, card_id, source, 0 if tired else cost)


def play(story: Story[StaminaDeck], command: Play) -> None:
    """A card face down in a bout; when both cards are down, both are revealed."""
    me, bout, card_id, source, cost = playing(story.state, story.ctx.actor, command)
    played = CardPlayed(
        bout_id=bout.bout_id,
        character_id=me.character_id,
        exchange=0 if bout.opportunity else bout.exchanges + 1,
        card_id=card_id,
        source=source,
        actions=cost,
    )
    story.tell(played)
    bout = story.state.bouts[bout.bout_id]
    if len(bout.plays) == 2:
        reveal(story, bout)


def face_down(me: Character, card_id: str | None, tired: bool) -> tuple[str | None, Source]:
    """The card to play: one from hand, or the deck top when the hand is empty (or the defender
    is out of actions); nothing at all when the deck is empty too."""
    if card_id is not None:
        in_hand(me, [card_id])
        return card_id, "hand"
    if me.hand and not tired:
        raise RuleError("must_play_hand", f"{me.name} plays from the deck only with an empty hand")
    if me.deck:
        return me.deck[0], "deck"
    return None, "none"


def reveal(story: Story[StaminaDeck], bout: Bout) -> None:
    """Both cards up. Attacker higher: the defender owes the difference to their threat pile.
    Defender higher: up to the difference goes back from their threat pile into their deck,
    and the defender takes the initiative."""
    state = story.state
    attacker, defender = bout.attacker, bout.defender
    cards = {c: state.card(bout.plays[c].card_id) for c in bout.fighters}
    result, difference = exchange(value(cards[attacker]), value(cards[defender]))
    returned: list[str] = []
    deck: list[str] | None = None
    if result == "defender":
        threat = state.characters[defender].threat
        returned = list(threat[len(threat) - min(difference, len(threat)) :])
        if returned:
            deck = story.ctx.chance.shuffle([*state.characters[defender].deck, *returned])
    revealed = ExchangeRevealed(
        bout_id=bout.bout_id,
        exchange=0 if bout.opportunity else bout.exchanges + 1,
        opportunity=bout.opportunity,
        attacker=attacker,
        defender=defender,
        cards={c: None if card is None else card.face() for c, card in cards.items()},
        values={c: value(card) for c, card in cards.items()},
        result=result,
        difference=difference,
        returned=returned,
        deck=deck,
        initiative=defender if result == "defender" else attacker,
    )
    story.tell(revealed)
    if result == "attacker":
        owe(story, defender, difference, "threat")
