"""What a dice-combat command causes, or why the rules refuse it."""

from server.rules import roster
from server.rules.core import Command, Context, Event, RuleError
from server.rules.dice_combat import care, chase, checks, correction, fight, strike
from server.rules.dice_combat.combatant import Combatant, Weapon
from server.rules.dice_combat.commands import (
    Act,
    AddCombatant,
    BeginFight,
    CancelAttack,
    ChaseRound,
    Correct,
    DeclareAttack,
    EndChase,
    EndFight,
    FirstAid,
    Flee,
    JoinFight,
    LinkPlayer,
    NextTurn,
    Rest,
    RollDice,
    StartChase,
    StopBleeding,
)
from server.rules.dice_combat.state import DiceCombat
from server.rules.dice_combat.story import Story


def decide(state: DiceCombat, command: Command, ctx: Context) -> list[Event]:
    story = Story(state)
    if isinstance(command, roster.EndGame):
        # A fight and chases still on end with the game, so no state is left half-way.
        roster.require_not_ended(state.roster)
        if state.fight is not None:
            fight.end(story, "game_ended")
        for open_chase in state.chases.values():
            chase.end(story, open_chase, "game_ended", [])
        return [*story.events, *roster.decide(state.roster, command, ctx)]
    if isinstance(command, (roster.AddPlayer, roster.StartGame)):
        return roster.decide(state.roster, command, ctx)
    roster.require_not_ended(state.roster)
    if isinstance(command, AddCombatant):
        add(story, ctx, command)
    elif isinstance(command, LinkPlayer):
        who = checks.combatant(state, command.combatant_id)
        player(state, command.player_id)
        linked = {"combatant_id": who.combatant_id, "player_id": command.player_id}
        story.tell("combatant_linked", linked)
    elif isinstance(command, Correct):
        correction.correct(story, ctx, command)
    else:
        roster.require_running(state.roster)
        running(story, ctx, command)
    return story.events


def running(story: Story, ctx: Context, command: Command) -> None:
    """The commands of a game in progress."""
    if isinstance(command, BeginFight):
        fight.begin(story, ctx, command)
    elif isinstance(command, JoinFight):
        fight.join(story, command)
    elif isinstance(command, NextTurn):
        fight.next_turn(story, ctx)
    elif isinstance(command, EndFight):
        fight.end(story, "gm")
    elif isinstance(command, Act):
        fight.act(story, ctx, command)
    elif isinstance(command, Flee):
        fight.flee(story, ctx, command)
    elif isinstance(command, DeclareAttack):
        strike.declare(story, ctx, command)
    elif isinstance(command, RollDice):
        strike.roll(story, ctx, command)
    elif isinstance(command, CancelAttack):
        strike.cancel(story, command)
    elif isinstance(command, StartChase):
        chase.start(story, ctx, command)
    elif isinstance(command, ChaseRound):
        chase.round_of(story, ctx, command)
    elif isinstance(command, EndChase):
        chase.stop(story, command)
    elif isinstance(command, FirstAid):
        care.first_aid(story, ctx, command)
    elif isinstance(command, StopBleeding):
        care.stop_bleeding(story, command)
    elif isinstance(command, Rest):
        care.rest(story, command)
    else:
        raise RuleError("invalid", f"unknown command {type(command).__name__}")


def player(state: DiceCombat, player_id: str | None) -> None:
    """A combatant is linked to a player's phone, or to nobody (the GM rolls)."""
    if player_id is None:
        return
    member = state.roster.members.get(player_id)
    if member is None:
        raise RuleError("not_found", f"no player {player_id}")
    if member.role != "player":
        raise RuleError("not_a_player", f"{member.name} is a {member.role}, not a player")


def add(story: Story, ctx: Context, command: AddCombatant) -> None:
    player(story.state, command.player_id)
    sheet = Combatant(
        combatant_id=ctx.new_id("c"),
        name=command.name.strip(),
        side=command.side.strip(),
        player_id=command.player_id,
        strength=command.strength,
        agi=command.agi,
        lives=command.lives,
        max_lives=command.lives,
        movement=command.movement,
        athletics=command.athletics,
        endurance=command.endurance,
        stamina=command.stamina,
        first_aid=command.first_aid,
        armour=command.armour,
        shield=command.shield,
        weapon=Weapon(**command.weapon.model_dump()),
        size=command.size,
        bleeds=command.bleeds,
        attacks_per_round=command.attacks_per_round,
        initiative_bonus=command.initiative_bonus,
    )
    story.tell("combatant_added", sheet.sheet())
