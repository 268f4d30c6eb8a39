"""How each rank-bases event changes the state. Never fails, never decides."""

from collections.abc import Callable
from typing import Any

from server.rules import roster
from server.rules.core import Event, Json, replace
from server.rules.events import Fact
from server.rules.grown import grow
from server.rules.rank_bases.events import (
    Delivered,
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
from server.rules.rank_bases.state import (
    Base,
    Config,
    Duel,
    Paper,
    Part,
    Player,
    Raid,
    RaidState,
    RankBases,
    book,
)


def initial_state(config: Json) -> RankBases:
    return RankBases(roster=roster.Roster(), config=Config.model_validate(config, strict=False))


def evolve(state: RankBases, event: Event) -> RankBases:
    change = CHANGES.get(type(event.fact))
    if change is None:
        return replace(state, roster=roster.evolve(state.roster, event))
    return change(state, event.fact)


def created(state: RankBases, fact: roster.GameCreated) -> RankBases:
    """Every team's four parts hang on its tree from the game's creation on."""
    bases = {t.team_id: Base(t.team_id, t.name, book(t.team_id)) for t in state.config.teams}
    return replace(state, roster=roster.created(state.roster, fact), bases=bases)


def joined(state: RankBases, fact: roster.PlayerJoined) -> RankBases:
    state = replace(state, roster=roster.joined(state.roster, fact))
    if fact.role == "player" and fact.team is not None:
        return with_players(state, Player(fact.player_id, fact.team))
    return state


def ranked(state: RankBases, fact: RankAssigned) -> RankBases:
    player = state.players[fact.player_id]
    return with_players(state, replace(player, rank=fact.rank, lives=fact.lives))


def issued(state: RankBases, fact: PaperIssued) -> RankBases:
    player = state.players[fact.player_id]
    paper = Paper(fact.paper_id, player.player_id, player.team_id)
    return with_players(state, replace(player, paper=paper, lives=fact.lives))


def duel_started(state: RankBases, fact: DuelStarted) -> RankBases:
    duel = Duel(fact.duel_id, (fact.challenger, fact.target))
    busy = [replace(state.players[p], duel_id=duel.duel_id) for p in duel.players]
    return replace(with_players(state, *busy), duels={**state.duels, duel.duel_id: duel})


def with_players(state: RankBases, *players: Player) -> RankBases:
    changed = grow(state.players, {p.player_id: p for p in players})
    return replace(state, players=changed)


def with_raid(state: RankBases, raid: Raid) -> RankBases:
    return replace(state, raids={**state.raids, raid.raid_id: raid})


def with_base(state: RankBases, base: Base) -> RankBases:
    return replace(state, bases={**state.bases, base.team_id: base})


def fought(state: RankBases, fact: DuelFought) -> RankBases:
    """Each captured paper leaves its owner's hand and is carried by the taker."""
    players = dict(state.players)
    for capture in fact.captured:
        loser = players[capture.from_]  # a player only ever loses their own paper
        paper = Paper(capture.paper_id, loser.player_id, loser.team_id)
        players[loser.player_id] = replace(loser, paper=None)
        taker = players[capture.to]  # in a swap the taker has just lost their own paper
        players[taker.player_id] = replace(taker, papers=(*taker.papers, paper))
    a, b = fact.players
    duel = Duel(fact.duel_id, (a, b), fact.raid_id, dict(fact.ranks), fact.winner)
    state = replace(state, players=players)
    return replace(close_duel(state, duel), last_duels={**state.last_duels, a: duel, b: duel})


def duel_cancelled(state: RankBases, fact: DuelCancelled) -> RankBases:
    return close_duel(state, state.duels[fact.duel_id])


def close_duel(state: RankBases, duel: Duel) -> RankBases:
    """An open duel ends (fought or cancelled); a raid's duels were never open."""
    if duel.duel_id not in state.duels:
        return state
    freed = [replace(state.players[p], duel_id=None) for p in duel.players]
    duels = {k: v for k, v in state.duels.items() if k != duel.duel_id}
    return replace(with_players(state, *freed), duels=duels)


def raid_started(state: RankBases, fact: RaidStarted) -> RankBases:
    started = Raid(fact.raid_id, fact.attacker, fact.team_id)
    attacker = replace(state.players[started.attacker], raid_id=started.raid_id)
    return with_raid(with_players(state, attacker), started)


def defended(state: RankBases, fact: RaidDefended) -> RankBases:
    return with_raid(state, replace(state.raids[fact.raid_id], order=tuple(fact.order)))


def raid_becomes(to: RaidState) -> "Change":
    """A raid's end that only changes its state (won, lost, ended without a part)."""

    def change(state: RankBases, fact: RaidWon | RaidLost | RaidEnded) -> RankBases:
        return with_raid(state, replace(state.raids[fact.raid_id], state=to))

    return change


def part(face: PartFace) -> Part:
    return Part(face.part_id, face.team_id, face.value)


def taken(state: RankBases, fact: PartTaken) -> RankBases:
    got = part(fact.part)
    base = state.bases[fact.tree]
    tree = tuple(p for p in base.tree if p.part_id != got.part_id)
    raider = state.players[fact.player_id]
    raided = replace(state.raids[fact.raid_id], state="done", part=got)
    state = with_players(state, replace(raider, parts=(*raider.parts, got)))
    return with_raid(with_base(state, replace(base, tree=tree)), raided)


def raid_cancelled(state: RankBases, fact: RaidCancelled) -> RankBases:
    """A cancelled raid is gone, as if never run; its attacker has no last raid."""
    raid = state.raids[fact.raid_id]
    attacker = state.players[raid.attacker]
    if attacker.raid_id == raid.raid_id:
        state = with_players(state, replace(attacker, raid_id=None))
    return replace(state, raids={k: v for k, v in state.raids.items() if k != raid.raid_id})


def delivered(state: RankBases, fact: Delivered) -> RankBases:
    carrier = state.players[fact.player_id]
    base = state.bases[fact.team_id]
    papers = tuple(Paper(p.paper_id, p.player_id, p.team_id) for p in fact.papers)
    stash = tuple(Part(p.part_id, p.team_id, p.value) for p in fact.parts if p.to == "stash")
    tree = tuple(Part(p.part_id, p.team_id, p.value) for p in fact.parts if p.to == "tree")
    base = replace(
        base,
        tree=base.tree + tree,
        stash=base.stash + stash,
        pile=base.pile + papers,
        score=base.score + fact.points,
    )
    gone = {p.paper_id for p in papers}
    parts_gone = {p.part_id for p in fact.parts}
    carrier = replace(
        carrier,
        papers=tuple(p for p in carrier.papers if p.paper_id not in gone),
        parts=tuple(p for p in carrier.parts if p.part_id not in parts_gone),
    )
    return with_base(with_players(state, carrier), base)


Change = Callable[[RankBases, Any], RankBases]
# The events of the rules' own, and the roster's two that the rules answer; any other is the
# roster's alone.
CHANGES: dict[type[Fact], Change] = {
    roster.GameCreated: created,
    roster.PlayerJoined: joined,
    RankAssigned: ranked,
    PaperIssued: issued,
    DuelStarted: duel_started,
    DuelFought: fought,
    DuelCancelled: duel_cancelled,
    RaidStarted: raid_started,
    RaidDefended: defended,
    RaidWon: raid_becomes("won"),
    RaidLost: raid_becomes("lost"),
    RaidEnded: raid_becomes("done"),
    PartTaken: taken,
    RaidCancelled: raid_cancelled,
    Delivered: delivered,
}
