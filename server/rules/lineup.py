"""The roster as the rules check it and as viewers see it (server/rules/roster.py): compiled, as
every command and every view goes through them, while the roster's own module holds commands
and events of pydantic and msgspec, which mypyc does not compile."""

from typing import TYPE_CHECKING

from server.rules.core import Json, Member, RuleError
from server.rules.keyed import keyed

if TYPE_CHECKING:
    from server.rules.roster import Roster


def find_member(roster: "Roster", target: str) -> Member | None:
    """A member by player id or by code (codes are typed in any case)."""
    members = roster.members
    if target in members:
        return members[target]
    player_id = roster.codes.get(target.strip().upper())
    return None if player_id is None else members[player_id]


def require_running(roster: "Roster") -> None:
    if roster.status != "running":
        raise RuleError("game_not_running", f"the game is {roster.status}, not running")


def require_not_ended(roster: "Roster") -> None:
    if roster.status == "ended":
        raise RuleError("game_not_running", "the game has ended")


def require_lobby(roster: "Roster") -> None:
    if roster.status != "lobby":
        raise RuleError("game_not_running", f"the game is {roster.status}, it cannot start")


def game_view(roster: "Roster") -> Json:
    return {
        "game_id": roster.game_id,
        "name": roster.name,
        "ruleset": roster.ruleset,
        "status": roster.status,
        "seed_sha256": roster.seed_sha256,
        "seed": roster.seed,
        "config": roster.config,
    }


def member_view(member: Member) -> Json:
    return {
        "player_id": member.player_id,
        "name": member.name,
        "role": member.role,
        "team": member.team,
        "code": member.code,
    }


def onlooker_view(viewer: Member) -> Json | None:
    """The private part of an organizer (who they are) or a spectator (nothing), who play no
    part in the fighting; None for anyone else."""
    if viewer.role == "organizer":
        return {"me": {"player_id": viewer.player_id, "name": viewer.name, "role": viewer.role}}
    if viewer.role == "spectator":
        return {}
    return None


def members_view(roster: "Roster") -> Json:
    """Every member by player id: the GM's list (a player looks names up in the directory)."""
    return keyed((member_view(m) for m in roster.members.values()), "player_id")
