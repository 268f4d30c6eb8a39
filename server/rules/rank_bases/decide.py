"""What a rank-bases command causes, or why the rules refuse it."""

from server.clock import iso
from server.rules import roster
from server.rules.core import Context, Json, Member, RuleError
from server.rules.events import Fact
from server.rules.lineup import find_member
from server.rules.rank_bases.commands import (
    AssignRank,
    CancelDuel,
    CancelRaid,
    Defend,
    Deliver,
    IssuePaper,
    OpenDuel,
    Reveal,
    StartRaid,
    TakePart,
)
from server.rules.rank_bases.events import (
    Capture,
    Delivered,
    DeliveredPaper,
    DeliveredPart,
    DuelCancelled,
    DuelFought,
    DuelStarted,
    PaperIssued,
    PartFace,
    PartTaken,
    RaidCancelled,
    RaidDefended,
    RaidEnded,
    RaidLost,
    RaidStarted,
    RaidWon,
    RankAssigned,
)
from server.rules.rank_bases.evolve import evolve
from server.rules.rank_bases.ranks import valid_set, winner
from server.rules.rank_bases.state import Duel, Part, Player, Raid, RankBases
from server.rules.story import Decider, Lifecycle, Story, tells

TEAM_SIZES = range(5, 7)
MIN_TEAMS = 2


# -- finding people ------------------------------------------------------------------------------


def find(state: RankBases, player_id: str) -> Player:
    player = state.players.get(player_id)
    if player is None:
        raise RuleError("not_found", f"no player {player_id} plays in this game")
    return player


def acting(state: RankBases, ctx: Context) -> Player:
    player = state.players.get(ctx.actor.player_id)
    if player is None:
        raise RuleError("forbidden", "only a player of a team may do that")
    return player


def name(state: RankBases, player: Player) -> str:
    return state.roster.members[player.player_id].name


def require_leader_of(actor: Member, team_id: str) -> None:
    if actor.role != "leader" or actor.team != team_id:
        raise RuleError("forbidden", f"only the leader of team {team_id} may do that")


def ready(state: RankBases, player: Player, who: str | None = None) -> None:
    """The player holds their own paper and is free to fight (`who` names another player)."""
    if player.out:
        raise RuleError("no_lives", f"{who or 'you'}: out of the game (no paper, no lives)")
    if player.paper is None:
        where = f"{who} has" if who else "you have"
        raise RuleError("no_paper", f"{where} no rank paper: a new one is issued at the base")
    if state.busy(player):
        raise RuleError("busy", f"{who or 'you'}: already in a duel or a raid")


# -- joining and the start -----------------------------------------------------------------------


def admit(state: RankBases, command: roster.AddPlayer, ctx: Context) -> None:
    """Players and leaders belong to a configured team and join before the start."""
    if command.role not in ("player", "leader"):
        return
    if state.roster.status != "lobby":
        raise RuleError("already_started", "players and leaders join before the start")
    if command.team is None:
        raise RuleError("invalid", f"team: a {command.role} needs a team")
    if command.team not in state.bases:
        known = ", ".join(state.bases) or "none in the config"
        raise RuleError("not_found", f"no team {command.team} (teams: {known})")
    size = sum(p.team_id == command.team for p in state.players.values())
    if command.role == "player" and size >= max(TEAM_SIZES):
        raise RuleError("team_full", f"team {command.team} has {size} players already")


def setup_problems(state: RankBases) -> list[Json]:
    """What keeps the game from starting, one problem a dict (the views show them in words)."""
    problems: list[Json] = []
    if len(state.bases) < MIN_TEAMS:
        problems.append({"problem": "teams", "teams": len(state.bases), "needed": MIN_TEAMS})
    for team_id in state.bases:
        team = [p for p in state.players.values() if p.team_id == team_id]
        problems.extend(team_problems(state, team_id, team))
    return problems


def team_problems(state: RankBases, team_id: str, team: list[Player]) -> list[Json]:
    """One team's problems: 5 or 6 players, all ranked in a valid set, and a leader."""
    problems: list[Json] = []
    unranked = [p.player_id for p in team if p.rank is None]
    ranks = sorted(p.rank for p in team if p.rank is not None)
    if len(team) not in TEAM_SIZES:
        problems.append({"problem": "players", "team_id": team_id, "players": len(team)})
    elif unranked:
        problems.append({"problem": "unranked", "team_id": team_id, "unranked": unranked})
    elif not valid_set(ranks):
        problems.append({"problem": "ranks", "team_id": team_id, "ranks": ranks})
    if not state.leaders(team_id):
        problems.append({"problem": "no_leader", "team_id": team_id})
    return problems


def said(state: RankBases, problem: Json) -> str:
    """A setup problem in the words of the refusal's message."""
    team = f"team {problem.get('team_id')}: "
    match problem["problem"]:
        case "teams":
            return f"at least {MIN_TEAMS} teams are needed (config teams)"
        case "players":
            return f"{team}{problem['players']} players, 5 or 6 are needed"
        case "unranked":
            names = ", ".join(state.roster.members[p].name for p in problem["unranked"])
            return f"{team}no rank for {names}"
        case "ranks":
            return (
                f"{team}ranks {problem['ranks']}, but each of 1-5 is needed once"
                " (and a second 2 in a team of six)"
            )
        case _:
            return f"{team}no leader"


def require_setup(state: RankBases) -> None:
    problems = setup_problems(state)
    if problems:
        raise RuleError("invalid_setup", "; ".join(said(state, p) for p in problems))


def started(story: Story[RankBases], ctx: Context) -> None:
    """The start checks the teams, then hands every player their first paper (no life spent)."""
    state = story.state
    require_setup(state)
    for player in state.players.values():
        story.tell(
            PaperIssued(paper_id=ctx.new_id("s"), player_id=player.player_id, lives=player.lives)
        )


def ending(story: Story[RankBases], ctx: Context) -> None:
    """Open duels and raids end with the game, so no state is left half-way: a duel is
    cancelled, a raid waiting for its defenders too, and a won raid ends without a part."""
    for duel_id in list(story.state.duels):
        story.tell(DuelCancelled(duel_id=duel_id, reason="game_ended"))
    for raid in list(story.state.raids.values()):
        if raid.state == "awaiting_defenders":
            story.tell(RaidCancelled(raid_id=raid.raid_id, reason="game_ended"))
        elif raid.state == "won":
            story.tell(RaidEnded(raid_id=raid.raid_id, reason="game_ended"))


def assign_rank(state: RankBases, command: AssignRank, ctx: Context) -> list[Fact]:
    """Ranks are secret and set before the start; after it only the organizer corrects one."""
    roster.require_not_ended(state.roster)
    player = find(state, command.player_id)
    lobby = state.roster.status == "lobby"
    if ctx.actor.role != "organizer":
        require_leader_of(ctx.actor, player.team_id)
        if not lobby:
            raise RuleError("already_started", "ranks are set before the start")
    # A correction during the game keeps the lives left; before it, lives come with the rank.
    lives = state.config.rank(command.rank).lives if lobby else player.lives
    return [RankAssigned(player_id=player.player_id, rank=command.rank, lives=lives)]


# -- duels ---------------------------------------------------------------------------------------


def leave(state: RankBases, player: Player) -> list[Fact]:
    """A raider who won and goes on to fight or deliver has left that base without a part."""
    raid = state.raid_of(player)
    if raid is None or raid.state != "won":
        return []
    return [RaidEnded(raid_id=raid.raid_id, reason="left")]


def may_duel(state: RankBases, me: Player) -> None:
    """What a duel needs of the challenger alone, before any code is looked at: their own paper
    and time, and somebody of another team who could take the duel."""
    ready(state, me)
    if not state.could_duel(me.team_id):
        raise RuleError("no_opponent", "nobody of another team holds their paper and is free")


def open_duel(state: RankBases, command: OpenDuel, ctx: Context) -> list[Fact]:
    roster.require_running(state.roster)
    me = acting(state, ctx)
    if command.target in state.roster.members:  # a player id: no proof of a touch
        raise RuleError("code_required", "name the opponent by the code on their phone")
    may_duel(state, me)
    member = find_member(state.roster, command.target)
    if member is None or member.player_id not in state.players:
        raise RuleError("not_found", f"no player has the code {command.target}")
    target = state.players[member.player_id]
    if target.player_id == me.player_id:
        raise RuleError("invalid", "a player cannot duel themselves")
    if target.team_id == me.team_id:
        raise RuleError("same_team", f"{member.name} is of your own team")
    ready(state, target, member.name)
    started = DuelStarted(
        duel_id=ctx.new_id("d"), challenger=me.player_id, target=target.player_id, at=iso(ctx.now)
    )
    return [*leave(state, me), *leave(state, target), started]


def revealable(state: RankBases, duel_id: str, me: str) -> Duel:
    """The open duel `me` may reveal in: they are its target."""
    roster.require_running(state.roster)
    duel = state.duels.get(duel_id)
    if duel is None:
        raise RuleError("not_found", f"no duel {duel_id} is open")
    if me not in duel.players:
        raise RuleError("forbidden", "this is not your duel")
    if me == duel.players[0]:
        raise RuleError("already_revealed", "opening the duel was your reveal; the target reveals")
    return duel


def reveal(state: RankBases, command: Reveal, ctx: Context) -> list[Fact]:
    duel = revealable(state, command.duel_id, ctx.actor.player_id)
    return [fight(state, duel.duel_id, duel.players, None)]


def fight(
    state: RankBases, duel_id: str, players: tuple[str, str], raid_id: str | None
) -> DuelFought:
    """Both papers shown: the higher rank takes the lower's paper (1 takes 5); equal ranks swap."""
    a, b = (state.players[p] for p in players)
    assert a.rank is not None and b.rank is not None and a.paper and b.paper  # checked by `ready`
    ranks = {a.player_id: a.rank, b.player_id: b.rank}
    won = winner(ranks)
    pairs = [(a, b), (b, a)] if won is None else [(a, b) if won == a.player_id else (b, a)]
    captured = [
        Capture(paper_id=loser.paper.paper_id, from_=loser.player_id, to=taker.player_id)
        for taker, loser in pairs
        if loser.paper
    ]
    return DuelFought(
        duel_id=duel_id,
        raid_id=raid_id,
        players=list(players),
        ranks=ranks,
        winner=won,
        captured=captured,
    )


def cancel_duel(state: RankBases, command: CancelDuel, ctx: Context) -> list[Fact]:
    roster.require_not_ended(state.roster)
    if command.duel_id not in state.duels:
        raise RuleError("not_found", f"no duel {command.duel_id} is open")
    return [DuelCancelled(duel_id=command.duel_id, reason="organizer")]


# -- raids ---------------------------------------------------------------------------------------


def find_raid(state: RankBases, raid_id: str) -> Raid:
    found = state.raids.get(raid_id)
    if found is None:
        raise RuleError("not_found", f"no raid {raid_id}")
    return found


def may_raid(state: RankBases, me: Player, team_id: str) -> None:
    roster.require_running(state.roster)
    if team_id not in state.bases:
        raise RuleError("not_found", f"no team {team_id}")
    if team_id == me.team_id:
        raise RuleError("own_base", "a raid is into a foreign base")
    ready(state, me)


def raid(state: RankBases, command: StartRaid, ctx: Context) -> list[Fact]:
    roster.require_running(state.roster)
    me = acting(state, ctx)
    may_raid(state, me, command.team_id)
    started = RaidStarted(
        raid_id=ctx.new_id("r"), attacker=me.player_id, team_id=command.team_id, at=iso(ctx.now)
    )
    return [*leave(state, me), started]


def may_defend(state: RankBases, actor: Member, raided: Raid) -> None:
    """The raided team (a player or a leader of it) names its defenders, once."""
    if actor.role == "leader":
        require_leader_of(actor, raided.team_id)
    else:
        me = state.players.get(actor.player_id)
        if me is None or me.team_id != raided.team_id:
            raise RuleError("forbidden", f"only team {raided.team_id} defends its base")
    if raided.state != "awaiting_defenders":
        raise RuleError("already_defended", f"raid {raided.raid_id} has been defended")


def defend(state: RankBases, command: Defend, ctx: Context) -> list[Fact]:
    """The defenders are named in order and the attacker fights them at once, in that order."""
    roster.require_running(state.roster)
    raided = find_raid(state, command.raid_id)
    may_defend(state, ctx.actor, raided)
    if len(set(command.order)) != len(command.order):
        raise RuleError("invalid", "order: each defender once")
    for player_id in command.order:
        defender = find(state, player_id)
        who = name(state, defender)
        if defender.team_id != raided.team_id:
            raise RuleError("not_a_defender", f"{who} is not of team {raided.team_id}")
        ready(state, defender, who)
    defenders = [state.players[player_id] for player_id in command.order]
    # The fights are decided on the state before the raid_defended: each is the attacker's paper
    # against a defender's, and the attacker stops at the first one not won.
    facts: list[Fact] = [
        *(fact for defender in defenders for fact in leave(state, defender)),
        RaidDefended(raid_id=raided.raid_id, order=list(command.order)),
    ]
    attacker = raided.attacker
    for player_id in command.order:
        fought = fight(state, ctx.new_id("d"), (attacker, player_id), raided.raid_id)
        facts.append(fought)
        if fought.winner != attacker:  # a loss or a tie took the attacker's paper
            return [*facts, RaidLost(raid_id=raided.raid_id)]
    return [*facts, RaidWon(raid_id=raided.raid_id)]


def may_take(state: RankBases, raided: Raid, me: str, part_id: str) -> Part:
    """The part `me` may take now in a raid, by id."""
    roster.require_running(state.roster)
    if me != raided.attacker:
        raise RuleError("forbidden", "only the raider takes a part")
    if raided.state == "awaiting_defenders":
        raise RuleError("not_your_turn", "the defenders have not been named yet")
    if raided.state == "lost":
        raise RuleError("raid_lost", "the raid was lost")
    if raided.state == "done":
        raise RuleError("raid_over", "the raid is over")
    tree = state.bases[raided.team_id].tree
    if not tree:
        raise RuleError("tree_empty", f"the tree of team {raided.team_id} is empty")
    part = next((p for p in tree if p.part_id == part_id), None)
    if part is None:
        raise RuleError("not_on_tree", f"no part {part_id} hangs on this tree")
    return part


def take_part(state: RankBases, command: TakePart, ctx: Context) -> list[Fact]:
    roster.require_running(state.roster)
    raided = find_raid(state, command.raid_id)
    part = may_take(state, raided, ctx.actor.player_id, command.part_id)
    face = PartFace(part_id=part.part_id, team_id=part.team_id, value=part.value)
    taken = PartTaken(
        raid_id=raided.raid_id, player_id=raided.attacker, tree=raided.team_id, part=face
    )
    return [taken]


def cancel_raid(state: RankBases, command: CancelRaid, ctx: Context) -> list[Fact]:
    """The organizer stops a raid; duels already fought in it stand."""
    roster.require_not_ended(state.roster)
    raided = find_raid(state, command.raid_id)
    if raided.state not in ("awaiting_defenders", "won"):
        raise RuleError("raid_over", f"raid {raided.raid_id} is over")
    return [RaidCancelled(raid_id=raided.raid_id, reason="organizer")]


# -- at the base ---------------------------------------------------------------------------------


def may_deliver(state: RankBases, actor: Member, player: Player) -> None:
    roster.require_running(state.roster)
    require_leader_of(actor, player.team_id)
    if state.busy(player):
        raise RuleError("busy", f"{name(state, player)} is in a duel or a raid")
    if not player.papers and not player.parts:
        raise RuleError("nothing_to_deliver", f"{name(state, player)} carries nothing")


def deliver(state: RankBases, command: Deliver, ctx: Context) -> list[Fact]:
    player = find_running(state, command.player_id)
    may_deliver(state, ctx.actor, player)
    return [*leave(state, player), delivery(state, player)]


def delivery(state: RankBases, player: Player) -> Delivered:
    """Everything the player carries is scored; a foreign team's first part goes to the stash
    (the leader's preview shows this same delivery before it is recorded)."""
    home = player.team_id
    base = state.bases[home]
    # Of several parts of one team delivered at once, the stash keeps the most valuable.
    stashed = {part.team_id for part in base.stash}
    to_stash = set()
    for part in sorted(player.parts, key=lambda p: -p.value):
        if part.team_id != home and part.team_id not in stashed:
            stashed.add(part.team_id)
            to_stash.add(part.part_id)
    papers = [
        DeliveredPaper(
            paper_id=paper.paper_id,
            player_id=paper.player_id,
            team_id=paper.team_id,
            points=int(paper.team_id != home),
        )
        for paper in player.papers
    ]
    parts = [
        DeliveredPart(
            part_id=part.part_id,
            team_id=part.team_id,
            value=part.value,
            points=0 if part.team_id == home else 2 * part.value,
            to="stash" if part.part_id in to_stash else "tree",
        )
        for part in player.parts
    ]
    points = sum(p.points for p in papers) + sum(p.points for p in parts)
    return Delivered(
        player_id=player.player_id, team_id=home, papers=papers, parts=parts, points=points
    )


def find_running(state: RankBases, player_id: str) -> Player:
    roster.require_running(state.roster)
    return find(state, player_id)


def may_issue(state: RankBases, actor: Member, player: Player) -> None:
    roster.require_running(state.roster)
    require_leader_of(actor, player.team_id)
    who = name(state, player)
    if player.paper is not None:
        raise RuleError("has_paper", f"{who} still holds their paper")
    if player.lives == 0:
        raise RuleError("no_lives", f"{who} has no lives left: out of the game")


def issue_paper(state: RankBases, command: IssuePaper, ctx: Context) -> list[Fact]:
    """A player who lost their paper gets a new one at their base, for one life."""
    player = find_running(state, command.player_id)
    may_issue(state, ctx.actor, player)
    return [
        PaperIssued(paper_id=ctx.new_id("s"), player_id=player.player_id, lives=player.lives - 1)
    ]


decide = Decider(
    handlers={
        AssignRank: tells(assign_rank),
        OpenDuel: tells(open_duel),
        Reveal: tells(reveal),
        StartRaid: tells(raid),
        Defend: tells(defend),
        TakePart: tells(take_part),
        Deliver: tells(deliver),
        IssuePaper: tells(issue_paper),
        CancelDuel: tells(cancel_duel),
        CancelRaid: tells(cancel_raid),
    },
    evolve=evolve,
    lifecycle=Lifecycle(admit=admit, started=started, ending=ending),
)
