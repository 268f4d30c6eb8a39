"""Driving a dice-combat game through the pure rules, the way the referee does, without a server."""

from typing import Any, TypeVar

from server.rules.core import Event, Json, Member, Role
from server.rules.dice_combat import RULESET
from server.rules.dice_combat.combatant import Combatant
from server.rules.dice_combat.events import CombatantAdded
from server.rules.dice_combat.state import DiceCombat, Fight
from server.rules.events import Fact
from server.rules.roster import AddPlayer, PlayerJoined, StartGame
from tests.rules.drivers.base import SEED, Driver


class DiceCombatGame(Driver[DiceCombat]):
    """One game of dice-combat driven through the pure rules, the way the referee drives it."""

    def __init__(self, config: Json | None = None, *, seed: bytes = SEED) -> None:
        super().__init__(RULESET, config, seed=seed)
        self.gm = self.organizer

    def send(self, actor: Member, kind: str, **fields: Any) -> list[Event]:
        """A command as it comes over the wire (strict JSON types), after the role check."""
        return self.run(actor, RULESET.commands[kind].model_validate(fields))

    def order(self, kind: str, **fields: Any) -> list[Event]:
        """The GM's command."""
        return self.send(self.gm, kind, **fields)

    def join(self, name: str, role: Role = "player") -> Member:
        joined = told(self.decide(self.gm, AddPlayer(name=name, role=role)), PlayerJoined)
        return self.member(joined.player_id)

    def start(self) -> None:
        self.decide(self.gm, StartGame())

    def add(self, name: str, side: str = "družina", **sheet: Any) -> str:
        events = self.order("add_combatant", name=name, side=side, **sheet)
        return told(events, CombatantAdded).combatant_id

    def who(self, combatant_id: str) -> Combatant:
        return self.state.combatants[combatant_id]

    @property
    def fight(self) -> Fight:
        assert self.state.fight is not None
        return self.state.fight

    def begin(self, *combatants: str, surprised: tuple[str, ...] = ()) -> list[Event]:
        return self.order("begin_fight", combatants=list(combatants), surprised=list(surprised))

    def turn_of(self, combatant_id: str) -> None:
        """Pass turns (and rounds) until it is this combatant's turn."""
        for _ in range(20):
            if self.fight.turn == combatant_id:
                return
            self.order("next_turn")
        raise AssertionError(f"{combatant_id} never got a turn")

    def attack(self, attacker: str, target: str, **fields: Any) -> list[Event]:
        return self.order("attack", attacker_id=attacker, target_id=target, **fields)


F = TypeVar("F", bound=Fact)


def told(events: list[Event], kind: type[F]) -> F:
    """The one fact of this kind among the events."""
    (found,) = [event.fact for event in events if isinstance(event.fact, kind)]
    return found
