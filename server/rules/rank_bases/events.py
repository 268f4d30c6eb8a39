"""The events of rank-bases, as typed records.

Every kind is at version 1: no line has changed its shape since the ruleset was written, so
there is nothing to upcast. Times are ISO 8601 UTC strings with milliseconds, as on the wire.
"""

from typing import Literal

import msgspec

from server.rules import roster
from server.rules.events import Catalog, Fact

DuelCancelReason = Literal["organizer", "game_ended"]
RaidCancelReason = Literal["organizer", "game_ended"]
# A won raid ends without a part when its raider goes on (`left`) or the game ends.
RaidEndReason = Literal["left", "game_ended"]


class PartFace(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A book part as events write it."""

    part_id: str
    team_id: str
    value: int


class Capture(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A paper taken in a duel: from its owner, by the taker who now carries it."""

    paper_id: str
    from_: str = msgspec.field(name="from")
    to: str


class DeliveredPaper(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    paper_id: str
    player_id: str  # whose paper it was
    team_id: str
    points: int  # 1 for a foreign team's paper, 0 for one's own


class DeliveredPart(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    part_id: str
    team_id: str
    value: int
    points: int  # twice the value for a foreign team's part, 0 for one's own
    to: Literal["stash", "tree"]


class RankAssigned(Fact, frozen=True):
    kind = "rank_assigned"
    player_id: str
    rank: int
    lives: int


class PaperIssued(Fact, frozen=True):
    """A player's paper, at the start (no life spent) or at the base for one life."""

    kind = "paper_issued"
    paper_id: str
    player_id: str
    lives: int  # left after this paper


class DuelStarted(Fact, frozen=True):
    """The challenger has shown their paper; the duel is open until the target reveals."""

    kind = "duel_started"
    duel_id: str
    challenger: str
    target: str
    at: str


class DuelFought(Fact, frozen=True):
    """Both papers shown, in an open duel (`raid_id` None) or in a raid's fight."""

    kind = "duel_fought"
    duel_id: str
    raid_id: str | None
    players: list[str]
    ranks: dict[str, int]
    winner: str | None  # None: equal ranks, the papers are swapped
    captured: list[Capture]


class DuelCancelled(Fact, frozen=True):
    kind = "duel_cancelled"
    duel_id: str
    reason: DuelCancelReason


class RaidStarted(Fact, frozen=True):
    kind = "raid_started"
    raid_id: str
    attacker: str
    team_id: str  # the base entered
    at: str


class RaidDefended(Fact, frozen=True):
    kind = "raid_defended"
    raid_id: str
    order: list[str]


class RaidWon(Fact, frozen=True):
    kind = "raid_won"
    raid_id: str


class RaidLost(Fact, frozen=True):
    kind = "raid_lost"
    raid_id: str


class RaidEnded(Fact, frozen=True):
    """A won raid is over without a part taken."""

    kind = "raid_ended"
    raid_id: str
    reason: RaidEndReason


class PartTaken(Fact, frozen=True):
    kind = "part_taken"
    raid_id: str
    player_id: str
    tree: str  # the team whose tree it hung on
    part: PartFace


class RaidCancelled(Fact, frozen=True):
    """A raid gone as if never run (duels fought in it stand)."""

    kind = "raid_cancelled"
    raid_id: str
    reason: RaidCancelReason


class Delivered(Fact, frozen=True):
    kind = "delivered"
    player_id: str
    team_id: str
    papers: list[DeliveredPaper]
    parts: list[DeliveredPart]
    points: int


EVENTS: Catalog = roster.EVENTS.extended(
    [
        RankAssigned,
        PaperIssued,
        DuelStarted,
        DuelFought,
        DuelCancelled,
        RaidStarted,
        RaidDefended,
        RaidWon,
        RaidLost,
        RaidEnded,
        PartTaken,
        RaidCancelled,
        Delivered,
    ]
)
