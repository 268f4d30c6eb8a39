"""What a phone holds, from the hub's patches, is its whole view: for every ruleset, over random
games, with commands folded into one message, with screens that reconnect, and with no patch
carrying what its viewer's view does not."""

from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

import orjson
import test_card_duel_properties as card_duel
import test_dice_combat_properties as dice_combat
import test_rank_bases_properties as rank_bases
import test_stamina_deck_properties as stamina_deck
from hypothesis import given, settings
from hypothesis import strategies as st

from server.game.hub import Hub, Screen
from server.game.patch import apply, bare, diff
from server.rules.core import Event, Json, Member
from tests.rules.driver import Driver

PROPERTIES = settings(max_examples=60, deadline=None)


def strings(value: Any) -> set[str]:
    """Every string in a JSON value, keys included, but for the keys a patch deletes."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {s for k, v in value.items() if v is not None for s in {k} | strings(v)}
    if isinstance(value, list):
        return {s for item in value for s in strings(item)}
    return set()


async def nowhere(text: str) -> None:  # the outbox is read here, not sent
    raise AssertionError(text)


class Phones:
    """A hub with a screen for every member of a driven game, and what each phone holds."""

    def __init__(self, fold: int, rejoin: int) -> None:
        self.hub = Hub()
        self.screens: dict[str, Screen] = {}
        self.held: dict[str, tuple[int, Json]] = {}
        self.fold, self.rejoin = fold, rejoin
        self.commands = 0
        self.touched: set[str] | None = set()
        self.messages = 0

    def __call__(self, driver: Driver[Any], before: Any, events: list[Event], now: int) -> None:
        ruleset, state, seq = driver.ruleset, driver.state, len(driver.log)
        touched = ruleset.parts.touched(before, events)
        self.touched = None if touched is None or self.touched is None else self.touched | touched
        self.commands += 1
        if self.commands % self.fold:
            return  # several commands in one message: published together later
        self.hub.publish("g", ruleset, state, seq, self.touched, now)
        self.touched = set()
        for member in state.roster.members.values():
            screen = self.screens.get(member.player_id)
            if screen is not None and self.commands % self.rejoin == 0:
                # A phone that went away and comes back with after=<held seq>.
                self.hub.leave("g", screen)
                screen = None
            if screen is None:
                screen = self.screens[member.player_id] = Screen(member, nowhere)
                self.hub.join("g", ruleset, state, seq, screen, now)
                if self.held.get(member.player_id, (None,))[0] != seq:
                    screen.show(seq, now)
            self.read(member, screen, ruleset.view(state, member, now), seq)

    def read(self, member: Member, screen: Screen, whole: Json, seq: int) -> None:
        """Apply what the screen was sent; it must leave the phone holding the whole view."""
        for text in screen.outbox:
            message = orjson.loads(text)
            self.messages += 1
            if message["type"] == "view":
                self.held[member.player_id] = (message["seq"], message["view"])
                assert strings(message["view"]) <= strings(whole)
                continue
            base, held = self.held[member.player_id]
            assert message["type"] == "patch" and message["base"] == base, (message, base)
            assert strings(message["patch"]) <= strings(whole), "a patch carries only the view"
            self.held[member.player_id] = (message["seq"], apply(held, message["patch"]))
        screen.outbox.clear()
        screen.patches = 0
        held = bare(self.held[member.player_id][1])
        assert held == bare(whole), (member, diff(held, bare(whole)))


@contextmanager
def watched(phones: Phones) -> Any:
    Driver.watchers.append(phones)
    try:
        yield
    finally:
        Driver.watchers.remove(phones)


PLAYS: dict[str, Callable[[Any], Any]] = {
    "card-duel": lambda game: card_duel.play(*game),
    "rank-bases": rank_bases.play,
    "dice-combat": lambda game: dice_combat.play(*game),
    "stamina-deck": lambda fight: stamina_deck.play(*fight, views=False),
}


def played_with_phones(ruleset: str, game: Any, fold: int, rejoin: int) -> Phones:
    phones = Phones(fold, rejoin)
    with watched(phones):
        PLAYS[ruleset](game)
    return phones


@PROPERTIES
@given(card_duel.games, st.integers(1, 3), st.integers(4, 9))
def test_card_duel_patches_add_up_to_the_whole_view(game: Any, fold: int, rejoin: int) -> None:
    assert played_with_phones("card-duel", game, fold, rejoin).messages


@PROPERTIES
@given(rank_bases.games, st.integers(1, 3), st.integers(4, 9))
def test_rank_bases_patches_add_up_to_the_whole_view(game: Any, fold: int, rejoin: int) -> None:
    assert played_with_phones("rank-bases", game, fold, rejoin).messages


@PROPERTIES
@given(dice_combat.games, st.integers(1, 3), st.integers(4, 9))
def test_dice_combat_patches_add_up_to_the_whole_view(game: Any, fold: int, rejoin: int) -> None:
    assert played_with_phones("dice-combat", game, fold, rejoin).messages


@PROPERTIES
@given(stamina_deck.fights, st.integers(1, 3), st.integers(4, 9))
def test_stamina_deck_patches_add_up_to_the_whole_view(fight: Any, fold: int, rejoin: int) -> None:
    assert played_with_phones("stamina-deck", fight, fold, rejoin).messages
