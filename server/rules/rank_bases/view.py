"""What each viewer of a rank-bases game may see: the only door out of the state.

A rank is secret: a player sees their own, a leader their team's, the organizer all, and a
duellist the opponent's rank in the last duel they fought (the papers were shown).
"""

from server.rules.core import Json, Member
from server.rules.rank_bases.state import Duel, Player, Raid, RankBases
from server.rules.roster import game_view, member_view

OPEN_RAID = ("awaiting_defenders", "won")


def view(state: RankBases, viewer: Member, now: int) -> Json:
    members = state.roster.members
    public: list[Json] = [
        {
            "player_id": p.player_id,
            "name": members[p.player_id].name,
            "code": members[p.player_id].code,
            "team_id": p.team_id,
        }
        for p in state.players.values()
    ]
    result: Json = {
        "game": game_view(state.roster),
        "scores": {team_id: base.score for team_id, base in state.bases.items()},
        "trees": {team_id: [p.dump() for p in base.tree] for team_id, base in state.bases.items()},
        "players": public,
        "winners": winners(state),
    }
    if viewer.role == "organizer":
        for entry, each in zip(public, state.players.values(), strict=True):
            entry.update(status(each))
            entry["duel_id"] = each.duel_id
            entry["raid_id"] = each.raid_id
        result["me"] = {"player_id": viewer.player_id, "name": viewer.name, "role": viewer.role}
        result["members"] = [member_view(m) for m in members.values()]
        result["stashes"] = {t: [p.dump() for p in b.stash] for t, b in state.bases.items()}
        result["piles"] = {t: [p.dump() for p in b.pile] for t, b in state.bases.items()}
        result["duels"] = [
            {"duel_id": d.duel_id, "challenger": d.players[0], "target": d.players[1]}
            for d in state.duels.values()
        ]
        result["raids"] = [
            {**raid_view(r), "attacker": r.attacker, "order": list(r.order)}
            for r in state.raids.values()
        ]
        return result
    if viewer.role == "leader" and viewer.team in state.bases:
        team = [p for p in state.players.values() if p.team_id == viewer.team]
        result["me"] = {**member_view(viewer), "team_id": viewer.team}
        result["team"] = [
            {"player_id": p.player_id, "name": members[p.player_id].name, **status(p)} for p in team
        ]
        result["stash"] = [p.dump() for p in state.bases[viewer.team].stash]
        result["incoming_raids"] = incoming(state, viewer.team)
        return result
    player = state.players.get(viewer.player_id)
    if player is None:
        if viewer.role != "spectator":
            result["me"] = member_view(viewer)
        return result
    me = player.player_id
    result["me"] = {**member_view(viewer), "team_id": player.team_id, **status(player)}
    duel = state.duels.get(player.duel_id) if player.duel_id else None
    result["duel"] = None if duel is None else open_duel(state, duel, me)
    last = state.last_duels.get(me)
    result["last_duel"] = None if last is None else last_duel(state, last, me)
    raid = state.raid_of(player)
    result["raid"] = None if raid is None else raid_view(raid)
    result["incoming_raids"] = incoming(state, player.team_id)
    return result


def winners(state: RankBases) -> list[str]:
    """Once the game has ended: the teams with the highest score (several on a tie)."""
    if state.roster.status != "ended" or not state.bases:
        return []
    best = max(base.score for base in state.bases.values())
    return [team_id for team_id, base in state.bases.items() if base.score == best]


def status(player: Player) -> Json:
    """What a player, their leader and the organizer see of that player: rank included."""
    return {
        "rank": player.rank,
        "has_paper": player.paper is not None,
        "lives": player.lives,
        "carrying": {"papers": len(player.papers), "parts": [p.dump() for p in player.parts]},
    }


def opponent(state: RankBases, duel: Duel, me: str) -> Json:
    other = duel.opponent(me)
    return {"player_id": other, "name": state.roster.members[other].name}


def open_duel(state: RankBases, duel: Duel, me: str) -> Json:
    """No rank shows before the target reveals."""
    return {
        "duel_id": duel.duel_id,
        "opponent": opponent(state, duel, me),
        "revealed_by_me": duel.players[0] == me,
    }


def last_duel(state: RankBases, duel: Duel, me: str) -> Json:
    return {
        "duel_id": duel.duel_id,
        "opponent": opponent(state, duel, me),
        "raid_id": duel.raid_id,
        "ranks": dict(duel.ranks or {}),
        "winner": duel.winner,
    }


def raid_view(raid: Raid) -> Json:
    return {
        "raid_id": raid.raid_id,
        "team_id": raid.team_id,
        "state": raid.state,
        "part": None if raid.part is None else raid.part.dump(),
    }


def incoming(state: RankBases, team_id: str) -> list[Json]:
    """Raids on this base that are not over, oldest first."""
    members = state.roster.members
    return [
        {
            "raid_id": r.raid_id,
            "attacker": {"player_id": r.attacker, "name": members[r.attacker].name},
            "state": r.state,
        }
        for r in state.raids.values()
        if r.team_id == team_id and r.state in OPEN_RAID
    ]
