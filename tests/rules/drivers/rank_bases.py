"""Driving a rank-bases game through the pure rules, the way the referee does, without a server."""

from collections.abc import Sequence
from dataclasses import dataclass

from server.rules.core import Event, Json, Member, Role
from server.rules.rank_bases import RULESET
from server.rules.rank_bases.commands import (
    AssignRank,
    Defend,
    Deliver,
    IssuePaper,
    OpenDuel,
    Reveal,
    StartRaid,
    TakePart,
)
from server.rules.rank_bases.state import Player, RankBases
from server.rules.roster import AddPlayer, EndGame, StartGame
from tests.rules.drivers.base import SEED, Driver

TEAMS = [
    {"team_id": "red", "name": "Rudí"},
    {"team_id": "blue", "name": "Modří"},
    {"team_id": "green", "name": "Zelení"},
]
FIVE = (1, 2, 3, 4, 5)
SIX = (1, 2, 2, 3, 4, 5)


@dataclass
class Team:
    """A team's leader and players; `team[rank]` is the (first) player of that rank."""

    team_id: str
    leader: Member
    players: list[Member]
    ranks: Sequence[int | None]

    def __getitem__(self, rank: int) -> Member:
        return self.players[self.ranks.index(rank)]


class RankBasesGame(Driver[RankBases]):
    """One game: its log and live state, driven through RULESET.decide/evolve like the referee."""

    def __init__(self, config: Json | None = None, *, seed: bytes = SEED) -> None:
        raw = {"teams": TEAMS} if config is None else config
        super().__init__(RULESET, raw, seed=seed, strict=False)

    # -- shortcuts ---------------------------------------------------------------------------

    def player(self, member: Member) -> Player:
        return self.state.players[member.player_id]

    def add(self, name: str, role: Role = "player", team: str | None = None) -> Member:
        events = self.run(self.organizer, AddPlayer(name=name, role=role, team=team))
        return self.member(events[0].data["player_id"])

    def assign(self, member: Member, rank: int, by: Member | None = None) -> list[Event]:
        return self.run(by or self.organizer, AssignRank(player_id=member.player_id, rank=rank))

    def team(
        self, team_id: str, ranks: Sequence[int | None] = FIVE, *, leader: bool = True
    ) -> Team:
        """A team with a leader (who assigns the ranks) and one player per rank given."""
        boss = self.add(f"Vedoucí {team_id}", "leader", team_id) if leader else self.organizer
        players = [self.add(f"{team_id} {n}", team=team_id) for n in range(len(ranks))]
        for member, rank in zip(players, ranks, strict=True):
            if rank is not None:
                self.assign(member, rank, boss)
        return Team(team_id, boss, players, ranks)

    def start(self) -> list[Event]:
        return self.run(self.organizer, StartGame())

    def end(self) -> list[Event]:
        return self.run(self.organizer, EndGame())

    def duel(self, challenger: Member, target: Member) -> str:
        events = self.run(challenger, OpenDuel(target=target.code))
        assert events[-1].type == "duel_started"
        return str(events[-1].data["duel_id"])

    def reveal(self, member: Member, duel_id: str) -> list[Event]:
        return self.run(member, Reveal(duel_id=duel_id))

    def fight(self, challenger: Member, target: Member) -> Event:
        """A duel outside the bases, opened and revealed: its `duel_fought` event."""
        (fought,) = self.reveal(target, self.duel(challenger, target))
        return fought

    def raid(self, attacker: Member, team_id: str) -> str:
        events = self.run(attacker, StartRaid(team_id=team_id))
        assert events[-1].type == "raid_started"
        return str(events[-1].data["raid_id"])

    def defend(self, by: Member, raid_id: str, order: Sequence[Member]) -> list[Event]:
        return self.run(by, Defend(raid_id=raid_id, order=[m.player_id for m in order]))

    def take(self, attacker: Member, raid_id: str, part_id: str) -> list[Event]:
        return self.run(attacker, TakePart(raid_id=raid_id, part_id=part_id))

    def deliver(self, leader: Member, member: Member) -> list[Event]:
        return self.run(leader, Deliver(player_id=member.player_id))

    def issue(self, leader: Member, member: Member) -> list[Event]:
        return self.run(leader, IssuePaper(player_id=member.player_id))

    def steal(self, attacker: Member, team_id: str, part_id: str) -> str:
        """An undefended raid on `team_id` that takes `part_id`; the raid's id."""
        raid_id = self.raid(attacker, team_id)
        self.defend(self.leader_of(team_id), raid_id, [])
        self.take(attacker, raid_id, part_id)
        return raid_id

    def leader_of(self, team_id: str) -> Member:
        return next(
            m
            for m in self.state.roster.members.values()
            if m.role == "leader" and m.team == team_id
        )
