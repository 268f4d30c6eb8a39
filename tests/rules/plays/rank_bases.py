"""Random games of `rank-bases` for the shared properties (tests/rules/properties.py) and the
ruleset's own (tests/rules/test_rank_bases_properties.py)."""

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from server.rules.core import Command, Json, Member, RuleError
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
from server.rules.rank_bases.state import Player, RankBases
from tests.rules.drivers.base import Driver
from tests.rules.drivers.rank_bases import FIVE, SIX, TEAMS, RankBasesGame, Team
from tests.rules.properties import Supply, nothing

# -- random games --------------------------------------------------------------------------------

index = st.integers(0, 60)  # an index into some list of candidates, taken modulo its length
KINDS = (
    ["duel"] * 4
    + ["raid"] * 4
    + ["deliver"] * 3
    + ["issue"] * 3
    + ["reveal"] * 2
    + ["defend", "take", "cancel_duel", "cancel_raid", "assign", "wild", "wild"]
)
steps = st.tuples(st.sampled_from(KINDS), index, index, st.lists(index, max_size=5))
teams = st.lists(st.sampled_from([FIVE, SIX]).flatmap(st.permutations), min_size=2, max_size=3)
games = st.tuples(
    teams,
    st.lists(st.integers(0, 2), min_size=5, max_size=5),  # lives of ranks 1..5
    st.lists(steps, min_size=10, max_size=40),
    st.none() | st.integers(0, 60),  # after which step the organizer ends the game, if ever
)


@dataclass
class Played:
    camp: RankBasesGame
    teams: list[Team]
    spectator: Member
    players: list[Member] = field(default_factory=list)


def ready(state: RankBases, player: Player) -> bool:
    return player.paper is not None and not state.busy(player)


def pick(items: Sequence[Any], i: int) -> Any:
    return items[i % len(items)]


def commands(played: Played, step: tuple[Any, ...]) -> Iterator[tuple[Member, Command]]:
    """The commands a step stands for, aimed mostly at what may succeed, with their senders.

    A generator: each command is made after the one before it was decided, from the new state.
    """
    camp = played.camp
    kind, a, b, more = step
    members = played.players
    leader = {team.team_id: team.leader for team in played.teams}

    def player(member: Member) -> Player:
        return camp.state.players[member.player_id]

    fit = [m for m in members if ready(camp.state, player(m))]
    if kind == "duel":
        me = pick(fit or members, a)
        foes = [m for m in fit if player(m).team_id != player(me).team_id] or members
        target = pick(foes, b)
        yield me, OpenDuel(target=target.code)
        duel_id = player(target).duel_id
        if duel_id and b % 4:  # most duels are revealed at once
            yield target, Reveal(duel_id=duel_id)
    elif kind == "reveal":
        if camp.state.duels:
            duel = pick(list(camp.state.duels.values()), a)
            who = duel.players[0] if more and more[0] % 6 == 0 else duel.players[1]
            yield camp.member(who), Reveal(duel_id=duel.duel_id)
    elif kind == "raid":
        me = pick(fit or members, a)
        # Mostly into a foreign base; now and then into any, one's own included.
        foreign = [t for t in camp.state.bases if t != player(me).team_id]
        yield me, StartRaid(team_id=pick(foreign if b % 5 else list(camp.state.bases), b))
        raid = camp.state.raid_of(player(me))
        if raid is None or raid.state != "awaiting_defenders" or a % 4 == 0:
            return
        home = [m for m in members if player(m).team_id == raid.team_id]
        # Often nobody defends (the base is empty), else whoever the step names, in its order.
        named = [] if b % 2 else more
        order = list(dict.fromkeys(pick(home, i).player_id for i in named))
        by = leader[raid.team_id] if a % 3 else pick(home, a)
        yield by, Defend(raid_id=raid.raid_id, order=order)
        tree = camp.state.bases[raid.team_id].tree
        if camp.state.raids[raid.raid_id].state == "won" and tree and a % 5:
            # A raider who sees a part of their own team hanging there mostly takes it back.
            own = [p for p in tree if p.team_id == player(me).team_id]
            yield me, TakePart(raid_id=raid.raid_id, part_id=pick(own or tree, b).part_id)
    elif kind == "take":
        raids = list(camp.state.raids.values())
        won = [r for r in raids if r.state == "won"] or raids
        if won:
            raid = pick(won, a)
            tree = camp.state.bases[raid.team_id].tree
            part_id = pick(tree, b).part_id if tree else "nothing"
            yield camp.member(raid.attacker), TakePart(raid_id=raid.raid_id, part_id=part_id)
    elif kind == "deliver":
        carriers = [m for m in members if player(m).papers or player(m).parts] or members
        me = pick(carriers, a)
        yield leader[player(me).team_id], Deliver(player_id=me.player_id)
    elif kind == "issue":
        paperless = [m for m in members if player(m).paper is None] or members
        me = pick(paperless, a)
        yield leader[player(me).team_id], IssuePaper(player_id=me.player_id)
    elif kind == "cancel_duel":
        yield camp.organizer, CancelDuel(duel_id=pick(list(camp.state.duels) or ["d1"], a))
    elif kind == "cancel_raid":
        yield camp.organizer, CancelRaid(raid_id=pick(list(camp.state.raids) or ["r1"], a))
    elif kind == "assign":
        yield camp.organizer, AssignRank(player_id=pick(members, a).player_id, rank=b % 5 + 1)
    else:
        yield wild(played, a, b, more)


def wild(played: Played, a: int, b: int, more: list[int]) -> tuple[Member, Command]:
    """Anyone at all, sending anything, with ids that may be anybody's: mostly refused."""
    camp, state = played.camp, played.camp.state
    leader = {team.team_id: team.leader for team in played.teams}
    anyone = [*played.players, *leader.values(), camp.organizer, played.spectator]
    actor = pick(anyone, a)
    target = pick(anyone, b)
    raid_id = pick(list(state.raids) or ["r1"], b)
    anything: list[Command] = [
        OpenDuel(target=target.code),
        StartRaid(team_id=state.players[target.player_id].team_id)
        if target.player_id in state.players
        else StartRaid(team_id="red"),
        Defend(raid_id=raid_id, order=[pick(anyone, i).player_id for i in more]),
        TakePart(raid_id=raid_id, part_id=f"{pick(list(state.bases), a)}-{b % 5}"),
        Deliver(player_id=target.player_id),
        IssuePaper(player_id=target.player_id),
        AssignRank(player_id=target.player_id, rank=a % 5 + 1),
    ]
    return actor, pick(anything, a + b)


def play(game: tuple[Any, ...], check: Callable[[Played], None] = nothing) -> Played:
    """Play a random game; `check` runs after the start and after every step that wrote."""
    ranks: list[Sequence[int]]
    lives: list[int]
    moves: list[tuple[Any, ...]]
    end: int | None
    ranks, lives, moves, end = game
    specs = [{"rank": r, "name": f"R{r}", "lives": lives[r - 1]} for r in FIVE]
    camp = RankBasesGame({"teams": TEAMS[: len(ranks)], "ranks": specs})
    teams = [camp.team(TEAMS[n]["team_id"], team) for n, team in enumerate(ranks)]
    played = Played(camp, teams, camp.add("Divák", "spectator"))
    played.players = [m for team in teams for m in team.players]
    camp.start()
    checked = 0
    for n, step in enumerate(moves):
        if len(camp.log) != checked:  # a refused step changes nothing
            check(played)
            checked = len(camp.log)
        for actor, command in commands(played, step):
            before = len(camp.log)
            try:
                camp.run(actor, command)
            except RuleError:
                assert len(camp.log) == before  # a refusal writes nothing
        if n == end:
            camp.end()
    check(played)
    return played


# -- who sees a rank -----------------------------------------------------------------------------


def shown_ranks(view: Json, players: set[str]) -> list[tuple[str, str]]:
    """Every (player_id, where) a view ties a rank to; a rank anywhere else fails. An entry of
    a collection keyed by player id names its player by its key."""
    found: list[tuple[str, str]] = []
    stack: list[tuple[Any, str]] = [(view, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, list):
            stack.extend((item, path) for item in value if isinstance(item, dict | list))
            continue
        for key, item in value.items():
            if key == "rank":
                owner = value.get("player_id") or path.rpartition(".")[2]
                assert owner in players, f"a rank without its player at {path}"
                found.append((owner, path))
            elif key == "ranks":
                assert path.endswith("last_duel"), f"ranks at {path}"
                found += [(player_id, f"{path}.ranks") for player_id in item]
            elif isinstance(item, dict | list):
                stack.append((item, f"{path}.{key}"))
    return found


def secrets(camp: Driver[RankBases], viewer: Member, view: Json) -> None:
    """Only the player, their leader, the organizer and a duel opponent shown it see a rank;
    a spectator sees the scores and the trees alone."""
    state = camp.state
    shown_to: dict[str, set[str]] = {p: {p} for p in state.players}
    for event in camp.log:
        if event.type == "duel_fought":
            a, b = event.data["players"]
            shown_to[a].add(b)
            shown_to[b].add(a)
    public = {k: v for k, v in view.items() if k != "game"}  # the config names the ranks
    for player_id, where in shown_ranks(public, set(state.players)):
        team = state.players[player_id].team_id
        allowed = (
            viewer.role == "organizer"
            or (viewer.role == "leader" and viewer.team == team)
            or viewer.player_id in shown_to[player_id]
        )
        assert allowed, (viewer, player_id, where)
    if viewer.role == "spectator":
        assert set(view) <= {"game", "scores", "trees", "winners"}, set(view)


def open_things(state: RankBases) -> list[str]:
    """Open duels, raids that wait or are won, and the busy."""
    raids = [
        f"{r.raid_id} {r.state}" for r in state.raids.values() if r.state not in ("lost", "done")
    ]
    busy = [p.player_id for p in state.players.values() if state.busy(p) or p.duel_id]
    return [*state.duels, *raids, *busy]


SUPPLY = Supply[Played](
    games=games,
    play=play,
    driver=lambda played: played.camp,
    secrets=secrets,
    open_things=open_things,
)
