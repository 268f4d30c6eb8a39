"""The state of a rank-bases game: players and their papers, bases with trees, duels and raids."""

import re
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from server.rules.core import Json
from server.rules.rank_bases.ranks import DEFAULT_RANKS, HIGHEST, LOWEST, RankSpec
from server.rules.roster import Roster

# Ids the server makes are a letter and digits (p7, d12, r9.2); a team id must never look like one,
# and has no "-", so that the part ids "<team_id>-<value>" collide with nothing.
SERVER_ID = re.compile(r"[a-z]\d+")
PART_VALUES = (1, 2, 3, 4)


class TeamSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    team_id: str = Field(pattern=r"^[A-Za-z0-9_]{1,24}$")
    name: str = Field(min_length=1, max_length=40, pattern=r"\S")


class Config(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    teams: list[TeamSpec] = Field(default_factory=list, max_length=20)
    ranks: list[RankSpec] = Field(
        default_factory=lambda: list(DEFAULT_RANKS), min_length=5, max_length=5
    )

    @model_validator(mode="after")
    def distinct(self) -> "Config":
        ids = [team.team_id for team in self.teams]
        if len(set(ids)) != len(ids):
            raise ValueError("teams: every team_id must be different")
        for team_id in ids:
            if SERVER_ID.fullmatch(team_id):
                raise ValueError(f"teams: {team_id!r} looks like a server id (a letter and digits)")
        if sorted(r.rank for r in self.ranks) != list(range(LOWEST, HIGHEST + 1)):
            raise ValueError("ranks: each of the ranks 1 to 5 exactly once")
        return self

    def rank(self, rank: int) -> RankSpec:
        return next(spec for spec in self.ranks if spec.rank == rank)


@dataclass(frozen=True, slots=True)
class Part:
    """A book part: it belongs to `team_id` wherever it is."""

    part_id: str
    team_id: str
    value: int

    def dump(self) -> Json:
        return {"part_id": self.part_id, "team_id": self.team_id, "value": self.value}


def book(team_id: str) -> tuple[Part, ...]:
    """The four parts a team hangs on its tree at the start, with ids derived from the team."""
    return tuple(Part(f"{team_id}-{value}", team_id, value) for value in PART_VALUES)


@dataclass(frozen=True, slots=True)
class Paper:
    """A rank paper, issued to `player_id` (of `team_id`); once taken it is carried as loot."""

    paper_id: str
    player_id: str
    team_id: str

    def dump(self) -> Json:
        return {"paper_id": self.paper_id, "player_id": self.player_id, "team_id": self.team_id}


@dataclass(frozen=True, slots=True)
class Player:
    player_id: str
    team_id: str
    rank: int | None = None
    lives: int = 0  # new papers the base may still issue
    paper: Paper | None = None  # their own paper, while they hold it
    papers: tuple[Paper, ...] = ()  # captured papers carried home
    parts: tuple[Part, ...] = ()  # taken parts carried home
    duel_id: str | None = None  # an open duel, on either side
    raid_id: str | None = None  # their last raid as the attacker

    @property
    def out(self) -> bool:
        return self.paper is None and self.lives == 0


RaidState = Literal["awaiting_defenders", "won", "lost", "done"]


@dataclass(frozen=True, slots=True)
class Raid:
    raid_id: str
    attacker: str
    team_id: str  # the base entered
    state: RaidState = "awaiting_defenders"
    order: tuple[str, ...] = ()  # the defenders, in fighting order
    part: Part | None = None  # the part taken, once done


@dataclass(frozen=True, slots=True)
class Duel:
    duel_id: str
    players: tuple[str, str]  # challenger and target; in a raid the attacker and a defender
    raid_id: str | None = None
    ranks: dict[str, int] | None = None  # once fought
    winner: str | None = None

    def opponent(self, player_id: str) -> str:
        a, b = self.players
        return b if player_id == a else a


@dataclass(frozen=True, slots=True)
class Base:
    team_id: str
    name: str
    tree: tuple[Part, ...] = ()  # raiders may take these
    stash: tuple[Part, ...] = ()  # the leader keeps these: safe
    pile: tuple[Paper, ...] = ()  # papers delivered here
    score: int = 0


@dataclass(frozen=True, slots=True)
class RankBases:
    roster: Roster
    config: Config
    players: dict[str, Player] = field(default_factory=dict)
    bases: dict[str, Base] = field(default_factory=dict)
    duels: dict[str, Duel] = field(default_factory=dict)  # open: the target has not revealed
    raids: dict[str, Raid] = field(default_factory=dict)  # every raid not cancelled, oldest first
    last_duels: dict[str, Duel] = field(default_factory=dict)  # by player: their last fought duel

    def raid_of(self, player: Player) -> Raid | None:
        return self.raids.get(player.raid_id) if player.raid_id else None

    def busy(self, player: Player) -> bool:
        """In an open duel, or in a foreign base waiting for its defenders."""
        raid = self.raid_of(player)
        return player.duel_id is not None or (
            raid is not None and raid.state == "awaiting_defenders"
        )

    def free(self, player: Player) -> bool:
        """Holds their own paper and is in no duel and no raid's wait: may duel now."""
        return player.paper is not None and not self.busy(player)

    def could_duel(self, team_id: str) -> bool:
        """Somebody of another team than `team_id` is free to duel (a few dozen players)."""
        return any(p.team_id != team_id and self.free(p) for p in self.players.values())

    def leaders(self, team_id: str) -> list[str]:
        return [
            m.player_id
            for m in self.roster.members.values()
            if m.role == "leader" and m.team == team_id
        ]
