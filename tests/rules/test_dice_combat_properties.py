"""Properties of `dice-combat` over random fights: replay, a strict initiative order, criticals
that need two more sixes, views that show a player only their own combatants in full, and logs
that verify until a single die is changed."""

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from test_dice_combat import Table

from server.log.verify import verify
from server.rules.core import Event, Json, Member, RuleError, fold
from server.rules.dice_combat import RULESET
from server.rules.dice_combat.attack import resolve
from server.rules.dice_combat.dice import Roll
from server.rules.dice_combat.events import EVENTS, AttackResolved, InitiativeRolled
from server.rules.dice_combat.evolve import initiative
from server.rules.dice_combat.state import DiceCombat
from server.rules.roster import EndGame, GameCreated
from server.store import chain

PROPERTIES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

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
)
roll = st.tuples(st.just("roll"), index, st.booleans())
ACTIONS = ["sprint", "crawl", "use_skill", "retreat", "stand_up", "cast", "reload", "short_move"]
act = st.tuples(st.just("act"), st.sampled_from([*ACTIONS, "change_weapon", "speak"]), weapons)
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
    st.tuples(st.just("begin"), st.lists(st.booleans(), min_size=5, max_size=5)),
)
# Weighted so that fights run rounds and attacks get rolled (sampled, then drawn: a nested
# one_of would be flattened into equal branches).
next_turn = st.tuples(st.just("next"), st.integers(0, 4), st.booleans())
WEIGHTED = [attack] * 4 + [roll] * 4 + [next_turn] * 4 + [act] * 2 + [rare] * 3
steps = st.sampled_from(WEIGHTED).flatmap(lambda step: step)
games = st.tuples(
    st.booleans(),  # initiative_once
    st.lists(st.tuples(sheets, st.booleans()), min_size=2, max_size=5),  # sheet, linked
    st.lists(steps, min_size=10, max_size=80),
)


@dataclass
class Played:
    table: Table
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
        _, n, modifiers, cover, attackers, defence, flat, ranged = step
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
        _, action, weapon = step
        fields = {"combatant_id": who, "action": action}
        return gm, "act", fields | {"weapon": weapon} if action == "change_weapon" else fields
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
    assert kind == "begin"
    chosen = [c for c, on in zip(ids, step[1], strict=False) if on] or ids
    return gm, "begin_fight", {"combatants": chosen, "surprised": chosen[:1]}


def play(once: bool, roster: list[tuple[Json, bool]], moves: list[tuple[Any, ...]]) -> Played:
    table = Table({"initiative_once": once})
    players = [table.join(f"Hráč {n}") for n in range(2)]
    table.start()
    ids = []
    for n, (sheet, linked) in enumerate(roster):
        owner = {"player_id": players[n % 2].player_id} if linked else {}
        ids.append(table.add(f"Bojovník {n}", f"strana {n % 2}", **sheet, **owner))
    played = Played(table, ids, players)
    table.begin(*ids)
    check_round(played)
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
        views_hide_what_they_must(played)
    for viewer in (table.gm, *players):
        shown = json.dumps(table.view(viewer))  # every view goes out as JSON
        assert table.seed.hex() not in shown  # and none shows the seed before the end
    table.decide(table.gm, EndGame())
    # The end closes what is still open: no fight, no attack waiting for dice, no chase.
    assert table.state.fight is None and table.state.chases == {}
    return played


def check_round(played: Played) -> None:
    """When a round starts, everybody in the fight who can act has a place in the order."""
    fight = played.table.state.fight
    assert fight is not None
    up = {c for c in fight.participants if played.table.who(c).up}
    assert up <= set(fight.order), (up, fight.order)
    played.rounds_checked += 1


PUBLIC = {"name", "side", "size", "condition", "in_fight", "mine"}


def views_hide_what_they_must(played: Played) -> None:
    """A player sees their own combatants in full and only the public part of the others; the
    attacks (waiting and recent) and the rolls of a fight only where theirs attack or defend."""
    state = played.table.state
    for viewer in played.players:
        view = played.table.view(viewer)
        mine = {
            c.combatant_id for c in state.combatants.values() if c.player_id == viewer.player_id
        }
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
        fight = view["fight"]
        if fight is not None:
            assert set(fight["initiative"]) <= mine and set(fight["actions"]) <= mine
    gm = played.table.view(played.table.gm)
    assert set(gm["combatants"]) == set(state.combatants)
    assert all(set(c) > PUBLIC for c in gm["combatants"].values())
    assert set(gm["members"]) == set(state.roster.members)


# -- the properties ------------------------------------------------------------------------------


@PROPERTIES
@given(games)
def test_replaying_the_log_gives_the_live_state(game: tuple[Any, ...]) -> None:
    played = play(*game)
    log = played.table.log
    assert fold(RULESET, log) == played.table.state
    # And from the log as stored: JSON, where tuples are lists, read back into the records.
    stored = [RULESET.read(e.type, json.loads(json.dumps(e.data)), e.version) for e in log]
    assert fold(RULESET, stored) == played.table.state
    # Every kind written is declared, and its record writes back exactly the line it was read
    # from (the same keys: a key a line leaves out stays out).
    for written, read in zip(log, stored, strict=True):
        assert written.type in EVENTS.facts
        assert Event.of(read.fact).data == written.data


def strict_order(rolled: InitiativeRolled) -> None:
    entries = {cid: initiative(entry) for cid, entry in rolled.initiative.items()}
    keys = [entries[cid].key() for cid in rolled.order]
    assert set(rolled.order) == set(entries) and len(rolled.order) == len(entries)
    assert len(set(keys)) == len(keys), keys  # nobody ties: a strict order
    assert keys == sorted(keys, reverse=True)  # best first
    for entry in entries.values():
        assert entry.tiebreak == () or all(1 <= die <= 6 for die in entry.tiebreak)


@PROPERTIES
@given(games)
def test_the_initiative_order_is_a_strict_order_of_all_in_the_fight(game: tuple[Any, ...]) -> None:
    played = play(*game)
    rolled = [e.fact for e in played.table.log if isinstance(e.fact, InitiativeRolled)]
    assert rolled  # the first round at least
    for fact in rolled:
        strict_order(fact)
    assert played.rounds_checked >= 1


def criticals(log: list[Event]) -> list[tuple[str | None, int, int]]:
    """(critical, attacker's sixes, defender's sixes) of every resolved attack in a log."""
    created = log[0].fact
    assert isinstance(created, GameCreated)
    state: DiceCombat = RULESET.initial_state(created.config)
    found = []
    for event in log:
        resolved = event.fact
        if isinstance(resolved, AttackResolved):
            assert state.fight is not None
            attack = state.fight.attacks[resolved.attack_id]
            theirs = attack.rolls["defence"].sixes if "defence" in attack.rolls else 0
            found.append((resolved.critical, attack.rolls["attack"].sixes, theirs))
        state = RULESET.evolve(state, event)
    return found


@PROPERTIES
@given(games)
def test_a_critical_needs_two_more_sixes_than_the_other_side(game: tuple[Any, ...]) -> None:
    for critical, mine, theirs in criticals(play(*game).table.log):
        if critical == "attack":
            assert mine >= 2 and mine >= theirs + 2
        if critical == "defence":
            assert theirs >= 2 and theirs >= mine + 2


rolls = st.lists(st.just(6), max_size=4).flatmap(
    lambda sixes: st.integers(1, 5).map(lambda last: Roll((*sixes, last)))
)


@PROPERTIES
@given(st.integers(-10, 30), st.integers(-10, 30), rolls, st.none() | rolls, st.booleans())
def test_resolve_makes_a_critical_only_with_two_more_sixes(
    attack: int, defence: int, mine: Roll, theirs: Roll | None, ranged: bool
) -> None:
    outcome = resolve(attack, defence, mine, theirs, weapon_damage=1, ranged=ranged)
    their_sixes = theirs.sixes if theirs else 0
    assert outcome.hit is (outcome.attack > outcome.defence)
    if outcome.critical == "attack":
        assert outcome.hit and mine.sixes >= their_sixes + 2 and mine.sixes >= 2
        assert outcome.critical_dice == mine.sixes - 1
    elif outcome.critical == "defence":
        assert not outcome.hit and not ranged and theirs is not None
        assert their_sixes >= mine.sixes + 2 and outcome.critical_dice == their_sixes - 1
    else:
        assert outcome.critical is None
        assert not (outcome.hit and mine.sixes >= their_sixes + 2 and mine.sixes >= 2)


@PROPERTIES
@given(games, st.integers(0, 10_000), st.integers(1, 5))
def test_verify_accepts_every_ended_log_and_rejects_one_changed_die(
    game: tuple[Any, ...], which: int, shift: int
) -> None:
    lines = play(*game).table.lines()
    assert verify(lines) == []
    dice = [
        (n, k)
        for n, line in enumerate(lines)
        if "chance" in line["data"]
        for k, draw in enumerate(line["data"]["chance"]["draws"])
        if "die" in draw
    ]
    n, k = pick(dice, which)
    changed = copy.deepcopy(lines)
    draw = changed[n]["data"]["chance"]["draws"][k]
    draw["value"] = (draw["value"] - 1 + shift) % draw["die"] + 1  # dice here have 6 or 10 sides
    assert draw != lines[n]["data"]["chance"]["draws"][k]
    assert verify(changed), "the chain alone catches the change"
    problems = verify(chain.seal(changed))  # a forger rewrote the chain: the seed still tells
    assert problems, (n, k, draw)
    assert problems[0].startswith(f"seq {changed[n]['seq']} ({changed[n]['type']}): draw {k} is")
