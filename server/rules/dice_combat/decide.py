"""What a dice-combat command causes, or why the rules refuse it."""

from server.rules import roster
from server.rules.core import Context, RuleError
from server.rules.dice_combat import care, chase, checks, correction, fight, skills, strike
from server.rules.dice_combat.commands import (
    Act,
    AddCombatant,
    BeginFight,
    CancelAttack,
    ChaseRound,
    Check,
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
from server.rules.dice_combat.events import CombatantAdded, CombatantLinked, WeaponFace
from server.rules.dice_combat.evolve import evolve
from server.rules.dice_combat.state import DiceCombat
from server.rules.story import Decider, Handler, Lifecycle, Story


def before_the_end(step: Handler[DiceCombat]) -> Handler[DiceCombat]:
    """A command the GM may send until the game ends, in the lobby too (setting the table)."""

    def handler(story: Story[DiceCombat], command: object, ctx: Context) -> None:
        roster.require_not_ended(story.state.roster)
        step(story, command, ctx)

    return handler


def running(step: Handler[DiceCombat]) -> Handler[DiceCombat]:
    """A command of a game in progress."""

    def handler(story: Story[DiceCombat], command: object, ctx: Context) -> None:
        roster.require_not_ended(story.state.roster)
        roster.require_running(story.state.roster)
        step(story, command, ctx)

    return handler


def ending(story: Story[DiceCombat], ctx: Context) -> None:
    """The fight (with the attacks waiting for dice) and the chases still on end with the game,
    so no state is left half-way."""
    if story.state.fight is not None:
        fight.end(story, "game_ended")
    for open_chase in list(story.state.chases.values()):
        chase.end(story, open_chase, "game_ended", [])


def player(state: DiceCombat, player_id: str | None) -> None:
    """A combatant is linked to a player's phone, or to nobody (the GM rolls)."""
    if player_id is None:
        return
    member = state.roster.members.get(player_id)
    if member is None:
        raise RuleError("not_found", f"no player {player_id}")
    if member.role != "player":
        raise RuleError("not_a_player", f"{member.name} is a {member.role}, not a player")


def add(story: Story[DiceCombat], command: AddCombatant, ctx: Context) -> None:
    player(story.state, command.player_id)
    added = CombatantAdded(
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
        attacks_per_round=command.attacks_per_round,
        initiative_bonus=command.initiative_bonus,
        weapon=WeaponFace(**command.weapon.model_dump()),
        second_weapon=(
            None
            if command.second_weapon is None
            else WeaponFace(**command.second_weapon.model_dump())
        ),
        size=command.size,
        bleeds=command.bleeds,
    )
    story.tell(added)


def link(story: Story[DiceCombat], command: LinkPlayer, ctx: Context) -> None:
    who = checks.combatant(story.state, command.combatant_id)
    player(story.state, command.player_id)
    story.tell(CombatantLinked(combatant_id=who.combatant_id, player_id=command.player_id))


decide = Decider(
    handlers={
        AddCombatant: before_the_end(add),
        LinkPlayer: before_the_end(link),
        Correct: before_the_end(correction.correct),
        BeginFight: running(fight.begin),
        JoinFight: running(fight.join),
        NextTurn: running(fight.next_turn),
        EndFight: running(fight.end_fight),
        Act: running(fight.act),
        Flee: running(fight.flee),
        DeclareAttack: running(strike.declare),
        RollDice: running(strike.roll),
        CancelAttack: running(strike.cancel),
        StartChase: running(chase.start),
        ChaseRound: running(chase.round_of),
        EndChase: running(chase.stop),
        FirstAid: running(care.first_aid),
        StopBleeding: running(care.stop_bleeding),
        Rest: running(care.rest),
        Check: running(skills.check),
    },
    evolve=evolve,
    lifecycle=Lifecycle(ending=ending),
)
