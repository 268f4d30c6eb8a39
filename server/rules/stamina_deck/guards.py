"""What deciding a command needs everywhere: the guards that refuse it, and a bout's end."""

from server.rules.core import Member, RuleError
from server.rules.stamina_deck.character import Character
from server.rules.stamina_deck.events import BoutEnd, BoutEnded, Withdrawn
from server.rules.stamina_deck.state import StaminaDeck
from server.rules.story import Story


def character(state: StaminaDeck, character_id: str) -> Character:
    found = state.characters.get(character_id)
    if found is None:
        raise RuleError("not_found", f"no character {character_id} in this fight")
    return found


def controlled(state: StaminaDeck, actor: Member, character_id: str) -> Character:
    """The character, if the actor may play it: the GM, or the player linked to it."""
    me = character(state, character_id)
    if actor.role != "organizer" and actor.player_id != me.player_id:
        raise RuleError("forbidden", f"{me.name} is not your character")
    return me


def free(state: StaminaDeck) -> None:
    """Nothing is waited for: one thing at a time."""
    if state.shot is not None:
        name = state.characters[state.shot.target].name
        raise RuleError("waiting", f"the fight waits for {name} to defend")
    if state.debts:
        name = state.characters[state.debts[0].character_id].name
        raise RuleError("waiting", f"the fight waits for {name} to give cards")
    if state.leaving is not None:
        name = state.characters[state.leaving.character_id].name
        raise RuleError("waiting", f"the fight waits for the attacks on {name}, who leaves melee")


def acting(state: StaminaDeck) -> None:
    if state.phase != "actions":
        raise RuleError("wrong_phase", f"no actions in the {state.phase} phase")


def on_turn(state: StaminaDeck, me: Character) -> None:
    acting(state)
    if state.on_turn() != me.character_id:
        raise RuleError("not_your_turn", f"it is not {me.name}'s turn")


def fighting(me: Character) -> None:
    if not me.fighting:
        raise RuleError("out_of_fight", f"{me.name} is out of the fight ({me.wound} wound)")


def actions(me: Character, count: int) -> None:
    if me.actions_left < count:
        raise RuleError("no_actions_left", f"{me.name} has {me.actions_left} actions left")


def in_hand(me: Character, card_ids: list[str]) -> None:
    if card_ids and not me.hand:
        raise RuleError("empty_hand", f"{me.name} has no cards in hand: reactive only")
    if len(set(card_ids)) != len(card_ids):
        raise RuleError("invalid", "the same card twice")
    for card_id in card_ids:
        if card_id not in me.hand:
            raise RuleError("not_your_card", f"{me.name} holds no card {card_id}")


def end_bout(story: Story[StaminaDeck], bout_id: str, reason: BoutEnd) -> None:
    """A bout is over; face-down cards of its unfinished exchange go back where they came from."""
    bout = story.state.bouts[bout_id]
    withdrawn = [
        Withdrawn(
            character_id=character_id,
            card_id=down.card_id,
            to="deck" if down.source == "deck" else "hand",
            actions=down.actions,
        )
        for character_id, down in bout.plays.items()
    ]
    story.tell(BoutEnded(bout_id=bout_id, reason=reason, withdrawn=withdrawn))
