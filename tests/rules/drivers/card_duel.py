"""Driving a card-duel game through the pure rules, the way the referee does, without a server."""

from typing import Any

from server.rules.card_duel import RULESET
from server.rules.card_duel.commands import Challenge, GrantCard, GrantItem, Pick
from server.rules.card_duel.state import CardDuel, Fighter
from server.rules.core import Event, Json, Member, Role
from server.rules.roster import AddPlayer, StartGame
from tests.rules.drivers.base import SEED, T0, Driver

STARTING = ("Rána židlí", "Rána Ankh-Morporskou dýkou", "Ztracení se v davu")


class CardDuelGame(Driver[CardDuel]):
    """One game: its log, its live state and a clock `now` (ms) that tests move by hand."""

    def __init__(self, config: Json | None = None, *, now: int = T0, seed: bytes = SEED) -> None:
        super().__init__(RULESET, config, now=now, seed=seed)

    # -- shortcuts -----------------------------------------------------------------------------

    def fighter(self, member: Member) -> Fighter:
        return self.state.fighters[member.player_id]

    def add(self, name: str, role: Role = "player") -> Member:
        events = self.run(self.organizer, AddPlayer(name=name, role=role))
        return self.member(events[0].data["player_id"])

    def start(self) -> None:
        self.run(self.organizer, StartGame())

    def card(self, member: Member, title: str) -> str:
        """The id of the member's card with this title."""
        (card_id,) = [c.card_id for c in self.fighter(member).cards if c.title == title]
        return card_id

    def grant(
        self,
        member: Member,
        title: str,
        big: int,
        small: int,
        kind: str,
        ranged: bool = False,
        **effect: Any,
    ) -> str:
        """Grant a card (a special one with `effect=` and maybe `effect_s=`); its id."""
        spec: dict[str, Any] = {
            "title": title,
            "big": big,
            "small": small,
            "kind": kind,
            "ranged": ranged,
            **effect,
        }
        command = GrantCard.model_validate({"player_id": member.player_id, "card": spec})
        events = self.run(self.organizer, command)
        return str(events[0].data["card"]["card_id"])

    def crossbow(self, member: Member) -> None:
        self.run(self.organizer, GrantItem(player_id=member.player_id, item="crossbow"))

    def challenge(
        self, challenger: Member, target: Member, *, ranged: bool = False, at: int | None = None
    ) -> str:
        """Challenge by the target's code; the new duel's id."""
        events = self.run(challenger, Challenge(target=target.code, ranged=ranged), at)
        assert events[-1].type == "duel_started"
        return str(events[-1].data["duel_id"])

    def pick(
        self, member: Member, duel_id: str, card_id: str, at: int | None = None
    ) -> list[Event]:
        return self.run(member, Pick(duel_id=duel_id, card_id=card_id), at)

    def duel(
        self,
        a: Member,
        b: Member,
        card_a: str,
        card_b: str,
        *,
        ranged: bool = False,
        at: int | None = None,
    ) -> list[Event]:
        """`a` challenges `b`, both pick (by card title or id); the events of the second pick."""
        duel_id = self.challenge(a, b, ranged=ranged, at=at)
        self.pick(a, duel_id, self._card_id(a, card_a), at)
        return self.pick(b, duel_id, self._card_id(b, card_b), at)

    def _card_id(self, member: Member, title_or_id: str) -> str:
        if self.fighter(member).card(title_or_id) is not None:
            return title_or_id
        return self.card(member, title_or_id)


def types(events: list[Event]) -> list[str]:
    return [event.type for event in events]
