"""Every rule of `card-duel` (docs/rules/card-duel.md), one at a time, through decide, evolve
and view."""

import dataclasses
import hashlib
import json
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from server.clock import iso
from server.rules.card_duel import RULESET
from server.rules.card_duel.cards import Card, Kind, beats
from server.rules.card_duel.commands import (
    CancelDuel,
    Challenge,
    GrantCard,
    GrantItem,
    Heal,
    LeaveDuel,
    OfflineDuel,
    Pick,
    RegisterKey,
    Revive,
    SettleDispute,
)
from server.rules.card_duel.config import Config
from server.rules.card_duel.decide import named
from server.rules.core import Event, Member, RuleError
from server.rules.roster import AddPlayer, EndGame, StartGame
from server.rules.validation import invalid
from tests.rules.drivers.base import SEED, T0
from tests.rules.drivers.card_duel import STARTING, CardDuelGame, types

CHAIR, DAGGER, CROWD = STARTING  # 3/2 stun, 2/3 wound, 1/4 escape


def started(config: dict[str, Any] | None = None) -> tuple[CardDuelGame, Member, Member, Member]:
    game = CardDuelGame(config)
    a, b, c = game.add("Rincewind"), game.add("Vimes"), game.add("Nobby")
    game.start()
    return game, a, b, c


def refused(game: CardDuelGame, code: str, action: Callable[[], object]) -> None:
    """The action is refused with `code`, and nothing is written."""
    before = len(game.log)
    with pytest.raises(RuleError) as info:
        action()
    assert info.value.code == code
    assert len(game.log) == before


def outcomes(events: list[Event]) -> list[dict[str, Any]]:
    (ended,) = [e for e in events if e.type == "duel_ended"]
    return list(ended.data["outcomes"])


def card(big: int, small: int, kind: Kind = "stun", ranged: bool = False) -> Card:
    return Card("c", f"{big}/{small}", big, small, kind, ranged)


# -- which card beats which ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "a_wins", "b_wins"),
    [
        ((3, 2), (2, 3), True, False),  # a bigger big number
        ((2, 4), (2, 2), True, False),  # a small number bigger by two
        ((3, 3), (3, 2), False, False),  # equal big, small bigger by one only
        ((4, 1), (1, 4), True, True),  # one wins on big, the other on small
        ((2, 3), (2, 3), False, False),  # the same numbers
        ((0, 0), (0, 2), False, True),  # small exactly two bigger
        ((9, 9), (3, 2), True, False),  # Death's card
        ((1, 5), (2, 2), True, True),
        ((1, 4), (2, 3), False, True),
    ],
)
def test_beats_bigger_big_or_small_bigger_by_two(
    a: tuple[int, int], b: tuple[int, int], a_wins: bool, b_wins: bool
) -> None:
    assert beats(card(*a), card(*b)) is a_wins
    assert beats(card(*b), card(*a)) is b_wins


def test_starting_cards_default_to_the_three_of_the_rules() -> None:
    game, a, _, _ = started()
    cards = [(c.title, c.big, c.small, c.kind, c.ranged) for c in game.fighter(a).cards]
    assert cards == [
        ("Rána židlí", 3, 2, "stun", False),
        ("Rána Ankh-Morporskou dýkou", 2, 3, "wound", False),
        ("Ztracení se v davu", 1, 4, "escape", False),
    ]


# -- a duel: rounds, winners, cards staying home -------------------------------------------------


def test_nobody_wins_a_new_round_with_the_same_card_allowed() -> None:
    game, a, b, _ = started()
    duel_id = game.challenge(a, b)
    game.pick(a, duel_id, game.card(a, CHAIR))
    events = game.pick(b, duel_id, game.card(b, CHAIR))

    assert types(events) == ["card_picked", "round_revealed"]
    assert events[1].data["winners"] == []
    duel = game.state.duels[duel_id]
    assert (duel.round, duel.picks) == (2, {})
    assert game.fighter(a).duel_id == duel_id and game.fighter(b).duel_id == duel_id

    # Round 2: the same cards again are allowed, and again nobody wins.
    game.pick(a, duel_id, game.card(a, CHAIR))
    events = game.pick(b, duel_id, game.card(b, CHAIR))
    assert types(events) == ["card_picked", "round_revealed"]
    assert events[1].data["round"] == 2
    assert game.state.duels[duel_id].round == 3

    # Round 3: the chair (3/2) beats the dagger (2/3): only the chair's stun applies.
    game.pick(a, duel_id, game.card(a, CHAIR))
    events = game.pick(b, duel_id, game.card(b, DAGGER))
    assert types(events) == ["card_picked", "round_revealed", "player_stunned", "duel_ended"]
    assert events[1].data["winners"] == [a.player_id]
    assert duel_id not in game.state.duels
    assert game.fighter(b).stunned_until is not None
    assert not game.fighter(b).wounded
    assert game.fighter(a).stunned_until is None
    assert [r.round for r in game.state.last_duels[a.player_id].rounds] == [1, 2, 3]


def test_cards_are_revealed_at_once_only_when_both_have_picked() -> None:
    game, a, b, _ = started()
    duel_id = game.challenge(a, b)
    events = game.pick(a, duel_id, game.card(a, DAGGER))
    assert types(events) == ["card_picked"]
    seen_by_b = game.view(b)["duel"]
    assert seen_by_b["opponent_picked"] is True
    assert seen_by_b["my_pick"] is None
    assert seen_by_b["rounds"] == []
    assert game.view(a)["duel"]["my_pick"] == game.card(a, DAGGER)
    assert game.view(a)["duel"]["opponent_picked"] is False

    events = game.pick(b, duel_id, game.card(b, CHAIR))
    shown = events[1].data["cards"]
    assert shown[a.player_id]["card_id"] == game.card(a, DAGGER)
    assert shown[b.player_id]["card_id"] == game.card(b, CHAIR)


def test_cards_stay_with_their_owners_after_a_duel() -> None:
    game, a, b, _ = started()
    cards_a, cards_b = game.fighter(a).cards, game.fighter(b).cards
    game.duel(a, b, CHAIR, DAGGER)
    assert game.fighter(a).cards == cards_a
    assert game.fighter(b).cards == cards_b


def test_both_win_both_outcomes_apply() -> None:
    game, a, b, _ = started({"stun_s": 60})
    game.grant(a, "Kopanec", 4, 1, "stun")
    game.grant(b, "Píchnutí", 1, 4, "wound")
    game.now = T0 + 1_000
    events = game.duel(a, b, "Kopanec", "Píchnutí")

    assert sorted(events[1].data["winners"]) == sorted([a.player_id, b.player_id])
    assert game.fighter(b).stunned_until == T0 + 61_000
    assert game.fighter(a).wounded is True
    assert game.fighter(a).stunned_until is None
    assert game.fighter(b).wounded is False
    assert sorted((o["player_id"], o["effect"]) for o in outcomes(events)) == sorted(
        [(b.player_id, "stun"), (a.player_id, "wound")]
    )


def test_escape_against_a_ranged_card_fails_and_the_escaper_suffers() -> None:
    game, a, b, c = started()
    game.grant(a, "Hozená dlažební kostka", 4, 1, "wound", ranged=True)
    events = game.duel(a, b, "Hozená dlažební kostka", CROWD)  # both win: 4 > 1, 4 >= 1 + 2

    assert len(events[1].data["winners"]) == 2
    assert "player_escaped" not in types(events)
    assert game.fighter(b).wounded is True
    assert game.fighter(b).immune_until is None
    assert game.fighter(a).wounded is False
    assert sorted((o["player_id"], o["effect"]) for o in outcomes(events)) == sorted(
        [(b.player_id, "wound"), (b.player_id, "escape_failed")]
    )
    effects = [o.effect for o in game.state.last_duels[b.player_id].outcomes]
    assert "escape_failed" in effects
    # No free leave: the failed escaper may be challenged at once.
    game.challenge(c, b)


def test_escape_against_a_ranged_stun_leaves_the_escaper_stunned() -> None:
    game, a, b, _ = started({"stun_s": 30})
    game.grant(a, "Šipka", 5, 0, "stun", ranged=True)
    events = game.duel(a, b, "Šipka", CROWD)
    assert game.fighter(b).stunned_until == T0 + 30_000
    assert game.fighter(b).immune_until is None
    assert [o["effect"] for o in outcomes(events) if o["player_id"] == b.player_id] == [
        "stun",
        "escape_failed",
    ]


def test_escape_against_a_melee_card_succeeds_and_the_other_card_has_no_effect() -> None:
    game, a, b, c = started({"escape_immunity_s": 10})
    game.grant(a, "Kladivo", 4, 1, "wound")
    events = game.duel(a, b, "Kladivo", CROWD)  # both win

    assert len(events[1].data["winners"]) == 2
    assert "player_wounded" not in types(events)
    assert game.fighter(a).wounded is False and game.fighter(b).wounded is False
    assert game.fighter(b).immune_until == T0 + 10_000
    assert outcomes(events) == [
        {"player_id": b.player_id, "effect": "escape", "until": iso(T0 + 10_000)}
    ]
    refused(game, "immune", lambda: game.challenge(c, b))


def test_escape_against_the_melee_chair_of_the_starting_cards() -> None:
    game, a, b, _ = started()
    events = game.duel(a, b, CHAIR, CROWD)  # 3 > 1 and 4 >= 2 + 2: both win
    assert [(o["player_id"], o["effect"]) for o in outcomes(events)] == [(b.player_id, "escape")]
    assert game.fighter(b).stunned_until is None


def test_escape_winning_alone_against_a_ranged_card_gives_free_leave() -> None:
    game, a, b, _ = started({"escape_immunity_s": 10})
    game.grant(a, "Prak", 1, 1, "stun", ranged=True)
    events = game.duel(a, b, "Prak", CROWD)  # only the escape wins (4 >= 1 + 2)
    assert events[1].data["winners"] == [b.player_id]
    assert game.fighter(b).immune_until == T0 + 10_000
    assert game.fighter(b).stunned_until is None


def test_two_escapes_both_get_free_leave() -> None:
    game, a, b, c = started({"escape_immunity_s": 20})
    game.grant(a, "Útěk po střechách", 3, 1, "escape")
    events = game.duel(a, b, "Útěk po střechách", CROWD)  # 3 > 1 and 4 >= 1 + 2

    assert len(events[1].data["winners"]) == 2
    assert types(events).count("player_escaped") == 2
    assert game.fighter(a).immune_until == T0 + 20_000
    assert game.fighter(b).immune_until == T0 + 20_000
    refused(game, "immune", lambda: game.challenge(c, a))
    refused(game, "immune", lambda: game.challenge(c, b))


# -- stun: an absolute time ----------------------------------------------------------------------


def test_stun_lasts_stun_s_from_the_duel_as_an_absolute_time() -> None:
    game, a, b, c = started({"stun_s": 60})
    at = T0 + 5_000
    duel_id = game.challenge(a, b, at=at)
    game.pick(a, duel_id, game.card(a, CHAIR), at=at)
    events = game.pick(b, duel_id, game.card(b, DAGGER), at=at)

    until = at + 60_000
    assert game.fighter(b).stunned_until == until
    assert events[2].type == "player_stunned"
    assert events[2].data == {"duel_id": duel_id, "player_id": b.player_id, "until": iso(until)}
    assert game.view(b, until - 1)["me"]["stunned_until"] == iso(until)
    players = game.view(game.organizer, until - 1)["players"]
    assert players[b.player_id]["challengeable"] is False

    # Still stunned one millisecond before: cannot challenge nor be challenged.
    refused(game, "stunned", lambda: game.challenge(b, c, at=until - 1))
    refused(game, "stunned", lambda: game.challenge(c, b, at=until - 1))

    # At the time itself the stun is over, both ways.
    players = game.view(game.organizer, until)["players"]
    assert players[b.player_id]["challengeable"] is True
    game.challenge(b, c, at=until)
    game.run(game.organizer, CancelDuel(duel_id=game.fighter(b).duel_id or ""))
    game.challenge(c, b, at=until)


# -- free leave ----------------------------------------------------------------------------------


def test_free_leave_protects_from_challenges_for_escape_immunity_s() -> None:
    game, a, b, c = started({"escape_immunity_s": 30})
    game.duel(a, b, CHAIR, CROWD, at=T0 + 2_000)  # b escapes

    until = T0 + 2_000 + 30_000
    assert game.fighter(b).immune_until == until
    assert game.view(b, until - 1)["me"]["immune_until"] == iso(until)
    players = game.view(game.organizer, until - 1)["players"]
    assert players[b.player_id]["challengeable"] is False
    refused(game, "immune", lambda: game.challenge(c, b, at=until - 1))
    refused(game, "immune", lambda: game.challenge(a, b, at=until - 1))
    game.challenge(c, b, at=until)


def test_free_leave_does_not_stop_its_holder_from_challenging_and_challenging_ends_it() -> None:
    game, a, b, c = started({"escape_immunity_s": 60})
    game.duel(a, b, CHAIR, CROWD)  # b escapes: free leave until T0 + 60 s
    assert game.fighter(b).immune_until == T0 + 60_000

    duel_id = game.challenge(b, c, at=T0 + 5_000)
    assert game.fighter(b).immune_until == T0 + 5_000  # ended when b challenged
    game.run(game.organizer, CancelDuel(duel_id=duel_id), at=T0 + 6_000)
    # Well before the old end of the free leave, b may be challenged again.
    game.challenge(a, b, at=T0 + 7_000)


def test_a_refused_challenge_does_not_end_free_leave() -> None:
    game, a, b, c = started({"escape_immunity_s": 60})
    game.duel(a, b, CHAIR, CROWD)
    refused(game, "invalid", lambda: game.challenge(b, b, at=T0 + 1_000))
    refused(game, "needs_crossbow", lambda: game.challenge(b, c, ranged=True, at=T0 + 1_000))
    assert game.fighter(b).immune_until == T0 + 60_000
    refused(game, "immune", lambda: game.challenge(c, b, at=T0 + 2_000))


# -- wound, death, revive, heal ------------------------------------------------------------------


def test_a_wound_marks_the_loser_wounded() -> None:
    game, a, b, _ = started()
    events = game.duel(a, b, DAGGER, CROWD)  # 2 > 1; 4 < 3 + 2
    assert types(events)[-2:] == ["player_wounded", "duel_ended"]
    assert game.fighter(b).wounded is True
    assert game.view(b)["me"]["wounded"] is True
    assert game.fighter(a).wounded is False


def test_wounding_a_wounded_player_has_no_further_effect() -> None:
    game, a, b, _ = started()
    game.duel(a, b, DAGGER, CROWD)
    before = game.fighter(b)
    game.duel(a, b, DAGGER, CROWD)
    after = game.fighter(b)
    assert after.wounded is True
    assert after.alive is True
    # No second wound, nothing else changed but the count of the log's changes to it (and the
    # duels it began, kept for offline records, and the duels it lost).
    assert after.revision > before.revision and len(after.starts) == len(before.starts) + 1
    assert after.lost == before.lost + 1
    unchanged = {"revision": before.revision, "starts": before.starts, "lost": before.lost}
    assert dataclasses.replace(after, **unchanged) == before


def test_death_leaves_the_loser_dead_and_out_of_every_duel() -> None:
    game, a, b, c = started()
    game.grant(a, "Kosa", 9, 9, "death")
    events = game.duel(a, b, "Kosa", CHAIR)
    assert "player_killed" in types(events)
    assert game.fighter(b).alive is False
    assert game.fighter(b).duel_id is None
    assert game.view(b)["me"]["alive"] is False
    assert "players" not in game.view(c)  # a player's view carries no roster
    players = game.view(game.organizer)["players"]
    assert players[b.player_id]["challengeable"] is False

    refused(game, "dead", lambda: game.challenge(b, c))
    refused(game, "dead", lambda: game.challenge(c, b))


def test_revive_gives_a_fresh_status_and_the_starting_cards_only() -> None:
    game, a, b, c = started()
    granted = game.grant(b, "Meč", 5, 0, "wound")
    game.crossbow(b)
    game.duel(a, b, DAGGER, CROWD)  # b wounded
    old_cards = {card.card_id for card in game.fighter(b).cards}
    game.grant(a, "Kosa", 9, 9, "death")
    game.duel(a, b, "Kosa", CHAIR)  # b dead
    assert game.fighter(b).alive is False

    events = game.run(game.organizer, Revive(player_id=b.player_id))
    assert types(events) == ["player_revived"]
    fighter = game.fighter(b)
    assert fighter.alive is True
    assert fighter.wounded is False
    assert fighter.stunned_until is None and fighter.immune_until is None
    assert fighter.items == ()
    assert fighter.duel_id is None
    assert [card.title for card in fighter.cards] == list(STARTING)
    assert fighter.card(granted) is None
    assert not old_cards & {card.card_id for card in fighter.cards}  # new cards, new ids
    # The new character duels again.
    game.challenge(c, b)


def test_revive_only_the_dead() -> None:
    game, _, b, _ = started()
    refused(game, "not_dead", lambda: game.run(game.organizer, Revive(player_id=b.player_id)))
    refused(game, "not_found", lambda: game.run(game.organizer, Revive(player_id="p99")))


def test_heal_by_the_organizer_ends_a_wound() -> None:
    game, a, b, _ = started()
    game.duel(a, b, DAGGER, CROWD)
    refused(game, "forbidden", lambda: game.run(a, Heal(player_id=b.player_id)))
    refused(game, "forbidden", lambda: game.run(b, Heal(player_id=b.player_id)))
    assert game.fighter(b).wounded is True

    events = game.run(game.organizer, Heal(player_id=b.player_id))
    assert types(events) == ["player_healed"]
    assert game.fighter(b).wounded is False
    assert game.view(b)["me"]["wounded"] is False


def test_heal_refuses_a_player_who_is_not_wounded() -> None:
    game, a, _, _ = started()
    refused(game, "not_wounded", lambda: game.run(game.organizer, Heal(player_id=a.player_id)))


# -- special cards: words on the loser's phone ---------------------------------------------------

CURSE = "Kletba: 10 minut mluvíš jen ve verších"


def test_a_winning_special_card_records_its_effect_on_the_loser_and_no_status() -> None:
    game, a, b, _ = started()
    card_id = game.grant(a, "Kletba", 3, 2, "special", effect=CURSE, effect_s=600)
    game.now = T0 + 1_000
    events = game.duel(a, b, card_id, DAGGER)  # 3 > 2

    until = iso(T0 + 601_000)
    assert types(events) == ["card_picked", "round_revealed", "effect_suffered", "duel_ended"]
    assert events[2].data == {
        "duel_id": events[2].data["duel_id"],
        "player_id": b.player_id,
        "card_id": card_id,
        "effect": CURSE,
        "effect_s": 600,
        "until": until,
    }
    assert outcomes(events) == [{"player_id": b.player_id, "effect": "special", "until": until}]
    loser = game.fighter(b)  # the server applies nothing of its own: people do
    assert (loser.alive, loser.wounded, loser.stunned_until, loser.immune_until) == (
        True,
        False,
        None,
        None,
    )
    assert game.view(b)["me"]["effect"] == {"text": CURSE, "until": until}
    assert game.view(a)["me"]["effect"] is None
    for viewer in (a, b):  # the reveal tells both what it did
        (shown,) = game.view(viewer)["last_duel"]["outcomes"]
        assert shown == {
            "player_id": b.player_id,
            "effect": "special",
            "until": until,
            "text": CURSE,
        }
    row = game.view(game.organizer)["players"][b.player_id]
    assert row["effect"] == {"text": CURSE, "until": until} and row["challengeable"] is True


def test_a_special_card_shows_its_effect_and_a_plain_card_none() -> None:
    game, a, _, _ = started()
    card_id = game.grant(a, "Zaklínadlo", 1, 1, "special", ranged=True, effect="Zakokrhej")
    (granted,) = [c for c in game.view(a)["me"]["cards"] if c["card_id"] == card_id]
    assert granted == {
        "card_id": card_id,
        "title": "Zaklínadlo",
        "big": 1,
        "small": 1,
        "kind": "special",
        "ranged": True,
        "effect": "Zakokrhej",
        "effect_s": None,
    }
    assert game.log[-1].data["card"] == granted  # the event carries the card as shown
    plain = game.view(a)["me"]["cards"][0]
    assert "effect" not in plain and "effect_s" not in plain


def test_losing_with_a_special_card_does_nothing_special() -> None:
    game, a, b, _ = started()
    card_id = game.grant(b, "Kletba", 0, 0, "special", effect=CURSE)
    events = game.duel(a, b, DAGGER, card_id)
    assert types(events)[-2:] == ["player_wounded", "duel_ended"]
    assert game.fighter(a).suffered is None and game.fighter(b).suffered is None


def test_an_untimed_effect_holds_until_the_losers_next_duel() -> None:
    game, a, b, c = started()
    card_id = game.grant(a, "Klobouk", 3, 2, "special", effect="Odevzdej klobouk")
    events = game.duel(a, b, card_id, DAGGER)
    assert events[2].data["effect_s"] is None and events[2].data["until"] is None
    assert outcomes(events) == [{"player_id": b.player_id, "effect": "special", "until": None}]
    assert game.view(b, T0 + 86_400_000)["me"]["effect"] == {
        "text": "Odevzdej klobouk",
        "until": None,
    }
    game.challenge(c, b, at=T0 + 5_000)
    assert game.view(b)["me"]["effect"] is None


def test_a_timed_effect_outlives_a_new_duel_until_its_time_is_up() -> None:
    game, a, b, c = started()
    card_id = game.grant(a, "Kletba", 3, 2, "special", effect=CURSE, effect_s=60)
    game.duel(a, b, card_id, DAGGER)
    game.challenge(c, b, at=T0 + 59_999)
    assert game.fighter(b).suffered is not None
    game.run(game.organizer, CancelDuel(duel_id=game.fighter(b).duel_id or ""))
    game.challenge(c, b, at=T0 + 60_000)  # the effect has run out: the duel clears it
    assert game.fighter(b).suffered is None


def test_a_new_special_effect_replaces_the_one_before() -> None:
    game, a, b, _ = started()
    curse = game.grant(a, "Kletba", 3, 2, "special", effect=CURSE, effect_s=600)
    frog = game.grant(a, "Žába", 3, 2, "special", effect="Jsi žába", effect_s=60)
    game.duel(a, b, curse, DAGGER)
    game.duel(a, b, frog, DAGGER, at=T0 + 1_000)
    assert game.view(b)["me"]["effect"] == {"text": "Jsi žába", "until": iso(T0 + 61_000)}


def test_a_special_card_against_an_escape_counts_by_its_ranged_flag() -> None:
    game, a, b, _ = started({"escape_immunity_s": 10})
    melee = game.grant(a, "Kletba", 4, 1, "special", effect=CURSE)
    events = game.duel(a, b, melee, CROWD)  # both win: the escape gets away from a melee card
    assert "effect_suffered" not in types(events)
    assert outcomes(events) == [
        {"player_id": b.player_id, "effect": "escape", "until": iso(T0 + 10_000)}
    ]
    assert game.fighter(b).suffered is None

    game.now = T0 + 20_000
    thrown = game.grant(a, "Vržená kletba", 4, 1, "special", ranged=True, effect=CURSE)
    events = game.duel(a, b, thrown, CROWD)  # a ranged special catches the one running away
    assert types(events)[-2:] == ["effect_suffered", "duel_ended"]
    assert [(o["player_id"], o["effect"]) for o in outcomes(events)] == [
        (b.player_id, "special"),
        (b.player_id, "escape_failed"),
    ]
    assert game.fighter(b).immune_until == T0 + 10_000  # the old free leave, none new
    assert game.view(b)["me"]["effect"] == {"text": CURSE, "until": None}


def test_two_winning_special_cards_strike_both() -> None:
    game, a, b, _ = started()
    mine = game.grant(a, "Kletba", 4, 1, "special", effect=CURSE, effect_s=30)
    theirs = game.grant(b, "Žába", 1, 4, "special", effect="Jsi žába")
    events = game.duel(a, b, mine, theirs)  # both win
    suffered = [
        (e.data["player_id"], e.data["effect"]) for e in events if e.type == "effect_suffered"
    ]
    assert suffered == [(b.player_id, CURSE), (a.player_id, "Jsi žába")]  # challenger's first
    for viewer in (a, b):
        shown = {o["player_id"]: o["text"] for o in game.view(viewer)["last_duel"]["outcomes"]}
        assert shown == {b.player_id: CURSE, a.player_id: "Jsi žába"}


@pytest.mark.parametrize(
    ("card", "problem"),
    [
        ({"kind": "special"}, "a special card needs an effect"),
        ({"kind": "special", "effect": "   "}, "a special card needs an effect"),
        ({"kind": "special", "effect_s": 60}, "a special card needs an effect"),
        ({"kind": "special", "effect": "x" * 201}, "at most 200 characters"),
        ({"kind": "special", "effect": "x", "effect_s": 0}, "greater than or equal to 1"),
        ({"kind": "stun", "effect": "x"}, "belong to a special card, not to a stun card"),
        ({"kind": "wound", "effect_s": 60}, "belong to a special card, not to a wound card"),
    ],
)
def test_only_a_special_card_carries_an_effect_and_it_must(
    card: dict[str, Any], problem: str
) -> None:
    spec = {"title": "X", "big": 1, "small": 1, **card}
    with pytest.raises(ValidationError) as info:
        GrantCard.model_validate({"player_id": "p3", "card": spec})
    error = invalid(info.value)
    assert error.code == "invalid" and problem in error.message, error.message


def test_a_special_card_needs_the_organizer() -> None:
    game, a, b, _ = started()
    spec = {"title": "X", "big": 9, "small": 9, "kind": "special", "effect": CURSE}
    command = GrantCard.model_validate({"player_id": a.player_id, "card": spec})
    refused(game, "forbidden", lambda: game.run(b, command))


# -- items and cards -----------------------------------------------------------------------------


def test_a_ranged_challenge_needs_a_crossbow() -> None:
    game, a, b, _ = started()
    refused(game, "needs_crossbow", lambda: game.challenge(a, b, ranged=True))

    game.crossbow(a)
    assert game.fighter(a).items == ("crossbow",)
    assert game.view(a)["me"]["items"] == ["crossbow"]
    duel_id = game.challenge(a, b, ranged=True)
    assert game.state.duels[duel_id].ranged is True
    assert game.view(b)["duel"]["ranged"] is True
    refused(game, "already_has_item", lambda: game.crossbow(a))


def test_starting_cards_come_from_the_config() -> None:
    config = {
        "starting_cards": [
            {"title": "Kámen", "big": 4, "small": 1, "kind": "stun"},
            {"title": "Útěk", "big": 0, "small": 5, "kind": "escape", "ranged": True},
            {"title": "Tyč", "big": 5, "small": 0, "kind": "wound"},
        ]
    }
    game, a, b, _ = started(config)
    for member in (a, b):
        cards = [(c.title, c.big, c.small, c.kind, c.ranged) for c in game.fighter(member).cards]
        assert cards == [
            ("Kámen", 4, 1, "stun", False),
            ("Útěk", 0, 5, "escape", True),
            ("Tyč", 5, 0, "wound", False),
        ]
    ids = [c.card_id for m in (a, b) for c in game.fighter(m).cards]
    assert len(set(ids)) == 6


def test_a_config_sent_as_json_may_set_the_starting_cards() -> None:
    # The referee validates the organizer's JSON config with `RULESET.config.model_validate`, and
    # the published schema asks for an array: JSON has lists, no tuples.
    schema = RULESET.config.model_json_schema()
    assert schema["properties"]["starting_cards"]["type"] == "array"
    body = '{"starting_cards": [{"title": "Kámen", "big": 4, "small": 1, "kind": "stun"}]}'
    settings = Config.model_validate(json.loads(body))
    assert RULESET.config is Config
    assert [(c.title, c.big, c.small) for c in settings.starting_cards] == [("Kámen", 4, 1)]


def test_a_granted_card_is_usable_in_a_duel() -> None:
    game, a, b, _ = started()
    card_id = game.grant(a, "Smrtka", 9, 9, "death")
    assert game.fighter(a).card(card_id) is not None
    assert card_id in [c["card_id"] for c in game.view(a)["me"]["cards"]]
    events = game.duel(a, b, card_id, CHAIR)
    assert events[1].data["cards"][a.player_id]["title"] == "Smrtka"
    assert game.fighter(b).alive is False


def test_grant_card_to_an_unknown_or_dead_player_is_refused() -> None:
    game, a, b, _ = started()
    spec = {"title": "X", "big": 1, "small": 1, "kind": "stun"}
    refused(
        game,
        "not_found",
        lambda: game.run(
            game.organizer, GrantCard.model_validate({"player_id": "p99", "card": spec})
        ),
    )
    game.grant(a, "Kosa", 9, 9, "death")
    game.duel(a, b, "Kosa", CHAIR)
    refused(game, "dead", lambda: game.grant(b, "X", 1, 1, "stun"))


def test_a_player_can_pick_only_their_own_card() -> None:
    game, a, b, _ = started()
    duel_id = game.challenge(a, b)
    refused(game, "not_your_card", lambda: game.pick(a, duel_id, game.card(b, CHAIR)))
    refused(game, "not_your_card", lambda: game.pick(a, duel_id, "c999"))
    assert game.state.duels[duel_id].picks == {}


def test_a_player_picks_once_a_round() -> None:
    game, a, b, _ = started()
    duel_id = game.challenge(a, b)
    game.pick(a, duel_id, game.card(a, CHAIR))
    refused(game, "already_picked", lambda: game.pick(a, duel_id, game.card(a, CHAIR)))
    refused(game, "already_picked", lambda: game.pick(a, duel_id, game.card(a, DAGGER)))
    assert game.state.duels[duel_id].picks == {a.player_id: game.card(a, CHAIR)}


def test_only_the_two_duellists_pick_in_a_duel() -> None:
    game, a, b, c = started()
    duel_id = game.challenge(a, b)
    refused(game, "forbidden", lambda: game.pick(c, duel_id, game.card(c, CHAIR)))
    refused(game, "not_found", lambda: game.pick(a, "d999", game.card(a, CHAIR)))


# -- who may be challenged -----------------------------------------------------------------------


def test_nobody_in_a_duel_challenges_or_is_challenged() -> None:
    game, a, b, c = started()
    d = game.add("Carrot")
    duel_id = game.challenge(a, b)
    refused(game, "busy", lambda: game.challenge(c, a))  # the challenger's side
    refused(game, "busy", lambda: game.challenge(c, b))  # the target's side
    refused(game, "busy", lambda: game.challenge(a, c))
    refused(game, "busy", lambda: game.challenge(b, c))
    game.challenge(c, d)  # the others fight on
    game.pick(a, duel_id, game.card(a, CHAIR))
    game.pick(b, duel_id, game.card(b, DAGGER))
    # Once the duel has ended, both are free again (b is stunned, a is not).
    refused(game, "busy", lambda: game.challenge(a, c))  # c is now in a duel with d
    game.run(game.organizer, CancelDuel(duel_id=game.fighter(c).duel_id or ""))
    game.challenge(a, c)


def test_a_challenge_may_carry_the_challengers_first_pick() -> None:
    """As an offline duel's QR carries it: the duel starts with the challenger's card picked,
    which the target learns only as `opponent_picked`; the target's pick reveals both."""
    game, a, b, _ = started()
    chair = game.card(a, CHAIR)
    events = game.run(a, Challenge(target=b.code, card_id=chair))
    assert types(events) == ["duel_started", "card_picked"]
    duel_id = events[0].data["duel_id"]
    assert events[1].data == {
        "duel_id": duel_id,
        "round": 1,
        "player_id": a.player_id,
        "card_id": chair,
    }
    assert game.view(a)["duel"]["my_pick"] == chair
    theirs = game.view(b)["duel"]
    assert theirs["opponent_picked"] is True and theirs["my_pick"] is None
    assert chair not in json.dumps(game.view(b))  # the card's id is the challenger's secret
    refused(game, "already_picked", lambda: game.pick(a, duel_id, chair))
    refused(game, "opponent_picked", lambda: game.run(b, LeaveDuel(duel_id=duel_id)))
    revealed = game.pick(b, duel_id, game.card(b, DAGGER))
    assert types(revealed)[:2] == ["card_picked", "round_revealed"]
    assert revealed[1].data["cards"][a.player_id]["card_id"] == chair


def test_a_challenge_picks_only_a_card_of_the_challengers_own_hand() -> None:
    """A cheater's challenge naming the target's card, or a card nobody holds, is refused whole:
    no duel starts. A challenge refused for its own reason says that reason first."""
    game, a, b, c = started()
    theirs = game.card(b, CHAIR)
    refused(game, "not_your_card", lambda: game.run(a, Challenge(target=b.code, card_id=theirs)))
    refused(game, "not_your_card", lambda: game.run(a, Challenge(target=b.code, card_id="k99")))
    assert game.fighter(a).duel_id is None and game.fighter(b).duel_id is None
    game.challenge(b, c)
    refused(game, "busy", lambda: game.run(a, Challenge(target=b.code, card_id=theirs)))
    with pytest.raises(ValidationError):
        Challenge.model_validate({"target": b.code, "card_id": ""})


def test_a_player_cannot_challenge_themselves() -> None:
    game, a, _, _ = started()
    refused(game, "invalid", lambda: game.run(a, Challenge(target=a.code)))


def test_a_player_names_the_opponent_by_code_not_by_player_id() -> None:
    """The code is the proof of the touch: a player_id, which views show, is refused."""
    game, a, b, _ = started()
    refused(game, "code_required", lambda: game.run(a, Challenge(target=b.player_id)))
    refused(game, "code_required", lambda: game.run(a, Challenge(target=a.player_id)))
    # The challenger's own side is told first: a stunned player hears "stunned".
    game.duel(b, a, CHAIR, DAGGER)
    refused(game, "stunned", lambda: game.run(a, Challenge(target=b.player_id)))
    # An organizer may name a player_id (no organizer's command names a fighter so yet).
    assert named(game.state, a.player_id, game.organizer) == game.fighter(a)
    assert named(game.state, a.code.lower(), b) == game.fighter(a)


def test_challenge_by_code_in_any_case() -> None:
    game, a, b, _ = started()
    events = game.run(a, Challenge(target=b.code.lower()))
    assert types(events) == ["duel_started"]
    assert events[0].data["challenger"] == a.player_id
    assert events[0].data["target"] == b.player_id


def test_challenge_of_an_unknown_code_is_not_found() -> None:
    game, a, _, _ = started()
    taken = set(game.state.roster.codes)
    unknown = next(code for code in ("XXXX", "YYYY", "ZZZZ") if code not in taken)
    refused(game, "not_found", lambda: game.run(a, Challenge(target=unknown)))
    # The organizer holds a code but does not fight.
    refused(game, "not_found", lambda: game.run(a, Challenge(target=game.organizer.code)))


# -- the game's life -----------------------------------------------------------------------------


def test_nothing_is_fought_before_the_game_starts() -> None:
    game = CardDuelGame()
    a, b = game.add("Rincewind"), game.add("Vimes")
    refused(game, "game_not_running", lambda: game.challenge(a, b))
    refused(game, "game_not_running", lambda: game.pick(a, "d1", game.card(a, CHAIR)))


def test_nothing_is_fought_after_the_game_ends() -> None:
    game, a, b, _ = started()
    duel_id = game.challenge(a, b)
    game.run(game.organizer, EndGame())
    refused(game, "game_not_running", lambda: game.challenge(a, b))
    refused(game, "game_not_running", lambda: game.pick(a, duel_id, game.card(a, CHAIR)))
    refused(game, "game_not_running", lambda: game.grant(a, "X", 1, 1, "stun"))
    refused(game, "game_not_running", lambda: game.run(game.organizer, EndGame()))
    refused(game, "game_not_running", lambda: game.run(game.organizer, StartGame()))
    refused(game, "game_not_running", lambda: game.run(game.organizer, AddPlayer(name="Pozdě")))


def test_end_game_cancels_open_duels_and_reveals_the_seed() -> None:
    game, a, b, c = started()
    d = game.add("Carrot")
    first = game.challenge(a, b)
    second = game.challenge(c, d)
    view = game.view(a)["game"]
    assert view["seed"] is None
    assert view["seed_sha256"] == hashlib.sha256(SEED).hexdigest()

    events = game.run(game.organizer, EndGame())
    assert types(events) == ["duel_cancelled", "duel_cancelled", "game_ended"]
    assert {(e.data["duel_id"], e.data["reason"]) for e in events[:2]} == {
        (first, "game_ended"),
        (second, "game_ended"),
    }
    assert events[2].data == {"seed": SEED.hex()}
    assert game.state.duels == {}
    assert all(f.duel_id is None for f in game.state.fighters.values())
    assert game.state.roster.status == "ended"
    assert game.view(a)["game"]["seed"] == SEED.hex()
    assert (
        hashlib.sha256(bytes.fromhex(game.view(a)["game"]["seed"])).hexdigest()
        == (view["seed_sha256"])
    )


# -- stuck duels ---------------------------------------------------------------------------------


def test_the_organizer_cancels_a_duel_and_both_are_free() -> None:
    game, a, b, c = started()
    duel_id = game.challenge(a, b)
    game.pick(a, duel_id, game.card(a, CHAIR))
    refused(game, "forbidden", lambda: game.run(a, CancelDuel(duel_id=duel_id)))

    events = game.run(game.organizer, CancelDuel(duel_id=duel_id))
    assert [(e.type, e.data) for e in events] == [
        (
            "duel_cancelled",
            {"duel_id": duel_id, "reason": "organizer", "players": [a.player_id, b.player_id]},
        )
    ]
    assert duel_id not in game.state.duels
    assert game.fighter(a).duel_id is None and game.fighter(b).duel_id is None
    for member in (a, b):
        view = game.view(member)
        assert view["duel"] is None
        assert view["last_duel"]["duel_id"] == duel_id
        assert view["last_duel"]["outcomes"] == [
            {"player_id": a.player_id, "effect": "cancelled", "until": None},
            {"player_id": b.player_id, "effect": "cancelled", "until": None},
        ]
    refused(game, "not_found", lambda: game.run(game.organizer, CancelDuel(duel_id=duel_id)))
    refused(game, "not_found", lambda: game.pick(b, duel_id, game.card(b, CHAIR)))
    game.challenge(a, c)
    game.challenge(b, game.add("Carrot"))


def test_a_duel_times_out_after_pick_timeout_s() -> None:
    game, a, b, c = started({"pick_timeout_s": 60})
    duel_id = game.challenge(a, b, at=T0)
    assert game.state.duels[duel_id].deadline == T0 + 60_000
    assert game.view(a, T0)["duel"]["deadline"] == iso(T0 + 60_000)
    game.pick(a, duel_id, game.card(a, CHAIR), at=T0 + 59_999)

    # At the deadline the duel binds nobody.
    deadline = T0 + 60_000
    refused(game, "duel_over", lambda: game.pick(b, duel_id, game.card(b, DAGGER), at=deadline))
    # The view keeps the duel, with its deadline, until an event closes it.
    assert game.view(a, deadline)["duel"]["deadline"] == iso(deadline)
    assert game.view(b, deadline)["duel"]["deadline"] == iso(deadline)
    players = game.view(game.organizer, deadline)["players"]
    assert players[a.player_id]["challengeable"] is True
    assert players[b.player_id]["challengeable"] is True

    # A new challenge first closes the stale duel, with no outcome.
    events = game.run(c, Challenge(target=a.code), at=deadline)
    assert types(events) == ["duel_cancelled", "duel_started"]
    assert events[0].data == {
        "duel_id": duel_id,
        "reason": "timeout",
        "players": [a.player_id, b.player_id],
    }
    assert events[1].data["challenger"] == c.player_id
    assert events[1].data["target"] == a.player_id
    assert game.fighter(b).duel_id is None
    assert game.view(b, deadline)["duel"] is None
    assert [(o.player_id, o.effect) for o in game.state.last_duels[b.player_id].outcomes] == [
        (a.player_id, "cancelled"),
        (b.player_id, "cancelled"),
    ]
    assert game.fighter(a).stunned_until is None and game.fighter(b).stunned_until is None


def test_a_timed_out_player_may_challenge_and_their_stale_duel_closes_first() -> None:
    game, a, b, c = started({"pick_timeout_s": 10})
    duel_id = game.challenge(a, b, at=T0)
    refused(game, "busy", lambda: game.challenge(a, c, at=T0 + 9_999))
    events = game.run(a, Challenge(target=c.code), at=T0 + 10_000)
    assert types(events) == ["duel_cancelled", "duel_started"]
    assert events[0].data["reason"] == "timeout" and events[0].data["duel_id"] == duel_id


def test_each_round_gets_its_own_pick_deadline() -> None:
    game, a, b, _ = started({"pick_timeout_s": 60})
    duel_id = game.challenge(a, b, at=T0)
    game.pick(a, duel_id, game.card(a, CHAIR), at=T0 + 30_000)
    events = game.pick(b, duel_id, game.card(b, CHAIR), at=T0 + 30_000)  # nobody wins
    assert events[1].data["deadline"] == iso(T0 + 90_000)
    assert game.state.duels[duel_id].deadline == T0 + 90_000
    game.pick(a, duel_id, game.card(a, CHAIR), at=T0 + 80_000)  # past the first deadline
    events = game.pick(b, duel_id, game.card(b, DAGGER), at=T0 + 89_999)
    assert types(events)[-1] == "duel_ended"


def test_without_pick_timeout_a_duel_waits_forever() -> None:
    game, a, b, c = started()
    duel_id = game.challenge(a, b, at=T0)
    assert game.state.duels[duel_id].deadline is None
    later = T0 + 30 * 24 * 3_600_000
    refused(game, "busy", lambda: game.challenge(c, a, at=later))
    game.pick(a, duel_id, game.card(a, CHAIR), at=later)


def test_a_duellist_leaves_an_opponent_who_does_not_pick_after_leave_after_s() -> None:
    game, a, b, c = started({"leave_after_s": 30})
    duel_id = game.challenge(a, b, at=T0)
    assert game.view(a, T0)["duel"]["leave_from"] == iso(T0 + 30_000)
    game.pick(a, duel_id, game.card(a, CHAIR), at=T0 + 1_000)
    leave = LeaveDuel(duel_id=duel_id)
    refused(game, "too_soon", lambda: game.run(a, leave, at=T0 + 29_999))
    refused(game, "forbidden", lambda: game.run(c, leave, at=T0 + 30_000))

    events = game.run(a, leave, at=T0 + 30_000)
    assert [(e.type, e.data) for e in events] == [
        (
            "duel_cancelled",
            {
                "duel_id": duel_id,
                "reason": "left",
                "players": [a.player_id, b.player_id],
                "by": a.player_id,
            },
        )
    ]
    for member in (a, b):
        view = game.view(member, T0 + 30_000)
        assert view["duel"] is None
        assert {o["effect"] for o in view["last_duel"]["outcomes"]} == {"cancelled"}
    assert game.fighter(a).stunned_until is None and game.fighter(b).stunned_until is None
    refused(game, "not_found", lambda: game.run(b, leave, at=T0 + 30_000))
    game.challenge(b, c, at=T0 + 31_000)


def test_nobody_leaves_a_duel_whose_opponent_has_picked() -> None:
    game, a, b, _ = started({"leave_after_s": 10})
    duel_id = game.challenge(a, b, at=T0)
    game.pick(b, duel_id, game.card(b, CHAIR), at=T0 + 1_000)
    leave = LeaveDuel(duel_id=duel_id)
    refused(game, "opponent_picked", lambda: game.run(a, leave, at=T0 + 99_000))
    game.run(b, LeaveDuel(duel_id=duel_id), at=T0 + 10_000)  # b waits for a, who has not picked


def test_each_round_restarts_the_wait_before_leaving() -> None:
    game, a, b, _ = started()  # the default: 60 s
    duel_id = game.challenge(a, b, at=T0)
    game.pick(a, duel_id, game.card(a, CHAIR), at=T0 + 50_000)
    events = game.pick(b, duel_id, game.card(b, CHAIR), at=T0 + 50_000)  # nobody wins
    assert events[-1].data["leave_from"] == iso(T0 + 110_000)
    refused(game, "too_soon", lambda: game.run(a, LeaveDuel(duel_id=duel_id), at=T0 + 109_999))
    game.run(a, LeaveDuel(duel_id=duel_id), at=T0 + 110_000)


# -- who sees what -------------------------------------------------------------------------------


def test_a_spectator_sees_the_game_only() -> None:
    game, a, b, _ = started()
    spectator = game.add("Divák", role="spectator")
    assert spectator.player_id not in game.state.fighters
    duel_id = game.challenge(a, b)
    game.pick(a, duel_id, game.card(a, CHAIR))
    view = game.view(spectator)
    assert set(view) == {"game"}  # who plays is in the directory, not in a view


def test_the_organizer_sees_the_secret_picks() -> None:
    game, a, b, _ = started()
    duel_id = game.challenge(a, b)
    game.pick(a, duel_id, game.card(a, DAGGER))
    (duel,) = game.view(game.organizer)["duels"].values()
    assert duel["picks"] == {a.player_id: game.card(a, DAGGER), b.player_id: None}


# -- who may send which command ------------------------------------------------------------------


def test_roles_are_declared_on_the_commands() -> None:
    assert Challenge.roles == {"player"}
    assert Pick.roles == {"player"}
    assert LeaveDuel.roles == {"player"}
    assert RegisterKey.roles == OfflineDuel.roles == {"player"}
    organizers = (GrantCard, GrantItem, Heal, Revive, CancelDuel, StartGame, EndGame, AddPlayer)
    for command in (*organizers, SettleDispute):
        assert command.roles == {"organizer"}, command.__name__
    assert RULESET.commands == {
        "start_game": StartGame,
        "end_game": EndGame,
        "challenge": Challenge,
        "pick": Pick,
        "leave_duel": LeaveDuel,
        "grant_card": GrantCard,
        "grant_item": GrantItem,
        "heal": Heal,
        "revive": Revive,
        "cancel_duel": CancelDuel,
        "register_key": RegisterKey,
        "offline_duel": OfflineDuel,
        "settle_dispute": SettleDispute,
    }


def test_the_organizer_does_not_duel() -> None:
    game, a, _, _ = started()
    refused(game, "forbidden", lambda: game.run(game.organizer, Challenge(target=a.code)))
