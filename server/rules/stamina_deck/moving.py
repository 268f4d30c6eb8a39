"""Moving on the mat: a card a move, into contact (the mover attacks) and out of it (without
the initiative, after the opponent's attack of opportunity)."""

from server.rules import roster
from server.rules.core import Member, RuleError
from server.rules.stamina_deck.character import Character
from server.rules.stamina_deck.commands import Move
from server.rules.stamina_deck.events import CharacterMoved, LeaveFailed, LeaveStarted, Square
from server.rules.stamina_deck.guards import (
    actions,
    controlled,
    end_bout,
    free,
    in_hand,
    on_turn,
)
from server.rules.stamina_deck.mat import MOVE, adjacent, distance, on_mat
from server.rules.stamina_deck.melee import engage_adjacent
from server.rules.stamina_deck.state import StaminaDeck
from server.rules.story import Story


def moving(state: StaminaDeck, actor: Member, command: Move) -> Character:
    """The guard of `move`: the character on turn, a card unless out of the fight, a free square
    in reach."""
    roster.require_running(state.roster)
    me = controlled(state, actor, command.character_id)
    free(state)
    on_turn(state, me)
    if me.wound == "heavy":
        raise RuleError("out_of_fight", f"{me.name} lies where they fell")
    if me.fighting and command.card_id is None:
        if not me.hand:
            raise RuleError("empty_hand", f"{me.name} has no cards in hand: reactive only")
        raise RuleError("needs_card", "a move takes a card from the hand")
    if not me.fighting and command.card_id is not None:
        raise RuleError("out_of_fight", f"{me.name} is out of the fight and plays no cards")
    actions(me, 1)
    if command.card_id is not None:
        in_hand(me, [command.card_id])
    to = (command.x, command.y)
    if not on_mat(to, state.config.mat_size):
        raise RuleError("off_mat", f"({command.x}, {command.y}) is off the mat")
    if to == me.square:
        raise RuleError("invalid", f"{me.name} is already there")
    if distance(me.square, to) > MOVE:
        raise RuleError("too_far", f"a move card carries {MOVE} squares")
    if state.occupant(*to) is not None:
        raise RuleError("occupied", f"({command.x}, {command.y}) is taken")
    return me


def move(story: Story[StaminaDeck], command: Move) -> None:
    state = story.state
    me = moving(state, story.ctx.actor, command)
    to = (command.x, command.y)
    # Bouts left behind; without the bout's initiative the opponent first attacks.
    attacked = [
        bout.bout_id
        for bout in state.bouts_of(me.character_id)
        if bout.attacker != me.character_id
        and not adjacent(to, state.characters[bout.opponent(me.character_id)].square)
    ]
    if attacked:
        leaving = LeaveStarted(
            character_id=me.character_id,
            card_id=command.card_id,
            start=Square(x=me.x, y=me.y),
            to=Square(x=command.x, y=command.y),
            bouts=attacked,
            actions=1,
        )
        story.tell(leaving)
        return
    arrive(story, me.character_id, command.card_id, to, 1)


def arrive(
    story: Story[StaminaDeck],
    character_id: str,
    card_id: str | None,
    to: tuple[int, int],
    spent: int,
) -> None:
    """The move itself: out of every bout now out of reach, onto the square, into new contact."""
    state = story.state
    for bout in state.bouts_of(character_id):
        if not adjacent(to, state.characters[bout.opponent(character_id)].square):
            end_bout(story, bout.bout_id, "left")
    me = story.state.characters[character_id]
    moved = CharacterMoved(
        character_id=character_id,
        card_id=card_id,
        start=Square(x=me.x, y=me.y),
        to=Square(x=to[0], y=to[1]),
        actions=spent,
    )
    story.tell(moved)
    engage_adjacent(story, character_id)


def settle(story: Story[StaminaDeck]) -> None:
    """After every command: a leaver whose attacks of opportunity are all over (and paid for)
    moves on, unless they now lie heavily wounded."""
    leave = story.state.leaving
    if leave is None or leave.waiting or story.state.debts:
        return
    me = story.state.characters[leave.character_id]
    if me.wound == "heavy":
        story.tell(LeaveFailed(character_id=me.character_id))
        return
    arrive(story, me.character_id, None, (leave.x, leave.y), 0)
