"""Deciding the course of a fight: surprise, rounds, initiative, turns, actions and flight."""

from dataclasses import replace
from typing import Literal

from server.rules.core import Context, RuleError
from server.rules.dice_combat import checks, dice, items
from server.rules.dice_combat.commands import Act, BeginFight, EndFight, Flee, JoinFight, NextTurn
from server.rules.dice_combat.events import (
    ActionTaken,
    AttackCancelled,
    CombatantJoinedFight,
    FightEnded,
    FightStarted,
    FlightRoll,
    FlightRolled,
    InitiativeFace,
    InitiativeRolled,
    RoundStarted,
    SprintStarted,
    TurnStarted,
    WeaponFace,
)
from server.rules.dice_combat.harm import bleed
from server.rules.dice_combat.initiative import Initiative, settle
from server.rules.dice_combat.state import DiceCombat, Fight
from server.rules.story import Story

EndReason = Literal["gm", "game_ended"]


def begin(story: Story[DiceCombat], command: BeginFight, ctx: Context) -> None:
    if story.state.fight is not None:
        raise RuleError("fight_running", "a fight is on already; end it first")
    checks.distinct(command.combatants, "combatants")
    for combatant_id in command.combatants:
        checks.alive(story.state, combatant_id)
    if not set(command.surprised) <= set(command.combatants):
        raise RuleError("invalid", "surprised: only those who take part can be surprised")
    surprised = set(command.surprised)
    sides = {story.state.combatants[c].side for c in command.combatants}
    # Every side caught unawares is no surprise at all: a plain fight.
    everyone = bool(surprised) and sides == {story.state.combatants[c].side for c in surprised}
    started = FightStarted(
        fight_id=ctx.new_id("f"),
        combatants=command.combatants,
        surprised=[] if everyone else sorted(surprised),
        everyone_surprised=everyone,
    )
    story.tell(started)
    next_round(story, ctx)


def join(story: Story[DiceCombat], command: JoinFight, ctx: Context) -> None:
    fight = checks.fight(story.state)
    checks.alive(story.state, command.combatant_id)
    if command.combatant_id in fight.participants:
        raise RuleError("already_in_fight", f"{command.combatant_id} takes part already")
    # Its initiative is rolled when the next round starts.
    story.tell(CombatantJoinedFight(fight_id=fight.fight_id, combatant_id=command.combatant_id))


def next_turn(story: Story[DiceCombat], command: NextTurn, ctx: Context) -> None:
    fight = checks.fight(story.state)
    if fight.attacks:
        raise RuleError("rolls_pending", "an attack is waiting for its dice; roll or cancel it")
    if not start_turn(story):
        next_round(story, ctx)


def end_fight(story: Story[DiceCombat], command: EndFight, ctx: Context) -> None:
    end(story, "gm")


def end(story: Story[DiceCombat], reason: EndReason) -> None:
    """The fight ends, and the attacks still waiting for dice with it."""
    fight = checks.fight(story.state)
    for attack_id in fight.attacks:
        story.tell(AttackCancelled(attack_id=attack_id, reason=reason))
    items.end_of_fight(story, fight)
    story.tell(FightEnded(fight_id=fight.fight_id, reason=reason))


def next_round(story: Story[DiceCombat], ctx: Context) -> None:
    """A new round: items work or wear off, critical wounds bleed, initiative is rolled, the
    first turn starts."""
    fight = checks.fight(story.state)
    story.tell(RoundStarted(fight_id=fight.fight_id, round=fight.round + 1))
    items.start_of_round(story, checks.fight(story.state))
    for combatant_id, combatant in story.state.combatants.items():
        for wound in combatant.wounds:
            bleed(story, ctx, combatant_id, wound)
    roll_initiative(story, ctx)
    start_turn(story)


def roll_initiative(story: Story[DiceCombat], ctx: Context) -> None:
    """1d6 + agi + the GM's bonus for all who can act; with `initiative_once` from round 2 on
    only for those who have none yet (who joined late, or came to)."""
    fight = checks.fight(story.state)
    combatants = story.state.combatants
    keep = story.state.config.initiative_once and fight.round > 1
    table = dict(fight.initiative) if keep else {}
    rolling = [c for c in fight.participants if combatants[c].up and c not in table]
    if not rolling:
        return
    for combatant_id in rolling:
        who = combatants[combatant_id]
        die = ctx.chance.die(6)
        total = dice.initiative(die, who.agi, who.initiative_bonus)
        table[combatant_id] = Initiative(die, who.agi, who.initiative_bonus, total, fight.round)
    order_by(story, ctx, fight, table)


def order_by(
    story: Story[DiceCombat], ctx: Context, fight: Fight, table: dict[str, Initiative]
) -> None:
    settled, order = settle(table, lambda: ctx.chance.die(6))
    rolled = InitiativeRolled(
        fight_id=fight.fight_id,
        round=fight.round,
        initiative={cid: InitiativeFace(**entry.dump()) for cid, entry in settled.items()},
        order=order,
        # Recorded here, not by the story: the line carries `chance` even when no die was
        # rolled (a corrected total that ties nobody), as it always has.
        chance=ctx.chance.record(),
    )
    story.tell(rolled)


def correct_initiative(
    story: Story[DiceCombat], ctx: Context, combatant_id: str, total: int
) -> None:
    """The GM's initiative for one combatant; should it tie someone, they reroll as ever."""
    fight = checks.fight(story.state)
    table = dict(fight.initiative)
    table[combatant_id] = replace(table[combatant_id], total=total, tiebreak=())
    order_by(story, ctx, fight, table)


def next_up(state: DiceCombat, fight: Fight) -> str | None:
    """The next in order who has not had a turn this round and can act; None: the round is
    over (the view tells the console whether the next turn starts a round)."""
    for combatant_id in fight.order:
        can_act = state.combatants[combatant_id].up and not fight.surprised_now(combatant_id)
        if combatant_id not in fight.had_turn and can_act:
            return combatant_id
    return None


def start_turn(story: Story[DiceCombat]) -> bool:
    """The next one's turn starts; False if nobody is left this round."""
    fight = checks.fight(story.state)
    combatant_id = next_up(story.state, fight)
    if combatant_id is None:
        return False
    story.tell(TurnStarted(fight_id=fight.fight_id, round=fight.round, combatant_id=combatant_id))
    return True


def act(story: Story[DiceCombat], command: Act, ctx: Context) -> None:
    fight = checks.fighting(story.state, command.combatant_id)
    who = checks.up(story.state, command.combatant_id)
    length = command.took
    if command.action == "speak":  # a few words go with anything, on anybody's turn
        checks.awake(fight, who)
    else:
        checks.on_turn(fight, who)
    refusal = fight.done(who.combatant_id).refusal(command.action, length)
    if refusal:
        raise RuleError(*refusal)
    if command.action == "sprint":
        run(story, ctx, who.combatant_id)
    taken = ActionTaken(
        fight_id=fight.fight_id,
        round=fight.round,
        combatant_id=who.combatant_id,
        action=command.action,
        length=length,
        weapon=None if command.weapon is None else WeaponFace(**command.weapon.model_dump()),
        hand=command.hand,
        dropped=command.drop,
        effect=items.effect_of(story.state, who, command.effect),
        note=command.note,
    )
    story.tell(taken)


def run(story: Story[DiceCombat], ctx: Context, combatant_id: str) -> None:
    """Before a round of running: refused when exhausted; its length rolled when not known."""
    who = story.state.combatants[combatant_id]
    if who.sprint is not None:
        if who.sprint.exhausted:
            raise RuleError(
                "exhausted", f"{who.name} has run {who.sprint.rounds} rounds: a second wind first"
            )
        return
    die = ctx.chance.die(10)
    rounds = dice.sprint_rounds(die, who.endurance, who.stamina)
    started = SprintStarted(
        combatant_id=combatant_id,
        die=die,
        endurance=who.endurance,
        stamina=who.stamina,
        rounds=rounds,
    )
    story.tell(started)


def flee(story: Story[DiceCombat], command: Flee, ctx: Context) -> None:
    """Leaving melee: everybody rolls 1d6 + agi; higher than all, the fleeing one is away,
    else those it did not beat attack it first (it is running: ZO only)."""
    fight = checks.fighting(story.state, command.combatant_id)
    who = checks.up(story.state, command.combatant_id)
    checks.on_turn(fight, who)
    checks.distinct(command.opponents, "opponents")
    if who.combatant_id in command.opponents:
        raise RuleError("invalid", "opponents: one does not flee from oneself")
    for opponent in command.opponents:
        checks.fighting(story.state, opponent)
        checks.up(story.state, opponent)
    refusal = fight.done(who.combatant_id).refusal("sprint", "long")
    if refusal:
        raise RuleError(*refusal)
    run(story, ctx, who.combatant_id)
    rolls: list[FlightRoll] = []
    for combatant_id in [who.combatant_id, *command.opponents]:
        die = ctx.chance.die(6)
        agi = story.state.combatants[combatant_id].agi
        rolls.append(FlightRoll(combatant_id=combatant_id, die=die, agi=agi, total=die + agi))
    mine = rolls[0].total
    first = [r.combatant_id for r in rolls[1:] if r.total >= mine]
    rolled = FlightRolled(
        fight_id=fight.fight_id,
        round=fight.round,
        combatant_id=who.combatant_id,
        rolls=rolls,
        escaped=not first,
        attacks_first=first,
    )
    story.tell(rolled)
