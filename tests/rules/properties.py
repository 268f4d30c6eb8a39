"""The properties every ruleset's random games have, whatever its rules: replay equals live from
the log's JSON lines, the hub's patches add up to whole views, no view or patch shows a secret,
an ended game's log verifies (and fails with one draw changed), and the end leaves nothing open.

A ruleset takes part by its `Supply` (tests/rules/plays/): its random games and how to play
one, what its views must keep secret and what counts as open. tests/rules/test_properties.py
runs every property over every registered ruleset.
"""

import copy
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import msgspec
import orjson
from hypothesis import strategies as st

from server.game.hub import Hub, Screen
from server.game.patch import apply, bare, diff
from server.log.verify import verify
from server.rules.core import Context, Event, Json, Member, RuleError, Ruleset, fold
from server.rules.events import Fact
from server.rules.offers import may
from server.rules.roster import EndGame
from server.store import chain
from tests.rules.drivers.base import Driver

P = TypeVar("P")  # a played game, as the ruleset's own properties know it


@dataclass(frozen=True)
class Supply(Generic[P]):
    """What one ruleset gives the shared properties."""

    # A random game as plain data, and how to play it: `play(game, check)` calls `check` after
    # the start and after every step, and answers the played game.
    games: st.SearchStrategy[Any]
    play: Callable[[Any, Callable[[P], None]], P]
    driver: Callable[[P], Driver[Any]]  # the played game's driver: its log and state
    # Asserts that a view (whole, or as a phone holds it from patches) shows its viewer nothing
    # the viewer may not see in the driver's present state.
    secrets: Callable[[Driver[Any], Member, Json], None]
    # What is still open in a state (a duel, a raid, a fight, a card face down...), by name.
    open_things: Callable[[Any], list[str]]


def nothing(played: Any) -> None:
    """The check of a game played for its log alone."""


def strings(value: Any) -> set[str]:
    """Every string in a JSON value, keys included, but for the keys a patch deletes."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {s for k, v in value.items() if v is not None for s in {k} | strings(v)}
    if isinstance(value, list):
        return {s for item in value for s in strings(item)}
    return set()


def ended(driver: Driver[Any]) -> bool:
    return bool(driver.state.roster.status == "ended")


def end(driver: Driver[Any]) -> None:
    """The organizer ends the game, unless it has ended already."""
    if not ended(driver):
        driver.run(driver.organizer, EndGame())


def seen_safely(driver: Driver[Any], viewer: Member, view: Json, supply: Supply[Any]) -> None:
    """The view goes out as JSON, shows no seed before the end and no secret of the ruleset's."""
    text = json.dumps(view)
    if not ended(driver):  # the seed is revealed by game_ended, and not before
        assert driver.seed.hex() not in text, viewer
    supply.secrets(driver, viewer, view)
    if viewer.role != "organizer":  # a code proves a touch: its owner's and the organizer's
        codes = {m.code for m in driver.state.roster.members.values() if m != viewer}
        assert not codes & strings(view), (viewer, codes & strings(view))


# -- (a) replay equals live ----------------------------------------------------------------------


def as_json(value: Any) -> Any:
    """A value as a JSON line holds it: tuples as lists."""
    return json.loads(json.dumps(value))


def replay_equals_live(ruleset: Ruleset[Any], log: list[Event], live: Any) -> None:
    """The log folds to the live state, and so do its lines read back from JSON, each read-back
    record the one written and writing the very line it was read from."""
    assert fold(ruleset, log) == live
    lines = [as_json(e.data) for e in log]
    stored = [ruleset.read(e.type, line, e.version) for e, line in zip(log, lines, strict=True)]
    for written, line, back in zip(log, lines, stored, strict=True):
        assert written.type in ruleset.events.facts, written.type  # every kind is declared
        assert type(back.fact) is not Fact and written.version == back.fact.version
        assert (back.type, back.version, back.fact) == (written.type, written.version, written.fact)
        # No key gained, lost or changed: a key the line leaves out stays out.
        assert as_json(msgspec.to_builtins(back.fact)) == line, written.type
    assert fold(ruleset, stored) == live


# -- (b, c) phones fed by the hub's patches --------------------------------------------------------


async def nowhere(text: str) -> None:  # the outbox is read here, not sent
    raise AssertionError(text)


class Phones:
    """A hub with a screen for every member of a driven game, and what each phone holds: a
    driver's watcher (`Driver.watchers`), called after every command that wrote."""

    def __init__(self, fold: int, rejoin: int, supply: Supply[Any]) -> None:
        self.hub = Hub()
        self.screens: dict[str, Screen] = {}
        self.held: dict[str, tuple[int, Json]] = {}
        self.fold, self.rejoin = fold, rejoin
        self.supply = supply
        self.commands = 0
        self.touched: set[str] | None = set()
        self.messages = 0

    def __call__(self, driver: Driver[Any], before: Any, events: list[Event], now: int) -> None:
        ruleset, state, seq = driver.ruleset, driver.state, len(driver.log)
        touched = ruleset.parts.touched(before, events, state)
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
            self.read(driver, member, screen, ruleset.view(state, member, now))

    def read(self, driver: Driver[Any], member: Member, screen: Screen, whole: Json) -> None:
        """Apply what the screen was sent; it must leave the phone holding the whole view, and
        no message may carry a secret."""
        for text in screen.outbox:
            message = orjson.loads(text)
            self.messages += 1
            if not ended(driver):
                assert driver.seed.hex() not in text, "a message carries the seed"
            if message["type"] == "view":
                self.held[member.player_id] = (message["seq"], message["view"])
                assert strings(message["view"]) <= strings(whole)
            else:
                base, held = self.held[member.player_id]
                assert message["type"] == "patch" and message["base"] == base, (message, base)
                assert strings(message["patch"]) <= strings(whole), "a patch carries only the view"
                self.held[member.player_id] = (message["seq"], apply(held, message["patch"]))
            self.supply.secrets(driver, member, self.held[member.player_id][1])
        screen.outbox.clear()
        screen.patches = 0
        held = bare(self.held[member.player_id][1])
        assert held == bare(whole), (member, diff(held, bare(whole)))


@contextmanager
def watched(phones: Phones) -> Iterator[Phones]:
    Driver.watchers.append(phones)
    try:
        yield phones
    finally:
        Driver.watchers.remove(phones)


def played_with_phones(
    supply: Supply[Any], game: Any, fold: int, rejoin: int, check: Callable[[Any], None] = nothing
) -> Phones:
    with watched(Phones(fold, rejoin, supply)) as phones:
        supply.play(game, check)
    return phones


def views_keep_secrets(supply: Supply[P]) -> Callable[[P], None]:
    """A check of every member's whole view, for `play`."""

    def check(played: P) -> None:
        driver = supply.driver(played)
        for member in driver.state.roster.members.values():
            seen_safely(driver, member, driver.view(member), supply)

    return check


# -- (d) the exported log verifies -----------------------------------------------------------------


def changeable(lines: list[Json]) -> list[tuple[int, int]]:
    """(line, draw) of every recorded draw that can take another value."""
    return [
        (n, k)
        for n, line in enumerate(lines)
        if "chance" in line["data"]
        for k, draw in enumerate(line["data"]["chance"]["draws"])
        if draw.get("die", draw.get("below", draw.get("shuffle", 0))) > 1
    ]


def changed(draw: Json, shift: int) -> Json:
    """The draw with another outcome: another side, number or order."""
    if "shuffle" in draw:
        order = list(draw["order"])
        i = shift % len(order)
        j = (i + 1) % len(order)
        order[i], order[j] = order[j], order[i]
        return {**draw, "order": order}
    if "die" in draw:  # a step of 1 to sides - 1 around the die
        step = shift % (draw["die"] - 1) + 1
        return {**draw, "value": (draw["value"] - 1 + step) % draw["die"] + 1}
    step = shift % (draw["below"] - 1) + 1
    return {**draw, "value": (draw["value"] + step) % draw["below"]}


def log_verifies_until_a_draw_changes(driver: Driver[Any], which: int, shift: int) -> None:
    lines = driver.lines()
    assert verify(lines) == []
    draws = changeable(lines)
    assert draws, "every game draws: member codes at least"
    n, k = draws[which % len(draws)]
    forged = copy.deepcopy(lines)
    draw = forged[n]["data"]["chance"]["draws"][k] = changed(
        forged[n]["data"]["chance"]["draws"][k], shift
    )
    assert draw != lines[n]["data"]["chance"]["draws"][k]
    assert verify(forged), "the chain alone catches the change"
    problems = verify(chain.seal(forged))  # a forger rewrote the chain: the seed still tells
    assert problems, (n, k, draw)
    assert problems[0].startswith(f"seq {forged[n]['seq']} ({forged[n]['type']}): draw {k} is")


# -- (e) the end leaves nothing open ---------------------------------------------------------------


def nothing_open_once_ended(supply: Supply[P]) -> Callable[[P], None]:
    """A check for `play`: from the end on, nothing is open."""

    def check(played: P) -> None:
        state = supply.driver(played).state
        if state.roster.status == "ended":
            assert supply.open_things(state) == [], supply.open_things(state)

    return check


# -- (f) a view offers what decide allows ----------------------------------------------------------


def views_offer_what_decide_allows(supply: Supply[P]) -> Callable[[P], None]:
    """A check, for `play`: every member's view carries its offers as `may`; every action
    offered is accepted by the referee (role check, then decide), every refused one refused with
    the same code, and a refusal said to end with time is over (or another) at that moment."""

    def check(played: P) -> None:
        driver = supply.driver(played)
        ruleset, state = driver.ruleset, driver.state
        for member in state.roster.members.values():
            offers = ruleset.offers(state, member, driver.now)
            assert driver.view(member).get("may", {}) == may(offers), member
            for name, offer in offers.items():
                assert refusal(driver, member, offer.sent(), driver.now) == offer.refused, (
                    member.role,
                    name,
                    offer,
                )
                if offer.until is not None:
                    assert offer.until > driver.now, (name, offer)
                    later = refusal(driver, member, offer.sent(), offer.until)
                    assert later != offer.refused, (name, offer, later)

    return check


def refusal(driver: Driver[Any], member: Member, command: Any, now: int) -> str | None:
    """What the referee answers a command now, without keeping its events."""
    if member.role not in type(command).roles:
        return "forbidden"
    ctx = Context(now=now, actor=member, seq=len(driver.log) + 1, seed=driver.seed)
    try:
        driver.ruleset.decide(driver.state, command, ctx)
    except RuleError as error:
        return error.code
    return None
