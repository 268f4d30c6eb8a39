"""The rank-bases commands and who may send them."""

from typing import Annotated, ClassVar

from pydantic import Field

from server.rules.core import LEADER, ORGANIZER, PLAYER, Command, Id, Role
from server.rules.rank_bases.ranks import HIGHEST, LOWEST


class AssignRank(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER | LEADER
    player_id: str = Id
    rank: int = Field(ge=LOWEST, le=HIGHEST)


class OpenDuel(Command):
    """`duel`: the challenger's reveal; the target answers with `reveal`."""

    roles: ClassVar[frozenset[Role]] = PLAYER
    target: str = Id


class Reveal(Command):
    roles: ClassVar[frozenset[Role]] = PLAYER
    duel_id: str = Id


class StartRaid(Command):
    """`raid`: the attacker has run into the base of `team_id`."""

    roles: ClassVar[frozenset[Role]] = PLAYER
    team_id: str = Id


class Defend(Command):
    roles: ClassVar[frozenset[Role]] = PLAYER | LEADER
    raid_id: str = Id
    order: list[Annotated[str, Field(min_length=1, max_length=64)]] = Field(max_length=6)


class TakePart(Command):
    roles: ClassVar[frozenset[Role]] = PLAYER
    raid_id: str = Id
    part_id: str = Id


class Deliver(Command):
    roles: ClassVar[frozenset[Role]] = LEADER
    player_id: str = Id


class IssuePaper(Command):
    roles: ClassVar[frozenset[Role]] = LEADER
    player_id: str = Id


class CancelDuel(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER
    duel_id: str = Id


class CancelRaid(Command):
    roles: ClassVar[frozenset[Role]] = ORGANIZER
    raid_id: str = Id


COMMANDS: dict[str, type[Command]] = {
    "assign_rank": AssignRank,
    "duel": OpenDuel,
    "reveal": Reveal,
    "raid": StartRaid,
    "defend": Defend,
    "take_part": TakePart,
    "deliver": Deliver,
    "issue_paper": IssuePaper,
    "cancel_duel": CancelDuel,
    "cancel_raid": CancelRaid,
}
