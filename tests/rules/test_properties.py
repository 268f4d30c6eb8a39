"""The shared properties (tests/rules/properties.py) over random games of every registered
ruleset (and of those under tests/rulesets/): a ruleset without a Supply fails here."""

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.rules.plays import RULESETS, SUPPLIES
from tests.rules.properties import (
    end,
    log_verifies_until_a_draw_changes,
    nothing,
    nothing_open_once_ended,
    played_with_phones,
    replay_equals_live,
    views_keep_secrets,
    views_offer_what_decide_allows,
)

PROPERTIES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PATCHES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
every_ruleset = pytest.mark.parametrize("ruleset_id", sorted(RULESETS))


def test_every_registered_ruleset_supplies_its_random_games() -> None:
    assert sorted(SUPPLIES) == sorted(RULESETS)


@every_ruleset
@PROPERTIES
@given(data=st.data())
def test_replaying_the_logs_json_lines_gives_the_live_state(
    ruleset_id: str, data: st.DataObject
) -> None:
    supply = SUPPLIES[ruleset_id]
    driver = supply.driver(supply.play(data.draw(supply.games, "game"), nothing))
    assert driver.ruleset.id == ruleset_id
    replay_equals_live(RULESETS[ruleset_id], driver.log, driver.state)


@every_ruleset
@PATCHES
@given(data=st.data(), fold=st.integers(1, 3), rejoin=st.integers(4, 9))
def test_patches_add_up_to_every_members_whole_view(
    ruleset_id: str, data: st.DataObject, fold: int, rejoin: int
) -> None:
    supply = SUPPLIES[ruleset_id]
    assert played_with_phones(supply, data.draw(supply.games, "game"), fold, rejoin).messages


@every_ruleset
@PROPERTIES
@given(data=st.data(), fold=st.integers(1, 3), rejoin=st.integers(4, 9))
def test_no_view_or_patch_shows_a_secret(
    ruleset_id: str, data: st.DataObject, fold: int, rejoin: int
) -> None:
    """Every member's whole view after the start and every step, and every message a phone is
    sent after every command."""
    supply: Any = SUPPLIES[ruleset_id]
    game = data.draw(supply.games, "game")
    assert played_with_phones(supply, game, fold, rejoin, views_keep_secrets(supply)).messages


@every_ruleset
@PROPERTIES
@given(data=st.data(), which=st.integers(0, 10_000), shift=st.integers(0, 10_000))
def test_an_ended_games_log_verifies_and_fails_with_one_draw_changed(
    ruleset_id: str, data: st.DataObject, which: int, shift: int
) -> None:
    supply = SUPPLIES[ruleset_id]
    driver = supply.driver(supply.play(data.draw(supply.games, "game"), nothing))
    end(driver)
    log_verifies_until_a_draw_changes(driver, which, shift)


@every_ruleset
@PROPERTIES
@given(data=st.data())
def test_the_end_of_the_game_leaves_nothing_open(ruleset_id: str, data: st.DataObject) -> None:
    """From the end on (wherever a game ends) nothing is open, and a game ended after its
    last step has nothing open either."""
    supply: Any = SUPPLIES[ruleset_id]
    driver = supply.driver(
        supply.play(data.draw(supply.games, "game"), nothing_open_once_ended(supply))
    )
    end(driver)
    assert driver.state.roster.status == "ended"
    assert supply.open_things(driver.state) == []


@every_ruleset
@PROPERTIES
@given(data=st.data())
def test_every_view_offers_what_decide_allows(ruleset_id: str, data: st.DataObject) -> None:
    """After the start and every step, for every member: what `may` offers is accepted and what
    it refuses is refused with the same code. A ruleset offers something to somebody."""
    supply: Any = SUPPLIES[ruleset_id]
    offered: list[int] = []
    check = views_offer_what_decide_allows(supply)

    def counting(played: Any) -> None:
        check(played)
        driver = supply.driver(played)
        offered.append(
            sum(
                len(driver.ruleset.offers(driver.state, m, driver.now))
                for m in driver.state.roster.members.values()
            )
        )

    supply.play(data.draw(supply.games, "game"), counting)
    assert sum(offered) > 0, "no view offered anything"
