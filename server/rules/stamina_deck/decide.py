"""What a stamina-deck command causes, or why the rules refuse it."""

from collections.abc import Callable
from typing import Any

from server.rules import roster
from server.rules.core import Command, Context, Event, RuleError
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
from server.rules.stamina_deck.mat import on_mat
from server.rules.stamina_deck.state import StaminaDeck
from server.rules.stamina_deck.steps import Steps, character, free


def decide(state: StaminaDeck, command: Command, ctx: Context) -> list[Event]:
    rule = RULES.get(type(command))
    if rule is None:
        return roster.decide(state.roster, command, ctx)
    steps = Steps(state, ctx)
    rule(steps, command)
    moving.settle(steps)
    return steps.events


def add_character(steps: Steps, command: AddCharacter) -> None:
    state, ctx = steps.state, steps.ctx
    roster.require_not_ended(state.roster)
    player(state, command.player_id)
    square(state, command.x, command.y, None)
    character_id = ctx.new_id("k")
    # Each character's stamina deck: the top of their own shuffled 52-card deck.
    shuffled = ctx.chance.shuffle(standard_deck(character_id, state.config.face_values))
    added = {
        "character_id": character_id,
        **command.model_dump(mode="json"),
        "name": command.name.strip(),
        "deck": [card.dump() for card in shuffled[: state.config.stamina_deck_size]],
    }
    steps.add("character_added", added)


def player(state: StaminaDeck, player_id: str | None) -> None:
    """A character is linked to a player's phone, or to nobody (the GM plays it)."""
    if player_id is None:
        return
    member = state.roster.members.get(player_id)
    if member is None:
        raise RuleError("not_found", f"no player {player_id} in this game")
    if member.role != "player":
        raise RuleError("invalid", f"{member.name} is a {member.role}, not a player")


def square(state: StaminaDeck, x: int, y: int, mover: str | None) -> None:
    if not on_mat((x, y), state.config.mat_size):
        raise RuleError("off_mat", f"({x}, {y}) is off the mat")
    occupant = state.occupant(x, y)
    if occupant is not None and occupant.character_id != mover:
        raise RuleError("occupied", f"{occupant.name} stands on ({x}, {y})")


def link_character(steps: Steps, command: LinkCharacter) -> None:
    roster.require_not_ended(steps.state.roster)
    me = character(steps.state, command.character_id)
    player(steps.state, command.player_id)
    steps.add("character_linked", {"character_id": me.character_id, "player_id": command.player_id})


def place_character(steps: Steps, command: PlaceCharacter) -> None:
    state = steps.state
    roster.require_not_ended(state.roster)
    me = character(state, command.character_id)
    free(state)
    if state.in_melee(me.character_id):
        raise RuleError("in_melee", f"{me.name} fights in melee: disengage first")
    square(state, command.x, command.y, me.character_id)
    placed = {"character_id": me.character_id, "x": command.x, "y": command.y}
    steps.add("character_placed", placed)


def set_cover(steps: Steps, command: SetCover) -> None:
    roster.require_not_ended(steps.state.roster)
    me = character(steps.state, command.character_id)
    steps.add("cover_set", {"character_id": me.character_id, "cover": command.cover})


RULES: dict[type[Command], Callable[[Steps, Any], None]] = {
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
