"""Random games of coin-toss for the shared properties (tests/rules/properties.py). A ruleset
that lives outside server.rules brings its `SUPPLY` beside it, in a `plays.py`."""

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from server.rules.core import Json, Member, RuleError
from server.rules.roster import AddPlayer, EndGame, StartGame
from tests.rules.drivers.base import Driver
from tests.rules.properties import Supply
from tests.rulesets.coin_toss import RULESET, CoinToss, Toss

# A game: each player's tosses, how many players, and the steps: which player tosses, or (0)
# the organizer ends the game.
games = st.tuples(st.integers(1, 4), st.integers(1, 4), st.lists(st.integers(0, 5), max_size=20))


def play(game: tuple[int, int, list[int]], check: Callable[[Driver[CoinToss]], None]) -> Any:
    tosses, players, steps = game
    driver = Driver(RULESET, {"tosses": tosses})
    members = []
    for n in range(players):
        events = driver.run(driver.organizer, AddPlayer(name=f"Hráč {n}"))
        members.append(driver.member(events[0].data["player_id"]))
    driver.run(driver.organizer, AddPlayer(name="Divák", role="spectator"))
    driver.run(driver.organizer, StartGame())
    check(driver)
    for step in steps:
        try:
            if step == 0:
                driver.run(driver.organizer, EndGame())
            else:
                driver.run(members[step % players], Toss())
        except RuleError:
            pass  # refused: a toss too many, or after the end
        check(driver)
    return driver


def secrets(driver: Driver[Any], viewer: Member, view: Json) -> None:
    """Nothing is secret but the codes (the shared check): a viewer's `me` is its own."""
    assert view["me"]["player_id"] == viewer.player_id


SUPPLY = Supply[Driver[CoinToss]](
    games=games,
    play=play,
    driver=lambda driver: driver,
    secrets=secrets,
    open_things=lambda state: [],  # a toss is done at once: nothing stays open
)
