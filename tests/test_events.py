"""Events as a versioned contract: each catalog reads old lines through its upcasters, refuses
what it cannot read, and a version above 1 is part of the line the hash covers."""

import hashlib

import msgspec
import pytest

from server.log.verify import verify
from server.rules import RULESETS
from server.rules.card_duel.events import EVENTS as CARD_DUEL
from server.rules.card_duel.events import CardGranted, DuelStarted, upcast_duel_started_v1_v2
from server.rules.core import Context, Json, Member
from server.rules.events import Catalog, Event, Fact, UnknownEvent
from server.rules.roster import AddPlayer, EndGame, GameCreated, PlayerJoined, code_of, opening
from server.store import chain

SEED = bytes(range(32))
# A v1 duel_started as a server before `leave_duel` wrote it: no leave_from.
BEFORE_LEAVING = {
    "duel_id": "d9",
    "challenger": "p3",
    "target": "p4",
    "ranged": False,
    "at": "2026-05-01T10:00:00.250Z",
    "deadline": None,
}


def test_a_duel_started_before_leaving_existed_can_be_left_a_minute_after_it_began() -> None:
    assert upcast_duel_started_v1_v2(BEFORE_LEAVING)["leave_from"] == "2026-05-01T10:01:00.250Z"
    event = CARD_DUEL.read("duel_started", BEFORE_LEAVING, 1)
    assert isinstance(event.fact, DuelStarted)
    assert event.fact.leave_from == "2026-05-01T10:01:00.250Z"
    assert event.data == BEFORE_LEAVING and event.version == 1  # the line itself is untouched
    later = {**BEFORE_LEAVING, "leave_from": "2026-05-01T10:00:30.250Z"}  # v1 once it existed
    assert CARD_DUEL.read("duel_started", later, 1).fact.leave_from == later["leave_from"]


def test_a_card_line_from_before_special_cards_is_a_plain_card_line_of_today() -> None:
    """Special cards added `effect` and `effect_s` to a card, written for a special card only:
    an older line needs no upcaster, and a plain card is written today as it was then."""
    old = {"card_id": "c5", "title": "Kámen", "big": 4, "small": 1, "kind": "stun", "ranged": False}
    event = CARD_DUEL.read("card_granted", {"player_id": "p3", "card": old}, 1)
    assert isinstance(event.fact, CardGranted) and event.fact.card.effect is msgspec.UNSET
    assert Event.of(event.fact).data == {"player_id": "p3", "card": old}
    assert Event.of(event.fact).version == CardGranted.version == 1
    special = {**old, "kind": "special", "effect": "Jsi žába", "effect_s": None}
    again = Event.of(CARD_DUEL.read("card_granted", {"player_id": "p3", "card": special}, 1).fact)
    assert again.data["card"] == special


# dice-combat lines of version 1, as the frozen log of tests/logs/ holds them.
DICE_V1: dict[str, Json] = {
    "combatant_added": {
        "combatant_id": "c7", "name": "Meredil", "side": "Družina", "player_id": "p3", "str": 2,
        "agi": 1, "lives": 40, "max_lives": 40, "movement": 0, "athletics": 0, "endurance": 0,
        "stamina": 0, "first_aid": 0, "armour": 1, "shield": 0, "attacks_per_round": 1,
        "initiative_bonus": 0, "size": "B", "bleeds": True,
        "weapon": {"name": "meč", "attack": 2, "damage": 2, "defence": 1, "ranged": False,
                   "flat_allowed": False},
    },
    "fight_started": {"fight_id": "f16", "combatants": ["c7", "c8"], "surprised": ["c7", "c8"]},
    "action_taken": {
        "fight_id": "f16", "round": 1, "combatant_id": "c8", "action": "change_weapon",
        "length": "short", "note": "",
        "weapon": {"name": "dýka", "attack": 1, "damage": 1, "defence": 0, "ranged": False,
                   "flat_allowed": False},
    },
    "attack_declared": {
        "attack_id": "a23", "fight_id": "f16", "round": 1, "attacker_id": "c9",
        "target_id": "c12", "ranged": False, "flat": True, "free": False, "defence": "active",
        "weapon_damage": 1, "attack_number": 22, "defence_number": 0,
        "bonuses": [{"name": "gm", "attack": 20, "defence": 0}],
    },
}  # fmt: skip
# What each upcaster adds: a fighter of one weapon; the surprised as they were named, all of
# them; the weapon in the first hand, stowed; an attack and a parry with the first weapon.
DICE_V2: dict[str, Json] = {
    "combatant_added": {"second_weapon": None},
    "fight_started": {"everyone_surprised": False},
    "action_taken": {"hand": "first", "dropped": False, "effect": None},
    "attack_declared": {"weapon": "first", "defence_weapon": "first"},
}


@pytest.mark.parametrize("kind", sorted(DICE_V1))
def test_a_dice_combat_line_of_version_one_reads_as_it_was_fought(kind: str) -> None:
    catalog = RULESETS["dice-combat"].events
    event = catalog.read(kind, DICE_V1[kind], 1)
    assert event.data == DICE_V1[kind] and event.version == 1  # the line itself is untouched
    assert Event.of(event.fact).data == {**DICE_V1[kind], **DICE_V2[kind]}
    assert Event.of(event.fact).version == 2


def test_a_member_of_version_one_joined_without_recorded_draws() -> None:
    line = {"player_id": "p3", "name": "Ola", "role": "player", "team": None, "code": "HK7M"}
    for ruleset in RULESETS.values():
        fact = ruleset.read("player_joined", line, 1).fact
        assert isinstance(fact, PlayerJoined) and fact.code == "HK7M"
        assert fact.chance is msgspec.UNSET


def test_a_line_that_does_not_fit_is_refused_with_its_reason() -> None:
    with pytest.raises(UnknownEvent, match="no event of type 'duel_fought'"):
        CARD_DUEL.read("duel_fought", {}, 1)  # rank-bases' kind, not card-duel's
    with pytest.raises(UnknownEvent, match="duel_started has no version 3"):
        CARD_DUEL.read("duel_started", BEFORE_LEAVING, 3)  # from a newer server
    with pytest.raises(UnknownEvent, match="item_granted v1"):
        CARD_DUEL.read("item_granted", {"player_id": "p3", "item": "x", "extra": 1}, 1)
    with pytest.raises(UnknownEvent, match="item_granted v1"):
        CARD_DUEL.read("item_granted", {"player_id": "p3"}, 1)


def test_a_catalog_needs_a_step_from_every_older_version() -> None:
    class Grown(Fact, frozen=True):
        kind = "grown"
        version = 3
        size: int

    with pytest.raises(ValueError, match="grown has no upcaster from version 2"):
        Catalog([Grown], {("grown", 1): lambda data: data})
    steps = {
        ("grown", 1): lambda data: {"size": 1},
        ("grown", 2): lambda d: {"size": d["size"] + 1},
    }
    assert Catalog([Grown], steps).read("grown", {}, 1).fact == Grown(size=2)


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_every_catalog_reads_what_it_writes_at_its_versions(ruleset_id: str) -> None:
    catalog = RULESETS[ruleset_id].events
    assert {"game_created", "player_joined", "game_started", "game_ended"} <= set(catalog.facts)
    for kind, fact in catalog.facts.items():
        assert fact.kind == kind
        assert all((kind, v) in catalog.upcasters for v in range(1, fact.version))


def test_a_version_above_one_is_in_the_exported_line_and_its_hash() -> None:
    data: Json = {"seed": "00"}
    old = chain.line("g", 5, "game_ended", 0, None, data, chain.GENESIS)
    new = chain.line("g", 5, "game_ended", 0, None, data, chain.GENESIS, 2)
    assert "version" not in old and new["version"] == 2
    assert old["hash"] != new["hash"] == chain.digest(new)


def played() -> list[Json]:
    """A card-duel game with the organizer and three players, ended: its exported lines."""
    ruleset = RULESETS["card-duel"]
    state, events = opening(ruleset, "g", "Les", {}, SEED, 0)
    organizer = Member("p2", "Organizer", "organizer", None, "")
    for name in ("Ola", "Eda", "Iva"):
        ctx = Context(now=0, actor=organizer, seq=len(events) + 1, seed=SEED)
        story = ruleset.play(state, AddPlayer(name=name), ctx)
        state, events = story.state, events + story.events
    ctx = Context(now=0, actor=organizer, seq=len(events) + 1, seed=SEED)
    events += ruleset.play(state, EndGame(), ctx).events
    assert isinstance(events[0].fact, GameCreated)
    assert events[0].fact.seed_sha256 == hashlib.sha256(SEED).hexdigest()
    lines = [
        chain.line("g", seq, e.type, 0, None, e.data, "", e.version)
        for seq, e in enumerate(events, start=1)
    ]
    return chain.seal(lines)


def test_member_codes_are_recorded_draws_that_the_verifier_checks() -> None:
    lines = played()
    joined = [line for line in lines if line["type"] == "player_joined"]
    assert len(joined) == 4 and all(line["version"] == 2 for line in joined)
    for line in joined:
        (draw,) = line["data"]["chance"]["draws"]  # no code was taken twice here
        assert draw["below"] == 25**4 and code_of(draw["value"]) == line["data"]["code"]
    assert verify(lines) == []
    forged = [dict(line, data=dict(line["data"])) for line in lines]
    forged[3]["data"]["code"] = "AAAA"  # a code chosen, not drawn
    (problem,) = verify(chain.seal(forged))
    assert problem.startswith("seq 4 (player_joined): the code is 'AAAA', the seed gives")
    redrawn = [dict(line, data=dict(line["data"])) for line in lines]
    chance = redrawn[3]["data"]["chance"]
    redrawn[3]["data"]["chance"] = {**chance, "draws": [{"below": 25**4, "value": 0}]}
    redrawn[3]["data"]["code"] = "AAAA"
    (problem,) = verify(chain.seal(redrawn))
    assert problem.startswith("seq 4 (player_joined): draw 0 is")


def test_a_key_registered_line_of_version_one_still_counts_as_a_change_of_its_fighter() -> None:
    """v1 lines were written when registering a key changed the fighter's revision (and so
    voided a record signed before): replayed, they still do, so old logs show the revisions
    their phones signed; a v2 line (today's) changes no revision."""
    from server.rules.card_duel import RULESET
    from server.rules.card_duel.events import KeyRegistered
    from tests.rules.drivers.card_duel import CardDuelGame
    from tests.rules.phones import Phone

    game = CardDuelGame()
    player = game.add("Rincewind")
    game.start()
    state = game.state
    before = state.fighters[player.player_id].revision
    key = Phone(player.player_id).public_key
    data = {"player_id": player.player_id, "key_id": "k", "public_key": key}
    old, new = CARD_DUEL.read("key_registered", data, 1), CARD_DUEL.read("key_registered", data, 2)
    assert isinstance(old.fact, KeyRegistered) and old.data == data and old.version == 1
    replayed_old, replayed_new = RULESET.evolve(state, old), RULESET.evolve(state, new)
    assert replayed_old.fighters[player.player_id].revision == before + 1
    assert replayed_new.fighters[player.player_id].revision == before
    for replayed in (replayed_old, replayed_new):
        assert replayed.fighters[player.player_id].keys == (key,)
