"""What each rank-bases viewer may do now (server/rules/offers.py), judged by decide's guards.

A player's offers go in their private part: they change with the player's own facts, with the
game's start and end, with whether anybody of another team is free to duel, and with the tree of
a base the player has won a raid on (`view.touched` names the player for each). A leader's and
an organizer's offers are the same for every leader of the team and every organizer: they go in
the head of the team's and of the console's shared part, which is computed whole on every change.
"""

from functools import partial

from server.rules import roster
from server.rules.core import Member
from server.rules.offers import Offer, console, judged, trial
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
from server.rules.rank_bases.decide import (
    assign_rank,
    may_defend,
    may_deliver,
    may_duel,
    may_issue,
    may_raid,
    may_take,
    require_setup,
    revealable,
)
from server.rules.rank_bases.state import Player, RankBases


def offers(state: RankBases, viewer: Member, now: int) -> dict[str, Offer]:
    if viewer.role == "player":
        player = state.players.get(viewer.player_id)
        return {} if player is None else player_offers(state, player)
    if viewer.role == "leader" and viewer.team in state.bases:
        return leader_offers(state, viewer.team)
    if viewer.role == "organizer":
        return organizer_offers(state)
    return {}


def player_offers(state: RankBases, me: Player) -> dict[str, Offer]:
    """The duel by code, a raid into each foreign base, the reveal of a duel aimed at the
    player, and each part of the tree of a raid the player has won."""
    found: dict[str, Offer] = {"duel": duel_offer(state, me)}
    for team_id in state.bases:
        if team_id != me.team_id:
            found[f"raid:{team_id}"] = Offer(
                StartRaid(team_id=team_id), judged(partial(may_raid, state, me, team_id))
            )
    duel = state.duels.get(me.duel_id) if me.duel_id else None
    if duel is not None and duel.players[1] == me.player_id:
        found[f"reveal:{duel.duel_id}"] = Offer(
            Reveal(duel_id=duel.duel_id),
            judged(partial(revealable, state, duel.duel_id, me.player_id)),
        )
    raid = state.raid_of(me)
    if raid is not None and raid.state == "won":
        for part in state.bases[raid.team_id].tree:
            found[f"take_part:{part.part_id}"] = Offer(
                TakePart(raid_id=raid.raid_id, part_id=part.part_id),
                judged(partial(may_take, state, raid, me.player_id, part.part_id)),
            )
    return found


def duel_offer(state: RankBases, me: Player) -> Offer:
    """The code form: refused by what the challenger lacks; when offered, the command names a
    player who would take the duel (the player types whichever code they touched)."""

    def duel() -> None:
        roster.require_running(state.roster)
        may_duel(state, me)

    refused = judged(duel)
    code = state.roster.members[me.player_id].code
    if refused is None:
        free = next(p for p in state.players.values() if p.team_id != me.team_id and state.free(p))
        code = state.roster.members[free.player_id].code
    return Offer(OpenDuel(target=code), refused)


def leader_offers(state: RankBases, team_id: str) -> dict[str, Offer]:
    """Before the start a rank for each player of the team; during the game a delivery and a
    new paper for each, and the defence of each raid on the base that waits for it."""
    leader = Member(player_id="", name="", role="leader", team=team_id, code="")
    team = [p for p in state.players.values() if p.team_id == team_id]
    found: dict[str, Offer] = {}
    status = state.roster.status
    if status == "lobby":
        ctx = trial(leader, 0)
        for p in team:
            command = AssignRank(player_id=p.player_id, rank=p.rank or 1)
            found[f"assign_rank:{p.player_id}"] = Offer(
                command, judged(partial(assign_rank, state, command, ctx))
            )
    elif status == "running":
        for p in team:
            found[f"deliver:{p.player_id}"] = Offer(
                Deliver(player_id=p.player_id),
                judged(partial(may_deliver, state, leader, p)),
            )
            found[f"issue_paper:{p.player_id}"] = Offer(
                IssuePaper(player_id=p.player_id), judged(partial(may_issue, state, leader, p))
            )
        for raid in state.raids.values():
            if raid.team_id == team_id and raid.state == "awaiting_defenders":
                found[f"defend:{raid.raid_id}"] = Offer(
                    Defend(raid_id=raid.raid_id, order=[]),
                    judged(partial(may_defend, state, leader, raid)),
                )
    return found


def organizer_offers(state: RankBases) -> dict[str, Offer]:
    """The start (refused with the setup's problems, `setup` in the view) and the end; the
    actions on one player, duel or raid stay on their rows."""
    return console(state.roster, partial(require_setup, state))
