"""What a dice-combat view says its viewer may do (`may`): the GM's console and a player's
phone, against what decide answers (the property suite checks random fights the same way)."""

from server.rules.core import Json
from server.rules.roster import EndGame
from tests.rules.test_dice_combat import duel, started


def refused(may: Json, name: str) -> str | None:
    """The refusal code of an offered action; None when it is allowed."""
    entry = may[name]
    return None if entry is True else str(entry["code"])


def test_the_console_offers_the_turns_actions_and_greys_what_the_round_has_used() -> None:
    table, baldur, goblin = duel()
    may = table.view(table.gm)["may"]
    assert may["next_turn"] is True and may["end_fight"] is True and "begin_fight" not in may
    assert may[f"act:{baldur}:sprint:long"] is True
    assert may[f"act:{baldur}:cast:short"] is True and may[f"act:{baldur}:cast:long"] is True
    assert may[f"attack:{baldur}"] is True and may[f"flee:{baldur}"] is True
    # Out of turn the goblin may only speak; its attack is refused, and why.
    assert {n for n in may if n.startswith(f"act:{goblin}:")} == {f"act:{goblin}:speak:instant"}
    assert refused(may, f"attack:{goblin}") == "not_your_turn"

    table.order("act", combatant_id=baldur, action="retreat")
    table.order("act", combatant_id=baldur, action="stand_up")
    may = table.view(table.gm)["may"]
    assert refused(may, f"act:{baldur}:sprint:long") == "no_action_left"
    assert refused(may, f"act:{baldur}:retreat:short") == "no_action_left"
    assert refused(may, f"attack:{baldur}") == "no_action_left"
    assert refused(may, f"flee:{baldur}") == "no_action_left"
    assert may[f"act:{baldur}:speak:instant"] is True
    # Beside the retreat (a movement action) there is no short move.
    assert refused(may, f"act:{baldur}:short_move:instant") == "moving"


def test_the_console_offers_rolls_and_waits_for_them_before_the_next_turn() -> None:
    table = started()
    hana = table.join("Hana")
    baldur = table.add("Baldur", agi=10, player_id=hana.player_id, lives=30)
    goblin = table.add("Skřet", "skřeti", agi=-5, lives=30)
    table.begin(baldur, goblin)
    assert table.view(hana)["may"] == {}  # nothing to roll yet
    assert table.view(table.gm)["fight"]["last_turn"] is False
    attack_id = next(
        e.data["attack_id"] for e in table.attack(baldur, goblin) if e.type == "attack_declared"
    )
    may = table.view(table.gm)["may"]
    assert refused(may, "next_turn") == "rolls_pending"
    assert refused(may, f"attack:{baldur}") == "no_attack_left"
    assert may[f"roll:{attack_id}:attack"] is True and may[f"cancel_attack:{attack_id}"] is True
    assert f"roll:{attack_id}:defence" not in may  # the GM's goblin rolled at once
    assert table.view(hana)["may"] == {f"roll:{attack_id}:attack": True}
    table.send(hana, "roll", attack_id=attack_id, part="attack")
    assert table.view(hana)["may"] == {}
    table.order("next_turn")
    assert table.view(table.gm)["fight"]["last_turn"] is True  # the goblin is the last


def test_before_a_fight_the_console_offers_to_begin_one_and_after_the_end_nothing_goes() -> None:
    table = started()
    a, b = table.add("A"), table.add("B", "skřeti")
    may = table.view(table.gm)["may"]
    assert may["begin_fight"] is True and "next_turn" not in may
    assert may["start_chase"] is True and may["correct"] is True
    table.decide(table.gm, EndGame())
    may = table.view(table.gm)["may"]
    assert refused(may, "begin_fight") == "game_not_running"
    assert refused(may, "add_combatant") == "game_not_running"
    assert {a, b} <= set(table.state.combatants)


def test_first_aid_is_offered_for_each_healer_and_greyed_when_its_round_is_used() -> None:
    table, baldur, goblin = duel()
    medic = table.add("Felčar", first_aid=5)
    table.attack(baldur, goblin, modifiers=["helpless"])  # a helpless blow opens a wound
    may = table.view(table.gm)["may"]
    assert may[f"stop_bleeding:{goblin}"] is True
    assert may[f"first_aid:{medic}"] is True  # not in the fight: any time
    assert refused(may, f"first_aid:{baldur}") == "no_action_left"  # it has attacked
    assert refused(may, f"first_aid:{goblin}") == "not_your_turn"
    assert may[f"join_fight:{medic}"] is True
