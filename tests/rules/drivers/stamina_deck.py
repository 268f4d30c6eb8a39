"""Driving a stamina-deck game through the pure rules, the way the referee does, without a
server: every command checked for draws no event records."""

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest

from server.rules.core import Command, Context, Event, Json, Member, Role, RuleError
from server.rules.roster import AddPlayer, StartGame
from server.rules.stamina_deck import RULESET
from server.rules.stamina_deck.cards import Card
from server.rules.stamina_deck.character import Character
from server.rules.stamina_deck.commands import (
    AddCharacter,
    ChooseInitiative,
    EndTurn,
    Play,
    StartRound,
)
from server.rules.stamina_deck.state import StaminaDeck
from server.rules.story import Story
from tests.rules.drivers.base import SEED, Driver

PISTOL = {"name": "Pistole", "sz": 3, "reload_speed": 4, "melee": False, "ranged": True}
RIFLE = {"name": "Puška", "sz": 20, "reload_speed": 6, "melee": True, "melee_cards": 1}
SABRE = {"name": "Šavle", "melee_cards": 2, "melee": True, "ranged": False}
RIFLE_SHOT = {"shooting": 3, "weapon": RIFLE}  # a shooter who hits hard


def every_draw_told(state: StaminaDeck, command: Command, ctx: Context) -> Story[StaminaDeck]:
    """The rules' own decision, and no draw left out of its events: a draw no event records
    would be one the verifier cannot redo (`Story.tell` records them in the next fact that has
    a `chance` field)."""
    story = RULESET.play(state, command, ctx)
    drawn = ctx.__dict__.get("chance")  # `Context.chance` is made when first drawn from
    assert drawn is None or not drawn.draws, f"draws no event records: {drawn.draws}"
    return story


# The ruleset, with every command checked for draws it did not record.
TOLD = dataclasses.replace(RULESET, play=every_draw_told)


class StaminaDeckGame(Driver[StaminaDeck]):
    """One game driven through the pure rules, as the referee drives it: its log and state."""

    def __init__(self, config: Json | None = None, *, seed: bytes = SEED) -> None:
        super().__init__(TOLD, config, seed=seed)
        self.gm = self.organizer

    def by_gm(self, command: Command) -> list[Event]:
        return self.run(self.gm, command)

    def refused(self, code: str, command: Command, actor: Member | None = None) -> None:
        """The command is refused with `code`, and nothing is written."""
        before = len(self.log)
        with pytest.raises(RuleError) as info:
            self.run(actor or self.gm, command)
        assert info.value.code == code, info.value.message
        assert len(self.log) == before

    def view(self, viewer: Member, at: int | None = None) -> Json:
        shown = super().view(viewer, at)
        json.dumps(shown)  # a view goes out as JSON
        return shown

    # -- setting up ------------------------------------------------------------------------------

    def player(self, name: str, role: Role = "player") -> Member:
        return self.member(self.by_gm(AddPlayer(name=name, role=role))[0].data["player_id"])

    def start(self) -> None:
        self.by_gm(StartGame())

    def add(self, name: str, side: str = "red", x: int = 0, y: int = 0, **stats: Any) -> str:
        fields = {"name": name, "side": side, "x": x, "y": y, "lives": 8, **stats}
        events = self.by_gm(AddCharacter.model_validate(fields))
        return str(events[0].data["character_id"])

    # -- reading ---------------------------------------------------------------------------------

    def ch(self, character_id: str) -> Character:
        return self.state.characters[character_id]

    def card(self, card_id: str) -> Card:
        return self.state.cards[card_id]

    def hand(self, character_id: str) -> list[Card]:
        return [self.card(c) for c in self.ch(character_id).hand]

    def highest(self, character_id: str) -> str:
        return max(self.hand(character_id), key=lambda c: c.value).card_id

    def lowest(self, character_id: str) -> str:
        return min(self.hand(character_id), key=lambda c: c.value).card_id

    # -- playing ---------------------------------------------------------------------------------

    def round(self, keep: Callable[[list[Card]], Card] | None = None) -> list[Event]:
        """A new round; every initiative choice is made (by the GM) with `keep`, default the
        highest card."""
        events = self.by_gm(StartRound())
        for c in list(self.state.characters.values()):
            if c.choice:
                drawn = [self.card(d) for d in c.choice]
                kept = (keep or (lambda cards: max(cards, key=lambda k: k.value)))(drawn)
                events += self.by_gm(
                    ChooseInitiative(character_id=c.character_id, card_id=kept.card_id)
                )
        return events

    def turn_to(self, character_id: str) -> None:
        """End the turns before this character's; a new round if their turn has passed."""
        while self.state.on_turn() != character_id:
            turn = self.state.turn
            if turn is None or character_id not in self.state.order[turn:]:
                self.round()
            else:
                self.by_gm(EndTurn(character_id=self.state.order[turn]))

    def bout(self, a: str, b: str) -> str:
        (found,) = [k for k, v in self.state.bouts.items() if {a, b} == set(v.fighters)]
        return found

    def down(self, character_id: str, bout_id: str, card_id: str | None) -> list[Event]:
        return self.by_gm(Play(character_id=character_id, bout_id=bout_id, card_id=card_id))
