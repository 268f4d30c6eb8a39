"""Fair randomness: every die and shuffle comes from the game's secret seed and a position.

A stream is named by a `seq` (the first event of the command that draws). Draw n of stream s is
HMAC-SHA256(seed, "s:n"), read as a big-endian 64-bit number; numbers below a bound are taken by
rejection, so no value is more likely than another. Anyone holding the revealed seed can redo
every draw from the log: each event that used chance carries
`"chance": {"stream": s, "from": n, "draws": [...]}`, and each draw says what it was:
`{"die": 6, "value": 4}`, `{"shuffle": 52, "order": [...]}` (a permutation of range(52)) or
`{"below": 390625, "value": 1234}` (a whole number in [0, below): a member's code).
"""

import hmac
from typing import Any

from server.rules.core import Json

U64 = 1 << 64


class Chance:
    def __init__(self, seed: bytes, stream: int, start: int = 0) -> None:
        self.seed = seed
        self.stream = stream
        self.counter = start
        self.start = start
        self.draws: list[Json] = []

    def number(self) -> int:
        message = f"{self.stream}:{self.counter}".encode()
        self.counter += 1
        return int.from_bytes(hmac.digest(self.seed, message, "sha256")[:8], "big")

    def below(self, bound: int) -> int:
        """A uniform whole number in [0, bound)."""
        limit = U64 - U64 % bound
        while True:
            value = self.number()
            if value < limit:
                return value % bound

    def mark(self) -> None:
        """A recorded draw starts here, even if unrecorded numbers were taken before it."""
        if not self.draws:
            self.start = self.counter

    def die(self, sides: int) -> int:
        self.mark()
        value = self.below(sides) + 1
        self.draws.append({"die": sides, "value": value})
        return value

    def draw(self, bound: int) -> int:
        """A whole number in [0, bound), recorded."""
        self.mark()
        value = self.below(bound)
        self.draws.append({"below": bound, "value": value})
        return value

    def shuffle(self, items: list[Any]) -> list[Any]:
        """A new list in a uniformly random order (Fisher-Yates, from the end)."""
        self.mark()
        order = list(range(len(items)))
        for i in range(len(order) - 1, 0, -1):
            j = self.below(i + 1)
            order[i], order[j] = order[j], order[i]
        self.draws.append({"shuffle": len(items), "order": order})
        return [items[k] for k in order]

    def record(self) -> Json:
        """The draws since the last record, to put in the event that used them."""
        recorded = {"stream": self.stream, "from": self.start, "draws": self.draws}
        self.start, self.draws = self.counter, []
        return recorded


def redo(seed: bytes, recorded: Json) -> list[Json]:
    """The draws a recorded chance must hold, recomputed from the seed alone."""
    chance = Chance(seed, recorded["stream"], recorded["from"])
    for draw in recorded["draws"]:
        if "die" in draw:
            chance.die(draw["die"])
        elif "below" in draw:
            chance.draw(draw["below"])
        else:
            chance.shuffle(list(range(draw["shuffle"])))
    return chance.draws
