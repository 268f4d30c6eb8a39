"""Properties of `rank-bases` over random games (tests/rules/plays/rank_bases.py) beyond the
shared ones (tests/rules/test_properties.py): papers and parts are never lost or doubled, and
scores follow from the deliveries."""

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings

from tests.rules.plays.rank_bases import Played, games, play

PROPERTIES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- where things are ----------------------------------------------------------------------------


def papers_in_place(played: Played) -> None:
    """Every paper ever issued is in exactly one place: its owner, a carrier or a base's pile."""
    state = played.camp.state
    issued = Counter(e.data["paper_id"] for e in played.camp.log if e.type == "paper_issued")
    places: Counter[str] = Counter()
    for player in state.players.values():
        if player.paper is not None:
            assert player.paper.player_id == player.player_id  # one's own paper
            places[player.paper.paper_id] += 1
        places.update(paper.paper_id for paper in player.papers)
        # Nobody carries a paper of their own team: teammates never duel.
        assert all(paper.team_id != player.team_id for paper in player.papers)
    for base in state.bases.values():
        places.update(paper.paper_id for paper in base.pile)
    assert places == issued
    assert all(count == 1 for count in issued.values())


def parts_in_place(played: Played) -> None:
    """Every book part is in exactly one place: a tree, a carrier or a stash."""
    state = played.camp.state
    places: Counter[str] = Counter()
    for base in state.bases.values():
        places.update(p.part_id for p in base.tree + base.stash)
        # A stash keeps at most one part of a team, and never its own.
        teams = [p.team_id for p in base.stash]
        assert len(teams) == len(set(teams)) and base.team_id not in teams
    for player in state.players.values():
        places.update(p.part_id for p in player.parts)
    expected = Counter(f"{team_id}-{v}" for team_id in state.bases for v in (1, 2, 3, 4))
    assert places == expected


def scores_from_deliveries(played: Played) -> None:
    """A score is the sum over the deliveries at that base, recomputed from what was delivered."""
    scores = dict.fromkeys(played.camp.state.bases, 0)
    stashed: dict[str, set[str]] = {team_id: set() for team_id in scores}
    for event in played.camp.log:
        if event.type != "delivered":
            continue
        home = event.data["team_id"]
        points = sum(1 for paper in event.data["papers"] if paper["team_id"] != home)
        best: dict[str, int] = {}
        for part in event.data["parts"]:
            if part["team_id"] != home:
                points += 2 * part["value"]
                best[part["team_id"]] = max(best.get(part["team_id"], 0), part["value"])
        for part in event.data["parts"]:
            # Stash first: the first part of a foreign team (the best of those delivered at once).
            team = part["team_id"]
            first = team not in stashed[home] and best.get(team) == part["value"]
            assert part["to"] == ("stash" if first else "tree"), (part, stashed[home])
        stashed[home] |= set(best)
        assert event.data["points"] == points
        scores[home] += points
    assert {t: b.score for t, b in played.camp.state.bases.items()} == scores


# -- the properties ------------------------------------------------------------------------------


def in_place(played: Played) -> None:
    papers_in_place(played)
    parts_in_place(played)


@PROPERTIES
@given(games)
def test_every_paper_and_every_part_is_in_exactly_one_place(game: tuple[Any, ...]) -> None:
    play(game, check=in_place)


@PROPERTIES
@given(games)
def test_scores_equal_the_sum_recomputed_from_the_deliveries(game: tuple[Any, ...]) -> None:
    play(game, check=scores_from_deliveries)


def test_generated_games_reach_every_event() -> None:
    """Over a fixed sample of games every event type occurs: the generator is not blind."""
    seen: set[str] = set()

    @settings(max_examples=60, deadline=None, database=None, derandomize=True)
    @given(games)
    def sample(game: tuple[Any, ...]) -> None:
        seen.update(event.type for event in play(game).camp.log)

    sample()
    expected = {
        "duel_started",
        "duel_fought",
        "duel_cancelled",
        "raid_started",
        "raid_defended",
        "raid_won",
        "raid_lost",
        "part_taken",
        "raid_ended",
        "raid_cancelled",
        "delivered",
        "paper_issued",
        "rank_assigned",
        "game_ended",
    }
    assert expected <= seen, expected - seen
