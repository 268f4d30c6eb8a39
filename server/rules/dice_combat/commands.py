"""The dice-combat commands. The GM (organizer) sends them all; a player whose token is linked
to a combatant may also `roll` that combatant's own attack or defence."""

from typing import ClassVar, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from server.rules.core import ORGANIZER, ORGANIZER_OR_PLAYER, Command, Id, Role
from server.rules.dice_combat.actions import LENGTHS, Action, Length
from server.rules.dice_combat.attack import Cover, Modifier
from server.rules.dice_combat.combatant import BoostField, Hand, Size, WeaponSpec

Text = Field(min_length=1, max_length=40, pattern=r"\S")
Reason = Field(min_length=1, max_length=200, pattern=r"\S")
Ids = Field(min_length=1, max_length=50)
GM = ORGANIZER  # the game master, in the words of the table
GM_OR_PLAYER = ORGANIZER_OR_PLAYER


def number(default: int, low: int = -20, high: int = 30) -> int:
    """A whole number field with its bounds (typed as the int it validates to)."""
    value: int = Field(default=default, ge=low, le=high)
    return value


class AddCombatant(Command):
    roles: ClassVar[frozenset[Role]] = GM
    name: str = Text
    side: str = Text
    player_id: str | None = Field(default=None, min_length=1, max_length=64)
    strength: int = Field(default=0, ge=-10, le=20, alias="str")
    agi: int = number(0, -10, 20)
    lives: int = number(10, 1, 999)
    movement: int = number(0, 0, 200)
    athletics: int = number(0, 0, 20)
    endurance: int = number(0, -10, 20)
    stamina: int = number(0, 0, 20)
    first_aid: int = number(0, 0, 20)
    armour: int = number(0, 0, 30)
    shield: int = number(0, 0, 30)
    weapon: WeaponSpec = Field(default_factory=WeaponSpec)
    second_weapon: WeaponSpec | None = None  # in the other hand
    size: Size = "B"
    bleeds: bool = True
    attacks_per_round: int = number(1, 1, 10)
    initiative_bonus: int = number(0)


class LinkPlayer(Command):
    roles: ClassVar[frozenset[Role]] = GM
    combatant_id: str = Id
    player_id: str | None = Field(min_length=1, max_length=64)


class BeginFight(Command):
    roles: ClassVar[frozenset[Role]] = GM
    combatants: list[str] = Ids
    surprised: list[str] = Field(default_factory=list, max_length=50)


class JoinFight(Command):
    roles: ClassVar[frozenset[Role]] = GM
    combatant_id: str = Id


class NextTurn(Command):
    roles: ClassVar[frozenset[Role]] = GM


class EndFight(Command):
    roles: ClassVar[frozenset[Role]] = GM


# The numbers a check may add.
SkillField = Literal["str", "agi", "movement", "athletics", "endurance", "stamina", "first_aid"]


class Check(Command):
    """A perception roll (Postřeh) or any other skill check the GM asks for: each combatant
    rolls an exploding d6 + a sheet number (if any) + `value` against `difficulty`."""

    roles: ClassVar[frozenset[Role]] = GM
    combatants: list[str] = Ids
    kind: Literal["perception", "skill"] = "perception"
    name: str = Field(default="", max_length=40)
    field: SkillField | None = None
    value: int = number(0)
    difficulty: int = number(0, 0, 99)


class ItemEffect(BaseModel):
    """What an item (a potion) does at the start of the next round."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    target_id: str | None = Field(default=None, min_length=1, max_length=64)  # None: the user
    heal: int = number(0, 0, 999)  # lives restored, up to the maximum
    treat: bool = False  # the bleeding stopped
    field: BoostField | None = None  # a number changed
    by: int = number(0, -30, 30)
    rounds: int = number(1, 1, 20)  # for so many rounds

    @model_validator(mode="after")
    def does_something(self) -> Self:
        if not (self.heal or self.treat or self.field):
            raise ValueError("an effect heals, treats or changes a number")
        if (self.field is None) != (self.by == 0):
            raise ValueError("a changed number needs `field` and a `by` other than 0")
        return self


class Act(Command):
    roles: ClassVar[frozenset[Role]] = GM
    combatant_id: str = Id
    action: Action
    length: Length | None = None  # None: the action's usual length
    weapon: WeaponSpec | None = None  # the new weapon, for change_weapon only
    hand: Hand = "first"  # which weapon change_weapon replaces
    drop: bool = False  # change_weapon: the old one is dropped, not stowed
    effect: ItemEffect | None = None  # use_item only
    note: str = Field(default="", max_length=200)

    @model_validator(mode="after")
    def fits(self) -> Self:
        if self.length is not None and self.length not in LENGTHS[self.action]:
            allowed = " or ".join(LENGTHS[self.action])
            raise ValueError(f"{self.action} is {allowed}, not {self.length}")
        changing = self.action == "change_weapon"
        if (self.weapon is not None) != changing:
            raise ValueError("a weapon goes with change_weapon, and change_weapon needs one")
        if not changing and (self.drop or self.hand != "first"):
            raise ValueError("hand and drop go with change_weapon only")
        if self.effect is not None and self.action != "use_item":
            raise ValueError("an effect goes with use_item only")
        return self

    @property
    def took(self) -> Length:
        return self.length or LENGTHS[self.action][0]


class DeclareAttack(Command):
    roles: ClassVar[frozenset[Role]] = GM
    attacker_id: str = Id
    target_id: str = Id
    ranged: bool | None = None  # None: as the attacker's weapon is
    flat: bool = False
    defence: Literal["auto", "active", "passive"] = "auto"
    weapon: Hand = "first"  # the attacker's
    defence_weapon: Hand = "first"  # the target's, should it parry
    modifiers: list[Modifier] = Field(default_factory=list, max_length=10)
    cover: Cover = "none"
    attackers: int = number(1, 1, 3)
    attack_bonus: int = number(0, -30, 30)
    defence_bonus: int = number(0, -30, 30)


class RollDice(Command):
    roles: ClassVar[frozenset[Role]] = GM_OR_PLAYER
    attack_id: str = Id
    part: Literal["attack", "defence"]


class CancelAttack(Command):
    roles: ClassVar[frozenset[Role]] = GM
    attack_id: str = Id


class Flee(Command):
    roles: ClassVar[frozenset[Role]] = GM
    combatant_id: str = Id
    opponents: list[str] = Ids


class StartChase(Command):
    roles: ClassVar[frozenset[Role]] = GM
    fleeing_id: str = Id
    chaser_id: str = Id
    lead: int = number(0, 0, 1000)


class ChaseRound(Command):
    roles: ClassVar[frozenset[Role]] = GM
    chase_id: str = Id


class EndChase(Command):
    roles: ClassVar[frozenset[Role]] = GM
    chase_id: str = Id


class Rest(Command):
    roles: ClassVar[frozenset[Role]] = GM
    combatant_id: str = Id


class FirstAid(Command):
    roles: ClassVar[frozenset[Role]] = GM
    healer_id: str = Id
    patient_id: str = Id


class StopBleeding(Command):
    roles: ClassVar[frozenset[Role]] = GM
    combatant_id: str = Id
    reason: str = Reason


CombatantField = Literal[
    "str",
    "agi",
    "lives",
    "max_lives",
    "movement",
    "athletics",
    "endurance",
    "stamina",
    "first_aid",
    "armour",
    "shield",
    "attacks_per_round",
    "initiative_bonus",
    "weapon_attack",
    "weapon_damage",
    "weapon_defence",
    "sprint_rounds",
    "sprint_used",
    "initiative",
]


class Correct(Command):
    """The GM's word on any number: a combatant's, or a chase's lead."""

    roles: ClassVar[frozenset[Role]] = GM
    combatant_id: str | None = Field(default=None, min_length=1, max_length=64)
    chase_id: str | None = Field(default=None, min_length=1, max_length=64)
    field: CombatantField | Literal["lead"]
    value: int = number(0, -999, 999)
    reason: str = Reason

    @model_validator(mode="after")
    def one_target(self) -> Self:
        if (self.combatant_id is None) == (self.chase_id is None):
            raise ValueError("name either combatant_id or chase_id")
        if (self.field == "lead") != (self.chase_id is not None):
            raise ValueError("a chase has only a lead; lead belongs to a chase")
        return self


COMMANDS: dict[str, type[Command]] = {
    "add_combatant": AddCombatant,
    "link_player": LinkPlayer,
    "begin_fight": BeginFight,
    "join_fight": JoinFight,
    "next_turn": NextTurn,
    "end_fight": EndFight,
    "act": Act,
    "attack": DeclareAttack,
    "roll": RollDice,
    "cancel_attack": CancelAttack,
    "flee": Flee,
    "start_chase": StartChase,
    "chase_round": ChaseRound,
    "end_chase": EndChase,
    "rest": Rest,
    "first_aid": FirstAid,
    "stop_bleeding": StopBleeding,
    "correct": Correct,
    "check": Check,
}
