"""stamina-deck's `may`: what each viewer is offered, judged by decide's own guards."""

from server.rules.roster import EndGame
from server.rules.stamina_deck.commands import Engage, Shoot
from tests.rules.drivers.stamina_deck import PISTOL, SABRE, StaminaDeckGame


def test_a_player_is_offered_their_characters_turn_and_a_stranger_nothing() -> None:
    fight = StaminaDeckGame()
    anna, bob = fight.player("Anna"), fight.player("Bob")
    archer = fight.add("Archer", "red", 1, 1, shooting=2, weapon=PISTOL, player_id=anna.player_id)
    robber = fight.add("Robber", "blue", 6, 6, shooting=2, player_id=bob.player_id)
    fight.start()
    fight.turn_to(archer)
    may = fight.view(anna)["may"]
    assert may[f"end_turn:{archer}"] is True
    assert may[f"move:{archer}"] is True
    assert may[f"shoot:{archer}:{robber}"] is True
    assert may[f"put_aid:{archer}"] is True
    assert may[f"reload:{archer}"] == {"code": "already_loaded"}
    # Bob's robber is not on turn: his phone is offered nothing of the archer's turn.
    assert not [name for name in fight.view(bob)["may"] if archer in name]
    assert fight.view(fight.member(fight.gm.player_id))["may"][f"end_turn:{archer}"] is True


def test_a_shot_waits_for_its_defence_and_the_view_says_so() -> None:
    fight = StaminaDeckGame()
    anna, bob = fight.player("Anna"), fight.player("Bob")
    archer = fight.add("Archer", "red", 1, 1, shooting=2, weapon=PISTOL, player_id=anna.player_id)
    robber = fight.add("Robber", "blue", 6, 6, shooting=2, player_id=bob.player_id)
    fight.start()
    fight.turn_to(archer)
    fight.run(anna, Shoot(character_id=archer, target_id=robber, card_id=fight.highest(archer)))
    assert fight.state.shot is not None
    assert fight.view(bob)["may"][f"defend:{robber}"] is True
    may = fight.view(anna)["may"]
    assert may[f"end_turn:{archer}"] == {"code": "waiting"}
    assert may[f"shoot:{archer}:{robber}"] == {"code": "waiting"}
    gm = fight.view(fight.gm)["may"]
    assert gm["start_round"] == {"code": "waiting"}
    assert gm[f"defend:{robber}"] is True


def test_the_gm_is_offered_pairs_in_contact_and_bouts_to_end() -> None:
    fight = StaminaDeckGame()
    knight = fight.add("Knight", "red", 2, 2, melee=2, weapon=SABRE)
    robber = fight.add("Robber", "blue", 3, 3, unarmed=2)
    fight.add("Far", "blue", 9, 9)
    fight.start()
    may = fight.view(fight.gm)["may"]
    (pair,) = [name for name in may if name.startswith("engage:")]
    assert pair == f"engage:{knight}:{robber}"  # once a pair, in the order they were added
    assert may[pair] is True
    fight.by_gm(Engage(fighters=[knight, robber]))
    bout = fight.bout(knight, robber)
    may = fight.view(fight.gm)["may"]
    assert may[f"disengage:{bout}"] is True
    assert not [name for name in may if name.startswith("engage:")]  # they fight already
    fight.round()
    may = fight.view(fight.gm)["may"]
    # The attacker plays a hand card, never the deck while it holds cards.
    assert may[f"play:{knight}:{bout}"] is True
    assert may[f"play_deck:{knight}:{bout}"] == {"code": "must_play_hand"}


def test_an_engage_key_names_the_pair_whoever_stands_ahead() -> None:
    fight = StaminaDeckGame()
    robber = fight.add("Robber", "blue", 3, 3, unarmed=2)
    knight = fight.add("Knight", "red", 2, 2, melee=2, weapon=SABRE)
    fight.start()
    for _ in range(4):  # rounds in which either may stand ahead
        fight.round()
        may = fight.view(fight.gm)["may"]
        assert [name for name in may if name.startswith("engage:")] == [f"engage:{robber}:{knight}"]
    first = fight.state.order[0]
    events = fight.by_gm(Engage(fighters=[robber, knight]))
    assert events[0].data["attacker"] == first  # the server picks who attacks


def test_an_ended_game_offers_nothing_that_would_be_accepted() -> None:
    fight = StaminaDeckGame()
    anna = fight.player("Anna")
    archer = fight.add("Archer", "red", 1, 1, weapon=PISTOL, player_id=anna.player_id)
    fight.add("Robber", "blue", 6, 6)
    fight.start()
    fight.turn_to(archer)
    fight.by_gm(EndGame())
    for viewer in (anna, fight.gm):
        may = fight.view(viewer)["may"]
        assert may and all(entry == {"code": "game_not_running"} for entry in may.values()), may
