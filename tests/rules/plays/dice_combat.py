"""Random fights of `dice-combat` for the shared properties (tests/rules/properties.py) and the
ruleset's own (tests/rules/test_dice_combat_properties.py)."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from pydantic import ValidationError

from server.rules.core import Json, Member, RuleError
from server.rules.dice_combat.state import DiceCombat
from server.rules.roster import EndGame
from tests.rules.drivers.base import Driver
from tests.rules.drivers.dice_combat import DiceCombatGame
from tests.rules.properties import Supply, nothing

# -- random fights -------------------------------------------------------------------------------

weapons = st.fixed_dictionaries(
    {
        "attack": st.integers(0, 5),
        "damage": st.integers(-2, 4),
        "defence": st.integers(0, 3),
        "ranged": st.booleans(),
        "flat_allowed": st.booleans(),
    }
)
sheets = st.fixed_dictionaries(
    {
        "str": st.integers(-2, 5),
        "agi": st.integers(-3, 4),
        "lives": st.integers(1, 60),
        "armour": st.integers(0, 4),
        "shield": st.integers(0, 2),
        "weapon": weapons,
        "second_weapon": st.none() | weapons,
        "size": st.sampled_from("ABCDE"),
        "bleeds": st.booleans(),
        "attacks_per_round": st.integers(1, 2),
        "endurance": st.integers(-3, 3),
        "stamina": st.integers(0, 3),
        "first_aid": st.integers(0, 10),
        "movement": st.integers(5, 30),
        "athletics": st.integers(0, 3),
        "initiative_bonus": st.integers(-2, 2),
    }
)
index = st.integers(0, 20)  # an index into whatever the step picks from, modulo its length
MODIFIERS = [
    "advantage",
    "disadvantage",
    "defender_advantage",
    "attacker_invisible",
    "target_invisible",
    "ambush",
    "prone_target",
    "helpless",
    "close_range",
]
attack = st.tuples(
    st.just("attack"),
    index,
    st.lists(st.sampled_from([*MODIFIERS, "helpless", "helpless"]), max_size=2, unique=True),
    st.sampled_from(["none"] * 6 + ["half", "three_quarter", "full"]),
    st.integers(1, 3),
    st.sampled_from(["auto", "auto", "active", "passive"]),
    st.sampled_from([False, False, False, True]),
    st.sampled_from([None, None, True, False]),
    st.sampled_from(["first", "first", "second"]),  # the attacker's weapon
    st.sampled_from(["first", "first", "second"]),  # the target's
)
roll = st.tuples(st.just("roll"), index, st.booleans())
ACTIONS = ["sprint", "crawl", "use_skill", "retreat", "stand_up", "cast", "reload", "short_move"]
BOOSTS = ["str", "agi", "armour", "weapon_attack", "weapon_damage", "initiative_bonus"]
effects = st.fixed_dictionaries(
    {"heal": st.integers(0, 8), "treat": st.booleans()},
    optional={
        "field": st.sampled_from(BOOSTS),
        "by": st.integers(-3, 3),
        "rounds": st.integers(1, 3),
        "target_id": index,
    },
)
act = st.tuples(
    st.just("act"),
    st.sampled_from([*ACTIONS, "change_weapon", "use_item", "use_item", "speak"]),
    weapons,
    st.sampled_from(["first", "second"]),  # the hand a change_weapon changes
    st.booleans(),  # dropped
    st.none() | effects,
)
FIELDS = [
    "lives",
    "agi",
    "str",
    "weapon_damage",
    "initiative",
    "sprint_rounds",
    "attacks_per_round",
]
rare = st.one_of(
    st.tuples(st.just("flee"), st.lists(index, min_size=1, max_size=2)),
    st.tuples(st.just("aid"), index, index),
    st.tuples(st.just("stop"), index),
    st.tuples(st.just("correct"), index, st.sampled_from(FIELDS), st.integers(-3, 12)),
    st.tuples(st.just("chase"), index, index, st.integers(0, 15)),
    st.tuples(st.just("chase_round"), index),
    st.tuples(st.just("chase_round"), index),
    st.tuples(st.just("end_chase"), index),
    st.tuples(st.just("rest"), index),
    st.tuples(st.just("join"), index),
    st.tuples(st.just("cancel"), index),
    st.tuples(st.just("end_fight")),
    st.tuples(
        st.just("begin"),
        st.lists(st.booleans(), min_size=5, max_size=5),
        st.lists(st.booleans(), min_size=5, max_size=5),  # the surprised
    ),
    st.tuples(
        st.just("check"),
        st.lists(index, min_size=1, max_size=3),
        st.sampled_from([None, "agi", "str", "athletics"]),
        st.integers(-3, 5),
        st.integers(0, 20),
    ),
)
# Weighted so that fights run rounds and attacks get rolled (sampled, then drawn: a nested
# one_of would be flattened into equal branches).
next_turn = st.tuples(st.just("next"), st.integers(0, 4), st.booleans())
WEIGHTED = [attack] * 4 + [roll] * 4 + [next_turn] * 4 + [act] * 3 + [rare] * 3
steps = st.sampled_from(WEIGHTED).flatmap(lambda step: step)
games = st.tuples(
    st.booleans(),  # initiative_once
    st.lists(st.tuples(sheets, st.booleans()), min_size=2, max_size=5),  # sheet, linked
    st.lists(steps, min_size=10, max_size=80),
    st.lists(st.booleans(), max_size=5),  # who is surprised when the first fight begins
)


@dataclass
class Played:
    table: DiceCombatGame
    combatants: list[str]
    players: list[Member]
    rounds_checked: int = 0
    refusals: dict[str, int] = field(default_factory=dict)


def pick(items: list[Any], n: int) -> Any:
    return items[n % len(items)]


def command_for(played: Played, step: tuple[Any, ...]) -> tuple[Member, str, Json]:
    """The command a step stands for and who sends it (it may well be refused)."""
    table, ids, kind = played.table, played.combatants, step[0]
    gm, fight = table.gm, table.state.fight
    alive = [c for c in ids if not table.who(c).dead]
    if fight is None and kind in ("attack", "roll", "next", "act", "flee") and alive:
        return gm, "begin_fight", {"combatants": alive}  # mostly, a fight is on
    if kind == "attack":
        _, n, modifiers, cover, attackers, defence, flat, ranged, weapon, parry = step
        free = [(a, t) for t, owed in (fight.free_attacks if fight else {}).items() for a in owed]
        if free:  # those a fleeing combatant did not beat strike first
            attacker, target = pick(sorted(free), n)
        else:
            attacker = fight.turn if fight and fight.turn else pick(ids, n)
            if fight and fight.done(attacker).attack_refusal(table.who(attacker).attacks_per_round):
                return gm, "next_turn", {}  # this one has attacked: on with the fight
            target = pick([c for c in ids if c != attacker], n)
        fields: Json = {"attacker_id": attacker, "target_id": target, "modifiers": modifiers}
        fields |= {"cover": cover, "attackers": attackers, "defence": defence, "flat": flat}
        fields |= {"weapon": weapon, "defence_weapon": parry}
        return gm, "attack", fields if ranged is None else {**fields, "ranged": ranged}
    pending = sorted(fight.attacks.values(), key=lambda a: a.attack_id) if fight else []
    if kind == "roll" or (kind == "next" and pending and step[1]):
        if not pending:
            return gm, "next_turn", {}
        chosen = pick(pending, step[1])
        part = chosen.awaiting[0]
        roller = table.who(chosen.roller(part)).player_id
        actor = table.member(roller) if roller and step[-1] else gm
        return actor, "roll", {"attack_id": chosen.attack_id, "part": part}
    if kind == "next":  # refused while dice are pending, now and then
        return gm, "next_turn", {}
    who = fight.turn if fight and fight.turn else ids[0]
    if kind == "act":
        _, action, weapon, hand, drop, effect = step
        fields = {"combatant_id": who, "action": action}
        if action == "change_weapon":
            fields |= {"weapon": weapon, "hand": hand, "drop": drop}
        if action == "use_item" and effect is not None:
            target = effect.get("target_id")
            effect = effect | ({} if target is None else {"target_id": pick(ids, target)})
            fields |= {"effect": effect}
        return gm, "act", fields
    if kind == "flee":
        return gm, "flee", {"combatant_id": who, "opponents": [pick(ids, n) for n in step[1]]}
    bleeding = [c for c in ids if table.who(c).wounds] or ids
    if kind == "aid":
        fields = {"healer_id": pick(ids, step[1]), "patient_id": pick(bleeding, step[2])}
        return gm, "first_aid", fields
    if kind == "stop":
        return gm, "stop_bleeding", {"combatant_id": pick(bleeding, step[1]), "reason": "lektvar"}
    if kind == "correct":
        _, n, name, value = step
        fields = {"combatant_id": pick(ids, n), "field": name, "value": value, "reason": "PJ"}
        return gm, "correct", fields
    if kind == "chase":
        fields = {"fleeing_id": pick(ids, step[1]), "chaser_id": pick(ids, step[2] + 1)}
        return gm, "start_chase", fields | {"lead": step[3]}
    chases = sorted(table.state.chases)
    if kind in ("chase_round", "end_chase") and chases:
        return gm, kind, {"chase_id": pick(chases, step[1])}
    if kind in ("chase_round", "end_chase"):
        return gm, "start_chase", {"fleeing_id": pick(ids, step[1]), "chaser_id": ids[0]}
    if kind == "rest":
        return gm, "rest", {"combatant_id": pick(ids, step[1])}
    if kind == "join":
        return gm, "join_fight", {"combatant_id": pick(ids, step[1])}
    if kind == "cancel":
        pending = sorted(fight.attacks) if fight else []
        return gm, "cancel_attack", {"attack_id": pick(pending, step[1]) if pending else "a0"}
    if kind == "end_fight":
        return gm, "end_fight", {}
    if kind == "check":
        _, named, sheet_field, value, difficulty = step
        fields = {"combatants": [pick(ids, n) for n in named], "field": sheet_field}
        return gm, "check", fields | {"value": value, "difficulty": difficulty}
    assert kind == "begin"
    chosen = [c for c, on in zip(ids, step[1], strict=False) if on] or ids
    surprised = [c for c, on in zip(chosen, step[2], strict=False) if on]
    return gm, "begin_fight", {"combatants": chosen, "surprised": surprised}


def play(game: tuple[Any, ...], check: Callable[[Played], None] = nothing) -> Played:
    """Play a random fight and end the game; `check` runs after the fight begins, after every
    step and after the end."""
    once, roster, moves, surprised = game
    table = DiceCombatGame({"initiative_once": once})
    players = [table.join(f"Hráč {n}") for n in range(2)]
    table.start()
    ids = []
    for n, (sheet, linked) in enumerate(roster):
        owner = {"player_id": players[n % 2].player_id} if linked else {}
        ids.append(table.add(f"Bojovník {n}", f"strana {n % 2}", **sheet, **owner))
    played = Played(table, ids, players)
    table.begin(*ids, surprised=tuple(c for c, on in zip(ids, surprised, strict=False) if on))
    check_round(played)
    check(played)
    for step in moves:
        actor, kind, fields = command_for(played, step)
        before = len(table.log)
        try:
            events = table.send(actor, kind, **fields)
        except (RuleError, ValidationError) as error:
            assert len(table.log) == before  # a refusal writes nothing
            code = error.code if isinstance(error, RuleError) else "validation"
            played.refusals[code] = played.refusals.get(code, 0) + 1
            continue
        if any(event.type == "round_started" for event in events):
            check_round(played)
        check(played)
    table.decide(table.gm, EndGame())
    check(played)
    return played


def check_round(played: Played) -> None:
    """When a round starts, everybody in the fight who can act has a place in the order."""
    fight = played.table.state.fight
    assert fight is not None
    up = {c for c in fight.participants if played.table.who(c).up}
    assert up <= set(fight.order), (up, fight.order)
    played.rounds_checked += 1


PUBLIC = {"name", "side", "size", "condition", "in_fight", "mine"}


def secrets(table: Driver[DiceCombat], viewer: Member, view: Json) -> None:
    """A player sees their own combatants in full and only the public part of the others; the
    attacks (waiting and recent) and the rolls of a fight only where theirs attack or defend.
    The GM sees every combatant in full and the roster."""
    state = table.state
    if viewer.role == "organizer":
        assert set(view["combatants"]) == set(state.combatants)
        assert all(set(c) > PUBLIC for c in view["combatants"].values())
        assert set(view["members"]) == set(state.roster.members)
        return
    mine = {c.combatant_id for c in state.combatants.values() if c.player_id == viewer.player_id}
    assert "members" not in view  # no roster in a player's view
    assert set(view["combatants"]) == set(state.combatants)
    for combatant_id, shown in view["combatants"].items():
        assert shown["mine"] is (combatant_id in mine)
        if combatant_id in mine:
            assert set(shown) > PUBLIC and "combatant_id" not in shown
            assert set(shown["wounds"]) == {
                w.wound_id for w in state.combatants[combatant_id].wounds
            }
        else:
            assert set(shown) == PUBLIC
    pending = state.fight.attacks if state.fight else {}
    ours = {a for a, at in pending.items() if {at.attacker_id, at.target_id} & mine}
    assert set(view["attacks"]) == ours
    for attack in view["recent"]:
        assert {attack["attacker_id"], attack["target_id"]} & mine
    fight = view.get("fight")
    if fight is not None:
        assert set(fight["initiative"]) <= mine and set(fight["actions"]) <= mine
        assert {used["combatant_id"] for used in fight["used"]} <= mine
    for check in view["checks"]:  # only the rows of its own combatants, and none without
        assert check["rolls"] and {roll["combatant_id"] for roll in check["rolls"]} <= mine


def open_things(state: DiceCombat) -> list[str]:
    """A fight (with its attacks waiting for dice) and chases."""
    fight = [] if state.fight is None else ["fight", *state.fight.attacks]
    return [*fight, *state.chases]


SUPPLY = Supply[Played](
    games=games,
    play=play,
    driver=lambda played: played.table,
    secrets=secrets,
    open_things=open_things,
)
