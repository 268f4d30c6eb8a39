"""Every rule of `stamina-deck` (docs/rules/stamina-deck.md), one at a time, through decide,
evolve and view.

Cards are dealt from the game's seed, so a test either reads the cards it was dealt and checks
the arithmetic against them, or looks for a seed that deals what it needs (`seeded`).
"""

import json
from collections.abc import Callable
from typing import Any

import pytest

from server.rules import RULESETS
from server.rules.chance import redo
from server.rules.core import Context, Event, Json, fold
from server.rules.roster import EndGame
from server.rules.stamina_deck import RULESET
from server.rules.stamina_deck.cards import Card, FaceValues, aimed_pair, standard_deck
from server.rules.stamina_deck.character import Character, Weapon, severity
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
from server.rules.stamina_deck.events import EVENTS, CharacterAdded, CharacterMoved, Square
from server.rules.stamina_deck.fight import damage, exchange
from server.rules.stamina_deck.initiative import Seat, ranking
from server.rules.stamina_deck.state import StaminaDeck
from tests.rules.drivers.base import SEED, T0
from tests.rules.drivers.stamina_deck import PISTOL, RIFLE_SHOT, SABRE, StaminaDeckGame


def phase(fight: StaminaDeckGame) -> str:
    return fight.state.phase


def ids(fight: StaminaDeckGame) -> list[str]:
    """The characters' ids in the order they were added."""
    return list(fight.state.characters)


def types(events: list[Event]) -> list[str]:
    return [event.type for event in events]


def seeded(
    build: Callable[[bytes], StaminaDeckGame], wanted: Callable[[StaminaDeckGame], bool]
) -> StaminaDeckGame:
    """The first fight, over seeds 0, 1, 2 …, whose dealt cards make `wanted` true."""
    for n in range(400):
        fight = build(str(n).encode())
        if wanted(fight):
            return fight
    raise AssertionError("no seed deals that")


def all_cards(fight: StaminaDeckGame) -> list[str]:
    """Every card anywhere: every pile of every character and the aids on the field."""
    piles = [card for c in fight.state.characters.values() for pile in c.piles() for card in pile]
    return piles + [aid.card_id for aid in fight.state.aids.values()]


def chance_checked(fight: StaminaDeckGame) -> None:
    for event in fight.log:
        if "chance" in event.data:
            assert redo(fight.seed, event.data["chance"]) == event.data["chance"]["draws"]


def ranged_pair(
    seed: bytes = SEED, config: Json | None = None, shooter: Json | None = None, **b: Any
) -> tuple[StaminaDeckGame, str, str]:
    """A shooter (red, at 0,0) and a target (blue, at 10,0), by default both with pistols;
    round 1 on."""
    fight = StaminaDeckGame(config, seed=seed)
    fight.start()
    a = fight.add(
        "Old Shatterhand", x=0, y=0, **{"shooting": 3, "weapon": PISTOL, **(shooter or {})}
    )
    stats = {"shooting": 2, "weapon": PISTOL, **b}
    target = fight.add("Santer", side="blue", x=10, y=0, **stats)
    fight.round()
    return fight, a, target


def melee_pair(seed: bytes = SEED, **b: Any) -> tuple[StaminaDeckGame, str, str, str]:
    """Two sabres in contact, engaged by the GM (a attacks), round 1 on."""
    fight = StaminaDeckGame(seed=seed)
    fight.start()
    a = fight.add("Vinnetou", x=5, y=5, melee=2, weapon=SABRE)
    target = fight.add("Tangua", side="blue", x=6, y=5, **{"melee": 2, "weapon": SABRE, **b})
    fight.by_gm(Engage(fighters=[a, target]))
    fight.round()
    return fight, a, target, fight.bout(a, target)


# -- cards -----------------------------------------------------------------------------------------


def test_a_standard_deck_has_52_cards_valued_2_to_14() -> None:
    deck = standard_deck("k1", FaceValues())
    assert len(deck) == len({c.card_id for c in deck}) == 52
    assert sorted({c.value for c in deck}) == list(range(2, 15))
    assert {c.rank: c.value for c in deck if c.suit == "hearts"} == {
        **{str(n): n for n in range(2, 11)},
        "J": 11,
        "Q": 12,
        "K": 13,
        "A": 14,
    }


def test_face_values_come_from_the_config() -> None:
    fight = StaminaDeckGame(
        {"face_values": {"J": 10, "Q": 10, "K": 10, "A": 11}, "stamina_deck_size": 52}
    )
    k = fight.add("Sam Hawkens")
    values = {fight.card(c).rank: fight.card(c).value for c in fight.ch(k).deck}
    assert (values["J"], values["Q"], values["K"], values["A"], values["7"]) == (10, 10, 10, 11, 7)


@pytest.mark.parametrize(
    ("a", "b", "pair"),
    [
        (("9", "clubs"), ("10", "clubs"), True),
        (("10", "hearts"), ("J", "hearts"), True),
        (("K", "spades"), ("A", "spades"), True),
        (("A", "spades"), ("2", "spades"), False),  # the ace is high only
        (("9", "clubs"), ("10", "hearts"), False),  # two suits
        (("9", "clubs"), ("J", "clubs"), False),  # a gap
        (("9", "clubs"), ("9", "clubs"), False),
    ],
)
def test_an_aimed_pair_is_one_suit_and_two_ranks_in_a_row(
    a: tuple[str, str], b: tuple[str, str], pair: bool
) -> None:
    deck: dict[tuple[str, str], Card] = {
        (c.rank, c.suit): c for c in standard_deck("k1", FaceValues())
    }
    assert aimed_pair(deck[a], deck[b]) is pair
    assert aimed_pair(deck[b], deck[a]) is pair


# -- characters ------------------------------------------------------------------------------------


def test_a_character_gets_a_stamina_deck_of_the_configured_size_from_its_own_shuffled_deck() -> (
    None
):
    fight = StaminaDeckGame()
    a, b = fight.add("Old Firehand"), fight.add("Winnetou", x=3)
    for k in (a, b):
        deck = fight.ch(k).deck
        assert len(deck) == 20 == len(set(deck))
        assert all(card.startswith(f"{k}-") for card in deck)
    assert fight.log[-1].data["chance"]["draws"][0]["shuffle"] == 52
    chance_checked(fight)
    small = StaminaDeckGame({"stamina_deck_size": 7})
    assert len(small.ch(small.add("X")).deck) == 7


def test_character_numbers() -> None:
    pistol = Weapon.model_validate(PISTOL)
    c = Character("k1", "A", "red", None, 8, 2, 3, 2, 1, pistol, 4, 0, 0)
    assert c.attack_number == 3 + 2  # SZ + agi
    assert c.defence_number == 4 + 2  # KZ + agi; cover is added when defending
    assert c.initiative_draw == 3  # 1 + agi
    assert Character("k1", "A", "red", None, 8, -2, 0, 0, 0, None, 0, 0, 0).initiative_draw == 1
    assert c.reload_needed == 1  # 4 - 3
    assert Character("k", "A", "r", None, 8, 0, 2, 0, 0, pistol, 0, 0, 0).reload_needed == 2
    assert Character("k", "A", "r", None, 8, 0, 5, 0, 0, pistol, 0, 0, 0).reload_needed == 1


def test_melee_hand_is_skill_plus_weapon_bonus_or_unarmed_alone() -> None:
    sabre, pistol = Weapon.model_validate(SABRE), Weapon.model_validate(PISTOL)
    armed = Character("k", "A", "r", None, 8, 0, 0, 3, 1, sabre, 0, 0, 0)
    assert (armed.melee_hand, armed.entry_cards, armed.clumsy) == (5, 2, False)
    shooter = Character("k", "A", "r", None, 8, 0, 3, 3, 1, pistol, 0, 0, 0)
    assert (shooter.melee_hand, shooter.entry_cards, shooter.clumsy) == (1, 0, True)
    boxer = Character("k", "A", "r", None, 8, 0, 0, 0, 2, None, 0, 0, 0)
    assert (boxer.melee_hand, boxer.clumsy) == (2, False)


@pytest.mark.parametrize(
    ("lost", "lives", "expected"),
    [
        (0, 8, None),
        (1, 8, "light"),
        (2, 8, "light"),
        (3, 8, "medium"),
        (5, 8, "medium"),
        (6, 8, "heavy"),
        (4, 4, "heavy"),  # no life left
        (2, 2, "heavy"),
    ],
)
def test_wound_severity_by_lives_lost(lost: int, lives: int, expected: str | None) -> None:
    assert severity(lost, lives, 2, 5) == expected


def test_add_character_refusals() -> None:
    fight = StaminaDeckGame({"mat_size": 10})
    spectator = fight.player("Divák", role="spectator")
    player = fight.player("Karel")
    fight.add("A", x=1, y=1)
    base = {"name": "B", "side": "blue", "lives": 5, "x": 2, "y": 2}
    fight.refused("off_mat", AddCharacter.model_validate({**base, "x": 10}))
    fight.refused("occupied", AddCharacter.model_validate({**base, "x": 1, "y": 1}))
    fight.refused("not_found", AddCharacter.model_validate({**base, "player_id": "p99"}))
    fight.refused(
        "not_a_player", AddCharacter.model_validate({**base, "player_id": spectator.player_id})
    )
    fight.refused("forbidden", AddCharacter.model_validate(base), actor=player)
    fight.by_gm(EndGame())
    fight.refused("game_not_running", AddCharacter.model_validate(base))


def test_a_linked_player_plays_the_character_and_others_may_not() -> None:
    fight = StaminaDeckGame()
    karel, jana = fight.player("Karel"), fight.player("Jana")
    fight.start()
    a = fight.add("A", player_id=karel.player_id, shooting=2)
    b = fight.add("B", side="blue", x=4, shooting=2)
    fight.round()
    fight.turn_to(a)
    move = Move(character_id=a, card_id=fight.ch(a).hand[0], x=1, y=0)
    fight.refused("forbidden", move, actor=jana)
    fight.refused("forbidden", EndTurn(character_id=b), actor=karel)
    fight.run(karel, move)
    fight.by_gm(LinkCharacter(character_id=a, player_id=jana.player_id))
    fight.refused("forbidden", EndTurn(character_id=a), actor=karel)
    fight.run(jana, EndTurn(character_id=a))
    fight.by_gm(LinkCharacter(character_id=a, player_id=None))
    assert fight.view(jana)["me"]["characters"] == []


# -- initiative ------------------------------------------------------------------------------------


def test_initiative_draws_one_plus_agi_keeps_one_face_up_and_shuffles_the_rest_back() -> None:
    fight = StaminaDeckGame()
    fight.start()
    quick = fight.add("Quick", agi=2)
    slow = fight.add("Slow", agi=-3, x=2)
    events = fight.by_gm(StartRound())
    assert len(fight.ch(quick).choice) == 3  # 1 + agi
    # max(1, 1 + agi): the slow one drew a single card and had nothing to choose.
    assert fight.ch(slow).choice == () and fight.ch(slow).initiative is not None
    assert "initiative_chosen" in types(events)
    assert phase(fight) == "initiative"
    drawn = fight.ch(quick).choice
    events = fight.by_gm(ChooseInitiative(character_id=quick, card_id=drawn[1]))
    chosen = events[0]
    assert chosen.type == "initiative_chosen"
    assert fight.ch(quick).initiative == drawn[1]
    assert set(chosen.data["returned"]) == {drawn[0], drawn[2]}
    assert set(fight.ch(quick).deck) >= {drawn[0], drawn[2]}
    assert len(fight.ch(quick).deck) + 1 + len(fight.ch(quick).hand) == 20
    assert chosen.data["chance"]["draws"][0]["shuffle"] == len(chosen.data["deck"])
    assert phase(fight) == "actions"
    chance_checked(fight)


def test_the_initiative_card_goes_back_into_the_deck_when_replaced() -> None:
    fight = StaminaDeckGame()
    fight.start()
    k = fight.add("A", agi=0)
    fight.round()
    first = fight.ch(k).initiative
    assert first is not None and first not in fight.ch(k).deck
    events = fight.round()
    (chosen,) = [e for e in events if e.type == "initiative_chosen"]
    assert first in chosen.data["returned"]
    assert first in fight.ch(k).deck and fight.ch(k).initiative != first


def test_initiative_ranks_by_card_then_agi_then_drawn_cards() -> None:
    deck = standard_deck("x", FaceValues())
    by = {(c.rank, c.suit): c for c in deck}
    low, high = (by[("3", "clubs")],), (by[("K", "clubs")],)
    seats = [
        Seat("a", 10, 0, ()),
        Seat("b", 12, 0, ()),
        Seat("c", 10, 2, ()),
        Seat("d", 7, 1, low),
        Seat("e", 7, 1, high),
    ]
    assert ranking(seats) == ([["b"], ["c"], ["a"], ["e"], ["d"]], {"d": ["x-3C"], "e": ["x-KC"]})


def test_a_tie_draws_until_one_card_is_higher_and_empty_decks_stay_tied() -> None:
    by = {(c.rank, c.suit): c for c in standard_deck("x", FaceValues())}
    same = (by[("5", "clubs")], by[("9", "hearts")])
    other = (by[("5", "spades")], by[("2", "hearts")])
    groups, drawn = ranking([Seat("a", 8, 0, other), Seat("b", 8, 0, same)])
    assert groups == [["b"], ["a"]]
    assert drawn == {"a": ["x-5S", "x-2H"], "b": ["x-5C", "x-9H"]}
    assert ranking([Seat("a", 8, 0, ()), Seat("b", 8, 0, ())]) == ([["a", "b"]], {})
    # A deck that runs out loses to one that still has a card.
    assert ranking([Seat("a", 8, 0, ()), Seat("b", 8, 0, (by[("2", "clubs")],))])[0] == [
        ["b"],
        ["a"],
    ]


def test_a_tie_in_play_logs_the_drawn_cards_and_shuffles_them_back() -> None:
    def build(seed: bytes) -> StaminaDeckGame:
        fight = StaminaDeckGame(seed=seed)
        fight.start()
        fight.add("A", agi=0)
        fight.add("B", agi=0, x=3)
        return fight

    def tied(fight: StaminaDeckGame) -> bool:  # the two single initiative cards will be equal
        a, b = fight.state.characters.values()
        return fight.card(a.deck[0]).value == fight.card(b.deck[0]).value

    fight = seeded(build, tied)
    (ordered,) = [e for e in fight.round() if e.type == "initiative_ordered"]
    tiebreaks = ordered.data["tiebreaks"]
    assert set(tiebreaks) == set(fight.state.characters)
    first, second = ordered.data["order"]
    values = [[c["value"] for c in tiebreaks[k]] for k in (first, second)]
    assert values[0][:-1] == values[1][:-1] and values[0][-1] > values[1][-1]
    for k, deck in ordered.data["decks"].items():
        assert {c["card_id"] for c in tiebreaks[k]} <= set(deck)
    chance_checked(fight)


def test_choose_initiative_refusals() -> None:
    fight = StaminaDeckGame()
    karel = fight.player("Karel")
    fight.start()
    a = fight.add("A", agi=2, player_id=karel.player_id)
    b = fight.add("B", agi=2, x=3)
    fight.refused("nothing_to_choose", ChooseInitiative(character_id=a, card_id="k1-2C"))
    fight.by_gm(StartRound())
    fight.refused("not_your_card", ChooseInitiative(character_id=a, card_id=fight.ch(b).choice[0]))
    fight.refused(
        "forbidden", ChooseInitiative(character_id=b, card_id=fight.ch(b).choice[0]), karel
    )
    fight.refused("wrong_phase", StartRound())
    fight.refused("wrong_phase", EndTurn(character_id=a))
    fight.run(karel, ChooseInitiative(character_id=a, card_id=fight.ch(a).choice[0]))
    fight.refused("nothing_to_choose", ChooseInitiative(character_id=a, card_id="k4-2C"))


# -- the draw and the turns ------------------------------------------------------------------------


def test_ranged_draw_is_up_to_the_shooting_skill() -> None:
    fight, a, b = ranged_pair()
    assert len(fight.ch(a).hand) == 3 and len(fight.ch(b).hand) == 2
    fight.turn_to(a)
    fight.by_gm(Move(character_id=a, card_id=fight.ch(a).hand[0], x=1, y=0))
    assert len(fight.ch(a).hand) == 2
    events = fight.round()
    (drawn,) = [e for e in events if e.type == "hand_drawn" and e.data["character_id"] == a]
    assert (len(drawn.data["cards"]), drawn.data["mode"], drawn.data["limit"]) == (1, "ranged", 3)
    assert len(fight.ch(a).hand) == 3
    assert not [e for e in events if e.type == "hand_drawn" and e.data["character_id"] == b]


def test_a_ranged_hand_above_the_shooting_skill_is_kept() -> None:
    fight, a, b = ranged_pair()
    fight.turn_to(a)
    fight.by_gm(PutAid(character_id=a, card_id=fight.ch(a).hand[0], name="Převržený stůl"))
    fight.by_gm(EndTurn(character_id=a))
    fight.turn_to(b)
    fight.by_gm(UseAid(character_id=b, aid_id=next(iter(fight.state.aids))))
    assert len(fight.ch(b).hand) == 3
    fight.round()
    assert len(fight.ch(b).hand) == 3  # above shooting 2: nothing drawn, nothing returned


def test_actions_in_initiative_order_three_a_round() -> None:
    fight, a, b = ranged_pair()
    first, second = fight.state.order
    assert {first, second} == {a, b} and fight.state.turn == 0
    hand = fight.ch(second).hand
    fight.refused("not_your_turn", Move(character_id=second, card_id=hand[0], x=9, y=1))
    fight.refused("not_your_turn", EndTurn(character_id=second))
    fight.by_gm(PutAid(character_id=first, card_id=fight.ch(first).hand[0], name="Sud"))
    events = fight.by_gm(EndTurn(character_id=first))
    assert events[0].data == {"character_id": first, "next": second}
    fight.refused("not_your_turn", EndTurn(character_id=first))
    fight.by_gm(EndTurn(character_id=second))
    assert fight.state.turn is None
    # Three actions: the fourth card is refused.
    fight, a, _ = ranged_pair(config={"stamina_deck_size": 30})
    fight.turn_to(a)
    for n in range(3):
        fight.by_gm(PutAid(character_id=a, card_id=fight.ch(a).hand[0], name=f"Kryt {n}"))
    assert fight.ch(a).actions_left == 0
    fight.by_gm(UseAid(character_id=a, aid_id=next(iter(fight.state.aids))))  # not an action
    fight.refused("no_actions_left", PutAid(character_id=a, card_id=fight.ch(a).hand[0], name="x"))
    fight.round()
    assert fight.ch(a).actions_left == 3


# -- moving ----------------------------------------------------------------------------------------


def test_a_move_takes_a_hand_card_and_carries_five_squares() -> None:
    fight, a, b = ranged_pair(config={"mat_size": 12})
    fight.turn_to(a)
    card = fight.ch(a).hand[0]
    fight.refused("needs_card", Move(character_id=a, x=1, y=0))
    fight.refused("not_your_card", Move(character_id=a, card_id=fight.ch(b).hand[0], x=1, y=0))
    fight.refused("too_far", Move(character_id=a, card_id=card, x=6, y=0))
    fight.refused("off_mat", Move(character_id=a, card_id=card, x=12, y=0))
    fight.refused("invalid", Move(character_id=a, card_id=card, x=0, y=0))
    events = fight.by_gm(Move(character_id=a, card_id=card, x=5, y=5))  # a diagonal counts one
    assert types(events) == ["character_moved"]
    assert events[0].data["from"] == {"x": 0, "y": 0} and events[0].data["to"] == {"x": 5, "y": 5}
    assert (fight.ch(a).x, fight.ch(a).y) == (5, 5)
    assert card in fight.ch(a).played and card not in fight.ch(a).hand
    fight.by_gm(PlaceCharacter(character_id=b, x=9, y=5))
    fight.refused("occupied", Move(character_id=a, card_id=fight.ch(a).hand[0], x=9, y=5))
    view = fight.view(fight.gm)
    assert view["mat"]["tokens"][a] == {"x": 5, "y": 5}


def test_an_empty_hand_is_reactive_only() -> None:
    fight, a, b = ranged_pair(config={"stamina_deck_size": 3}, shooter={"loaded": False})
    # The shooter holds what is left of 3 cards after the initiative: 2; spend them.
    fight.turn_to(a)
    for n in range(len(fight.ch(a).hand)):
        fight.by_gm(PutAid(character_id=a, card_id=fight.ch(a).hand[0], name=f"Aid {n}"))
    assert fight.ch(a).hand == ()
    fight.refused("empty_hand", Move(character_id=a, x=1, y=0))
    fight.refused("empty_hand", Reload(character_id=a, card_id=f"{a}-2C"))
    fight.refused("empty_hand", Shoot(character_id=a, target_id=b, card_id=f"{a}-2C"))
    fight.refused("empty_hand", PutAid(character_id=a, card_id=f"{a}-2C", name="Sud"))


# -- shooting --------------------------------------------------------------------------------------


def test_a_shot_is_attack_number_plus_card_against_defence_number_cover_and_a_hand_card() -> None:
    fight, a, b = ranged_pair(agi=1, armour=2)
    fight.by_gm(SetCover(character_id=b, cover=3))
    fight.turn_to(a)
    card = fight.highest(a)
    events = fight.by_gm(Shoot(character_id=a, target_id=b, card_id=card))
    assert types(events) == ["shot_fired"]
    attack = 3 + 0 + fight.card(card).value  # SZ + agi + card
    assert events[0].data["attack"] == attack
    assert fight.view(fight.gm)["waiting"]["shot"]["attack"] == attack
    assert fight.ch(a).loaded is False
    # Everything else waits for the defence.
    fight.refused("waiting", EndTurn(character_id=a))
    fight.refused("not_the_target", Defend(character_id=a))
    defence_card = fight.lowest(b)
    events = fight.by_gm(Defend(character_id=b, card_id=defence_card))
    defended = events[0]
    defence = 2 + 1 + 3 + fight.card(defence_card).value  # KZ + agi + cover + card
    assert defended.data["defence"] == defence
    assert defended.data["damage"] == damage(attack, defence) == max(0, attack - defence)
    assert defended.data["hit"] is (attack > defence)
    assert defence_card in fight.ch(b).played
    assert fight.state.shot is None
    fight.refused("nothing_to_defend", Defend(character_id=b))


def test_the_defence_may_be_the_top_card_of_the_deck() -> None:
    fight, a, b = ranged_pair()
    fight.turn_to(a)
    fight.by_gm(Shoot(character_id=a, target_id=b, card_id=fight.ch(a).hand[0]))
    top = fight.ch(b).deck[0]
    events = fight.by_gm(Defend(character_id=b))
    assert events[0].data["source"] == "deck" and events[0].data["card"]["card_id"] == top
    assert top in fight.ch(b).played and len(fight.ch(b).hand) == 2


def aim_for(
    fight: StaminaDeckGame, shooter: str, target: str, hurt: int, card: str | None = None
) -> str:
    """Set the target's cover so that a shot with `card` (and a defence from the deck top) does
    exactly `hurt` damage; the shooter's card id."""
    card = card or fight.lowest(shooter)
    attack = fight.ch(shooter).attack_number + fight.card(card).value
    me = fight.ch(target)
    top = fight.card(me.deck[0]).value if me.deck else 0
    cover = attack - (me.defence_number + top) - hurt
    assert 0 <= cover <= 30, cover
    fight.by_gm(SetCover(character_id=target, cover=cover))
    return card


def test_a_hit_costs_the_difference_in_cards_from_hand_and_deck_by_the_targets_choice() -> None:
    fight, a, b = ranged_pair(config={"stamina_deck_size": 30}, shooting=4)
    fight.turn_to(a)
    card = aim_for(fight, a, b, 3)
    fight.by_gm(Shoot(character_id=a, target_id=b, card_id=card))
    events = fight.by_gm(Defend(character_id=b))
    assert types(events) == ["shot_defended", "cards_owed"]
    assert events[1].data == {"character_id": b, "count": 3, "to": "discard"}
    assert fight.view(fight.gm)["waiting"]["debts"] == [events[1].data]
    hand, deck = fight.ch(b).hand, fight.ch(b).deck
    fight.refused("wrong_count", GiveCards(character_id=b, card_ids=list(hand[:4])))
    fight.refused("not_your_card", GiveCards(character_id=b, card_ids=[fight.ch(a).hand[0]]))
    fight.refused("nothing_owed", GiveCards(character_id=a, card_ids=[]))
    fight.refused("waiting", EndTurn(character_id=a))
    events = fight.by_gm(GiveCards(character_id=b, card_ids=[hand[1]]))
    assert events[0].data == {
        "character_id": b,
        "to": "discard",
        "hand": [hand[1]],
        "deck": list(deck[:2]),
        "missing": 0,
    }
    assert set(fight.ch(b).discard) == {hand[1], *deck[:2]}
    assert fight.ch(b).lives_lost == 0 and fight.state.debts == ()


def test_a_miss_costs_nothing() -> None:
    fight, a, b = ranged_pair()
    fight.turn_to(a)
    fight.by_gm(SetCover(character_id=b, cover=30))
    fight.by_gm(Shoot(character_id=a, target_id=b, card_id=fight.ch(a).hand[0]))
    events = fight.by_gm(Defend(character_id=b))
    assert types(events) == ["shot_defended"]
    assert events[0].data["hit"] is False and events[0].data["damage"] == 0


def test_a_target_without_cards_in_hand_defends_with_the_deck_top_at_once() -> None:
    fight, a, b = ranged_pair(shooting=0)
    assert fight.ch(b).hand == ()
    fight.turn_to(a)
    fight.by_gm(SetCover(character_id=b, cover=30))
    top = fight.ch(b).deck[0]
    events = fight.by_gm(Shoot(character_id=a, target_id=b, card_id=fight.ch(a).hand[0]))
    assert types(events) == ["shot_fired", "shot_defended"]
    assert events[1].data["card"]["card_id"] == top


def test_shooting_needs_a_loaded_weapon_and_reloading_takes_speed_minus_shooting_cards() -> None:
    fight, a, b = ranged_pair(config={"stamina_deck_size": 40})
    fight.turn_to(a)
    fight.refused("already_loaded", Reload(character_id=a, card_id=fight.ch(a).hand[0]))
    fight.refused("not_your_card", Reload(character_id=a, card_id=fight.ch(b).hand[0]))
    fight.by_gm(SetCover(character_id=b, cover=30))
    fight.by_gm(Shoot(character_id=a, target_id=b, card_id=fight.ch(a).hand[0]))
    if fight.state.shot:
        fight.by_gm(Defend(character_id=b))
    fight.refused("not_loaded", Shoot(character_id=a, target_id=b, card_id=fight.ch(a).hand[0]))
    events = fight.by_gm(Reload(character_id=a, card_id=fight.ch(a).hand[0]))
    # Pistol reload speed 4 - shooting 3 = 1 card.
    assert events[0].data | {"card_id": "-"} == {
        "character_id": a,
        "card_id": "-",
        "progress": 1,
        "needed": 1,
        "loaded": True,
        "actions": 1,
    }
    assert fight.ch(a).loaded
    # Shooting 2 with the same pistol: two reload cards, over two turns if need be.
    fight.by_gm(EndTurn(character_id=a))
    fight.turn_to(b)
    fight.by_gm(SetCover(character_id=a, cover=30))
    fight.by_gm(Shoot(character_id=b, target_id=a, card_id=fight.ch(b).hand[0]))
    if fight.state.shot:
        fight.by_gm(Defend(character_id=a))
    first = fight.by_gm(Reload(character_id=b, card_id=fight.ch(b).hand[0]))[0].data
    assert (first["progress"], first["needed"], first["loaded"]) == (1, 2, False)
    fight.round()
    fight.turn_to(b)
    second = fight.by_gm(Reload(character_id=b, card_id=fight.ch(b).hand[0]))[0].data
    assert (second["progress"], second["loaded"]) == (2, True)
    assert fight.ch(b).reload_progress == 0


def test_an_aimed_shot_plays_two_cards_of_a_suit_in_a_row_as_two_actions() -> None:
    def build(seed: bytes) -> StaminaDeckGame:
        return ranged_pair(seed, config={"stamina_deck_size": 40})[0]

    def pair(fight: StaminaDeckGame) -> bool:
        hand = fight.hand(ids(fight)[0])
        return any(aimed_pair(x, y) for x in hand for y in hand)

    fight = seeded(build, pair)
    a, b = ids(fight)
    fight.turn_to(a)
    hand = fight.hand(a)
    x, y = next((x, y) for x in hand for y in hand if aimed_pair(x, y))
    odd = next(
        (p, q) for p in hand for q in hand if p.card_id != q.card_id and not aimed_pair(p, q)
    )
    fight.refused(
        "not_a_pair",
        AimedShot(character_id=a, target_id=b, card_ids=[odd[0].card_id, odd[1].card_id]),
    )
    events = fight.by_gm(AimedShot(character_id=a, target_id=b, card_ids=[x.card_id, y.card_id]))
    fired = events[0].data
    assert fired["aimed"] is True and fired["actions"] == 2
    assert fired["attack"] == 3 + x.value + y.value
    assert fight.ch(a).actions_left == 1


def test_no_shooting_or_reloading_in_melee() -> None:
    fight, a, b, _ = melee_pair(weapon=PISTOL)
    fight.turn_to(b)
    fight.refused("in_melee", Shoot(character_id=b, target_id=a, card_id="x"))
    fight.refused("in_melee", Reload(character_id=b, card_id="x"))


def test_a_target_out_of_the_fight_cannot_be_shot() -> None:
    fight, a, b = ranged_pair(config={"stamina_deck_size": 2}, shooter=RIFLE_SHOT, shooting=0)
    fight.turn_to(a)
    card = aim_for(fight, a, b, 4)  # 1 card in deck: 3 lives lost, medium
    fight.by_gm(Shoot(character_id=a, target_id=b, card_id=card))
    assert fight.ch(b).wound == "medium"
    fight.refused("out_of_fight", Shoot(character_id=a, target_id=b, card_id="x"))
    fight.refused("invalid", Shoot(character_id=a, target_id=a, card_id="x"))
    fight.refused("not_found", Shoot(character_id=a, target_id="k99", card_id="x"))


# -- shooting into melee ---------------------------------------------------------------------------


def into_melee(seed: bytes) -> tuple[StaminaDeckGame, str, str, str]:
    """A shooter at (0,0); a target in melee with an ally of the shooter at (8,8)/(9,8)."""
    fight = StaminaDeckGame({"stamina_deck_size": 40}, seed=seed)
    fight.start()
    shooter = fight.add("Střelec", x=0, y=0, shooting=4, weapon=PISTOL)
    friend = fight.add("Přítel", x=8, y=8, melee=2, weapon=SABRE)
    target = fight.add("Cíl", side="blue", x=9, y=8, melee=2, weapon=SABRE)
    fight.by_gm(Engage(fighters=[friend, target]))
    fight.round()
    fight.turn_to(shooter)
    return fight, shooter, friend, target


def test_an_aimed_shot_into_melee_hits_the_target_who_defends_with_cover_plus_5() -> None:
    def pair(fight: StaminaDeckGame) -> bool:
        hand = fight.hand(ids(fight)[0])
        return any(aimed_pair(x, y) for x in hand for y in hand)

    fight = seeded(lambda s: into_melee(s)[0], pair)
    shooter, _, target = ids(fight)
    hand = fight.hand(shooter)
    x, y = next((x, y) for x in hand for y in hand if aimed_pair(x, y))
    events = fight.by_gm(
        AimedShot(character_id=shooter, target_id=target, card_ids=[x.card_id, y.card_id])
    )
    assert events[0].data["bonus"] == 5 and events[0].data["check"] is None
    assert events[0].data["target"] == target
    defended = fight.by_gm(Defend(character_id=target))[0].data
    top = defended["card"]["value"]
    assert defended["defence"] == fight.ch(target).defence_number + 5 + top


@pytest.mark.parametrize("clubs", [True, False])
def test_a_plain_shot_into_melee_hits_the_other_fighter_on_a_random_club(clubs: bool) -> None:
    def check(fight: StaminaDeckGame) -> bool:
        """The shot's random deck card, foreseen from the seed, is (or is not) a club."""
        return (foreseen_check(fight).suit == "clubs") is clubs

    fight = seeded(lambda s: into_melee(s)[0], check)
    shooter, friend, target = ids(fight)
    events = fight.by_gm(
        Shoot(character_id=shooter, target_id=target, card_id=fight.ch(shooter).hand[0])
    )
    fired = events[0].data
    assert fired["check"]["suit"] == "clubs" if clubs else fired["check"]["suit"] != "clubs"
    assert fired["check"]["card_id"] in fight.ch(shooter).deck  # only looked at
    assert fired["deflected"] is clubs
    assert fired["target"] == (friend if clubs else target)
    assert fired["aimed_at"] == target and fired["bonus"] == 0
    assert fired["chance"]["draws"][0]["die"] == len(fight.ch(shooter).deck) == 35  # 40 - 1 - 4
    chance_checked(fight)


def test_a_club_among_several_opponents_picks_one_by_a_fair_die() -> None:
    def build(seed: bytes) -> StaminaDeckGame:
        fight = StaminaDeckGame({"stamina_deck_size": 40}, seed=seed)
        fight.start()
        fight.add("Střelec", x=0, y=0, shooting=4, weapon=PISTOL)
        one = fight.add("Jeden", x=8, y=8, melee=2, weapon=SABRE)
        two = fight.add("Druhý", x=10, y=8, melee=2, weapon=SABRE)
        target = fight.add("Cíl", side="blue", x=9, y=8, melee=2, weapon=SABRE)
        fight.by_gm(Engage(fighters=[one, target]))
        fight.by_gm(Engage(fighters=[two, target]))
        fight.round()
        fight.turn_to(ids(fight)[0])
        return fight

    fight = seeded(build, lambda f: foreseen_check(f).suit == "clubs")
    shooter, one, two, target = ids(fight)
    card = fight.ch(shooter).hand[0]
    fired = fight.by_gm(Shoot(character_id=shooter, target_id=target, card_id=card))[0]
    draws = fired.data["chance"]["draws"]
    assert [d["die"] for d in draws] == [len(fight.ch(shooter).deck), 2]
    assert fired.data["target"] == sorted([one, two])[draws[1]["value"] - 1]
    chance_checked(fight)


def foreseen_check(fight: StaminaDeckGame) -> Card:
    """The random deck card the first character's next plain shot into melee will draw."""
    ctx = Context(now=T0, actor=fight.gm, seq=len(fight.log) + 1, seed=fight.seed)
    deck = fight.ch(ids(fight)[0]).deck
    return fight.card(deck[ctx.chance.die(len(deck)) - 1])


# -- aids ------------------------------------------------------------------------------------------


def test_an_aid_is_a_card_on_the_field_and_whoever_uses_it_takes_the_card() -> None:
    fight = StaminaDeckGame()
    karel, jana = fight.player("Karel"), fight.player("Jana")
    fight.start()
    a = fight.add("A", player_id=karel.player_id, shooting=3)
    b = fight.add("B", side="blue", x=6, player_id=jana.player_id, shooting=3)
    fight.round()
    fight.turn_to(a)
    card = fight.ch(a).hand[0]
    events = fight.by_gm(PutAid(character_id=a, card_id=card, name="Převržený stůl"))
    aid_id = events[0].data["aid_id"]
    assert events[0].data["name"] == "Převržený stůl" and (
        events[0].data["x"],
        events[0].data["y"],
    ) == (0, 0)
    assert fight.ch(a).actions_left == 2 and card not in fight.ch(a).hand
    seen_by_a = fight.view(karel)["mat"]["aids"]
    assert list(seen_by_a) == [aid_id] and seen_by_a[aid_id]["card"]["card_id"] == card
    seen_by_b = fight.view(jana)["mat"]["aids"]
    assert seen_by_b == {
        aid_id: {"name": "Převržený stůl", "x": 0, "y": 0, "placed_by": a}
    }  # no card, and the key is the id
    fight.by_gm(EndTurn(character_id=a))
    fight.turn_to(b)
    fight.refused("not_found", UseAid(character_id=b, aid_id="a99"))
    events = fight.run(jana, UseAid(character_id=b, aid_id=aid_id))
    assert events[0].data == {"aid_id": aid_id, "character_id": b, "card_id": card}
    assert card in fight.ch(b).hand and fight.state.aids == {}
    assert fight.ch(b).actions_left == 3  # using an aid is not an action


def test_aid_in_melee_prepares_a_card_for_the_next_round() -> None:
    """Aid in melee ("help"): a fighter on its turn puts a hand card down as an aid (an action,
    in melee too) and takes it back into hand in a later round, to play it in the bout."""
    fight, a, b, bout = melee_pair()
    fight.turn_to(a)
    card = fight.highest(a)
    events = fight.by_gm(PutAid(character_id=a, card_id=card, name="Pomoc"))
    assert events[0].data["x"] == 5 and fight.state.in_melee(a)
    assert card not in fight.ch(a).hand and fight.ch(a).actions_left == 2
    aid_id = events[0].data["aid_id"]
    fight.round()
    fight.turn_to(a)
    fight.by_gm(UseAid(character_id=a, aid_id=aid_id))
    assert card in fight.ch(a).hand and fight.state.aids == {}
    assert fight.state.bouts[bout].attacker == a
    fight.down(a, bout, card)
    revealed = fight.down(b, bout, fight.ch(b).hand[0])[1].data
    assert revealed["cards"][a]["card_id"] == card


# -- melee -----------------------------------------------------------------------------------------


def test_moving_into_contact_starts_a_bout_with_the_mover_attacking() -> None:
    fight = StaminaDeckGame()
    fight.start()
    a = fight.add("A", x=0, y=0, shooting=3, melee=2, weapon=SABRE)
    b = fight.add(
        "B", side="blue", x=6, y=0, shooting=1, melee=1, weapon={**SABRE, "melee_cards": 1}
    )
    ally = fight.add("C", x=5, y=1)
    fight.round()
    fight.turn_to(a)
    hand_b = len(fight.ch(b).hand)
    events = fight.by_gm(Move(character_id=a, card_id=fight.ch(a).hand[0], x=5, y=0))
    assert types(events)[:2] == ["character_moved", "bout_started"]
    started = events[1].data
    assert (started["attacker"], started["defender"], started["cause"]) == (a, b, "contact")
    assert not fight.state.engaged(a, ally)  # allies do not fight
    # Entering melee short of a melee hand: only the weapon's bonus cards are drawn.
    entry = {e.data["character_id"]: e.data for e in events if e.type == "hand_drawn"}
    assert len(entry[b]["cards"]) == 1 and entry[b]["mode"] == "entry"
    assert len(fight.ch(b).hand) == hand_b + 1
    # The mover kept 2 of 3 cards, short of melee 2 + sabre 2 by 2: the sabre gives both.
    assert len(entry[a]["cards"]) == 2 and len(fight.ch(a).hand) == 4


def test_entering_melee_draws_the_weapon_bonus_only() -> None:
    fight = StaminaDeckGame()
    fight.start()
    a = fight.add("A", x=0, y=0, shooting=1, melee=3, weapon=SABRE)
    b = fight.add("B", side="blue", x=1, y=0, shooting=1, melee=3, weapon=SABRE)
    fight.round()
    events = fight.by_gm(Engage(fighters=[a, b]))
    drawn = [e.data for e in events if e.type == "hand_drawn"]
    assert sorted((d["character_id"], len(d["cards"]), d["limit"]) for d in drawn) == [
        (a, 2, 5),
        (b, 2, 5),
    ]
    assert len(fight.ch(a).hand) == 3  # 1 + 2, not the full 5
    fight.round()
    assert len(fight.ch(a).hand) == 5 and len(fight.ch(b).hand) == 5


# -- who attacks when melee starts -----------------------------------------------------------------

BOXER = {"unarmed": 2}  # fights unarmed well enough to open a melee
POOR = {"unarmed": 1}  # no melee weapon, unarmed below 2: never opens against a better fighter


def facing(
    seed: bytes, a: Json, b: Json, *, apart: bool = False
) -> tuple[StaminaDeckGame, str, str]:
    """Two enemies with two cards in hand each, round 1 on: in contact at (5,5)/(6,5), or
    `apart`, at (0,5)/(6,5), a move of one into contact."""
    fight = StaminaDeckGame(seed=seed)
    fight.start()
    one = fight.add("Vinnetou", x=0 if apart else 5, y=5, shooting=2, **a)
    other = fight.add("Tangua", side="blue", x=6, y=5, shooting=2, **b)
    fight.round()
    return fight, one, other


def in_order(fight: StaminaDeckGame) -> tuple[str, str]:
    """The two characters as they stand in the round's initiative order."""
    first, second = fight.state.order
    return first, second


def attacker_of(events: list[Event]) -> str:
    (started,) = [e.data for e in events if e.type == "bout_started"]
    return str(started["attacker"])


def test_the_mover_into_contact_attacks_even_against_a_higher_initiative() -> None:
    fight, a, b = facing(
        SEED, {"melee": 2, "weapon": SABRE}, {"melee": 2, "weapon": SABRE}, apart=True
    )
    first, later = in_order(fight)
    fight.turn_to(later)
    x = 5 if later == a else 1  # next to the other one
    events = fight.by_gm(Move(character_id=later, card_id=fight.ch(later).hand[0], x=x, y=5))
    assert attacker_of(events) == later
    assert fight.state.bouts[fight.bout(a, b)].defender == first


@pytest.mark.parametrize("named_first", ["ahead", "behind"])
def test_engage_makes_the_higher_initiative_attack_however_the_gm_names_them(
    named_first: str,
) -> None:
    fight, _, _ = facing(SEED, BOXER, {"melee": 1, "weapon": SABRE})
    first, second = in_order(fight)
    fighters = [first, second] if named_first == "ahead" else [second, first]
    events = fight.by_gm(Engage(fighters=fighters))
    assert events[0].data == {
        "bout_id": events[0].data["bout_id"],
        "attacker": first,
        "defender": second,
        "cause": "gm",
    }


def test_engage_ties_as_initiative_the_kept_card_then_agi_then_cards_drawn() -> None:
    def kept(fight: StaminaDeckGame, k: str) -> int:
        card = fight.state.card(fight.ch(k).initiative)
        return 0 if card is None else card.value

    def tied(fight: StaminaDeckGame) -> bool:
        a, b = ids(fight)
        return kept(fight, a) == kept(fight, b)

    # Equal cards and agi: the cards drawn broke the tie, the order holds it.
    fight = seeded(lambda s: facing(s, BOXER, BOXER)[0], tied)
    first, second = in_order(fight)
    ordered = next(e for e in reversed(fight.log) if e.type == "initiative_ordered")
    assert ordered.data["tiebreaks"]
    assert attacker_of(fight.by_gm(Engage(fighters=[second, first]))) == first
    # Equal cards, higher agi (which draws two cards for initiative and keeps the higher).
    fight = seeded(lambda s: facing(s, BOXER, {**BOXER, "agi": 1})[0], tied)
    a, b = ids(fight)
    assert in_order(fight) == (b, a)
    assert attacker_of(fight.by_gm(Engage(fighters=[a, b]))) == b
    # A higher card stands ahead whatever the agi.
    fight = seeded(
        lambda s: facing(s, BOXER, {**BOXER, "agi": 2})[0],
        lambda f: kept(f, ids(f)[0]) > kept(f, ids(f)[1]),
    )
    a, b = ids(fight)
    assert attacker_of(fight.by_gm(Engage(fighters=[b, a]))) == a


def test_before_any_order_the_face_up_card_then_agi_then_the_first_added_stands_ahead() -> None:
    fight = StaminaDeckGame()
    fight.start()
    a = fight.add("A", x=0, y=0, **BOXER)
    b = fight.add("B", side="blue", x=1, y=0, **BOXER, agi=1)
    c = fight.add("C", side="blue", x=0, y=1, **BOXER)
    assert fight.state.order == ()  # setup: no round yet, no initiative cards
    assert attacker_of(fight.by_gm(Engage(fighters=[a, b]))) == b  # the higher agi
    assert attacker_of(fight.by_gm(Engage(fighters=[c, a]))) == a  # all equal: added first


def test_a_character_added_during_the_round_stands_behind_the_order() -> None:
    fight = StaminaDeckGame()
    fight.start()
    a = fight.add("A", x=0, y=0, **BOXER)
    fight.round()
    late = fight.add("Late", side="blue", x=1, y=0, **BOXER, agi=5)
    assert late not in fight.state.order
    assert attacker_of(fight.by_gm(Engage(fighters=[late, a]))) == a


def test_a_poor_unarmed_mover_does_not_attack() -> None:
    fight, a, b = facing(SEED, POOR, BOXER, apart=True)
    fight.turn_to(a)
    events = fight.by_gm(Move(character_id=a, card_id=fight.ch(a).hand[0], x=5, y=5))
    assert attacker_of(events) == b


def test_a_poor_unarmed_fighter_ahead_in_initiative_does_not_attack() -> None:
    # A pistol serves no melee: its bearer fights unarmed, here below 2.
    poor = {**POOR, "weapon": PISTOL}
    fight = seeded(lambda s: facing(s, poor, BOXER)[0], lambda f: in_order(f)[0] == ids(f)[0])
    a, b = ids(fight)
    assert attacker_of(fight.by_gm(Engage(fighters=[a, b]))) == b


def test_of_two_poor_unarmed_fighters_the_mover_or_the_higher_initiative_opens() -> None:
    fight, a, _ = facing(SEED, POOR, POOR, apart=True)
    _, later = in_order(fight)
    fight.turn_to(later)
    x = 5 if later == a else 1
    events = fight.by_gm(Move(character_id=later, card_id=fight.ch(later).hand[0], x=x, y=5))
    assert attacker_of(events) == later
    fight, _, _ = facing(SEED, POOR, POOR)
    first, second = in_order(fight)
    assert attacker_of(fight.by_gm(Engage(fighters=[second, first]))) == first


def test_extra_cards_over_the_melee_hand_go_back_on_the_deck_top_by_choice() -> None:
    fight = StaminaDeckGame()
    karel = fight.player("Karel")
    fight.start()
    # Melee 1 needs a melee weapon; without one it fights unarmed 0: a melee hand of 0.
    a = fight.add("A", x=0, y=0, shooting=4, melee=1, player_id=karel.player_id)
    b = fight.add("B", side="blue", x=1, y=0, melee=2, weapon=SABRE)
    fight.round()
    hand = fight.ch(a).hand
    assert len(hand) == 4 and fight.ch(a).melee_hand == 0
    fight.by_gm(Engage(fighters=[b, a]))
    # All four must go back: no choice, done at once.
    assert fight.ch(a).hand == () and fight.ch(a).deck[:4] == hand


def test_a_choice_of_extra_cards_to_return_waits_for_the_owner() -> None:
    fight = StaminaDeckGame()
    karel = fight.player("Karel")
    fight.start()
    a = fight.add("A", x=0, y=0, shooting=4, unarmed=2, player_id=karel.player_id)
    b = fight.add("B", side="blue", x=1, y=0, melee=2, weapon=SABRE)
    fight.round()
    hand = fight.ch(a).hand
    events = fight.by_gm(Engage(fighters=[b, a]))
    (owed,) = [e for e in events if e.type == "cards_owed"]
    assert owed.data == {
        "character_id": a,
        "count": 2,
        "to": "deck",
    }
    fight.refused("wrong_count", GiveCards(character_id=a, card_ids=[hand[0]]), karel)
    fight.refused("waiting", EndTurn(character_id=str(fight.state.on_turn())))
    fight.run(karel, GiveCards(character_id=a, card_ids=[hand[3], hand[1]]))
    assert fight.ch(a).deck[:2] == (hand[3], hand[1])  # the first named on top
    assert fight.ch(a).hand == (hand[0], hand[2])


def test_an_exchange_is_sealed_until_both_cards_are_down() -> None:
    fight = StaminaDeckGame()
    karel, jana, other = fight.player("Karel"), fight.player("Jana"), fight.player("Divák")
    spectator = fight.player("Host", role="spectator")
    fight.start()
    a = fight.add("A", x=5, y=5, melee=2, weapon=SABRE, player_id=karel.player_id)
    b = fight.add("B", side="blue", x=6, y=5, melee=2, weapon=SABRE, player_id=jana.player_id)
    fight.by_gm(Engage(fighters=[a, b]))
    fight.round()
    bout = fight.bout(a, b)
    card = fight.ch(a).hand[0]
    events = fight.run(karel, Play(character_id=a, bout_id=bout, card_id=card))
    assert types(events) == ["card_played"]
    for viewer in (jana, other, spectator):
        seen = fight.view(viewer)
        assert card not in json.dumps(seen)
        shown = seen["bouts"]
        assert list(shown) == [bout] and "bout_id" not in shown[bout]
        assert shown[bout]["down"] == {a: True, b: False} and shown[bout]["plays"] == {}
    assert fight.view(karel)["bouts"][bout]["plays"][a]["card"]["card_id"] == card
    assert fight.view(fight.gm)["bouts"][bout]["plays"][a]["card"]["card_id"] == card
    fight.refused(
        "already_played", Play(character_id=a, bout_id=bout, card_id=fight.ch(a).hand[0]), karel
    )
    fight.refused(
        "forbidden", Play(character_id=a, bout_id=bout, card_id=fight.ch(a).hand[0]), jana
    )
    theirs = fight.ch(b).hand[0]
    events = fight.run(jana, Play(character_id=b, bout_id=bout, card_id=theirs))
    assert types(events)[:2] == ["card_played", "exchange_revealed"]
    revealed = events[1].data
    assert {k: v["card_id"] for k, v in revealed["cards"].items()} == {a: card, b: theirs}
    assert fight.view(other)["feed"][-1]["cards"] == revealed["cards"]
    assert card in [c["card_id"] for c in fight.view(other)["characters"][a]["played"]]


def test_exchange_results() -> None:
    assert exchange(10, 8) == ("attacker", 2)
    assert exchange(8, 8) == ("tie", 0)
    assert exchange(7, 12) == ("defender", 5)
    assert exchange(0, 0) == ("tie", 0)


def differ(by: int) -> Callable[[StaminaDeckGame], bool]:
    """The attacker's highest card beats the defender's lowest by `by` or more."""

    def wanted(f: StaminaDeckGame) -> bool:
        a, b = ids(f)
        return f.card(f.highest(a)).value - f.card(f.lowest(b)).value >= by

    return wanted


def test_attacker_higher_the_defender_moves_the_difference_into_the_threat_pile() -> None:
    fight = seeded(lambda s: melee_pair(s)[0], differ(2))
    a, b = ids(fight)
    bout = fight.bout(a, b)
    high, low = fight.highest(a), fight.lowest(b)
    difference = fight.card(high).value - fight.card(low).value
    fight.down(a, bout, high)
    events = fight.down(b, bout, low)
    revealed = events[1].data
    assert (revealed["result"], revealed["difference"], revealed["initiative"]) == (
        "attacker",
        difference,
        a,
    )
    assert types(events)[2:] in (["cards_owed"], ["cards_given"])
    if fight.state.debts:
        hand = fight.ch(b).hand
        chosen = list(hand[: min(len(hand), difference)])
        fight.by_gm(GiveCards(character_id=b, card_ids=chosen))
    assert len(fight.ch(b).threat) == difference
    assert fight.state.bouts[bout].attacker == a  # keeps the initiative
    assert fight.state.bouts[bout].exchanges == 1


def test_a_tie_changes_nothing_and_the_attacker_keeps_the_initiative() -> None:
    def tie(f: StaminaDeckGame) -> bool:
        a, b = ids(f)
        return bool({c.value for c in f.hand(a)} & {c.value for c in f.hand(b)})

    fight = seeded(lambda s: melee_pair(s)[0], tie)
    a, b = ids(fight)
    bout = fight.bout(a, b)
    x, y = next((x, y) for x in fight.hand(a) for y in fight.hand(b) if x.value == y.value)
    fight.down(a, bout, x.card_id)
    events = fight.down(b, bout, y.card_id)
    assert types(events) == ["card_played", "exchange_revealed"]
    assert events[1].data["result"] == "tie" and events[1].data["initiative"] == a
    assert fight.ch(b).threat == ()


def test_defender_higher_returns_threat_cards_to_the_deck_and_takes_the_initiative() -> None:
    def build(seed: bytes) -> StaminaDeckGame:
        return melee_pair(seed, melee=4)[0]

    def fits(f: StaminaDeckGame) -> bool:
        # First exchange: a's highest beats b's lowest by 2+; then b's highest beats a's lowest.
        a, b = (f.hand(k) for k in ids(f))
        hi_a, lo_b = max(a, key=lambda c: c.value), min(b, key=lambda c: c.value)
        rest_a = [c for c in a if c != hi_a]
        rest_b = [c for c in b if c != lo_b]
        return (
            hi_a.value - lo_b.value >= 2
            and len(f.ch(ids(f)[1]).deck) >= 4
            and max(c.value for c in rest_b) - min(c.value for c in rest_a) >= 2
        )

    fight = seeded(build, fits)
    a, b = ids(fight)
    bout = fight.bout(a, b)
    fight.down(a, bout, fight.highest(a))
    low = fight.lowest(b)
    fight.down(b, bout, low)
    if fight.state.debts:  # the threat from the deck, keeping the hand
        fight.by_gm(GiveCards(character_id=b, card_ids=[]))
    threat = fight.ch(b).threat
    assert threat
    lo_a, hi_b = fight.lowest(a), fight.highest(b)
    difference = fight.card(hi_b).value - fight.card(lo_a).value
    fight.down(a, bout, lo_a)
    events = fight.down(b, bout, hi_b)
    revealed = events[1].data
    assert (revealed["result"], revealed["initiative"]) == ("defender", b)
    back = min(difference, len(threat))
    assert revealed["returned"] == list(threat[len(threat) - back :])
    assert set(revealed["returned"]) <= set(fight.ch(b).deck)
    assert len(fight.ch(b).threat) == len(threat) - back
    assert revealed["chance"]["draws"][0]["shuffle"] == len(fight.ch(b).deck)
    bout_now = fight.state.bouts[bout]
    assert (bout_now.attacker, bout_now.defender) == (b, a)
    chance_checked(fight)


def test_three_exchanges_make_a_round_then_played_and_threat_are_discarded_and_hands_refilled() -> (
    None
):
    fight, a, b, bout = melee_pair()
    for _ in range(3):
        attacker = fight.state.bouts[bout].attacker
        defender = fight.state.bouts[bout].defender
        fight.down(attacker, bout, fight.ch(attacker).hand[0])
        fight.down(defender, bout, fight.ch(defender).hand[0])
        if fight.state.debts:
            fight.by_gm(GiveCards(character_id=defender, card_ids=[]))
    fight.refused("exchanges_done", Play(character_id=a, bout_id=bout, card_id=fight.ch(a).hand[0]))
    played = {k: fight.ch(k).played + fight.ch(k).threat for k in (a, b)}
    assert all(len(fight.ch(k).played) == 3 for k in (a, b))
    events = fight.round()
    ended = events[0]
    assert ended.type == "round_ended"
    for k in (a, b):
        assert set(ended.data["discarded"][k]) == set(played[k])
        assert set(played[k]) <= set(fight.ch(k).discard)
        assert fight.ch(k).played == () and fight.ch(k).threat == ()
        assert len(fight.ch(k).hand) == 4  # melee 2 + sabre 2
    assert fight.state.bouts[bout].exchanges == 0


def test_several_opponents_are_separate_bouts_sharing_one_hand() -> None:
    fight = StaminaDeckGame({"stamina_deck_size": 40})
    fight.start()
    hero = fight.add("Hrdina", x=5, y=5, melee=3, weapon=SABRE)
    one = fight.add("Jeden", side="blue", x=4, y=5, melee=1, weapon=SABRE)
    two = fight.add("Dva", side="blue", x=6, y=5, melee=1, weapon=SABRE, agi=1)  # attacks hero
    fight.by_gm(Engage(fighters=[hero, one]))
    fight.by_gm(Engage(fighters=[two, hero]))
    fight.round()
    first, second = fight.bout(hero, one), fight.bout(hero, two)
    assert first != second
    assert len(fight.ch(hero).hand) == 5  # one hand for both fights
    assert fight.state.bouts[first].attacker == hero and fight.state.bouts[second].attacker == two
    fight.down(hero, first, fight.ch(hero).hand[0])
    fight.down(hero, second, fight.ch(hero).hand[0])
    assert len(fight.ch(hero).hand) == 3 and fight.ch(hero).actions_left == 1


def test_with_an_empty_hand_melee_cards_come_from_the_deck_top() -> None:
    fight, a, b, bout = melee_pair(melee=0, weapon=None, unarmed=0)
    assert fight.ch(b).hand == ()  # unarmed 0: no melee hand at all
    fight.refused("must_play_hand", Play(character_id=a, bout_id=bout))
    fight.down(a, bout, fight.ch(a).hand[0])
    top = fight.ch(b).deck[0]
    events = fight.down(b, bout, None)
    assert events[0].data["source"] == "deck" and events[0].data["card_id"] == top
    assert events[1].data["cards"][b]["card_id"] == top


def test_without_actions_left_a_defender_still_defends_from_the_deck_but_nobody_attacks() -> None:
    fight, a, b, bout = melee_pair()
    fight.turn_to(b)
    for n in range(3):  # b spends its three actions on aids
        fight.by_gm(PutAid(character_id=b, card_id=fight.ch(b).hand[0], name=f"Aid {n}"))
    assert fight.ch(b).hand and fight.ch(b).actions_left == 0
    fight.refused(
        "no_actions_left", Play(character_id=b, bout_id=bout, card_id=fight.ch(b).hand[0])
    )
    fight.down(a, bout, fight.ch(a).hand[0])
    top = fight.ch(b).deck[0]
    events = fight.down(b, bout, None)
    assert events[0].data == {
        "bout_id": bout,
        "character_id": b,
        "exchange": 1,
        "card_id": top,
        "source": "deck",
        "actions": 0,
    }
    # Roles swapped, the tired one cannot attack at all.
    if fight.state.debts:
        fight.by_gm(GiveCards(character_id=b, card_ids=[]))
    if fight.state.bouts[bout].attacker == b:
        fight.refused("no_actions_left", Play(character_id=b, bout_id=bout))


def test_leaving_melee_with_the_initiative_is_free() -> None:
    fight, a, b, bout = melee_pair()
    fight.turn_to(a)
    events = fight.by_gm(Move(character_id=a, card_id=fight.ch(a).hand[0], x=2, y=5))
    assert types(events) == ["bout_ended", "character_moved"]
    assert events[0].data == {"bout_id": bout, "reason": "left", "withdrawn": []}
    assert fight.state.bouts == {} and fight.ch(b).actions == 0


def test_leaving_melee_without_the_initiative_gives_an_attack_of_opportunity() -> None:
    fight, a, b, bout = melee_pair()
    fight.turn_to(b)
    card = fight.ch(b).hand[0]
    events = fight.by_gm(Move(character_id=b, card_id=card, x=9, y=5))
    assert types(events) == ["leave_started"]
    assert fight.view(fight.gm)["waiting"]["leaving"] == {
        "character_id": b,
        "x": 9,
        "y": 5,
        "bouts": [bout],
    }
    assert fight.state.bouts[bout].opportunity
    fight.refused("waiting", EndTurn(character_id=b))
    actions = fight.ch(a).actions, fight.ch(b).actions
    fight.down(a, bout, fight.ch(a).hand[0])
    events = fight.down(b, bout, fight.ch(b).hand[0])
    revealed = events[1].data
    assert revealed["opportunity"] is True and revealed["exchange"] == 0
    if fight.state.debts:
        events = fight.by_gm(GiveCards(character_id=b, card_ids=[]))
    assert types(events)[-2:] == ["bout_ended", "character_moved"]
    assert (fight.ch(b).x, fight.ch(b).y) == (9, 5) and fight.state.bouts == {}
    assert (fight.ch(a).actions, fight.ch(b).actions) == actions  # neither card was an action
    assert fight.state.leaving is None


def test_gm_engages_and_disengages() -> None:
    fight = StaminaDeckGame()
    fight.start()
    a = fight.add("A", x=0, y=0)
    b = fight.add("B", side="blue", x=1, y=1)
    far = fight.add("C", side="blue", x=5, y=5)
    fight.refused("not_adjacent", Engage(fighters=[a, far]))
    fight.refused("invalid", Engage(fighters=[a, a]))
    fight.refused("not_found", Engage(fighters=[a, "k99"]))
    bout = fight.by_gm(Engage(fighters=[b, a]))[0].data
    # Before any round, equal agi: the one added first attacks, however the GM names them.
    assert (bout["attacker"], bout["defender"], bout["cause"]) == (a, b, "gm")
    fight.refused("already_engaged", Engage(fighters=[a, b]))
    fight.refused("in_melee", PlaceCharacter(character_id=a, x=3, y=3))
    fight.refused("not_found", Disengage(bout_id="b1"))
    fight.by_gm(Disengage(bout_id=bout["bout_id"]))
    assert fight.state.bouts == {}
    fight.by_gm(PlaceCharacter(character_id=a, x=3, y=3))


# -- out of stamina --------------------------------------------------------------------------------


def test_each_card_that_cannot_be_discarded_costs_a_life() -> None:
    fight, a, b = ranged_pair(config={"stamina_deck_size": 3}, shooter=RIFLE_SHOT, shooting=0)
    assert fight.ch(b).hand == () and len(fight.ch(b).deck) == 2
    fight.turn_to(a)
    card = aim_for(fight, a, b, 3)  # defends with the deck top: 1 card left, 2 missing
    events = fight.by_gm(Shoot(character_id=a, target_id=b, card_id=card))
    assert types(events) == ["shot_fired", "shot_defended", "cards_given", "character_wounded"]
    assert events[2].data["missing"] == 2 and len(events[2].data["deck"]) == 1
    assert events[3].data == {
        "character_id": b,
        "lives_lost": 2,
        "total_lost": 2,
        "lives_left": 6,
        "severity": "light",
    }
    assert fight.ch(b).lives_lost == 2 and fight.ch(b).wound == "light"
    assert fight.view(fight.gm)["feed"][-1]["kind"] == "wound"


def test_cards_in_hand_go_before_lives() -> None:
    fight, a, b = ranged_pair(config={"stamina_deck_size": 5}, shooter=RIFLE_SHOT, shooting=2)
    fight.turn_to(a)
    card = aim_for(fight, a, b, 2)  # after the deck-top defence: hand 2, deck 1
    fight.by_gm(Shoot(character_id=a, target_id=b, card_id=card))
    events = fight.by_gm(Defend(character_id=b))
    assert types(events) == ["shot_defended", "cards_owed"]
    # Two from the deck would leave a card in hand and cost a life: refused.
    fight.refused("wrong_count", GiveCards(character_id=b, card_ids=[]))
    fight.by_gm(GiveCards(character_id=b, card_ids=[fight.ch(b).hand[0]]))
    assert len(fight.ch(b).hand) == 1 and fight.ch(b).deck == () and fight.ch(b).lives_lost == 0


def test_a_light_wound_may_turn_the_discard_pile_into_a_new_deck() -> None:
    fight, a, b = ranged_pair(config={"stamina_deck_size": 3}, shooter=RIFLE_SHOT, shooting=0)
    fight.refused("not_lightly_wounded", RenewDeck(character_id=b))
    fight.turn_to(a)
    fight.by_gm(Shoot(character_id=a, target_id=b, card_id=aim_for(fight, a, b, 2)))
    assert fight.ch(b).wound == "light" and fight.ch(b).deck == ()
    discard = fight.ch(b).discard
    events = fight.by_gm(RenewDeck(character_id=b))
    assert sorted(events[0].data["deck"]) == sorted(discard)
    assert fight.ch(b).discard == () and sorted(fight.ch(b).deck) == sorted(discard)
    fight.refused("deck_not_empty", RenewDeck(character_id=b))
    chance_checked(fight)


def test_a_medium_wound_is_out_of_the_fight_with_two_moves_a_round_without_cards() -> None:
    fight, a, b = ranged_pair(config={"stamina_deck_size": 2}, shooter=RIFLE_SHOT, shooting=0)
    fight.turn_to(a)
    fight.by_gm(Shoot(character_id=a, target_id=b, card_id=aim_for(fight, a, b, 4)))
    assert fight.ch(b).wound == "medium" and not fight.ch(b).fighting
    events = fight.round()
    started = next(e.data for e in events if e.type == "round_started")
    assert b not in started["seats"] and started["limping"] == [b]
    assert fight.state.order[-1] == b
    fight.turn_to(b)
    fight.refused("out_of_fight", Move(character_id=b, card_id="x", x=11, y=0))
    fight.by_gm(Move(character_id=b, x=11, y=0))
    fight.by_gm(Move(character_id=b, x=12, y=0))
    fight.refused("no_actions_left", Move(character_id=b, x=13, y=0))
    fight.refused("out_of_fight", PutAid(character_id=b, card_id="x", name="x"))


def test_a_heavy_wound_lies_where_they_fell() -> None:
    def build(seed: bytes) -> StaminaDeckGame:
        fight = StaminaDeckGame({"stamina_deck_size": 2}, seed=seed)
        fight.start()
        a = fight.add("A", x=5, y=5, melee=2, weapon=SABRE, lives=8)
        b = fight.add("B", side="blue", x=6, y=5, unarmed=0, lives=3)
        fight.by_gm(Engage(fighters=[a, b]))
        fight.round()
        return fight

    def crushing(f: StaminaDeckGame) -> bool:  # b defends with its last card and loses by 3 or more
        a, b = ids(f)
        return f.card(f.highest(a)).value - f.card(f.ch(b).deck[0]).value >= 3

    fight = seeded(build, crushing)
    a, b = ids(fight)
    bout = fight.bout(a, b)
    assert fight.ch(b).hand == () and len(fight.ch(b).deck) == 1
    fight.down(a, bout, fight.highest(a))
    events = fight.down(b, bout, None)
    assert types(events)[-3:] == ["cards_given", "character_wounded", "bout_ended"]
    assert events[-2].data["severity"] == "heavy" and events[-2].data["lives_left"] == 0
    assert events[-1].data["reason"] == "out" and fight.state.bouts == {}
    fight.round()
    assert b not in fight.state.order
    fight.refused("not_your_turn", Move(character_id=b, x=7, y=5))
    fight.refused("out_of_fight", Engage(fighters=[a, b]))


# -- secrets ---------------------------------------------------------------------------------------


def test_only_the_owner_and_the_gm_see_a_hand_and_only_the_gm_the_deck_order() -> None:
    fight = StaminaDeckGame()
    karel, jana = fight.player("Karel"), fight.player("Jana")
    spectator = fight.player("Host", role="spectator")
    fight.start()
    a = fight.add("A", player_id=karel.player_id, shooting=3)
    fight.add("B", side="blue", x=5, player_id=jana.player_id, shooting=3)
    fight.round()
    hand, deck = fight.ch(a).hand, fight.ch(a).deck
    mine = fight.view(karel)["characters"][a]
    assert "character_id" not in mine  # the key is the id
    assert [c["card_id"] for c in mine["hand"]] == list(hand)
    assert "deck" not in mine and mine["counts"]["deck"] == len(deck)
    assert fight.view(karel)["me"]["characters"] == [a]
    for viewer in (jana, spectator):
        seen = fight.view(viewer)
        theirs = seen["characters"][a]
        assert "hand" not in theirs and theirs["counts"]["hand"] == 3
        assert not set(hand) & set(json.dumps(seen).split('"'))
    assert "me" not in fight.view(spectator)
    for viewer in (karel, jana, spectator):
        assert "members" not in fight.view(viewer)  # no roster: the directory has the names
    everything = fight.view(fight.gm)
    assert {m["name"] for m in everything["members"].values()} >= {"Karel", "Jana", "Host"}
    assert everything["members"][karel.player_id]["role"] == "player"
    gm = everything["characters"][a]
    assert [c["card_id"] for c in gm["deck"]] == list(deck)
    assert [c["card_id"] for c in gm["hand"]] == list(hand)


def test_commands_need_a_running_game_and_the_right_role() -> None:
    fight = StaminaDeckGame()
    player = fight.player("Karel")
    spectator = fight.player("Host", role="spectator")
    fight.refused("game_not_running", StartRound())
    fight.refused("forbidden", StartRound(), actor=player)
    fight.refused("forbidden", EndTurn(character_id="k1"), actor=spectator)
    fight.start()
    fight.refused("not_found", EndTurn(character_id="k1"))
    a = fight.add("A")
    fight.refused("wrong_phase", EndTurn(character_id=a))
    fight.by_gm(EndGame())
    for command in (
        StartRound(),
        GiveCards(character_id=a, card_ids=[]),
        RenewDeck(character_id=a),
        Defend(character_id=a),
        Play(character_id=a, bout_id="b1"),
        Move(character_id=a, x=1, y=1),
        Engage(fighters=[a, a]),
    ):
        fight.refused("game_not_running", command)


def test_a_whole_fight_replays_and_every_draw_recomputes() -> None:
    fight, a, b, bout = melee_pair()
    for _ in range(2):
        for _ in range(3):
            attacker, defender = fight.state.bouts[bout].fighters
            fight.down(
                attacker, bout, None if not fight.ch(attacker).hand else fight.ch(attacker).hand[0]
            )
            fight.down(
                defender, bout, None if not fight.ch(defender).hand else fight.ch(defender).hand[0]
            )
            if fight.state.debts:
                fight.by_gm(GiveCards(character_id=fight.state.debts[0].character_id, card_ids=[]))
            if bout not in fight.state.bouts:
                break
        fight.round()
    assert fold(RULESET, fight.log) == fight.state
    chance_checked(fight)
    assert len(all_cards(fight)) == len(set(all_cards(fight))) == 40
    assert {card.split("-")[0] for card in all_cards(fight)} == {a, b}


def test_face_down_cards_go_back_when_the_bout_or_the_round_ends_unfinished() -> None:
    fight, a, b, bout = melee_pair()
    card = fight.ch(a).hand[0]
    fight.down(a, bout, card)
    assert fight.ch(a).actions == 1 and card in fight.ch(a).played
    events = fight.round()
    assert events[0].data["withdrawn"] == [
        {"character_id": a, "card_id": card, "to": "hand", "actions": 1}
    ]
    assert card in fight.ch(a).hand and card not in fight.ch(a).discard
    fight.by_gm(Play(character_id=b, bout_id=bout, card_id=fight.ch(b).hand[0]))
    fight.by_gm(Play(character_id=a, bout_id=bout, card_id=fight.ch(a).hand[0]))
    if fight.state.debts:
        fight.by_gm(GiveCards(character_id=fight.state.debts[0].character_id, card_ids=[]))
    attacker = fight.state.bouts[bout].attacker
    defender = fight.state.bouts[bout].opponent(attacker)
    hand = fight.ch(defender).hand
    fight.by_gm(Play(character_id=defender, bout_id=bout, card_id=hand[0]))
    events = fight.by_gm(Disengage(bout_id=bout))
    assert events[0].data["withdrawn"] == [
        {"character_id": defender, "card_id": hand[0], "to": "hand", "actions": 1}
    ]
    # Back in hand, and the action it took is given back: one card of the round was played.
    assert fight.ch(defender).hand[-1] == hand[0] and fight.ch(defender).actions == 1


def test_a_card_from_an_empty_deck_is_no_card_and_counts_0() -> None:
    fight = StaminaDeckGame({"stamina_deck_size": 1})
    fight.start()
    a = fight.add("A", x=5, y=5, lives=9)
    b = fight.add("B", side="blue", x=6, y=5, lives=9)
    fight.by_gm(Engage(fighters=[a, b]))
    fight.round()
    bout = fight.bout(a, b)
    assert fight.ch(a).deck == fight.ch(a).hand == ()  # the single card is the initiative
    events = fight.down(a, bout, None)
    assert events[0].data["source"] == "none" and events[0].data["card_id"] is None
    events = fight.down(b, bout, None)
    revealed = events[1].data
    assert revealed["cards"] == {a: None, b: None} and revealed["values"] == {a: 0, b: 0}
    assert revealed["result"] == "tie"


def test_renewing_needs_a_discard_pile() -> None:
    fight, a, b = ranged_pair(config={"stamina_deck_size": 2}, shooter=RIFLE_SHOT, shooting=0)
    fight.turn_to(a)
    fight.by_gm(Shoot(character_id=a, target_id=b, card_id=aim_for(fight, a, b, 1)))
    assert fight.ch(b).wound == "light" and fight.ch(b).deck == ()
    # Its one deck card defended and lies played: nothing discarded yet.
    fight.refused("empty_discard", RenewDeck(character_id=b))
    # The next round discards it; the old initiative card, replaced by nothing, is a deck again.
    initiative = fight.ch(b).initiative
    fight.round()
    assert fight.ch(b).deck == (initiative,) and len(fight.ch(b).discard) == 1
    fight.refused("deck_not_empty", RenewDeck(character_id=b))


def test_leaving_two_bouts_only_the_one_without_initiative_attacks() -> None:
    fight = StaminaDeckGame({"stamina_deck_size": 30})
    fight.start()
    hero = fight.add("Hrdina", x=5, y=5, melee=2, weapon=SABRE)
    one = fight.add("Jeden", side="blue", x=4, y=5, melee=2, weapon=SABRE)
    two = fight.add("Dva", side="blue", x=6, y=5, melee=2, weapon=SABRE, agi=1)  # attacks hero
    fight.by_gm(Engage(fighters=[hero, one]))
    fight.by_gm(Engage(fighters=[two, hero]))
    fight.round()
    fight.turn_to(hero)
    first, second = fight.bout(hero, one), fight.bout(hero, two)
    events = fight.by_gm(Move(character_id=hero, card_id=fight.ch(hero).hand[0], x=5, y=1))
    assert events[0].data["bouts"] == [second]
    fight.refused("waiting", Play(character_id=hero, bout_id=first, card_id=fight.ch(hero).hand[0]))
    fight.down(two, second, fight.ch(two).hand[0])
    events = fight.down(hero, second, fight.ch(hero).hand[0])
    if fight.state.debts:
        events = fight.by_gm(GiveCards(character_id=hero, card_ids=[]))
    ended = [e.data["bout_id"] for e in events if e.type == "bout_ended"]
    assert sorted(ended) == sorted([first, second]) and fight.state.bouts == {}
    assert (fight.ch(hero).x, fight.ch(hero).y) == (5, 1)


def test_a_medium_wounded_mover_starts_no_bout() -> None:
    fight, a, b = ranged_pair(config={"stamina_deck_size": 2}, shooter=RIFLE_SHOT, shooting=0)
    fight.turn_to(a)
    fight.by_gm(Shoot(character_id=a, target_id=b, card_id=aim_for(fight, a, b, 4)))
    assert fight.ch(b).wound == "medium"
    fight.by_gm(PlaceCharacter(character_id=b, x=5, y=0))
    fight.turn_to(b)
    events = fight.by_gm(Move(character_id=b, x=1, y=0))  # next to the shooter
    assert types(events) == ["character_moved"] and fight.state.bouts == {}


def test_the_config_is_checked() -> None:
    with pytest.raises(ValueError, match="wound_medium"):
        RULESET.config.model_validate({"wound_light": 4, "wound_medium": 3})
    with pytest.raises(ValueError, match="stamina_deck_size"):
        RULESET.config.model_validate({"stamina_deck_size": 53})
    assert RULESET.config.model_validate({}).model_dump() == {
        "face_values": {"J": 11, "Q": 12, "K": 13, "A": 14},
        "stamina_deck_size": 20,
        "wound_light": 2,
        "wound_medium": 5,
        "mat_size": 20,
    }
    assert RULESETS["stamina-deck"] is RULESET


def test_the_view_shows_what_is_waited_for() -> None:
    fight, a, b = ranged_pair()
    fight.turn_to(a)
    view = fight.view(fight.gm)
    assert view["waiting"] == {"shot": None, "debts": [], "leaving": None}
    assert (view["round"], view["phase"], view["turn"]) == (1, "actions", a)
    events = fight.by_gm(Shoot(character_id=a, target_id=b, card_id=fight.ch(a).hand[0]))
    shot = fight.view(fight.player("Host", role="spectator"))["waiting"]["shot"]
    fired = events[0].data
    assert shot == {
        "shot_id": fired["shot_id"],
        "shooter": a,
        "target": b,
        "attack": fired["attack"],
        "bonus": 0,
    }


# -- the end of the game ---------------------------------------------------------------------------


def nothing_open(state: StaminaDeck) -> bool:
    return (state.bouts, state.shot, state.debts, state.leaving) == ({}, None, (), None)


def test_a_shot_waiting_for_its_defence_is_called_off_when_the_game_ends() -> None:
    fight, a, b = ranged_pair()
    fight.turn_to(a)
    card = fight.ch(a).hand[0]
    fired = fight.by_gm(Shoot(character_id=a, target_id=b, card_id=card))[0].data
    assert fight.state.shot is not None and fight.ch(b).hand  # b has a card to choose
    hand = fight.ch(b).hand
    events = fight.by_gm(EndGame())
    assert types(events) == ["shot_cancelled", "game_ended"]
    assert events[0].data == {
        "shot_id": fired["shot_id"],
        "shooter": a,
        "target": b,
        "reason": "game_ended",
    }
    assert nothing_open(fight.state) and fight.view(fight.gm)["waiting"]["shot"] is None
    # The shot was fired: its card stays played; the target gave nothing.
    assert card in fight.ch(a).played and fight.ch(b).hand == hand
    assert fold(RULESET, fight.log) == fight.state


def test_owed_cards_are_called_off_when_the_game_ends() -> None:
    fight, a, b = ranged_pair(config={"stamina_deck_size": 30}, shooting=4)
    fight.turn_to(a)
    fight.by_gm(Shoot(character_id=a, target_id=b, card_id=aim_for(fight, a, b, 3)))
    fight.by_gm(Defend(character_id=b))
    hand, deck = fight.ch(b).hand, fight.ch(b).deck
    events = fight.by_gm(EndGame())
    assert types(events) == ["debt_cancelled", "game_ended"]
    assert events[0].data == {
        "character_id": b,
        "count": 3,
        "to": "discard",
        "reason": "game_ended",
    }
    assert nothing_open(fight.state) and fight.view(fight.gm)["waiting"]["debts"] == []
    assert (fight.ch(b).hand, fight.ch(b).deck, fight.ch(b).lives_lost) == (hand, deck, 0)
    assert fold(RULESET, fight.log) == fight.state


def test_bouts_end_with_the_game_and_a_face_down_card_goes_back() -> None:
    fight, a, _, bout = melee_pair()
    card = fight.ch(a).hand[0]
    fight.down(a, bout, card)
    events = fight.by_gm(EndGame())
    assert types(events) == ["bout_ended", "game_ended"]
    assert events[0].data == {
        "bout_id": bout,
        "reason": "game_ended",
        "withdrawn": [{"character_id": a, "card_id": card, "to": "hand", "actions": 1}],
    }
    assert nothing_open(fight.state)
    assert card in fight.ch(a).hand and card not in fight.ch(a).played and fight.ch(a).actions == 0
    assert fold(RULESET, fight.log) == fight.state


def test_a_leaver_waiting_for_the_attacks_stays_where_they_stood_when_the_game_ends() -> None:
    fight = StaminaDeckGame({"stamina_deck_size": 30})
    fight.start()
    hero = fight.add("Hrdina", x=5, y=5, melee=2, weapon=SABRE)
    one = fight.add("Jeden", side="blue", x=4, y=5, melee=2, weapon=SABRE)
    two = fight.add("Dva", side="blue", x=6, y=5, melee=2, weapon=SABRE, agi=1)  # attacks hero
    fight.by_gm(Engage(fighters=[hero, one]))
    fight.by_gm(Engage(fighters=[two, hero]))
    fight.round()
    fight.turn_to(hero)
    fight.by_gm(Move(character_id=hero, card_id=fight.ch(hero).hand[0], x=5, y=1))
    assert fight.state.leaving is not None
    events = fight.by_gm(EndGame())
    assert types(events) == ["bout_ended", "bout_ended", "leave_failed", "game_ended"]
    assert {e.data["reason"] for e in events[:2]} == {"game_ended"}
    assert events[2].data == {"character_id": hero}
    assert nothing_open(fight.state) and fight.ch(hero).square == (5, 5)
    assert fold(RULESET, fight.log) == fight.state


def test_a_game_with_nothing_open_just_ends() -> None:
    fight, _, _ = ranged_pair()
    assert types(fight.by_gm(EndGame())) == ["game_ended"]


# -- the log's lines -------------------------------------------------------------------------------


def test_lines_written_before_events_were_typed_read_into_their_records() -> None:
    """Lines as the untyped rules wrote them (a character's shuffled deck with its draw, a move
    with its `from`), read into today's records."""
    added = {
        "character_id": "k7",
        "name": "Rytíř",
        "side": "red",
        "player_id": None,
        "lives": 5,
        "agi": 1,
        "shooting": 0,
        "melee": 3,
        "unarmed": 0,
        "weapon": {
            "name": "šavle",
            "sz": 0,
            "melee_cards": 2,
            "reload_speed": 0,
            "melee": True,
            "ranged": False,
        },
        "armour": 2,
        "x": 3,
        "y": 3,
        "loaded": True,
        "deck": [{"card_id": "k7-QH", "suit": "hearts", "rank": "Q", "value": 12}],
        "chance": {"stream": 7, "from": 0, "draws": [{"shuffle": 52, "order": list(range(52))}]},
    }
    event = EVENTS.read("character_added", added, 1)
    assert isinstance(event.fact, CharacterAdded)
    assert event.fact.weapon is not None and event.fact.weapon.melee_cards == 2
    assert event.fact.deck[0].rank == "Q" and event.fact.chance == added["chance"]
    moved = {
        "character_id": "k7",
        "card_id": None,
        "from": {"x": 3, "y": 3},
        "to": {"x": 4, "y": 3},
    }
    event = EVENTS.read("character_moved", {**moved, "actions": 0}, 1)
    assert event.fact == CharacterMoved(
        character_id="k7", card_id=None, start=Square(x=3, y=3), to=Square(x=4, y=3), actions=0
    )
    assert EVENTS.again(Event.of(event.fact)) == event  # and written back as it was
