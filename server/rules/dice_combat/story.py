"""The events one command causes, told one by one, and the state they lead to."""

from server.rules.core import Event, Json
from server.rules.dice_combat.evolve import evolve
from server.rules.dice_combat.state import DiceCombat


class Story:
    """`decide` tells each event here; later steps of the same command see its effect (a hit
    before the bleeding it opens), and evolve stays the only code that changes the state."""

    def __init__(self, state: DiceCombat) -> None:
        self.state = state
        self.events: list[Event] = []

    def tell(self, kind: str, data: Json) -> None:
        event = Event(kind, data)
        self.events.append(event)
        self.state = evolve(self.state, event)
