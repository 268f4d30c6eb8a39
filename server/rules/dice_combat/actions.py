"""What a combatant may still do in a round: one long action or up to two short ones, plus
instant ones; and whether it can still defend actively."""

from dataclasses import dataclass, replace
from typing import Literal

from server.rules.core import Json

Action = Literal[
    "sprint",
    "crawl",
    "use_skill",
    "retreat",
    "stand_up",
    "cast",
    "use_item",
    "change_weapon",
    "reload",
    "short_move",
    "speak",
    "other",
]
Length = Literal["long", "short", "instant"]

# The lengths each action may have; the first is its default. The GM labels the rest.
LENGTHS: dict[str, tuple[Length, ...]] = {
    "sprint": ("long",),
    "crawl": ("long",),
    "use_skill": ("long", "short"),
    "retreat": ("short",),
    "stand_up": ("short",),
    "cast": ("short", "long"),
    "use_item": ("short", "long"),
    "change_weapon": ("short", "long"),
    "reload": ("short", "long", "instant"),
    "short_move": ("instant",),
    "speak": ("instant",),
    "other": ("long", "short", "instant"),
}
# Whoever did one of these this round is too busy to parry: ZO only; so is one who stowed its
# weapon to change it (one who dropped it may parry with the new one).
NO_PARRY = frozenset({"reload", "cast"})
# The movement actions: the short move goes with anything but these (a flight is a sprint).
MOVING = frozenset({"sprint", "crawl", "retreat"})


@dataclass(frozen=True, slots=True)
class RoundActions:
    long: str | None = None  # a long action other than attacking
    shorts: tuple[str, ...] = ()
    instants: tuple[str, ...] = ()
    attacks: int = 0  # all attacks of a round are one long action
    defences: int = 0  # active defences used
    stowed: bool = False  # a weapon was changed and the old one stowed: no active defence

    def refusal(self, action: str, length: Length) -> tuple[str, str] | None:
        """Why this action does not fit the round any more (a code and a sentence), or None."""
        busy = self.long is not None or self.attacks > 0
        if length == "long" and (busy or self.shorts):
            return "no_action_left", "a long action takes the whole round"
        if length == "short" and (busy or len(self.shorts) >= 2):
            return "no_action_left", "one long action or up to two short ones a round"
        if action == "short_move" and "short_move" in self.instants:
            return "already_moved", "one short move a round"
        taken = {self.long, *self.shorts}
        if action == "short_move" and MOVING & taken:
            return "moving", "no short move beside a movement action"
        if action in MOVING and "short_move" in self.instants:
            return "moving", "no movement action after a short move"
        return None

    def attack_refusal(self, attacks_per_round: int) -> tuple[str, str] | None:
        if self.long is not None or self.shorts:
            return "no_action_left", "an attack is a long action: it takes the whole round"
        if self.attacks >= attacks_per_round:
            return "no_attack_left", f"{attacks_per_round} attack(s) a round"
        return None

    def took(self, action: str, length: Length, dropped: bool = False) -> "RoundActions":
        stowed = self.stowed or (action == "change_weapon" and not dropped)
        if length == "long":
            return replace(self, long=action, stowed=stowed)
        if length == "short":
            return replace(self, shorts=(*self.shorts, action), stowed=stowed)
        return replace(self, instants=(*self.instants, action), stowed=stowed)

    def may_parry(self, defences_per_round: int) -> bool:
        """Active defence: nothing done yet, one short action, or attacking; once a round unless
        granted more. Not after a sprint or other long action, two short actions, reloading,
        stowing a weapon to change it, or casting."""
        return (
            self.defences < defences_per_round
            and self.long is None
            and len(self.shorts) < 2
            and not self.stowed
            and not NO_PARRY & {*self.shorts, *self.instants}
        )

    def dump(self) -> Json:
        return {
            "long": "attack" if self.attacks else self.long,
            "shorts": list(self.shorts),
            "instants": list(self.instants),
            "attacks": self.attacks,
            "defences": self.defences,
        }
