"""Stamina: cards owed to the discard, the threat pile or the deck top; lives lost when the cards
run out; a light wound's fresh deck."""

from server.rules import roster
from server.rules.core import Member, RuleError
from server.rules.stamina_deck.character import Character, severity
from server.rules.stamina_deck.commands import GiveCards, RenewDeck
from server.rules.stamina_deck.events import CardsGiven, CardsOwed, CharacterWounded, DeckRenewed
from server.rules.stamina_deck.fight import Debt, Destination
from server.rules.stamina_deck.guards import controlled, end_bout, free, in_hand
from server.rules.stamina_deck.state import StaminaDeck
from server.rules.story import Story


def owe(story: Story[StaminaDeck], character_id: str, count: int, to: Destination) -> None:
    """The character must give `count` cards. Where there is no choice they are given at once;
    otherwise the fight waits for `give_cards`."""
    if count <= 0:
        return
    me = story.state.characters[character_id]
    if to == "deck":  # extra cards of a melee hand, back on top: only which ones is a choice
        if count >= len(me.hand):
            give(story, character_id, to, list(me.hand), [], 0)
        else:
            story.tell(CardsOwed(character_id=character_id, count=count, to=to))
        return
    if me.hand and len(me.hand) + len(me.deck) > count:
        story.tell(CardsOwed(character_id=character_id, count=count, to=to))
        return
    # No choice: everything in hand first (nobody keeps cards and bleeds instead), then the deck.
    hand = list(me.hand)[:count]
    deck = list(me.deck)[: count - len(hand)]
    give(story, character_id, to, hand, deck, count - len(hand) - len(deck))


def give(
    story: Story[StaminaDeck],
    character_id: str,
    to: Destination,
    hand: list[str],
    deck: list[str],
    missing: int,
) -> None:
    given = CardsGiven(character_id=character_id, to=to, hand=hand, deck=deck, missing=missing)
    story.tell(given)
    if missing > 0:
        wound(story, character_id, missing)


def wound(story: Story[StaminaDeck], character_id: str, lives: int) -> None:
    """Each card that had to go but was not there costs a life; a medium or heavy wound puts
    the character out of the fight, and out of every bout."""
    me = story.state.characters[character_id]
    config = story.state.config
    total = me.lives_lost + lives
    worst = severity(total, me.lives, config.wound_light, config.wound_medium)
    wounded = CharacterWounded(
        character_id=character_id,
        lives_lost=lives,
        total_lost=total,
        lives_left=max(0, me.lives - total),
        severity=worst,
    )
    story.tell(wounded)
    if worst in ("medium", "heavy"):
        for bout in story.state.bouts_of(character_id):
            end_bout(story, bout.bout_id, "out")


def giving(state: StaminaDeck, actor: Member, command: GiveCards) -> tuple[Character, Debt]:
    """The guard of `give_cards`: a character that owes cards, hand cards it holds, as many as
    owed to the deck top, otherwise at most as many, the deck giving the rest."""
    roster.require_running(state.roster)
    me = controlled(state, actor, command.character_id)
    debt = state.debt(me.character_id)
    if debt is None:
        raise RuleError("nothing_owed", f"{me.name} owes no cards")
    in_hand(me, command.card_ids)
    chosen = len(command.card_ids)
    if debt.to == "deck":
        if chosen != debt.count:
            raise RuleError("wrong_count", f"return exactly {debt.count} cards to the deck")
        return me, debt
    if chosen > debt.count or debt.count - chosen > len(me.deck):
        raise RuleError(
            "wrong_count",
            f"give {debt.count} cards: at most that many from hand, the rest from the deck "
            f"({len(me.deck)} left in it)",
        )
    return me, debt


def give_cards(story: Story[StaminaDeck], command: GiveCards) -> None:
    me, debt = giving(story.state, story.ctx.actor, command)
    if debt.to == "deck":
        give(story, me.character_id, "deck", command.card_ids, [], 0)
        return
    chosen = len(command.card_ids)
    deck = list(me.deck)[: debt.count - chosen]
    give(story, me.character_id, debt.to, command.card_ids, deck, 0)


def renewing(state: StaminaDeck, actor: Member, command: RenewDeck) -> Character:
    """The guard of `renew_deck`: lightly wounded, the deck run out, a discard to turn."""
    roster.require_running(state.roster)
    me = controlled(state, actor, command.character_id)
    free(state)
    if me.wound != "light":
        raise RuleError("not_lightly_wounded", "only a lightly wounded character turns the discard")
    if me.deck:
        raise RuleError("deck_not_empty", f"{me.name} still has a stamina deck")
    if not me.discard:
        raise RuleError("empty_discard", f"{me.name} has no discarded cards")
    return me


def renew_deck(story: Story[StaminaDeck], command: RenewDeck) -> None:
    me = renewing(story.state, story.ctx.actor, command)
    deck = story.ctx.chance.shuffle(list(me.discard))
    story.tell(DeckRenewed(character_id=me.character_id, deck=deck))
