"""What each viewer of a rank-bases game may see: the only door out of the state.

A rank is secret: a player sees their own, a leader their team's, the organizer all, and a
duellist the opponent's rank in the last duel they fought (the papers were shown).
"""

from collections.abc import Iterator
from functools import cache

import msgspec

from server.rules.core import Event, Json, Member
from server.rules.offers import may
from server.rules.rank_bases.decide import delivery, setup_problems, team_problems
from server.rules.rank_bases.events import Delivered, PartTaken
from server.rules.rank_bases.offers import leader_offers, offers, organizer_offers
from server.rules.rank_bases.ranks import reason
from server.rules.rank_bases.state import Duel, Part, Player, Raid, RankBases
from server.rules.roster import MEMBER_ROWS, game_view, member_view, mentioned, onlooker_view
from server.rules.rows import Collection, Made, Row, Rows

OPEN_RAID = ("awaiting_defenders", "won")


def view(state: RankBases, viewer: Member, now: int) -> Json:
    return {**shared(state, audience(viewer), now), **private(state, viewer, now)}


def audience(viewer: Member) -> str:
    """A team's players share what hangs over their base; its leader sees the team too."""
    if viewer.role in ("organizer", "spectator") or viewer.team is None:
        return viewer.role if viewer.role in ("organizer", "spectator") else "public"
    return f"{viewer.role}:{viewer.team}"


def shared(state: RankBases, audience: str, now: int) -> Json:
    kept = rows(audience)
    if kept is not None:
        return kept.whole(state, now)
    role, _, team = audience.partition(":")
    if role == "player" and team in state.bases:
        return {**common(state), "incoming_raids": incoming(state, team)}
    return common(state)


def common(state: RankBases) -> Json:
    """What every audience sees."""
    return {
        "game": game_view(state.roster),
        "scores": {team_id: base.score for team_id, base in state.bases.items()},
        "trees": {team_id: parts(base.tree) for team_id, base in state.bases.items()},
        "winners": winners(state),
    }


@cache
def rows(audience: str) -> Rows[RankBases] | None:
    """The organizer's console and a leader's team grow with the game: kept a row at a time.
    A team's players share the raids on their base, which are few."""
    role, _, team = audience.partition(":")
    if role == "organizer":
        return CONSOLE
    return team_rows(team) if role == "leader" else None


def console_head(state: RankBases, now: int) -> Json:
    lobby = state.roster.status == "lobby"
    return {
        **common(state),
        "may": may(organizer_offers(state)),
        "setup": setup_problems(state) if lobby else [],
        "stashes": {t: parts(b.stash) for t, b in state.bases.items()},
        "piles": {
            t: {p.paper_id: {"player_id": p.player_id, "team_id": p.team_id} for p in b.pile}
            for t, b in state.bases.items()
        },
    }


def player_row(state: RankBases, player_id: str, now: int) -> Made:
    p = state.players.get(player_id)
    if p is None:
        return None, None
    member = state.roster.members[player_id]
    row = {
        "name": member.name,
        "code": member.code,
        "team_id": p.team_id,
        **status(p),
        "duel_id": p.duel_id,
        "raid_id": p.raid_id,
    }
    return row, None


def duel_row(state: RankBases, duel_id: str, now: int) -> Made:
    d = state.duels.get(duel_id)
    return (None if d is None else {"challenger": d.players[0], "target": d.players[1]}), None


def raid_row(state: RankBases, raid_id: str, now: int) -> Made:
    r = state.raids.get(raid_id)
    if r is None:
        return None, None
    return {**raid_view(r), "attacker": r.attacker, "order": list(r.order)}, None


def named(state: RankBases, touched: set[str], shown: Json) -> Iterator[Row]:
    """A touched member's rows, the duel its player is in now or was in when last shown, and
    every raid it attacked or defended in: raids stay after they end, and one may have begun
    and ended since the console was last shown (several commands published at once)."""
    players, shown_players, shown_members = state.players, shown["players"], shown["members"]
    for raid in state.raids.values():
        if raid.attacker in touched or not touched.isdisjoint(raid.order):
            yield "raids", raid.raid_id
    for player_id in touched:
        yield "players", player_id
        if player_id not in shown_members:  # a member's row never changes once shown
            yield "members", player_id
        player = players.get(player_id)
        before = shown_players.get(player_id, {})
        for duel_id in {player and player.duel_id, before.get("duel_id")}:
            if duel_id:
                yield "duels", duel_id
        for raid_id in {player and player.raid_id, before.get("raid_id")}:
            if raid_id:
                yield "raids", raid_id


CONSOLE: Rows[RankBases] = Rows(
    head=console_head,
    collections={
        "players": Collection(lambda state: state.players, player_row),
        "members": MEMBER_ROWS,
        "duels": Collection(lambda state: state.duels, duel_row),
        "raids": Collection(lambda state: state.raids, raid_row),
    },
    named=named,
)


def team_rows(team: str) -> Rows[RankBases]:
    """A leader's audience: the team's players a row each, beside what the team's players see
    and the team's stash."""

    def head(state: RankBases, now: int) -> Json:
        if team not in state.bases:
            return common(state)
        players = [p for p in state.players.values() if p.team_id == team]
        lobby = state.roster.status == "lobby"
        return {
            **common(state),
            "incoming_raids": incoming(state, team),
            "stash": parts(state.bases[team].stash),
            "may": may(leader_offers(state, team)),
            "setup": team_problems(state, team, players) if lobby else [],
            "deliveries": {p.player_id: preview(state, p) for p in players if p.papers or p.parts},
        }

    def ids(state: RankBases) -> Iterator[str]:
        return (p.player_id for p in state.players.values() if p.team_id == team)

    def row(state: RankBases, player_id: str, now: int) -> Made:
        p = state.players.get(player_id)
        if p is None or p.team_id != team:
            return None, None
        return {"name": state.roster.members[player_id].name, **status(p)}, None

    def team_named(state: RankBases, touched: set[str], shown: Json) -> Iterator[Row]:
        return (("team", player_id) for player_id in touched)

    return Rows(head=head, collections={"team": Collection(ids, row)}, named=team_named)


def private(state: RankBases, viewer: Member, now: int) -> Json:
    onlooker = onlooker_view(viewer)
    if onlooker is not None:
        return onlooker
    if viewer.role == "leader" and viewer.team in state.bases:
        return {"me": {**member_view(viewer), "team_id": viewer.team}}
    player = state.players.get(viewer.player_id)
    if player is None:
        return {"me": member_view(viewer)}
    me = player.player_id
    duel = state.duels.get(player.duel_id) if player.duel_id else None
    last = state.last_duels.get(me)
    raid = state.raid_of(player)
    return {
        "may": may(offers(state, viewer, now)),
        "me": {**member_view(viewer), "team_id": player.team_id, **status(player)},
        "duel": None if duel is None else open_duel(state, duel, me),
        "last_duel": None if last is None else last_duel(state, last, me),
        "raid": None if raid is None else raid_view(raid),
    }


LIFECYCLE = ("game_started", "game_ended")


def touched(before: RankBases, events: list[Event], after: RankBases) -> set[str] | None:
    """The players the events name, both players of a duel they name and the attacker of a raid
    they name (a cancelled duel or raid names neither); and those whose offers change with
    others' facts: everybody at the start and the end, a team whose players find nobody of
    another team free to duel any more (or again), and a raider who has won on a tree that
    changed."""
    if any(event.type in LIFECYCLE for event in events):
        return None
    found = mentioned(before, events)
    for event in events:
        duel = before.duels.get(getattr(event.fact, "duel_id", ""))
        if duel is not None:
            found.update(duel.players)
        raid = before.raids.get(getattr(event.fact, "raid_id", ""))
        if raid is not None:
            found.add(raid.attacker)
    found.update(lonely(before, after))
    found.update(on_trees(after, events))
    return found


def lonely(before: RankBases, after: RankBases) -> Iterator[str]:
    """The players of the teams for which `could_duel` changed."""
    free_before = {p.team_id for p in before.players.values() if before.free(p)}
    free_after = {p.team_id for p in after.players.values() if after.free(p)}
    if free_before == free_after:
        return iter(())
    flipped = {t for t in after.bases if bool(free_before - {t}) != bool(free_after - {t})}
    return (p.player_id for p in after.players.values() if p.team_id in flipped)


def on_trees(after: RankBases, events: list[Event]) -> Iterator[str]:
    """The raiders who won on a tree that the events changed (a part taken or hung there)."""
    trees = set()
    for event in events:
        fact = event.fact
        if isinstance(fact, PartTaken):
            trees.add(fact.tree)
        elif isinstance(fact, Delivered) and fact.parts:
            trees.add(fact.team_id)
    if not trees:
        return iter(())
    return (r.attacker for r in after.raids.values() if r.state == "won" and r.team_id in trees)


def preview(state: RankBases, player: Player) -> Json:
    """What delivering this player now would score, and where each part would go: the
    delivery that `deliver` records."""
    made = delivery(state, player)
    return {
        "points": made.points,
        "papers": len(made.papers),
        "paper_points": sum(p.points for p in made.papers),
        "parts": [msgspec.to_builtins(part) for part in made.parts],
    }


def parts(hanging: tuple[Part, ...]) -> Json:
    return {p.part_id: {"team_id": p.team_id, "value": p.value} for p in hanging}


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
        "out": player.out,
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
        "why": reason(*(duel.ranks or {}).values()) if duel.ranks else None,
    }


def raid_view(raid: Raid) -> Json:
    return {
        "raid_id": raid.raid_id,
        "team_id": raid.team_id,
        "state": raid.state,
        "part": None if raid.part is None else raid.part.dump(),
    }


def incoming(state: RankBases, team_id: str) -> Json:
    """Raids on this base that are not over, by id (ids grow with the log: oldest first)."""
    members = state.roster.members
    return {
        r.raid_id: {
            "attacker": {"player_id": r.attacker, "name": members[r.attacker].name},
            "state": r.state,
        }
        for r in state.raids.values()
        if r.team_id == team_id and r.state in OPEN_RAID
    }
