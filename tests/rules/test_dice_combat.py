"""Every rule of `dice-combat` (docs/rules/dice-combat.md): the arithmetic on fixed rolls (the
worked examples of the Czech original among them), then whole fights through decide/evolve/view."""

import hashlib
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from server.log.verify import verify
from server.rules.core import Event, Json, RuleError, fold
from server.rules.dice_combat import RULESET, dice
from server.rules.dice_combat.actions import RoundActions
from server.rules.dice_combat.attack import (
    Bonus,
    Situation,
    attack_number,
    bonuses,
    defence_number,
    resolve,
)
from server.rules.dice_combat.combatant import Combatant, Weapon
from server.rules.dice_combat.dice import Roll
from server.rules.dice_combat.events import (
    EVENTS,
    ActionTaken,
    AttackDeclared,
    ChaseStarted,
    CheckRolled,
    FightStarted,
    ItemTookEffect,
    ItemWoreOff,
    NumberCorrected,
)
from server.rules.dice_combat.initiative import Initiative, settle
from server.rules.events import UNSET, UnknownEvent
from server.rules.roster import EndGame
from tests.rules.drivers.base import SEED
from tests.rules.drivers.dice_combat import DiceCombatGame, told


def types(events: list[Event]) -> list[str]:
    return [event.type for event in events]


def attack_of(events: list[Event]) -> str:
    """The id of the attack the events declare."""
    return told(events, AttackDeclared).attack_id


def chase_of(events: list[Event]) -> str:
    """The id of the chase the events start."""
    return told(events, ChaseStarted).chase_id


def only(events: list[Event], kind: str) -> Json:
    (found,) = [event.data for event in events if event.type == kind]
    return found


def refused(table: DiceCombatGame, code: str, action: Callable[[], object]) -> None:
    """The action is refused with `code`, and nothing is written."""
    before = len(table.log)
    with pytest.raises(RuleError) as info:
        action()
    assert info.value.code == code, info.value.message
    assert len(table.log) == before


def sheet(**numbers: Any) -> Combatant:
    """A combatant for the arithmetic: all numbers 0 unless given."""
    weapon = Weapon(**numbers.pop("weapon", {}))
    values: dict[str, Any] = {
        "combatant_id": "c",
        "name": "X",
        "side": "s",
        "player_id": None,
        "strength": 0,
        "agi": 0,
        "lives": 10,
        "max_lives": 10,
        "movement": 0,
        "athletics": 0,
        "endurance": 0,
        "stamina": 0,
        "first_aid": 0,
        "armour": 0,
        "shield": 0,
        "weapon": weapon,
        "size": "B",
        "bleeds": True,
        "attacks_per_round": 1,
        "initiative_bonus": 0,
    }
    return Combatant(**{**values, **numbers})


def started(config: Json | None = None, *, seed: bytes = SEED) -> DiceCombatGame:
    table = DiceCombatGame(config, seed=seed)
    table.start()
    return table


def duel(config: Json | None = None, **target: Any) -> tuple[DiceCombatGame, str, str]:
    """Baldur (agi 10: always first) against a goblin (agi -5), both the GM's; the fight on."""
    table = started(config)
    baldur = table.add(
        "Baldur", str=4, agi=10, lives=40, weapon={"attack": 5, "damage": 1, "defence": 2}
    )
    goblin = table.add("Skřet", "skřeti", **{"agi": -5, "lives": 20, "armour": 3, **target})
    table.begin(baldur, goblin)
    assert table.fight.turn == baldur
    return table, baldur, goblin


# -- the exploding d6 and the arithmetic, on fixed rolls -------------------------------------------


def test_an_exploding_d6_rolls_again_on_every_six_and_counts_the_sixes() -> None:
    faces = iter([6, 6, 6, 3, 5])
    roll = dice.exploding(lambda: next(faces))
    assert roll == Roll((6, 6, 6, 3))
    assert (roll.total, roll.sixes) == (21, 3)
    assert next(faces) == 5  # the roll stopped at the first die that was not a six
    assert dice.exploding(lambda: 1) == Roll((1,))


def test_base_defence_defence_number_and_attack_number() -> None:
    fighter = sheet(strength=4, agi=2, armour=3, shield=2, weapon={"attack": 5, "defence": 1})
    assert fighter.base_defence == 5  # ZO = armour + agi
    assert fighter.defence_number() == 8  # OČ = ZO + weapon defence + shield
    assert fighter.attack_number(ranged=False) == 9  # ÚČ = str + weapon attack
    assert fighter.attack_number(ranged=True) == 7  # ÚČ = agi + weapon attack


def test_baldur_attack_12_against_defence_5_with_weapon_damage_1_deals_8() -> None:
    baldur = sheet(strength=4, weapon={"attack": 5, "damage": 1, "defence": 2})
    goblin = sheet(agi=1, armour=4)  # defends passively: ZO 5
    assert attack_number(baldur, False, []) == 9
    assert defence_number(goblin, "passive", False, []) == 5
    outcome = resolve(9, 5, Roll((3,)), None, weapon_damage=1)
    assert (outcome.attack, outcome.defence, outcome.hit) == (12, 5, True)
    assert outcome.damage == 8 == dice.damage(12, 5, 1)
    assert outcome.critical is None


def test_meredil_attack_minus_1_against_grop_minus_2_deals_1() -> None:
    meredil = sheet(strength=-1)  # fists: attack and damage 0
    grop = sheet(agi=-4, armour=1)  # OČ -3 with bare hands
    applied = bonuses(Situation(frozenset({"disadvantage"})), "active")
    assert applied == [Bonus("disadvantage", attack=-5)]
    assert attack_number(meredil, False, applied) == -6
    assert defence_number(grop, "active", False, applied) == -3
    outcome = resolve(-6, -3, Roll((5,)), Roll((1,)), weapon_damage=0)
    assert (outcome.attack, outcome.defence) == (-1, -2)
    assert outcome.hit and outcome.damage == 1


def test_a_hit_is_attack_above_defence_and_damage_can_be_negative() -> None:
    assert not resolve(5, 5, Roll((1,)), Roll((1,)), weapon_damage=3).hit  # equal: a miss
    outcome = resolve(5, 5, Roll((2,)), Roll((1,)), weapon_damage=-3)
    assert outcome.hit and outcome.damage == -2 and outcome.lost == 0
    missed = resolve(0, 9, Roll((2,)), None, weapon_damage=3)
    assert (missed.hit, missed.damage, missed.lost) == (False, 0, 0)


def test_the_chase_31_against_36_closes_the_lead_by_5() -> None:
    halfling = dice.chase_distance(7, 24, 0)  # movement 20 + agi 4, no athletics
    barbarian = dice.chase_distance(3, 31, 2)  # movement 30 + agi 1, athletics 2
    assert (halfling, barbarian) == (31, 36)
    assert dice.chase_lead(12, halfling, barbarian) == 7
    assert dice.chase_lead(12, barbarian, halfling) == 17  # the fleeing one is faster
    assert dice.chase_lead(3, halfling, barbarian) == 0  # caught up; never a negative lead


def test_six_six_six_three_that_hits_is_a_critical_with_two_d6() -> None:
    outcome = resolve(4, 10, Roll((6, 6, 6, 3)), None, weapon_damage=2)
    assert outcome.hit and outcome.damage == 4 + 21 - 10 + 2
    assert (outcome.critical, outcome.critical_dice) == ("attack", 2)
    assert dice.critical_dice(3) == 2 and dice.critical_dice(1) == 0


@pytest.mark.parametrize(
    ("mine", "theirs", "critical"),
    [(2, 0, True), (1, 0, False), (3, 1, True), (3, 2, False), (2, 1, False), (4, 2, True)],
)
def test_a_critical_needs_two_sixes_and_two_more_than_the_other_side(
    mine: int, theirs: int, critical: bool
) -> None:
    assert dice.critical(mine, theirs) is critical


def test_sixes_that_miss_make_no_critical_and_defender_sixes_can_cancel_one() -> None:
    assert resolve(0, 30, Roll((6, 6, 1)), None, weapon_damage=0).critical is None
    cancelled = resolve(20, 0, Roll((6, 6, 1)), Roll((6, 1)), weapon_damage=0)
    assert cancelled.hit and cancelled.critical is None  # 2 sixes against 1: not two more


def test_a_flat_blow_adds_no_weapon_damage_and_makes_no_critical() -> None:
    outcome = resolve(4, 3, Roll((6, 6, 2)), None, weapon_damage=5, flat=True)
    assert outcome.damage == 4 + 14 - 3
    assert outcome.critical is None
    assert dice.lives_after(3, 10, flat=True) == 0  # faints and stays at 0
    assert dice.lives_after(0, 4, flat=True) == 0
    assert dice.lives_after(3, 10) == -7


def test_a_critical_defence_is_melee_active_and_two_sixes_more() -> None:
    parried = resolve(5, 5, Roll((1,)), Roll((6, 6, 6, 2)), weapon_damage=0)
    assert (parried.hit, parried.critical, parried.critical_dice) == (False, "defence", 2)
    shot = resolve(5, 5, Roll((1,)), Roll((6, 6, 6, 2)), ranged=True, weapon_damage=0)
    assert shot.critical is None  # no critical defence against missiles
    assert resolve(9, 5, Roll((6, 1)), Roll((6, 6, 4)), weapon_damage=0).critical is None


def test_a_helpless_target_has_defence_0_and_an_automatic_critical_in_melee_only() -> None:
    target = sheet(agi=3, armour=5, shield=2)
    applied = bonuses(Situation(frozenset({"helpless", "target_invisible"}), "half", 3), "helpless")
    assert applied == []  # a helpless target gets no defence bonus, cover, or outnumbered
    assert defence_number(target, "helpless", False, applied) == 0
    gm = bonuses(Situation(frozenset({"helpless"}), defence_bonus=2), "helpless")
    assert defence_number(target, "helpless", False, gm) == 2  # unless the GM rules otherwise
    melee = resolve(1, 0, Roll((2,)), None, weapon_damage=0, helpless=True)
    assert (melee.critical, melee.critical_dice) == ("helpless", 0)
    shot = resolve(1, 0, Roll((2,)), None, weapon_damage=0, helpless=True, ranged=True)
    assert shot.critical is None
    assert dice.helpless_bleeding(20) == 5 and dice.helpless_bleeding(3) == 1
    assert dice.lives_after(4, 30, cannot_kill=True) == 1
    assert dice.lives_after(0, 30, cannot_kill=True) == 0  # a fainted giant stays alive


def test_every_modifier_of_the_rules() -> None:
    def applied(*names: str, **situation: Any) -> dict[str, tuple[int, int]]:
        found = bonuses(Situation(frozenset(names), **situation), "active")
        return {b.name: (b.attack, b.defence) for b in found}

    assert applied("advantage", "disadvantage") == {"advantage": (5, 0), "disadvantage": (-5, 0)}
    assert applied("defender_advantage", "defender_disadvantage") == {
        "defender_advantage": (0, 5),
        "defender_disadvantage": (0, -5),
    }
    assert applied("attacker_invisible", "target_invisible") == {
        "attacker_invisible": (5, 0),
        "target_invisible": (0, 5),
    }
    assert applied("ambush") == {"ambush": (5, 0)}
    assert applied("prone_target") == {"prone_target": (5, 0)}
    assert applied("close_range") == {"close_range": (-5, 0)}
    assert applied(cover="half") == {"half_cover": (0, 3)}
    assert applied(cover="three_quarter") == {"three_quarter_cover": (0, 5)}
    assert applied(attackers=1) == {}
    assert applied(attackers=2) == {"outnumbered": (0, -2)}
    assert applied(attackers=3) == {"outnumbered": (0, -3)}
    assert applied(attack_bonus=2, defence_bonus=-1) == {"gm": (2, -1)}
    assert [dice.outnumbered(n) for n in (1, 2, 3, 4)] == [0, -2, -3, -3]


def test_against_missiles_the_weapon_does_not_parry() -> None:
    target = sheet(agi=2, armour=3, shield=2, weapon={"defence": 4})
    assert defence_number(target, "active", True, []) == 7  # ZO + shield
    assert defence_number(target, "active", False, []) == 11  # OČ
    assert defence_number(target, "passive", False, []) == 5  # ZO


def test_initiative_orders_by_total_then_agi() -> None:
    table = {
        "a": Initiative(3, 1, 0, 4, 1),
        "b": Initiative(2, 2, 0, 4, 1),  # the same total, higher agi: first
        "c": Initiative(6, 0, 2, 8, 1),
    }
    settled, order = settle(table, lambda: pytest.fail("no reroll needed"))
    assert order == ["c", "b", "a"]
    assert settled == table


def test_initiative_ties_reroll_among_the_tied_until_ordered() -> None:
    table = {cid: Initiative(3, 1, 0, 4, 1) for cid in ("a", "b", "c")}
    rerolls = iter([5, 5, 2, 3, 3, 6, 1])  # a, b, c; then a and b still tied: 3, 3; 6, 1
    settled, order = settle(table, lambda: next(rerolls))
    assert order == ["a", "b", "c"]
    assert [settled[c].tiebreak for c in "abc"] == [(5, 3, 6), (5, 3, 1), (2,)]
    assert next(rerolls, None) is None


def test_a_latecomer_tied_on_total_and_agi_acts_after_those_who_rolled_before() -> None:
    table = {"old": Initiative(3, 1, 0, 4, 1), "new": Initiative(3, 1, 0, 4, 3)}
    assert settle(table, lambda: pytest.fail("no reroll"))[1] == ["old", "new"]


def test_one_long_action_or_up_to_two_short_ones_plus_instant_ones() -> None:
    fresh = RoundActions()
    assert fresh.refusal("sprint", "long") is None
    assert fresh.attack_refusal(1) is None
    long = fresh.took("sprint", "long")
    assert long.refusal("retreat", "short") is not None
    assert long.refusal("crawl", "long") is not None
    assert long.attack_refusal(1) is not None
    assert long.refusal("short_move", "instant") == (
        "moving",
        "no short move beside a movement action",
    )
    assert fresh.took("use_skill", "long").refusal("short_move", "instant") is None
    short = fresh.took("retreat", "short")
    assert short.refusal("stand_up", "short") is None
    assert short.refusal("sprint", "long") is not None
    assert short.attack_refusal(1) is not None  # an attack is a long action
    assert short.took("stand_up", "short").refusal("use_item", "short") is not None
    moved = fresh.took("short_move", "instant")
    assert moved.refusal("short_move", "instant") == ("already_moved", "one short move a round")
    assert moved.refusal("speak", "instant") is None
    assert moved.refusal("stand_up", "short") is None
    for moving in ("sprint", "crawl"):  # nor a movement action after a short move
        assert moved.refusal(moving, "long") == ("moving", "no movement action after a short move")
    assert moved.refusal("retreat", "short") == ("moving", "no movement action after a short move")
    attacked = RoundActions(attacks=1)
    assert attacked.attack_refusal(1) is not None and attacked.attack_refusal(2) is None
    assert attacked.refusal("retreat", "short") is not None


def test_active_defence_is_allowed_after_nothing_one_short_action_or_attacking() -> None:
    assert RoundActions().may_parry(1)
    assert RoundActions(attacks=1).may_parry(1)
    assert RoundActions(shorts=("retreat",)).may_parry(1)
    assert RoundActions(shorts=("use_item",)).may_parry(1)
    assert not RoundActions(long="sprint").may_parry(1)
    assert not RoundActions(long="use_skill").may_parry(1)
    assert not RoundActions(shorts=("retreat", "stand_up")).may_parry(1)
    assert not RoundActions(shorts=("reload",)).may_parry(1)
    assert not RoundActions(instants=("reload",)).may_parry(1)
    assert not RoundActions().took("change_weapon", "short").may_parry(1)  # stowed
    assert RoundActions().took("change_weapon", "short", dropped=True).may_parry(1)
    assert not RoundActions().took("change_weapon", "instant").may_parry(1)
    assert not RoundActions(shorts=("cast",)).may_parry(1)
    assert not RoundActions(defences=1).may_parry(1)  # once a round
    assert RoundActions(defences=1).may_parry(2)  # as often as attacks when granted several


def test_sprint_length_is_1d10_plus_endurance_plus_stamina_and_at_least_1() -> None:
    assert dice.sprint_rounds(4, 1, 2) == 7
    assert dice.sprint_rounds(1, -3, 0) == 1


# -- combatants and players ----------------------------------------------------------------------


def test_add_combatant_writes_the_whole_sheet() -> None:
    table = started()
    events = table.order(
        "add_combatant",
        name="Baldur",
        side="družina",
        str=4,
        agi=1,
        lives=30,
        movement=25,
        athletics=1,
        endurance=2,
        stamina=1,
        first_aid=1,
        armour=3,
        shield=2,
        weapon={"name": "široký meč", "attack": 5, "damage": 1, "defence": 2, "flat_allowed": True},
        size="B",
        bleeds=True,
        attacks_per_round=1,
        initiative_bonus=0,
    )
    assert types(events) == ["combatant_added"]
    data = events[0].data
    assert data["str"] == 4 and data["lives"] == data["max_lives"] == 30
    assert data["weapon"] == {
        "name": "široký meč",
        "attack": 5,
        "damage": 1,
        "defence": 2,
        "ranged": False,
        "flat_allowed": True,
    }
    baldur = table.who(data["combatant_id"])
    assert (baldur.base_defence, baldur.defence_number(), baldur.attack_number(False)) == (4, 8, 9)


def test_combatants_can_be_added_before_the_start_but_not_after_the_end() -> None:
    table = DiceCombatGame()
    table.add("Baldur")
    table.start()
    table.decide(table.gm, EndGame())
    refused(table, "game_not_running", lambda: table.add("Pozdní"))


def test_a_combatant_links_to_a_player_only() -> None:
    table = started()
    hana = table.join("Hana")
    watcher = table.join("Divák", "spectator")
    baldur = table.add("Baldur", player_id=hana.player_id)
    assert table.who(baldur).player_id == hana.player_id
    refused(table, "not_found", lambda: table.add("X", player_id="p999"))
    refused(table, "not_a_player", lambda: table.add("X", player_id=watcher.player_id))
    events = table.order("link_player", combatant_id=baldur, player_id=None)
    assert events[0].data == {"combatant_id": baldur, "player_id": None}
    assert table.who(baldur).player_id is None


def test_only_the_gm_sends_commands_and_sheets_are_validated() -> None:
    table = started()
    hana = table.join("Hana")
    refused(table, "forbidden", lambda: table.send(hana, "add_combatant", name="X", side="Y"))
    with pytest.raises(ValidationError):
        table.order("add_combatant", name="X", side="Y", lives=0)
    with pytest.raises(ValidationError):
        table.order("add_combatant", name="X", side="Y", strength=3)  # the wire name is `str`


# -- a fight: surprise, initiative, rounds and turns ----------------------------------------------


def test_begin_fight_rolls_initiative_1d6_plus_agi_plus_bonus_and_starts_the_first_turn() -> None:
    table = started()
    a = table.add("A", agi=2, initiative_bonus=1)
    b = table.add("B", agi=0)
    events = table.begin(a, b)
    assert types(events) == ["fight_started", "round_started", "initiative_rolled", "turn_started"]
    rolled = only(events, "initiative_rolled")
    for cid, agi, bonus in ((a, 2, 1), (b, 0, 0)):
        entry = rolled["initiative"][cid]
        assert 1 <= entry["die"] <= 6
        assert entry["total"] == entry["die"] + agi + bonus
    draws = rolled["chance"]["draws"]
    assert [d["value"] for d in draws[:2]] == [rolled["initiative"][c]["die"] for c in (a, b)]
    keys = {cid: (e["total"], e["agi"], e["tiebreak"]) for cid, e in rolled["initiative"].items()}
    assert rolled["order"] == sorted(keys, key=keys.__getitem__, reverse=True)
    assert only(events, "turn_started")["combatant_id"] == rolled["order"][0]


def test_turns_follow_the_order_and_a_new_round_rolls_initiative_again() -> None:
    table = started()
    ids = [table.add(name, agi=agi) for name, agi in (("A", 9), ("B", 0), ("C", -9))]
    table.begin(*ids)
    assert table.fight.order == tuple(ids)
    assert table.fight.turn == ids[0]
    assert types(table.order("next_turn")) == ["turn_started"]
    assert table.fight.turn == ids[1]
    table.order("next_turn")
    events = table.order("next_turn")
    assert types(events) == ["round_started", "initiative_rolled", "turn_started"]
    assert table.fight.round == 2 and table.fight.turn == ids[0]


def test_initiative_once_keeps_the_first_rounds_order() -> None:
    table = started({"initiative_once": True})
    a, b = table.add("A", agi=1), table.add("B", agi=1)
    table.begin(a, b)
    order = table.fight.order
    table.order("next_turn")
    events = table.order("next_turn")
    assert types(events) == ["round_started", "turn_started"]
    assert table.fight.order == order


def test_the_surprised_have_no_action_in_round_1_and_defend_with_base_defence() -> None:
    table = started()
    guard = table.add("Stráž", "hrad", agi=9, armour=2, weapon={"defence": 3}, lives=50)
    thief = table.add("Zloděj", agi=-9)
    events = table.begin(guard, thief, surprised=(guard,))
    assert only(events, "fight_started")["surprised"] == [guard]
    assert table.fight.order[0] == guard  # it has initiative, but not its turn
    assert table.fight.turn == thief
    refused(table, "surprised", lambda: table.attack(guard, thief))
    refused(table, "surprised", lambda: table.order("act", combatant_id=guard, action="speak"))
    declared = only(table.attack(thief, guard), "attack_declared")
    assert declared["defence"] == "passive"
    assert declared["defence_number"] == 11  # ZO: armour 2 + agi 9, no weapon defence
    table.order("next_turn")  # round 2: the guard acts
    assert table.fight.round == 2 and table.fight.turn == guard


def test_actions_out_of_turn_are_refused_but_speaking_is_instant() -> None:
    table, baldur, goblin = duel()
    refused(table, "not_your_turn", lambda: table.attack(goblin, baldur))
    refused(
        table, "not_your_turn", lambda: table.order("act", combatant_id=goblin, action="sprint")
    )
    events = table.order("act", combatant_id=goblin, action="speak", note="Vzdávám se!")
    assert only(events, "action_taken")["note"] == "Vzdávám se!"


def test_next_turn_waits_for_pending_dice() -> None:
    table = started()
    hana = table.join("Hana")
    baldur = table.add("Baldur", agi=10, player_id=hana.player_id)
    goblin = table.add("Skřet", agi=-5)
    table.begin(baldur, goblin)
    table.attack(baldur, goblin)
    refused(table, "rolls_pending", lambda: table.order("next_turn"))


def test_a_latecomer_joins_and_rolls_at_the_next_round() -> None:
    table, _, _ = duel()
    wolf = table.add("Vlk", "skřeti", agi=0)
    events = table.order("join_fight", combatant_id=wolf)
    assert types(events) == ["combatant_joined_fight"]
    assert wolf not in table.fight.order
    refused(table, "already_in_fight", lambda: table.order("join_fight", combatant_id=wolf))
    table.order("next_turn")
    table.order("next_turn")
    assert wolf in table.fight.order


def test_fight_commands_need_a_fight_and_a_running_game() -> None:
    table = DiceCombatGame()
    a = table.add("A")
    refused(table, "game_not_running", lambda: table.begin(a))
    table.start()
    refused(table, "no_fight", lambda: table.order("next_turn"))
    refused(table, "no_fight", lambda: table.order("end_fight"))
    table.begin(a)
    refused(table, "fight_running", lambda: table.begin(a))
    with pytest.raises(ValidationError):
        table.order("begin_fight", combatants=[])
    table.order("end_fight")
    refused(table, "invalid", lambda: table.begin(a, a))


# -- actions and the round's budget --------------------------------------------------------------


def test_one_long_or_two_short_actions_a_round() -> None:
    table, baldur, goblin = duel()
    table.order("act", combatant_id=baldur, action="stand_up")
    table.order("act", combatant_id=baldur, action="use_item")
    refused(
        table,
        "no_action_left",
        lambda: table.order("act", combatant_id=baldur, action="cast"),
    )
    refused(table, "no_action_left", lambda: table.attack(baldur, goblin))
    table.order("act", combatant_id=baldur, action="short_move")
    refused(
        table,
        "already_moved",
        lambda: table.order("act", combatant_id=baldur, action="short_move"),
    )


def test_an_action_takes_its_usual_length_or_one_the_gm_labels() -> None:
    table, baldur, _ = duel()
    events = table.order(
        "act", combatant_id=baldur, action="cast", length="long", note="Ohnivá koule"
    )
    assert only(events, "action_taken")["length"] == "long"
    with pytest.raises(ValidationError):
        table.order("act", combatant_id=baldur, action="sprint", length="short")
    with pytest.raises(ValidationError):
        table.order("act", combatant_id=baldur, action="reload", weapon={})


def test_changing_weapon_replaces_the_weapon() -> None:
    table, baldur, _ = duel()
    bow = {"name": "luk", "attack": 3, "damage": 2, "ranged": True}
    table.order("act", combatant_id=baldur, action="change_weapon", weapon=bow)
    weapon = table.who(baldur).weapon
    assert (weapon.name, weapon.attack, weapon.ranged) == ("luk", 3, True)
    assert table.who(baldur).attack_number(True) == 13  # agi 10 + 3
    with pytest.raises(ValidationError):
        table.order("act", combatant_id=baldur, action="change_weapon")


# -- attack and defence ---------------------------------------------------------------------------


def test_the_gms_attack_rolls_both_sides_at_once_and_resolves() -> None:
    table, baldur, goblin = duel()
    events = table.attack(baldur, goblin)
    assert types(events)[:4] == [
        "attack_declared",
        "attack_rolled",
        "defence_rolled",
        "attack_resolved",
    ]
    declared = only(events, "attack_declared")
    assert declared["defence"] == "active"
    assert declared["attack_number"] == 9  # str 4 + weapon 5
    assert declared["defence_number"] == -2  # armour 3 + agi -5, fists, no shield
    attack, defence = only(events, "attack_rolled"), only(events, "defence_rolled")
    for rolled in (attack, defence):
        values = [d["value"] for d in rolled["chance"]["draws"]]
        assert values == rolled["dice"] and rolled["total"] == sum(values)
        assert all(v == 6 for v in values[:-1]) and values[-1] != 6
    resolved = only(events, "attack_resolved")
    assert resolved["attack"] == 9 + attack["total"]
    assert resolved["defence"] == -2 + defence["total"]
    assert resolved["hit"] is (resolved["attack"] > resolved["defence"])
    if resolved["hit"]:
        assert resolved["damage"] == resolved["attack"] - resolved["defence"] + 1
        assert only(events, "combatant_hurt")["lost"] == min(20, resolved["damage"])
    assert not table.fight.attacks


def test_a_linked_players_phone_rolls_its_own_part() -> None:
    table = started()
    hana, jan = table.join("Hana"), table.join("Jan")
    baldur = table.add("Baldur", agi=10, player_id=hana.player_id, lives=30)
    goblin = table.add("Skřet", agi=-5, lives=30)
    table.begin(baldur, goblin)
    events = table.attack(baldur, goblin)
    # The goblin is the GM's: its defence is rolled at once; Baldur's attack waits for Hana.
    assert types(events) == ["attack_declared", "defence_rolled"]
    attack_id = attack_of(events)
    assert table.fight.attacks[attack_id].awaiting == ["attack"]
    refused(table, "forbidden", lambda: table.send(jan, "roll", attack_id=attack_id, part="attack"))
    refused(
        table,
        "forbidden",
        lambda: table.send(hana, "roll", attack_id=attack_id, part="defence"),
    )
    refused(
        table,
        "already_rolled",
        lambda: table.order("roll", attack_id=attack_id, part="defence"),
    )
    pending = table.view(hana)["attacks"]
    assert list(pending) == [attack_id]
    assert pending[attack_id]["awaiting"] == ["attack"]
    assert "attack_id" not in pending[attack_id]  # the key is the id
    events = table.send(hana, "roll", attack_id=attack_id, part="attack")
    assert types(events)[:2] == ["attack_rolled", "attack_resolved"]
    assert not table.fight.attacks
    refused(
        table, "not_found", lambda: table.send(hana, "roll", attack_id=attack_id, part="attack")
    )


def test_the_gm_may_roll_for_a_player_and_a_passive_defence_has_nothing_to_roll() -> None:
    table = started()
    hana = table.join("Hana")
    baldur = table.add("Baldur", agi=10, player_id=hana.player_id)
    goblin = table.add("Skřet", agi=-5, lives=30)
    table.begin(baldur, goblin)
    events = table.attack(baldur, goblin, defence="passive")
    assert types(events) == ["attack_declared"]  # a passive defence rolls nothing
    attack_id = attack_of(events)
    refused(table, "no_roll", lambda: table.order("roll", attack_id=attack_id, part="defence"))
    assert "attack_resolved" in types(table.order("roll", attack_id=attack_id, part="attack"))


def test_an_attack_is_once_a_round_unless_granted_more() -> None:
    table, baldur, goblin = duel(lives=200)
    table.attack(baldur, goblin)
    refused(table, "no_attack_left", lambda: table.attack(baldur, goblin))
    table.order(
        "correct", combatant_id=baldur, field="attacks_per_round", value=2, reason="Zrychlení"
    )
    table.attack(baldur, goblin)
    refused(table, "no_attack_left", lambda: table.attack(baldur, goblin))


def test_active_defence_once_a_round_then_passive() -> None:
    table = started()
    hero = table.add("Hrdina", agi=0, lives=500, weapon={"defence": 3})
    orcs = [table.add(f"Skřet {n}", "skřeti", agi=9 - n, lives=500) for n in range(2)]
    table.begin(hero, *orcs)
    defences = []
    for orc in orcs:
        table.turn_of(orc)
        defences.append(only(table.attack(orc, hero), "attack_declared")["defence"])
    assert defences == ["active", "passive"]


@pytest.mark.parametrize(
    ("action", "length", "defence"),
    [
        ("retreat", None, "active"),
        ("use_item", "short", "active"),
        ("sprint", None, "passive"),
        ("use_skill", None, "passive"),
        ("reload", "short", "passive"),
        ("reload", "instant", "passive"),
        ("change_weapon", "short", "passive"),
        ("cast", "short", "passive"),
    ],
)
def test_what_the_target_did_this_round_decides_its_defence(
    action: str, length: str | None, defence: str
) -> None:
    table = started()
    hero = table.add("Hrdina", agi=9, lives=500, weapon={"defence": 3}, endurance=5)
    orc = table.add("Skřet", "skřeti", agi=-9, lives=500)
    table.begin(hero, orc)
    fields: dict[str, Any] = {"length": length} if length else {}
    if action == "change_weapon":
        fields["weapon"] = {"attack": 1}
    table.order("act", combatant_id=hero, action=action, **fields)
    table.turn_of(orc)
    assert only(table.attack(orc, hero), "attack_declared")["defence"] == defence


def test_two_short_actions_leave_no_active_defence_and_active_cannot_be_forced() -> None:
    table = started()
    hero = table.add("Hrdina", agi=9, lives=500)
    orc = table.add("Skřet", "skřeti", agi=-9, lives=500)
    table.begin(hero, orc)
    table.order("act", combatant_id=hero, action="retreat")
    table.order("act", combatant_id=hero, action="stand_up")
    table.turn_of(orc)
    refused(table, "no_active_defence", lambda: table.attack(orc, hero, defence="active"))
    assert only(table.attack(orc, hero), "attack_declared")["defence"] == "passive"


def test_an_ambush_gives_5_and_base_defence_only() -> None:
    table, baldur, goblin = duel()
    declared = only(table.attack(baldur, goblin, modifiers=["ambush"]), "attack_declared")
    assert declared["attack_number"] == 9 + 5
    assert (declared["defence"], declared["defence_number"]) == ("passive", -2)
    assert declared["bonuses"] == [{"name": "ambush", "attack": 5, "defence": 0}]


def test_modifiers_reach_the_numbers_of_an_attack() -> None:
    table, baldur, goblin = duel(shield=1, weapon={"defence": 2})
    declared = only(
        table.attack(
            baldur,
            goblin,
            modifiers=["prone_target", "target_invisible"],
            cover="half",
            attackers=2,
            attack_bonus=1,
        ),
        "attack_declared",
    )
    assert declared["attack_number"] == 9 + 5 + 1
    assert declared["defence_number"] == (3 - 5 + 2 + 1) + 5 + 3 - 2  # OČ + invisible + cover


def test_full_cover_cannot_be_hit_and_close_range_is_for_missiles() -> None:
    table, baldur, goblin = duel()
    refused(table, "full_cover", lambda: table.attack(baldur, goblin, cover="full"))
    refused(table, "not_found", lambda: table.attack(baldur, "c999"))
    outsider = table.add("Poutník")
    refused(table, "not_in_fight", lambda: table.attack(baldur, outsider))
    refused(table, "invalid", lambda: table.attack(baldur, goblin, modifiers=["close_range"]))
    declared = only(
        table.attack(baldur, goblin, ranged=True, modifiers=["close_range"]), "attack_declared"
    )
    assert declared["attack_number"] == 10 + 5 - 5  # agi + weapon attack, too close
    assert declared["defence_number"] == -2  # ZO + shield: the fists do not parry a missile


def test_a_flat_blow_needs_a_weapon_that_allows_it_and_knocks_out_at_0() -> None:
    table = started()
    baldur = table.add("Baldur", str=20, agi=10, weapon={"attack": 9, "damage": 5})
    goblin = table.add("Skřet", agi=-9, lives=3, bleeds=True)
    table.begin(baldur, goblin)
    refused(table, "no_flat", lambda: table.attack(baldur, goblin, flat=True))
    table.order(
        "act",
        combatant_id=baldur,
        action="change_weapon",
        weapon={"attack": 9, "damage": 5, "flat_allowed": True},
    )
    table.order("next_turn")
    table.turn_of(baldur)
    events = table.attack(baldur, goblin, flat=True)
    resolved = only(events, "attack_resolved")
    assert resolved["critical"] is None
    assert resolved["damage"] == resolved["attack"] - resolved["defence"]  # no weapon damage
    assert types(events)[-2:] == ["combatant_hurt", "combatant_fainted"]
    goblin_now = table.who(goblin)
    assert (goblin_now.lives, goblin_now.condition) == (0, "fainted")
    assert not goblin_now.wounds


def test_a_combatant_at_0_lives_dies_and_the_dead_do_nothing() -> None:
    table, baldur, goblin = duel(lives=1, armour=0)
    for _ in range(10):
        events = table.attack(baldur, goblin, modifiers=["helpless"], attack_bonus=30)
        if table.who(goblin).dead:
            break
        table.order("next_turn")
        table.turn_of(baldur)
    assert "combatant_died" in types(events)
    assert table.who(goblin).condition == "dead" and table.who(goblin).lives <= 0
    table.order("next_turn")
    refused(table, "dead", lambda: table.attack(baldur, goblin))
    refused(table, "dead", lambda: table.order("act", combatant_id=goblin, action="speak"))


def test_correcting_lives_to_0_kills_a_combatant_and_above_0_brings_it_back() -> None:
    table, _, goblin = duel(lives=10)
    events = table.order("correct", combatant_id=goblin, field="lives", value=0, reason="jed")
    assert (events[0].data["dead"], events[0].data["fainted"]) == (True, False)
    assert table.who(goblin).condition == "dead"  # at 0 without a flat blow: dead
    table.order("correct", combatant_id=goblin, field="lives", value=1, reason="oživen kouzlem")
    assert table.who(goblin).condition == "up"


def test_a_fainted_target_is_helpless_and_a_real_blow_kills_it() -> None:
    table = started()
    knight = table.add("Rytíř", str=10, agi=10, weapon={"flat_allowed": True})
    squire = table.add("Panoš", agi=-9, lives=1, bleeds=False)
    table.begin(knight, squire)
    table.attack(knight, squire, flat=True, attack_bonus=30)
    assert table.who(squire).condition == "fainted"
    table.order("next_turn")
    table.turn_of(knight)
    refused(table, "no_active_defence", lambda: table.attack(knight, squire, defence="active"))
    declared = table.attack(knight, squire)
    assert only(declared, "attack_declared")["defence"] == "helpless"
    assert table.who(squire).dead


# -- criticals and bleeding -----------------------------------------------------------------------


def critical_table() -> tuple[DiceCombatGame, str, str, list[Event]]:
    """A seed whose first attack rolls two sixes or more (about one seed in 36)."""
    for n in range(400):
        table = started(seed=hashlib.sha256(b"crit %d" % n).digest())
        baldur = table.add("Baldur", str=4, agi=10, weapon={"attack": 5, "damage": 1})
        goblin = table.add("Skřet", "skřeti", agi=-5, lives=500, armour=0)
        table.begin(baldur, goblin)
        events = table.attack(baldur, goblin, defence="passive")
        if only(events, "attack_rolled")["sixes"] >= 2:
            return table, baldur, goblin, events
    raise AssertionError("no seed rolled two sixes")


def test_a_critical_attack_opens_a_wound_of_a_d6_per_six_after_the_first() -> None:
    table, _, goblin, events = critical_table()
    sixes = only(events, "attack_rolled")["sixes"]
    assert only(events, "attack_resolved")["critical"] == "attack"
    opened = only(events, "wound_opened")
    assert (opened["dice"], opened["fixed"], opened["combatant_id"]) == (sixes - 1, 0, goblin)
    wounds = table.view(table.gm)["combatants"][goblin]["wounds"]  # keyed by wound id
    assert wounds == {
        opened["wound_id"]: {
            "attack_id": opened["attack_id"],
            "dice": sixes - 1,
            "fixed": 0,
            "cannot_kill": False,
        }
    }
    bled = only(events, "wound_bled")  # the first bleeding, at once
    assert len(bled["dice"]) == sixes - 1 and bled["lost"] == sum(bled["dice"])
    assert [d["value"] for d in bled["chance"]["draws"]] == bled["dice"]
    # Every later round the dice are rolled again, until treated or dead.
    lives = table.who(goblin).lives
    table.order("next_turn")
    round_2 = table.order("next_turn")
    assert types(round_2)[:2] == ["round_started", "wound_bled"]
    again = only(round_2, "wound_bled")
    assert len(again["dice"]) == sixes - 1 and again["lives"] == lives - sum(again["dice"])


def test_a_creature_that_does_not_bleed_takes_no_critical_wound() -> None:
    table = started()
    golem = table.add("Golem", agi=-9, lives=500, bleeds=False)
    hero = table.add("Hrdina", agi=9, str=20)
    table.begin(hero, golem)
    events = table.attack(hero, golem, modifiers=["helpless"])
    assert only(events, "attack_resolved")["critical"] == "helpless"
    assert "wound_opened" not in types(events)


def test_a_helpless_bleeding_target_loses_a_quarter_of_its_maximum_every_round() -> None:
    table, baldur, goblin = duel(lives=20)
    events = table.attack(baldur, goblin, modifiers=["helpless"])
    declared = only(events, "attack_declared")
    assert (declared["defence"], declared["defence_number"]) == ("helpless", 0)
    opened = only(events, "wound_opened")
    assert (opened["dice"], opened["fixed"], opened["cannot_kill"]) == (0, 5, False)
    bled = only(events, "wound_bled")
    assert (bled["dice"], bled["lost"]) == ([], 5)
    assert "chance" not in bled  # nothing rolled


def test_a_helpless_attack_cannot_kill_size_d_or_larger() -> None:
    table = started()
    giant = table.add("Obr", "obři", agi=-9, lives=8, size="D", armour=5)
    hero = table.add("Hrdina", agi=9, str=20, weapon={"damage": 10})
    table.begin(hero, giant)
    events = table.attack(hero, giant, modifiers=["helpless"])
    assert table.who(giant).lives == 1 and not table.who(giant).dead
    assert only(events, "wound_opened")["cannot_kill"] is True
    table.order("next_turn")
    table.order("next_turn")  # round 2: it bleeds, and stays at 1
    assert table.who(giant).lives == 1 and not table.who(giant).dead


def test_a_fainted_giant_lies_helpless_but_a_helpless_attack_does_not_kill_it() -> None:
    table = started()
    giant = table.add("Obr", "obři", agi=-9, lives=1, size="E")
    hero = table.add("Hrdina", agi=9, str=20, weapon={"damage": 10, "flat_allowed": True})
    table.begin(hero, giant)
    table.attack(hero, giant, flat=True, attack_bonus=30)
    assert table.who(giant).condition == "fainted"
    table.order("next_turn")
    table.turn_of(hero)
    events = table.attack(hero, giant)
    assert only(events, "attack_declared")["defence"] == "helpless"
    assert "combatant_hurt" not in types(events) and "combatant_died" not in types(events)
    assert only(events, "wound_bled")["lost"] == 0
    table.order("next_turn")
    table.turn_of(hero)  # another round of bleeding
    assert (table.who(giant).lives, table.who(giant).condition) == (0, "fainted")


def test_first_aid_against_14_stops_the_bleeding() -> None:
    table, baldur, goblin = duel(lives=50)
    medic = table.add("Felčar", agi=5, first_aid=20)  # cannot fail: 1 + 5 + 20 >= 14
    table.attack(baldur, goblin, modifiers=["helpless"])
    assert table.who(goblin).wounds
    events = table.order("first_aid", healer_id=medic, patient_id=goblin)
    rolled = only(events, "first_aid_rolled")
    assert rolled["fight_id"] is None  # the medic does not take part in the fight
    assert rolled["total"] == sum(rolled["dice"]) + 5 + 20 and rolled["success"] is True
    assert only(events, "bleeding_stopped")["by"] == "first_aid"
    assert not table.who(goblin).wounds
    refused(
        table, "not_bleeding", lambda: table.order("first_aid", healer_id=medic, patient_id=goblin)
    )


def test_first_aid_in_a_fight_is_the_healers_long_action_and_may_fail() -> None:
    table, baldur, goblin = duel(lives=50)
    table.attack(baldur, goblin, modifiers=["helpless"])
    table.turn_of(goblin)
    refused(
        table,
        "not_your_turn",
        lambda: table.order("first_aid", healer_id=baldur, patient_id=goblin),
    )
    events = table.order("first_aid", healer_id=goblin, patient_id=goblin)
    rolled = only(events, "first_aid_rolled")
    assert rolled["total"] == sum(rolled["dice"]) - 5
    assert rolled["success"] is (rolled["total"] >= 14)
    assert ("bleeding_stopped" in types(events)) is rolled["success"]
    assert table.fight.done(goblin).long == "use_skill"


def test_the_gm_may_stop_bleeding_with_a_reason() -> None:
    table, baldur, goblin = duel(lives=50)
    table.attack(baldur, goblin, modifiers=["helpless"])
    events = table.order("stop_bleeding", combatant_id=goblin, reason="léčivý lektvar")
    assert events[0].data["by"] == "gm" and events[0].data["reason"] == "léčivý lektvar"
    assert not table.who(goblin).wounds


def test_a_critical_defence_wounds_the_attacker() -> None:
    for n in range(600):
        table = started(seed=hashlib.sha256(b"parry %d" % n).digest())
        orc = table.add("Skřet", "skřeti", agi=9, lives=500)
        knight = table.add("Rytíř", agi=-9, lives=500, armour=30)
        table.begin(orc, knight)
        events = table.attack(orc, knight)
        if only(events, "attack_resolved")["critical"] == "defence":
            break
    else:
        raise AssertionError("no seed gave a critical defence")
    sixes = only(events, "defence_rolled")["sixes"]
    assert sixes >= only(events, "attack_rolled")["sixes"] + 2
    opened = only(events, "wound_opened")
    assert (opened["combatant_id"], opened["dice"]) == (orc, sixes - 1)


# -- flight, chase, sprint ------------------------------------------------------------------------


def test_flight_rolls_1d6_plus_agi_for_everybody_and_the_unbeaten_attack_first() -> None:
    table = started()
    thief = table.add("Zloděj", agi=9, lives=100, endurance=9)
    orcs = [table.add(f"Skřet {n}", "skřeti", agi=n, lives=100) for n in range(2)]
    table.begin(thief, *orcs)
    events = table.order("flee", combatant_id=thief, opponents=orcs)
    assert types(events) == ["sprint_started", "flight_rolled"]
    flight = only(events, "flight_rolled")
    totals = {r["combatant_id"]: r["total"] for r in flight["rolls"]}
    assert all(r["total"] == r["die"] + r["agi"] for r in flight["rolls"])
    assert flight["attacks_first"] == [o for o in orcs if totals[o] >= totals[thief]]
    assert flight["escaped"] is (totals[thief] > max(totals[o] for o in orcs))
    assert table.fight.done(thief).long == "sprint"
    assert table.who(thief).sprint is not None and table.who(thief).sprint.used == 1


def test_the_unbeaten_attack_the_fleeing_out_of_turn_with_base_defence_only() -> None:
    for n in range(100):
        table = started(seed=hashlib.sha256(b"flee %d" % n).digest())
        thief = table.add("Zloděj", agi=0, lives=100, weapon={"defence": 4})
        orc = table.add("Skřet", "skřeti", agi=-1, lives=100)
        table.begin(thief, orc)
        table.turn_of(thief)
        flight = only(table.order("flee", combatant_id=thief, opponents=[orc]), "flight_rolled")
        if not flight["escaped"]:
            break
    else:
        raise AssertionError("the thief always got away")
    assert table.fight.turn == thief
    declared = only(table.attack(orc, thief), "attack_declared")
    assert (declared["free"], declared["defence"], declared["defence_number"]) == (
        True,
        "passive",
        0,
    )
    refused(table, "not_your_turn", lambda: table.attack(orc, thief))  # one free attack
    assert table.fight.done(orc).attacks == 0  # the free attack spent none of its round


def test_sprinting_ends_in_exhaustion_until_a_rest() -> None:
    table = started()
    runner = table.add("Běžec", agi=9, endurance=-9)  # 1d10 - 9, at least 1 round
    other = table.add("Jiný", agi=-9)
    table.begin(runner, other)
    started_ = only(table.order("act", combatant_id=runner, action="sprint"), "sprint_started")
    assert started_["rounds"] == max(1, started_["die"] - 9)
    for _ in range(started_["rounds"] - 1):
        table.turn_of(other)
        table.turn_of(runner)
        table.order("act", combatant_id=runner, action="sprint")
    table.turn_of(other)
    table.turn_of(runner)
    refused(table, "exhausted", lambda: table.order("act", combatant_id=runner, action="sprint"))
    assert types(table.order("rest", combatant_id=runner)) == ["combatant_rested"]
    refused(table, "not_tired", lambda: table.order("rest", combatant_id=runner))
    assert "sprint_started" in types(table.order("act", combatant_id=runner, action="sprint"))


def test_a_chase_changes_the_lead_by_the_difference_until_caught() -> None:
    table = started()
    halfling = table.add("Půlčík", movement=24, endurance=20, stamina=5)
    barbarian = table.add("Barbar", movement=31, athletics=2, endurance=20, stamina=5)
    chase_id = chase_of(
        table.order("start_chase", fleeing_id=halfling, chaser_id=barbarian, lead=12)
    )
    refused(
        table,
        "already_chasing",
        lambda: table.order("start_chase", fleeing_id=halfling, chaser_id=barbarian),
    )
    assert table.view(table.gm)["chases"] == {
        chase_id: {"fleeing_id": halfling, "chaser_id": barbarian, "lead": 12, "round": 0}
    }
    events = table.order("chase_round", chase_id=chase_id)
    assert types(events)[:3] == ["sprint_started", "sprint_started", "chase_rolled"]
    rolled = only(events, "chase_rolled")
    assert rolled["fleeing"]["total"] == rolled["fleeing"]["die"] + 24
    assert rolled["chaser"]["total"] == rolled["chaser"]["die"] + 31 + 2
    assert rolled["lead"] == max(0, 12 + rolled["fleeing"]["total"] - rolled["chaser"]["total"])
    for _ in range(30):
        if chase_id not in table.state.chases:
            break
        events = table.order("chase_round", chase_id=chase_id)
    assert only(events, "chase_ended")["reason"] == "caught"
    assert table.who(halfling).sprint is not None


def test_a_chase_ends_when_a_runner_is_exhausted_or_the_gm_ends_it() -> None:
    table = started()
    a = table.add("A", endurance=-10)
    b = table.add("B", endurance=-10)
    chase_id = chase_of(table.order("start_chase", fleeing_id=a, chaser_id=b, lead=1000))
    table.order("chase_round", chase_id=chase_id)  # one round is all either has
    events = table.order("chase_round", chase_id=chase_id)
    assert events[0].type == "chase_ended"
    assert events[0].data == {"chase_id": chase_id, "reason": "exhausted", "exhausted": [a, b]}
    table.order("rest", combatant_id=a)
    table.order("rest", combatant_id=b)
    chase_id = chase_of(table.order("start_chase", fleeing_id=a, chaser_id=b))
    assert table.order("end_chase", chase_id=chase_id)[0].data["reason"] == "gm"
    refused(table, "not_found", lambda: table.order("chase_round", chase_id=chase_id))


# -- corrections ----------------------------------------------------------------------------------


def test_the_gm_corrects_any_number_with_a_reason() -> None:
    table, baldur, goblin = duel()
    events = table.order("correct", combatant_id=baldur, field="str", value=6, reason="opasek síly")
    assert events[0].data == {
        "combatant_id": baldur,
        "field": "str",
        "before": 4,
        "after": 6,
        "reason": "opasek síly",
    }
    assert table.who(baldur).attack_number(False) == 11
    table.order("correct", combatant_id=baldur, field="weapon_damage", value=3, reason="runa")
    assert table.who(baldur).weapon.damage == 3
    table.order("correct", combatant_id=goblin, field="sprint_rounds", value=4, reason="lektvar")
    assert table.who(goblin).sprint is not None and table.who(goblin).sprint.rounds == 4
    with pytest.raises(ValidationError):
        table.order("correct", combatant_id=baldur, field="str", value=6, reason="")
    refused(
        table,
        "invalid",
        lambda: table.order("correct", combatant_id=baldur, field="max_lives", value=0, reason="x"),
    )
    refused(
        table,
        "no_sprint",
        lambda: table.order(
            "correct", combatant_id=baldur, field="sprint_used", value=0, reason="x"
        ),
    )


def test_correcting_initiative_reorders_the_fight() -> None:
    table = started()
    a, b = table.add("A", agi=9), table.add("B", agi=-9)
    table.begin(a, b)
    assert table.fight.order == (a, b)
    events = table.order("correct", combatant_id=b, field="initiative", value=99, reason="kouzlo")
    assert types(events) == ["number_corrected", "initiative_rolled"]
    assert table.fight.order == (b, a)
    assert table.fight.initiative[b].total == 99
    # Nobody ties, so no die is rolled; the line carries its (empty) chance all the same.
    empty = {"stream": table.firsts[-1], "from": 0, "draws": []}
    assert only(events, "initiative_rolled")["chance"] == empty


def test_correcting_a_chase_lead() -> None:
    table = started()
    a, b = table.add("A"), table.add("B")
    chase_id = chase_of(table.order("start_chase", fleeing_id=a, chaser_id=b, lead=5))
    events = table.order("correct", chase_id=chase_id, field="lead", value=9, reason="zkratka")
    assert table.state.chases[chase_id].lead == 9
    assert events[0].data == {  # no combatant_id, no dead or fainted
        "chase_id": chase_id,
        "field": "lead",
        "before": 5,
        "after": 9,
        "reason": "zkratka",
    }
    assert fold(RULESET, [EVENTS.again(event) for event in table.log]) == table.state
    with pytest.raises(ValidationError):
        table.order("correct", chase_id=chase_id, field="str", value=9, reason="x")


def test_a_correction_line_names_a_combatant_or_a_chase_and_reads_back_as_written() -> None:
    """The two shapes of `number_corrected` (docs/protocol.md), as the code before typed events
    wrote them: each reads into the record and writes back the same keys."""
    lives = {
        "combatant_id": "c7",
        "field": "lives",
        "before": 10,
        "after": 0,
        "reason": "jed",
        "dead": True,
        "fainted": False,
    }
    lead = {"chase_id": "h9", "field": "lead", "before": 5, "after": 9, "reason": "zkratka"}
    for line in (lives, lead):
        fact = EVENTS.read("number_corrected", line).fact
        assert isinstance(fact, NumberCorrected)
        assert Event.of(fact).data == line
    chase = EVENTS.read("number_corrected", lead).fact
    assert isinstance(chase, NumberCorrected)
    assert (chase.chase_id, chase.combatant_id, chase.dead) == ("h9", UNSET, UNSET)
    with pytest.raises(UnknownEvent):  # a key no line of this kind has
        EVENTS.read("number_corrected", {**lead, "lives": 3})


# -- ending, views and the seed -------------------------------------------------------------------


def test_end_fight_cancels_pending_attacks() -> None:
    table = started()
    hana = table.join("Hana")
    baldur = table.add("Baldur", agi=10, player_id=hana.player_id)
    goblin = table.add("Skřet", agi=-5)
    table.begin(baldur, goblin)
    attack_id = attack_of(table.attack(baldur, goblin))
    assert table.order("cancel_attack", attack_id=attack_id)[0].type == "attack_cancelled"
    assert table.fight.done(baldur).attacks == 0  # the attack is given back
    table.attack(baldur, goblin)
    events = table.order("end_fight")
    assert types(events) == ["attack_cancelled", "fight_ended"]
    assert table.state.fight is None


def test_end_game_ends_the_fight_and_chases_and_reveals_the_seed() -> None:
    table, baldur, goblin = duel()
    table.order("start_chase", fleeing_id=goblin, chaser_id=baldur, lead=3)
    hana = table.join("Hana")
    assert table.view(table.gm)["game"]["seed"] is None
    assert table.view(hana)["game"]["seed"] is None
    assert SEED.hex() not in str(table.view(table.gm))
    events = table.decide(table.gm, EndGame())
    assert types(events) == ["fight_ended", "chase_ended", "game_ended"]
    assert table.view(hana)["game"]["seed"] == SEED.hex()
    assert verify(table.lines()) == []
    assert fold(RULESET, table.log) == table.state


def test_the_gm_sees_everything_a_player_their_own_combatant_and_the_public_rest() -> None:
    table = started()
    hana, jan = table.join("Hana"), table.join("Jan")
    watcher = table.join("Divák", "spectator")
    baldur = table.add("Baldur", agi=10, lives=30, player_id=hana.player_id)
    goblin = table.add("Skřet", "skřeti", agi=-5, lives=12)
    table.begin(baldur, goblin)

    gm = table.view(table.gm)
    assert {cid: c["lives"] for cid, c in gm["combatants"].items()} == {baldur: 30, goblin: 12}
    assert set(gm["fight"]["initiative"]) == {baldur, goblin}
    assert gm["members"][hana.player_id] == {
        "name": "Hana",
        "role": "player",
        "team": None,
        "code": hana.code,
    }
    assert {m["name"] for m in gm["members"].values()} >= {"Hana", "Jan", "Divák"}

    mine = table.view(hana)
    assert "members" not in mine  # no roster: names of players come from the directory
    seen = mine["combatants"]
    assert seen[baldur]["mine"] is True and seen[baldur]["lives"] == 30
    assert seen[goblin] == {
        "name": "Skřet",
        "side": "skřeti",
        "size": "B",
        "condition": "up",
        "in_fight": True,
        "mine": False,
    }
    assert mine["fight"]["order"] == [baldur, goblin] and mine["fight"]["turn"] == baldur
    assert set(mine["fight"]["initiative"]) == {baldur}
    assert set(mine["fight"]["actions"]) == {baldur}
    assert mine["me"]["player_id"] == hana.player_id

    attack_id = attack_of(table.attack(baldur, goblin))
    assert list(table.view(hana)["attacks"]) == [attack_id]
    assert table.view(jan)["attacks"] == {}
    assert all("lives" not in c for c in table.view(jan)["combatants"].values())
    outsider = table.view(watcher)
    assert "me" not in outsider and "members" not in outsider
    assert outsider["attacks"] == {} and outsider["recent"] == []
    assert outsider["fight"]["initiative"] == {}
    table.send(hana, "roll", attack_id=attack_id, part="attack")
    assert [a["attack_id"] for a in table.view(hana)["recent"]] == [attack_id]
    assert table.view(hana)["recent"][0]["result"]["attack_id"] == attack_id
    assert table.view(jan)["recent"] == []


def test_replaying_the_log_gives_the_same_state() -> None:
    table, baldur, goblin = duel()
    table.attack(baldur, goblin, modifiers=["helpless"])
    table.order("next_turn")
    table.order("next_turn")
    assert fold(RULESET, table.log) == table.state


# -- the second reading of the seed ----------------------------------------------------------------


def test_a_perception_roll_adds_the_sheet_number_and_the_value_against_the_difficulty() -> None:
    table = started()
    elf = table.add("Elf", "družina", agi=3)
    ork = table.add("Ork", "skřeti", agi=-1)
    events = table.order(
        "check", combatants=[elf, ork], field="agi", value=1, difficulty=9, name="Postřeh"
    )
    rolled = told(events, CheckRolled)
    assert (rolled.check, rolled.name, rolled.difficulty) == ("perception", "Postřeh", 9)
    numbers = {roll.combatant_id: roll.number for roll in rolled.rolls}
    assert numbers == {elf: 3, ork: -1}
    for roll in rolled.rolls:
        assert roll.total == sum(roll.dice) + roll.number + 1
        assert roll.success is (roll.total >= 9)
    assert events[0].data["kind"] == "perception"  # `kind` on the wire
    assert len(events[0].data["chance"]["draws"]) == sum(len(r.dice) for r in rolled.rolls)
    # The GM sees every row; a player only its own combatant's; a spectator none.
    hana = table.join("Hana")
    table.order("link_player", combatant_id=elf, player_id=hana.player_id)
    assert len(table.view(table.gm)["checks"][0]["rolls"]) == 2
    assert [r["combatant_id"] for r in table.view(hana)["checks"][0]["rolls"]] == [elf]
    assert table.view(table.join("Divák", "spectator"))["checks"] == []


def test_a_skill_check_needs_combatants_that_can_act() -> None:
    table = started()
    elf = table.add("Elf", lives=1)
    table.order("correct", combatant_id=elf, field="lives", value=-1, reason="PJ")
    refused(table, "dead", lambda: table.order("check", combatants=[elf], difficulty=5))
    refused(table, "not_found", lambda: table.order("check", combatants=["c9"], difficulty=5))
    with pytest.raises(ValidationError):
        table.order("check", combatants=[elf], field="lives", difficulty=5)  # not a skill


def test_when_every_side_is_surprised_nobody_is() -> None:
    table = started()
    elf = table.add("Elf", "družina")
    dwarf = table.add("Trpaslík", "družina")
    ork = table.add("Ork", "skřeti")
    started_fight = told(table.begin(elf, dwarf, ork, surprised=(elf, ork)), FightStarted)
    assert started_fight.everyone_surprised and started_fight.surprised == []
    assert table.view(table.gm)["fight"]["everyone_surprised"] is True
    assert table.fight.surprised == frozenset()
    table.order("end_fight")
    # One side caught unawares is a surprise.
    started_fight = told(table.begin(elf, dwarf, ork, surprised=(ork,)), FightStarted)
    assert not started_fight.everyone_surprised and started_fight.surprised == [ork]


def test_a_fight_of_everybody_surprised_recorded_before_replays_as_it_was_fought() -> None:
    """A v1 fight_started that named everybody surprised: nobody acted in round 1, and so it
    replays."""
    events = RULESET.events
    old = events.read(
        "fight_started", {"fight_id": "f1", "combatants": ["c1", "c2"], "surprised": ["c1", "c2"]}
    )
    assert isinstance(old.fact, FightStarted)
    assert old.fact.surprised == ["c1", "c2"] and old.fact.everyone_surprised is False


def test_an_attack_and_a_parry_each_name_one_weapon_never_both() -> None:
    table = started()
    sword = {"attack": 3, "damage": 2, "defence": 1}
    dagger = {"attack": 1, "damage": 1, "defence": 4}
    baldur = table.add("Baldur", str=2, agi=10, lives=40, weapon=sword, second_weapon=dagger)
    goblin = table.add("Skřet", "skřeti", agi=-5, lives=40, weapon=sword, second_weapon=dagger)
    table.begin(baldur, goblin)
    declared = told(
        table.attack(baldur, goblin, weapon="second", defence_weapon="second", defence="passive"),
        AttackDeclared,
    )
    assert (declared.weapon, declared.defence_weapon) == ("second", "second")
    assert declared.attack_number == 2 + 1 and declared.weapon_damage == 1  # the dagger's only
    shown = table.view(table.gm)["combatants"][baldur]
    assert shown["second_weapon"]["defence"] == 4 and shown["weapon"]["attack"] == 3
    table.order("next_turn")
    # The goblin attacks with its sword; Baldur, who attacked with the dagger, parries with it.
    declared = told(table.attack(goblin, baldur, defence_weapon="second"), AttackDeclared)
    assert declared.defence == "active"  # attacking leaves the parry
    assert declared.defence_number == 10 + 4  # ZO (agi 10) + the dagger's defence alone


def test_a_second_weapon_not_held_is_refused() -> None:
    table, baldur, goblin = duel()
    refused(table, "no_second_weapon", lambda: table.attack(baldur, goblin, weapon="second"))
    refused(
        table, "no_second_weapon", lambda: table.attack(baldur, goblin, defence_weapon="second")
    )
    # Taking one up is a weapon change into the empty hand.
    table.order(
        "act",
        combatant_id=baldur,
        action="change_weapon",
        hand="second",
        weapon={"name": "dýka", "attack": 1},
    )
    assert table.who(baldur).second_weapon is not None
    assert table.who(baldur).weapon.attack == 5  # the first is still in hand


def test_a_dropped_weapon_leaves_the_active_defence_a_stowed_one_does_not() -> None:
    table, baldur, goblin = duel()
    axe = {"name": "sekera", "attack": 2, "damage": 3, "defence": 1}
    table.order("act", combatant_id=baldur, action="change_weapon", weapon=axe, drop=True)
    assert table.view(table.gm)["fight"]["actions"][baldur]["active_defence"] is True
    table.order("next_turn")
    declared = told(table.attack(goblin, baldur, defence="active"), AttackDeclared)
    assert declared.defence == "active" and declared.defence_number == 0 + 10 + 1  # the axe
    # Next round, stowing costs the parry.
    table.turn_of(baldur)
    table.order("act", combatant_id=baldur, action="change_weapon", weapon=axe)
    table.order("next_turn")
    refused(table, "no_active_defence", lambda: table.attack(goblin, baldur, defence="active"))


def test_a_potion_works_at_the_start_of_the_next_round_and_its_change_wears_off() -> None:
    table, baldur, goblin = duel()
    table.order("correct", combatant_id=baldur, field="lives", value=30, reason="PJ")
    effect = {"heal": 15, "treat": True, "field": "str", "by": 2, "rounds": 2}
    taken = told(
        table.order("act", combatant_id=baldur, action="use_item", effect=effect), ActionTaken
    )
    assert taken.effect is not None and taken.effect.target_id == baldur
    assert table.who(baldur).lives == 30  # not yet
    assert table.view(table.gm)["fight"]["used"][0]["effect"]["heal"] == 15
    table.order("next_turn")
    events = table.order("next_turn")  # round 2 starts
    worked = told(events, ItemTookEffect)
    assert (worked.healed, worked.lives, worked.until_round) == (10, 40, 4)  # up to the maximum
    assert table.who(baldur).strength == 6 and table.fight.used == ()
    assert table.view(table.gm)["combatants"][baldur]["boosts"] == [
        {"field": "str", "by": 2, "until_round": 4}
    ]
    table.turn_of(goblin)
    table.order("next_turn")  # round 3: still in force
    assert table.who(baldur).strength == 6
    table.turn_of(goblin)
    events = table.order("next_turn")  # round 4: worn off
    assert told(events, ItemWoreOff).by == 2
    assert table.who(baldur).strength == 4 and table.who(baldur).boosts == ()


def test_a_potion_for_another_and_at_the_end_of_the_fight() -> None:
    table, baldur, goblin = duel()
    table.order("correct", combatant_id=goblin, field="lives", value=5, reason="PJ")
    effect = {"target_id": goblin, "heal": 3, "field": "agi", "by": 1}
    table.order("act", combatant_id=baldur, action="use_item", effect=effect)
    events = table.order("end_fight")  # the potion works; a change lasts no longer than the fight
    worked = told(events, ItemTookEffect)
    assert (worked.target_id, worked.lives, worked.field) == (goblin, 8, None)
    assert table.who(goblin).agi == -5
    with pytest.raises(ValidationError):  # an effect does something
        table.order("act", combatant_id=baldur, action="use_item", effect={"heal": 0})
