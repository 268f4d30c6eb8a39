"""Properties of `card-duel` over random games (tests/rules/plays/card_duel.py) beyond the
shared ones (tests/rules/test_properties.py): views show a duellist their duel and their cards,
ids derived from seq, and cards that never change hands."""

import re
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings

from server.clock import iso_or_none
from server.rules.card_duel import RULESET
from server.rules.card_duel.cards import Card, CardFace
from server.rules.card_duel.state import CardDuel
from server.rules.core import Event, Json
from tests.rules.plays.card_duel import Played, games, play

PROPERTIES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- what a player's view shows --------------------------------------------------------------------


DUEL_KEYS = {
    "duel_id",
    "opponent",
    "round",
    "my_pick",
    "opponent_picked",
    "ranged",
    "deadline",
    "leave_from",
    "rounds",
}


def duel_views(played: Played) -> None:
    """A player sees their own duel (what they picked, whether the opponent has) and exactly
    the cards they hold; what they may not see, test_properties.py checks."""
    game, state = played.game, played.game.state
    for member in played.players:
        view = game.view(member)
        me = member.player_id
        fighter = state.fighters[me]
        duel = state.duels.get(fighter.duel_id) if fighter.duel_id else None
        if duel is None:
            assert view["duel"] is None
        else:
            assert set(view["duel"]) == DUEL_KEYS
            assert view["duel"]["opponent_picked"] is (duel.opponent(me) in duel.picks)
            assert view["duel"]["my_pick"] == duel.picks.get(me)
        # A player's view shows exactly the cards they hold (whose owner replay_checked checks).
        assert view["me"]["cards"] == [c.dump() for c in state.fighters[me].cards]
        # ...and the special effect they suffer, if any: the text and its end, nobody else's.
        suffered = fighter.suffered
        text = suffered and (suffered.text, iso_or_none(suffered.until))
        assert text == (view["me"]["effect"] and tuple(view["me"]["effect"].values()))


# -- the properties ------------------------------------------------------------------------------


def issued(event: Event) -> list[Json]:
    """The cards an event hands to a player."""
    if event.type in ("player_joined", "player_revived"):
        return list(event.data.get("cards", []))
    if event.type == "card_granted":
        return [event.data["card"]]
    return []


def replay_checked(log: list[Event]) -> CardDuel:
    """Fold the log by hand, checking every event against the state it meets (c, e)."""
    owner: dict[str, str] = {}
    revealed: Json = {}  # the cards of the last round revealed
    state: CardDuel = RULESET.initial_state(log[0].data["config"])
    for event in log:
        data = event.data
        for card in issued(event):
            assert card["card_id"] not in owner, f"card id {card['card_id']} issued twice"
            owner[card["card_id"]] = data["player_id"]
        if event.type == "card_picked":
            assert state.fighters[data["player_id"]].card(data["card_id"]) is not None
        if event.type == "round_revealed":
            for p, card in data["cards"].items():
                assert Card.load(CardFace(**card)) in state.fighters[p].cards, (p, card)
            revealed = data["cards"]
        if event.type == "effect_suffered":
            special_struck(state, data, revealed)
        before = state
        state = RULESET.evolve(state, event)  # (e) never fails
        if event.type == "effect_suffered":  # words for people to apply: no status changes
            loser, was = state.fighters[data["player_id"]], before.fighters[data["player_id"]]
            assert loser.revision == was.revision + 1  # the log changed it, once
            same = replace(was, suffered=loser.suffered, revision=loser.revision)
            assert loser == same, (was, loser)
        for fighter in state.fighters.values():
            for held in fighter.cards:
                assert owner[held.card_id] == fighter.player_id
    return state


def special_struck(state: CardDuel, data: Json, revealed: Json) -> None:
    """An effect comes from the loser's opponent's special card, just revealed, as that card
    says; it has an end exactly when the card has `effect_s`."""
    duel = state.duels[data["duel_id"]]
    card = revealed[duel.opponent(data["player_id"])]
    assert card["kind"] == "special" and card["card_id"] == data["card_id"], (card, data)
    assert (data["effect"], data["effect_s"]) == (card["effect"], card["effect_s"])
    assert (data["until"] is None) is (card["effect_s"] is None)


def seq_ids(log: list[Event]) -> list[tuple[int, str]]:
    """Every id a command derived from its seq: players, cards, duels; with the event's seq."""
    ids = []
    for seq, event in enumerate(log, start=1):
        if event.type == "player_joined":
            ids.append((seq, event.data["player_id"]))
        if event.type == "duel_started":
            ids.append((seq, event.data["duel_id"]))
        ids += [(seq, card["card_id"]) for card in issued(event)]
    return ids


@PROPERTIES
@given(games)
def test_replaying_by_hand_meets_every_event_with_the_cards_it_names(
    game: tuple[Any, ...],
) -> None:
    played = play(game)
    assert replay_checked(played.game.log) == played.game.state


@PROPERTIES
@given(games)
def test_ids_derived_from_seq_are_unique_and_name_their_command(game: tuple[Any, ...]) -> None:
    played = play(game)
    ids = seq_ids(played.game.log)
    assert len({i for _, i in ids}) == len(ids)
    firsts = played.game.firsts
    for seq, ident in ids:
        match = re.fullmatch(r"[pcd](\d+)(?:\.\d+)?", ident)
        assert match, ident
        # The id names the first seq of the command whose event carries it.
        command_seq = max(f for f in firsts if f <= seq)
        assert int(match.group(1)) == command_seq, (ident, seq)


@PROPERTIES
@given(games)
def test_views_show_a_duellist_their_duel_and_cards_never_change_hands(
    game: tuple[Any, ...],
) -> None:
    played = play(game, check=duel_views)  # every player's view after the start and every step
    replay_checked(played.game.log)
