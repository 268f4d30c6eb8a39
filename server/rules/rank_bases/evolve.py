"""How each rank-bases event changes the state. Never fails, never decides."""

from server.rules import roster
from server.rules.core import Event, Json, replace
from server.rules.grown import grow
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
    data = event.data
    kind = event.type
    if kind == "game_created":
        # Every team's four parts hang on its tree from the game's creation on.
        bases = {t.team_id: Base(t.team_id, t.name, book(t.team_id)) for t in state.config.teams}
        return replace(state, roster=roster.evolve(state.roster, event), bases=bases)
    if kind == "player_joined":
        state = replace(state, roster=roster.evolve(state.roster, event))
        if data["role"] == "player" and data["team"] is not None:
            return with_players(state, Player(data["player_id"], data["team"]))
        return state
    if kind == "rank_assigned":
        player = state.players[data["player_id"]]
        return with_players(state, replace(player, rank=data["rank"], lives=data["lives"]))
    if kind == "paper_issued":
        player = state.players[data["player_id"]]
        paper = Paper(data["paper_id"], player.player_id, player.team_id)
        return with_players(state, replace(player, paper=paper, lives=data["lives"]))
    if kind == "duel_started":
        duel = Duel(data["duel_id"], (data["challenger"], data["target"]))
        busy = [replace(state.players[p], duel_id=duel.duel_id) for p in duel.players]
        return replace(with_players(state, *busy), duels={**state.duels, duel.duel_id: duel})
    if kind == "duel_fought":
        return fought(state, data)
    if kind == "duel_cancelled":
        return close_duel(state, state.duels[data["duel_id"]])
    if kind == "raid_started":
        started = Raid(data["raid_id"], data["attacker"], data["team_id"])
        attacker = replace(state.players[started.attacker], raid_id=started.raid_id)
        return with_raid(with_players(state, attacker), started)
    if kind == "raid_defended":
        return with_raid(state, replace(state.raids[data["raid_id"]], order=tuple(data["order"])))
    if kind in RAID_ENDS:
        return with_raid(state, replace(state.raids[data["raid_id"]], state=RAID_ENDS[kind]))
    if kind == "part_taken":
        return taken(state, data)
    if kind == "raid_cancelled":
        return cancelled(state, state.raids[data["raid_id"]])
    if kind == "delivered":
        return delivered(state, data)
    return replace(state, roster=roster.evolve(state.roster, event))


RAID_ENDS: dict[str, RaidState] = {"raid_won": "won", "raid_lost": "lost", "raid_ended": "done"}


def with_players(state: RankBases, *players: Player) -> RankBases:
    changed = grow(state.players, {p.player_id: p for p in players})
    return replace(state, players=changed)


def with_raid(state: RankBases, raid: Raid) -> RankBases:
    return replace(state, raids={**state.raids, raid.raid_id: raid})


def with_base(state: RankBases, base: Base) -> RankBases:
    return replace(state, bases={**state.bases, base.team_id: base})


def fought(state: RankBases, data: Json) -> RankBases:
    """Each captured paper leaves its owner's hand and is carried by the taker."""
    players = dict(state.players)
    for capture in data["captured"]:
        loser = players[capture["from"]]  # a player only ever loses their own paper
        paper = Paper(capture["paper_id"], loser.player_id, loser.team_id)
        players[loser.player_id] = replace(loser, paper=None)
        taker = players[capture["to"]]  # in a swap the taker has just lost their own paper
        players[taker.player_id] = replace(taker, papers=(*taker.papers, paper))
    a, b = data["players"]
    duel = Duel(data["duel_id"], (a, b), data["raid_id"], dict(data["ranks"]), data["winner"])
    state = replace(state, players=players)
    return replace(close_duel(state, duel), last_duels={**state.last_duels, a: duel, b: duel})


def close_duel(state: RankBases, duel: Duel) -> RankBases:
    """An open duel ends (fought or cancelled); a raid's duels were never open."""
    if duel.duel_id not in state.duels:
        return state
    freed = [replace(state.players[p], duel_id=None) for p in duel.players]
    duels = {k: v for k, v in state.duels.items() if k != duel.duel_id}
    return replace(with_players(state, *freed), duels=duels)


def taken(state: RankBases, data: Json) -> RankBases:
    part = Part.load(data["part"])
    base = state.bases[data["tree"]]
    tree = tuple(p for p in base.tree if p.part_id != part.part_id)
    raider = state.players[data["player_id"]]
    raided = replace(state.raids[data["raid_id"]], state="done", part=part)
    state = with_players(state, replace(raider, parts=(*raider.parts, part)))
    return with_raid(with_base(state, replace(base, tree=tree)), raided)


def cancelled(state: RankBases, raid: Raid) -> RankBases:
    """A cancelled raid is gone, as if never run; its attacker has no last raid."""
    attacker = state.players[raid.attacker]
    if attacker.raid_id == raid.raid_id:
        state = with_players(state, replace(attacker, raid_id=None))
    return replace(state, raids={k: v for k, v in state.raids.items() if k != raid.raid_id})


def delivered(state: RankBases, data: Json) -> RankBases:
    carrier = state.players[data["player_id"]]
    base = state.bases[data["team_id"]]
    papers = tuple(Paper(p["paper_id"], p["player_id"], p["team_id"]) for p in data["papers"])
    stash = tuple(Part.load(p) for p in data["parts"] if p["to"] == "stash")
    tree = tuple(Part.load(p) for p in data["parts"] if p["to"] == "tree")
    base = replace(
        base,
        tree=base.tree + tree,
        stash=base.stash + stash,
        pile=base.pile + papers,
        score=base.score + data["points"],
    )
    gone = {p.paper_id for p in papers}
    parts_gone = {p["part_id"] for p in data["parts"]}
    carrier = replace(
        carrier,
        papers=tuple(p for p in carrier.papers if p.paper_id not in gone),
        parts=tuple(p for p in carrier.parts if p.part_id not in parts_gone),
    )
    return with_base(with_players(state, carrier), base)
