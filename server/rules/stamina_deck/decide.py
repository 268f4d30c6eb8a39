"""What a stamina-deck command causes, or why the rules refuse it."""

from collections.abc import Callable
from typing import Any

from server.rules import roster
from server.rules.core import Command, Context, RuleError
from server.rules.stamina_deck import melee, moving, ranged, rounds, stamina
from server.rules.stamina_deck.cards import standard_deck
from server.rules.stamina_deck.commands import (
    AddCharacter,
    AimedShot,
    ChooseInitiative,
    Defend,
    Disengage,
    EndTurn,
    Engage,
    GiveCards,
    LinkCharacter,
    Move,
    PlaceCharacter,
    Play,
    PutAid,
    Reload,
    RenewDeck,
    SetCover,
    Shoot,
    StartRound,
    UseAid,
)
from server.rules.stamina_deck.events import (
    CharacterAdded,
    CharacterLinked,
    CharacterPlaced,
    CoverSet,
    DebtCancelled,
    LeaveFailed,
    ShotCancelled,
    WeaponFace,
)
from server.rules.stamina_deck.evolve import evolve
from server.rules.stamina_deck.guards import character, end_bout, free
from server.rules.stamina_deck.mat import on_mat
from server.rules.stamina_deck.state import StaminaDeck
from server.rules.story import Decider, Handler, Lifecycle, Story


def add_character(story: Story[StaminaDeck], command: AddCharacter) -> None:
    state, ctx = story.state, story.ctx
    roster.require_not_ended(state.roster)
    player(state, command.player_id)
    square(state, command.x, command.y, None)
    character_id = ctx.new_id("k")
    # Each character's stamina deck: the top of their own shuffled 52-card deck.
    shuffled = ctx.chance.shuffle(standard_deck(character_id, state.config.face_values))
    weapon = command.weapon
    added = CharacterAdded(
        character_id=character_id,
        name=command.name.strip(),
        side=command.side,
        player_id=command.player_id,
        lives=command.lives,
        agi=command.agi,
        shooting=command.shooting,
        melee=command.melee,
        unarmed=command.unarmed,
        weapon=None if weapon is None else WeaponFace(**weapon.model_dump()),
        armour=command.armour,
        x=command.x,
        y=command.y,
        loaded=command.loaded,
        deck=[card.face() for card in shuffled[: state.config.stamina_deck_size]],
    )
    story.tell(added)


def player(state: StaminaDeck, player_id: str | None) -> None:
    """A character is linked to a player's phone, or to nobody (the GM plays it)."""
    if player_id is None:
        return
    member = state.roster.members.get(player_id)
    if member is None:
        raise RuleError("not_found", f"no player {player_id} in this game")
    if member.role != "player":
        raise RuleError("not_a_player", f"{member.name} is a {member.role}, not a player")


def square(state: StaminaDeck, x: int, y: int, mover: str | None) -> None:
    if not on_mat((x, y), state.config.mat_size):
        raise RuleError("off_mat", f"({x}, {y}) is off the mat")
    occupant = state.occupant(x, y)
    if occupant is not None and occupant.character_id != mover:
        raise RuleError("occupied", f"{occupant.name} stands on ({x}, {y})")


def link_character(story: Story[StaminaDeck], command: LinkCharacter) -> None:
    roster.require_not_ended(story.state.roster)
    me = character(story.state, command.character_id)
    player(story.state, command.player_id)
    story.tell(CharacterLinked(character_id=me.character_id, player_id=command.player_id))


def place_character(story: Story[StaminaDeck], command: PlaceCharacter) -> None:
    state = story.state
    roster.require_not_ended(state.roster)
    me = character(state, command.character_id)
    free(state)
    if state.in_melee(me.character_id):
        raise RuleError("in_melee", f"{me.name} fights in melee: disengage first")
    square(state, command.x, command.y, me.character_id)
    story.tell(CharacterPlaced(character_id=me.character_id, x=command.x, y=command.y))


def set_cover(story: Story[StaminaDeck], command: SetCover) -> None:
    roster.require_not_ended(story.state.roster)
    me = character(story.state, command.character_id)
    story.tell(CoverSet(character_id=me.character_id, cover=command.cover))


def ending(story: Story[StaminaDeck], ctx: Context) -> None:
    """Whatever the fight waits for when the game ends is called off, so nothing is left
    half-way: the shot nobody defends, the cards nobody gives, every bout (its face-down cards
    back where they came from), and the leaver, who stays where they stood."""
    shot = story.state.shot
    if shot is not None:
        cancelled = ShotCancelled(
            shot_id=shot.shot_id, shooter=shot.shooter, target=shot.target, reason="game_ended"
        )
        story.tell(cancelled)
    for debt in story.state.debts:
        story.tell(
            DebtCancelled(
                character_id=debt.character_id, count=debt.count, to=debt.to, reason="game_ended"
            )
        )
    for bout_id in list(story.state.bouts):
        end_bout(story, bout_id, "game_ended")
    if story.state.leaving is not None:
        story.tell(LeaveFailed(character_id=story.state.leaving.character_id))


def settled(rule: Callable[[Story[StaminaDeck], Any], None]) -> Handler[StaminaDeck]:
    """A rule, then what every command ends with: a leaver whose attacks are over moves on."""

    def handler(story: Story[StaminaDeck], command: Command, ctx: Context) -> None:
        rule(story, command)
        moving.settle(story)

    return handler


RULES: dict[type[Command], Callable[[Story[StaminaDeck], Any], None]] = {
    AddCharacter: add_character,
    LinkCharacter: link_character,
    PlaceCharacter: place_character,
    SetCover: set_cover,
    Engage: melee.engage,
    Disengage: melee.disengage,
    StartRound: rounds.start_round,
    ChooseInitiative: rounds.choose_initiative,
    EndTurn: rounds.end_turn,
    Move: moving.move,
    Shoot: ranged.shoot,
    AimedShot: ranged.shoot,
    Reload: ranged.reload,
    PutAid: ranged.put_aid,
    UseAid: ranged.use_aid,
    Defend: ranged.defend,
    GiveCards: stamina.give_cards,
    Play: melee.play,
    RenewDeck: stamina.renew_deck,
}


decide = Decider(
    handlers={command: settled(rule) for command, rule in RULES.items()},
    evolve=evolve,
    lifecycle=Lifecycle(ending=ending),
)
