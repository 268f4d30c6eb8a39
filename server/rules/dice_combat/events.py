"""The events of dice-combat, as typed records (docs/rules/dice-combat.md, "Events (payloads)"), and
the upcasters of their older lines.

Version 2 of `combatant_added`, `fight_started`, `action_taken` and `attack_declared` came with
the second reading of the seed (two weapons, the plain fight of everybody surprised, dropped
weapons and items with an effect): an older line held one weapon, named its surprised as they
were, dropped nothing and had no effect, and is read so.

`number_corrected` names a combatant or a chase (exactly one of the two keys is written), and
carries `dead` and `fainted` for a correction of lives only: those are shapes of today's lines,
not keys older lines lack, so they are fields a line may leave out rather than upcasts.
"""

from typing import Literal

import msgspec

from server.rules import roster
from server.rules.dice_combat.actions import Action, Length
from server.rules.dice_combat.attack import Critical, Defence
from server.rules.dice_combat.combatant import BoostField, Hand, Size
from server.rules.dice_combat.commands import CombatantField, SkillField
from server.rules.events import UNSET, Fact, Json, Unset


class Face(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A shape nested in an event."""


class WeaponFace(Face, frozen=True):
    name: str
    attack: int
    damage: int
    defence: int
    ranged: bool
    flat_allowed: bool


class InitiativeFace(Face, frozen=True):
    die: int
    agi: int
    bonus: int
    total: int
    since: int
    tiebreak: list[int]


class FlightRoll(Face, frozen=True):
    combatant_id: str
    die: int
    agi: int
    total: int


class BonusFace(Face, frozen=True):
    name: str
    attack: int
    defence: int


class EffectFace(Face, frozen=True):
    """An item's effect, as `use_item` carried it, its target named."""

    target_id: str
    heal: int
    treat: bool
    field: BoostField | None
    by: int
    rounds: int


class CheckRoll(Face, frozen=True):
    """One combatant's roll of a check: an exploding d6 + `number` (its sheet's) + the check's
    value."""

    combatant_id: str
    dice: list[int]
    sixes: int
    number: int
    total: int
    success: bool


class Distance(Face, frozen=True):
    """How far one runner of a chase got in a round."""

    combatant_id: str
    die: int
    movement: int
    athletics: int
    total: int


# -- the combatants ------------------------------------------------------------------------------


class CombatantAdded(Fact, frozen=True):
    """The sheet as the GM wrote it; `str` on the wire (a Python builtin, hence `strength`)."""

    kind = "combatant_added"
    version = 2
    combatant_id: str
    name: str
    side: str
    player_id: str | None
    strength: int = msgspec.field(name="str")
    agi: int
    lives: int
    max_lives: int
    movement: int
    athletics: int
    endurance: int
    stamina: int
    first_aid: int
    armour: int
    shield: int
    attacks_per_round: int
    initiative_bonus: int
    weapon: WeaponFace
    second_weapon: WeaponFace | None
    size: Size
    bleeds: bool


class CombatantLinked(Fact, frozen=True):
    kind = "combatant_linked"
    combatant_id: str
    player_id: str | None


class CombatantHurt(Fact, frozen=True):
    kind = "combatant_hurt"
    combatant_id: str
    attack_id: str
    lost: int
    lives: int


class WoundOpened(Fact, frozen=True):
    kind = "wound_opened"
    combatant_id: str
    wound_id: str
    attack_id: str
    dice: int  # d6 a round
    fixed: int  # lives a round
    cannot_kill: bool


class WoundBled(Fact, frozen=True):
    """`chance` only when dice were rolled (a fixed loss rolls none)."""

    kind = "wound_bled"
    wound_id: str
    combatant_id: str
    dice: list[int]
    lost: int
    lives: int
    chance: Json | Unset = UNSET


class CombatantFainted(Fact, frozen=True):
    kind = "combatant_fainted"
    combatant_id: str


class CombatantDied(Fact, frozen=True):
    kind = "combatant_died"
    combatant_id: str


class BleedingStopped(Fact, frozen=True):
    kind = "bleeding_stopped"
    combatant_id: str
    wound_ids: list[str]
    by: Literal["first_aid", "gm"]
    reason: str | None  # None for first aid


class CombatantRested(Fact, frozen=True):
    kind = "combatant_rested"
    combatant_id: str


class SprintStarted(Fact, frozen=True):
    kind = "sprint_started"
    combatant_id: str
    die: int
    endurance: int
    stamina: int
    rounds: int
    chance: Json | Unset = UNSET


class FirstAidRolled(Fact, frozen=True):
    kind = "first_aid_rolled"
    fight_id: str | None  # None outside the fight
    healer_id: str
    patient_id: str
    dice: list[int]
    sixes: int
    agi: int
    skill: int
    total: int
    needed: int
    success: bool
    chance: Json | Unset = UNSET


class NumberCorrected(Fact, frozen=True, kw_only=True):
    """The GM's word on a number of a combatant or of a chase (one of the two ids is written);
    `dead` and `fainted` for lives only."""

    kind = "number_corrected"
    combatant_id: str | Unset = UNSET
    chase_id: str | Unset = UNSET
    field: CombatantField | Literal["lead"]
    before: int | None  # None: no sprint yet
    after: int
    reason: str
    dead: bool | Unset = UNSET
    fainted: bool | Unset = UNSET


# -- the fight -----------------------------------------------------------------------------------


class CheckRolled(Fact, frozen=True):
    kind = "check_rolled"
    check_id: str
    check: Literal["perception", "skill"] = msgspec.field(name="kind")  # `kind` names the event
    name: str
    field: SkillField | None
    value: int
    difficulty: int
    rolls: list[CheckRoll]
    chance: Json | Unset = UNSET


class FightStarted(Fact, frozen=True):
    """`everyone_surprised`: every side was named surprised, so nobody is (`surprised` is
    empty): a plain fight."""

    kind = "fight_started"
    version = 2
    fight_id: str
    combatants: list[str]
    surprised: list[str]
    everyone_surprised: bool


class CombatantJoinedFight(Fact, frozen=True):
    kind = "combatant_joined_fight"
    fight_id: str
    combatant_id: str


class RoundStarted(Fact, frozen=True):
    kind = "round_started"
    fight_id: str
    round: int


class InitiativeRolled(Fact, frozen=True):
    """Always carries `chance`, even with no die rolled (a corrected total nobody ties)."""

    kind = "initiative_rolled"
    fight_id: str
    round: int
    initiative: dict[str, InitiativeFace]
    order: list[str]
    chance: Json | Unset = UNSET


class TurnStarted(Fact, frozen=True):
    kind = "turn_started"
    fight_id: str
    round: int
    combatant_id: str


class ActionTaken(Fact, frozen=True):
    kind = "action_taken"
    version = 2
    fight_id: str
    round: int
    combatant_id: str
    action: Action
    length: Length
    weapon: WeaponFace | None  # the new weapon of a change_weapon
    hand: Hand  # the hand whose weapon changed ("first" for any other action)
    dropped: bool  # the old weapon dropped, not stowed: the active defence stays
    effect: EffectFace | None  # an item's, taking effect at the start of the next round
    note: str


class ItemTookEffect(Fact, frozen=True):
    """An item used last round works: lives restored (`healed`, up to the maximum), bleeding
    stopped (`wound_ids`), a number changed by `by` until the start of `until_round`."""

    kind = "item_took_effect"
    fight_id: str
    round: int
    combatant_id: str  # who used it
    target_id: str
    healed: int
    lives: int
    wound_ids: list[str]
    field: BoostField | None
    by: int
    until_round: int | None


class ItemWoreOff(Fact, frozen=True):
    kind = "item_wore_off"
    fight_id: str
    round: int
    combatant_id: str
    field: BoostField
    by: int  # as it was changed: now taken back


class FlightRolled(Fact, frozen=True):
    kind = "flight_rolled"
    fight_id: str
    round: int
    combatant_id: str
    rolls: list[FlightRoll]
    escaped: bool
    attacks_first: list[str]
    chance: Json | Unset = UNSET


class AttackDeclared(Fact, frozen=True):
    """`weapon_damage` is the attacker's weapon damage at the declaration, also for a flat blow,
    where it does not count (docs/protocol.md)."""

    kind = "attack_declared"
    version = 2
    attack_id: str
    fight_id: str
    round: int
    attacker_id: str
    target_id: str
    ranged: bool
    flat: bool
    free: bool
    defence: Defence
    weapon: Hand  # the attacker's
    defence_weapon: Hand  # the target's (it parries with it when its defence is active)
    weapon_damage: int
    attack_number: int
    defence_number: int
    bonuses: list[BonusFace]


class AttackRolled(Fact, frozen=True):
    kind = "attack_rolled"
    attack_id: str
    combatant_id: str
    dice: list[int]
    sixes: int
    total: int
    chance: Json | Unset = UNSET


class DefenceRolled(Fact, frozen=True):
    kind = "defence_rolled"
    attack_id: str
    combatant_id: str
    dice: list[int]
    sixes: int
    total: int
    chance: Json | Unset = UNSET


class AttackResolved(Fact, frozen=True):
    kind = "attack_resolved"
    attack_id: str
    attacker_id: str
    target_id: str
    attack: int
    defence: int
    hit: bool
    damage: int
    critical: Critical | None


class AttackCancelled(Fact, frozen=True):
    kind = "attack_cancelled"
    attack_id: str
    reason: Literal["gm", "fight_ended", "game_ended"]


class FightEnded(Fact, frozen=True):
    kind = "fight_ended"
    fight_id: str
    reason: Literal["gm", "game_ended"]


# -- chases --------------------------------------------------------------------------------------


class ChaseStarted(Fact, frozen=True):
    kind = "chase_started"
    chase_id: str
    fleeing_id: str
    chaser_id: str
    lead: int


class ChaseRolled(Fact, frozen=True):
    kind = "chase_rolled"
    chase_id: str
    round: int
    fleeing: Distance
    chaser: Distance
    lead_before: int
    lead: int
    chance: Json | Unset = UNSET


class ChaseEnded(Fact, frozen=True):
    kind = "chase_ended"
    chase_id: str
    reason: Literal["caught", "exhausted", "gm", "game_ended"]
    exhausted: list[str]


def upcast_combatant_added_v1_v2(data: Json) -> Json:
    return {**data, "second_weapon": None}


def upcast_fight_started_v1_v2(data: Json) -> Json:
    """Before v2 the surprised were taken as named, everybody included: the fight replays so."""
    return {**data, "everyone_surprised": False}


def upcast_action_taken_v1_v2(data: Json) -> Json:
    return {**data, "hand": "first", "dropped": False, "effect": None}


def upcast_attack_declared_v1_v2(data: Json) -> Json:
    return {**data, "weapon": "first", "defence_weapon": "first"}


EVENTS = roster.EVENTS.extended(
    [
        CombatantAdded,
        CombatantLinked,
        CombatantHurt,
        WoundOpened,
        WoundBled,
        CombatantFainted,
        CombatantDied,
        BleedingStopped,
        CombatantRested,
        SprintStarted,
        FirstAidRolled,
        NumberCorrected,
        CheckRolled,
        FightStarted,
        CombatantJoinedFight,
        RoundStarted,
        InitiativeRolled,
        TurnStarted,
        ActionTaken,
        ItemTookEffect,
        ItemWoreOff,
        FlightRolled,
        AttackDeclared,
        AttackRolled,
        DefenceRolled,
        AttackResolved,
        AttackCancelled,
        FightEnded,
        ChaseStarted,
        ChaseRolled,
        ChaseEnded,
    ],
    {
        ("combatant_added", 1): upcast_combatant_added_v1_v2,
        ("fight_started", 1): upcast_fight_started_v1_v2,
        ("action_taken", 1): upcast_action_taken_v1_v2,
        ("attack_declared", 1): upcast_attack_declared_v1_v2,
    },
)
