"""Driving a card-duel game through the pure rules, the way the referee does, without a server."""

import hashlib
from typing import Any

from server.rules.card_duel import RULESET
from server.rules.card_duel.commands import Challenge, GrantCard, GrantItem, Pick
from server.rules.card_duel.state import CardDuel, Fighter
from server.rules.core import Command, Context, Event, Json, Member, Role, RuleError
from server.rules.roster import AddPlayer, StartGame

T0 = 1_700_000_000_000  # a server time in ms
SEED = b"s" * 32
STARTING = ("Rána židlí", "Rána Ankh-Morporskou dýkou", "Ztracení se v davu")


class Game:
    """One game: its log, its live state and a clock `now` (ms) that tests move by hand."""

    def __init__(self, config: Json | None = None, *, now: int = T0, seed: bytes = SEED) -> None:
        # As the referee does: the organizer's config validated, then stored as JSON.
        settings = RULESET.config.model_validate(config or {}).model_dump(mode="json")
        created = Event(
            "game_created",
            {
                "game_id": "g1",
                "ruleset": RULESET.id,
                "name": "Ankh-Morpork",
                "config": settings,
                "seed_sha256": hashlib.sha256(seed).hexdigest(),
            },
        )
        self.seed = seed
        self.now = now
        self.log: list[Event] = [created]
        self.firsts: list[int] = []  # the seq of the first event of every accepted command
        self.state: CardDuel = RULESET.evolve(RULESET.initial_state(settings), created)
        # The first organizer is added by nobody, as the referee does when it creates a game.
        nobody = Member("", "", "organizer", None, "")
        self.organizer = self.member(
            self.decide(nobody, AddPlayer(name="Organizer", role="organizer"))[0].data["player_id"]
        )

    # -- the two doors: decide (with evolve) and view ------------------------------------------

    def decide(self, actor: Member, command: Command, at: int | None = None) -> list[Event]:
        """Decide `command` as `actor` at `at` (default: now), evolve and log its events."""
        ctx = Context(
            now=self.now if at is None else at,
            actor=actor,
            seq=len(self.log) + 1,
            seed=self.seed,
        )
        events = RULESET.decide(self.state, command, ctx)
        if events:
            self.firsts.append(ctx.seq)
        for event in events:
            self.state = RULESET.evolve(self.state, event)
            self.log.append(event)
        return events

    def run(self, actor: Member, command: Command, at: int | None = None) -> list[Event]:
        """As `decide`, but first the role check the referee makes for every command."""
        if actor.role not in type(command).roles:
            raise RuleError("forbidden", f"a {actor.role} may not do that")
        return self.decide(actor, command, at)

    def view(self, viewer: Member, at: int | None = None) -> Json:
        return RULESET.view(self.state, viewer, self.now if at is None else at)

    # -- shortcuts -----------------------------------------------------------------------------

    def member(self, player_id: str) -> Member:
        return self.state.roster.members[player_id]

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
        self, member: Member, title: str, big: int, small: int, kind: str, ranged: bool = False
    ) -> str:
        spec: dict[str, Any] = {
            "title": title,
            "big": big,
            "small": small,
            "kind": kind,
            "ranged": ranged,
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
