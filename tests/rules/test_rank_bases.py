"""Every rule of `rank-bases` (docs/rules/rank-bases.md), one at a time, through decide, evolve
and view."""

import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from pydantic import ValidationError

from server.rules import roster
from server.rules.core import Event, Json, RuleError
from server.rules.events import Fact, UnknownEvent
from server.rules.rank_bases import RULESET
from server.rules.rank_bases.commands import (
    AssignRank,
    CancelDuel,
    CancelRaid,
    Defend,
    Deliver,
    IssuePaper,
    OpenDuel,
    StartRaid,
)
from server.rules.rank_bases.events import (
    EVENTS,
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
from server.rules.rank_bases.ranks import takes, winner
from server.rules.rank_bases.state import Config, Part, Player
from tests.rules.drivers.base import SEED
from tests.rules.drivers.rank_bases import FIVE, SIX, TEAMS, RankBasesGame, Team


def types(events: list[Event]) -> list[str]:
    return [event.type for event in events]


def lines(events: list[Event]) -> list[tuple[str, Json]]:
    """The events as the log writes them: their type and data."""
    return [(event.type, event.data) for event in events]


def refused(camp: RankBasesGame, code: str, action: Callable[[], object]) -> str:
    """The action is refused with `code`, and nothing is written; the message."""
    before = len(camp.log)
    with pytest.raises(RuleError) as info:
        action()
    assert info.value.code == code, info.value.message
    assert len(camp.log) == before
    return info.value.message


def started(
    red_ranks: Sequence[int] = FIVE, blue_ranks: Sequence[int] = FIVE, *, green: bool = False
) -> tuple[RankBasesGame, Team, Team]:
    """A running game of red and blue (and, if asked, a green team that takes no part)."""
    camp = RankBasesGame(None if green else {"teams": TEAMS[:2]})
    red, blue = camp.team("red", red_ranks), camp.team("blue", blue_ranks)
    if green:
        camp.team("green")
    camp.start()
    return camp, red, blue


def parts(camp: RankBasesGame, where: str, team_id: str) -> list[str]:
    base = camp.state.bases[team_id]
    return [p.part_id for p in (base.tree if where == "tree" else base.stash)]


# -- config --------------------------------------------------------------------------------------


def test_default_ranks_are_the_five_gods_with_three_lives() -> None:
    ranks = [(r.rank, r.name, r.lives) for r in Config().ranks]
    assert ranks == [
        (1, "Bulac Chabtan", 3),
        (2, "Gukumatz", 3),
        (3, "Kinich Ahau", 3),
        (4, "Hum Cimil", 3),
        (5, "Ix Chel", 3),
    ]
    assert Config().teams == []


def test_a_config_sent_as_json_sets_teams_and_ranks() -> None:
    body = json.dumps(
        {
            "teams": TEAMS[:2],
            "ranks": [{"rank": r, "name": f"R{r}", "lives": r} for r in (5, 4, 3, 2, 1)],
        }
    )
    assert RULESET.config is Config
    settings = Config.model_validate(json.loads(body))  # strict, as the referee does
    assert [t.team_id for t in settings.teams] == ["red", "blue"]
    assert settings.rank(4).lives == 4
    schema = Config.model_json_schema()
    assert schema["properties"]["teams"]["type"] == "array"


@pytest.mark.parametrize(
    "config",
    [
        {"teams": [{"team_id": "red", "name": "A"}, {"team_id": "red", "name": "B"}]},
        {"teams": [{"team_id": "p7", "name": "Looks like a player id"}]},
        {"teams": [{"team_id": "red-1", "name": "A hyphen"}]},
        {"teams": [{"team_id": "", "name": "Empty"}]},
        {"ranks": [{"rank": r, "name": "X"} for r in (1, 2, 3, 4, 4)]},
        {"ranks": [{"rank": r, "name": "X"} for r in (1, 2, 3, 4)]},
        {"ranks": [{"rank": r, "name": "X", "lives": -1} for r in FIVE]},
        {"ranks": [{"rank": r, "name": "X"} for r in (0, 1, 2, 3, 4)]},
    ],
)
def test_a_config_with_bad_teams_or_ranks_is_invalid(config: Json) -> None:
    with pytest.raises(ValidationError):
        Config.model_validate(config)


def test_lives_come_from_the_config_per_rank() -> None:
    ranks = [{"rank": r, "name": f"R{r}", "lives": 6 - r} for r in FIVE]
    camp = RankBasesGame({"teams": TEAMS[:2], "ranks": ranks})
    red, _ = camp.team("red"), camp.team("blue")
    camp.start()
    assert [camp.player(red[r]).lives for r in FIVE] == [5, 4, 3, 2, 1]


# -- book parts ----------------------------------------------------------------------------------


def test_every_tree_holds_its_four_parts_from_the_creation_with_stable_ids() -> None:
    camp = RankBasesGame()
    for team_id in ("red", "blue", "green"):
        base = camp.state.bases[team_id]
        assert base.tree == tuple(Part(f"{team_id}-{v}", team_id, v) for v in (1, 2, 3, 4))
        assert (base.stash, base.pile, base.score) == ((), (), 0)
    assert camp.view(camp.organizer)["trees"]["red"] == {
        f"red-{v}": {"team_id": "red", "value": v} for v in (1, 2, 3, 4)
    }


# -- joining, ranks and the start ----------------------------------------------------------------


def test_players_and_leaders_need_a_configured_team() -> None:
    camp = RankBasesGame()
    refused(camp, "invalid", lambda: camp.add("Bez týmu"))
    refused(camp, "invalid", lambda: camp.add("Bez týmu", "leader"))
    refused(camp, "not_found", lambda: camp.add("Cizí", team="purple"))
    camp.add("Divák", "spectator")  # spectators and organizers need no team
    camp.add("Pomocník", "organizer")
    member = camp.add("Jana", team="red")
    assert camp.player(member) == Player(member.player_id, "red")


def test_a_team_has_at_most_six_players() -> None:
    camp = RankBasesGame()
    camp.team("red", SIX)
    refused(camp, "team_full", lambda: camp.add("Sedmý", team="red"))
    camp.add("Druhý vedoucí", "leader", "red")  # leaders do not count


def test_players_and_leaders_join_before_the_start() -> None:
    camp, _, _ = started(green=True)
    refused(camp, "already_started", lambda: camp.add("Pozdě", team="red"))
    refused(camp, "already_started", lambda: camp.add("Pozdě", "leader", "red"))
    camp.add("Divák", "spectator")
    camp.end()
    refused(camp, "game_not_running", lambda: camp.add("Pozdě", team="red"))


def test_a_leader_assigns_ranks_to_their_own_team_before_the_start() -> None:
    camp = RankBasesGame()
    red = camp.team("red", [None] * 5)
    blue = camp.team("blue")
    member = red.players[0]
    events = camp.assign(member, 4, red.leader)
    assert lines(events) == [
        ("rank_assigned", {"player_id": member.player_id, "rank": 4, "lives": 3})
    ]
    assert camp.player(member).rank == 4
    camp.assign(member, 2, red.leader)  # changed freely before the start
    assert camp.player(member).rank == 2
    refused(camp, "forbidden", lambda: camp.assign(member, 3, blue.leader))
    refused(camp, "forbidden", lambda: camp.assign(member, 3, blue.players[0]))
    refused(camp, "not_found", lambda: camp.run(red.leader, AssignRank(player_id="p99", rank=1)))
    refused(camp, "not_found", lambda: camp.assign(red.leader, 1))  # a leader has no rank
    with pytest.raises(ValidationError):
        AssignRank.model_validate({"player_id": member.player_id, "rank": 6})


def test_after_the_start_only_the_organizer_corrects_a_rank_and_lives_stay() -> None:
    camp, red, _ = started()
    member = red[3]
    refused(camp, "already_started", lambda: camp.assign(member, 4, red.leader))
    before = camp.player(member)
    camp.assign(member, 4)
    after = camp.player(member)
    assert (after.rank, after.lives, after.paper) == (4, before.lives, before.paper)
    camp.end()
    refused(camp, "game_not_running", lambda: camp.assign(member, 3))


@pytest.mark.parametrize("ranks", [FIVE, SIX, (5, 4, 3, 2, 1), (2, 5, 1, 2, 4, 3)])
def test_the_game_starts_with_valid_teams_of_five_or_six(ranks: Sequence[int]) -> None:
    camp = RankBasesGame({"teams": TEAMS[:2]})
    camp.team("red", ranks)
    camp.team("blue")
    assert types(camp.start()) == ["game_started"] + ["paper_issued"] * (len(ranks) + 5)
    assert camp.state.roster.status == "running"


@pytest.mark.parametrize(
    ("red_ranks", "leader", "found"),
    [
        ((1, 2, 3, 4), True, "team red: 4 players, 5 or 6 are needed"),
        ((1, 2, 3, 4, 4), True, "team red: ranks [1, 2, 3, 4, 4]"),
        ((1, 2, 3, 3, 4, 5), True, "a second 2 in a team of six"),
        ((1, 1, 2, 3, 4, 5), True, "team red: ranks [1, 1, 2, 3, 4, 5]"),
        ((1, 2, 3, 4, None), True, "team red: no rank for red 4"),
        (FIVE, False, "team red: no leader"),
    ],
)
def test_the_start_is_refused_when_a_team_is_not_a_valid_set(
    red_ranks: Sequence[int | None], leader: bool, found: str
) -> None:
    camp = RankBasesGame({"teams": TEAMS[:2]})
    camp.team("red", red_ranks, leader=leader)
    camp.team("blue")
    message = refused(camp, "invalid_setup", camp.start)
    assert found in message
    assert "blue" not in message
    assert camp.state.roster.status == "lobby"


def test_the_start_needs_two_teams_and_lists_every_problem() -> None:
    camp = RankBasesGame({"teams": TEAMS[:1]})
    camp.team("red", leader=False)
    message = refused(camp, "invalid_setup", camp.start)
    assert "at least 2 teams" in message and "team red: no leader" in message
    empty = RankBasesGame({})
    assert "at least 2 teams" in refused(empty, "invalid_setup", empty.start)


def test_the_start_hands_every_player_their_first_paper_without_spending_a_life() -> None:
    camp, red, blue = started()
    issued = [e.data for e in camp.log if e.type == "paper_issued"]
    assert [d["player_id"] for d in issued] == [m.player_id for m in red.players + blue.players]
    assert all(d["lives"] == 3 for d in issued)
    assert len({d["paper_id"] for d in issued}) == 10
    for member in red.players:
        player = camp.player(member)
        assert player.paper is not None and player.paper.player_id == member.player_id
        assert player.lives == 3


# -- rank duels ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (5, 4, True),
        (4, 5, False),
        (2, 1, True),
        (1, 2, False),
        (1, 5, True),  # the lowest takes the highest
        (5, 1, False),
        (1, 4, False),
        (4, 1, True),
        (3, 3, False),
    ],
)
def test_the_higher_rank_takes_except_that_1_takes_5(a: int, b: int, expected: bool) -> None:
    assert takes(a, b) is expected


def test_winner_of_two_ranks() -> None:
    assert winner({"a": 1, "b": 5}) == "a"
    assert winner({"a": 5, "b": 1}) == "b"
    assert winner({"a": 3, "b": 2}) == "a"
    assert winner({"a": 2, "b": 2}) is None


@pytest.mark.parametrize(("mine", "theirs"), [(4, 2), (2, 4), (1, 5), (5, 1), (3, 1)])
def test_a_duel_takes_the_loser_paper_to_the_winner(mine: int, theirs: int) -> None:
    camp, red, blue = started()
    a, b = red[mine], blue[theirs]
    paper_a, paper_b = camp.player(a).paper, camp.player(b).paper
    fought = camp.fight(a, b)
    won, lost = (a, b) if takes(mine, theirs) else (b, a)
    assert fought.data["winner"] == won.player_id
    assert fought.data["ranks"] == {a.player_id: mine, b.player_id: theirs}
    assert camp.player(lost).paper is None
    assert camp.player(won).paper in (paper_a, paper_b)
    assert camp.player(won).papers == ((paper_b if won == a else paper_a),)
    assert camp.player(lost).papers == ()
    assert camp.player(lost).lives == 3  # a new paper costs a life only when issued


def test_equal_ranks_swap_papers() -> None:
    camp, red, blue = started()
    a, b = red[3], blue[3]
    paper_a, paper_b = camp.player(a).paper, camp.player(b).paper
    fought = camp.fight(a, b)
    assert fought.data["winner"] is None
    assert {(c["from"], c["to"]) for c in fought.data["captured"]} == {
        (a.player_id, b.player_id),
        (b.player_id, a.player_id),
    }
    assert (camp.player(a).paper, camp.player(a).papers) == (None, (paper_b,))
    assert (camp.player(b).paper, camp.player(b).papers) == (None, (paper_a,))


def test_the_challenger_opens_and_the_target_reveals() -> None:
    camp, red, blue = started()
    a, b = red[4], blue[2]
    events = camp.run(a, OpenDuel(target=b.code.lower()))  # codes are typed in any case
    assert types(events) == ["duel_started"]
    duel_id = events[0].data["duel_id"]
    assert events[0].data == {
        "duel_id": duel_id,
        "challenger": a.player_id,
        "target": b.player_id,
        "at": "2023-11-14T22:13:20.000Z",
    }
    assert camp.player(a).duel_id == duel_id == camp.player(b).duel_id
    mine, theirs = camp.view(a)["duel"], camp.view(b)["duel"]
    assert mine == {
        "duel_id": duel_id,
        "opponent": {"player_id": b.player_id, "name": b.name},
        "revealed_by_me": True,
    }
    assert theirs["revealed_by_me"] is False and theirs["opponent"]["player_id"] == a.player_id
    assert camp.player(a).paper and camp.player(b).paper  # nothing moves before the reveal
    (fought,) = camp.reveal(b, duel_id)
    assert fought.type == "duel_fought"
    assert fought.data["raid_id"] is None and fought.data["players"] == [a.player_id, b.player_id]
    assert camp.state.duels == {}
    assert camp.player(a).duel_id is None and camp.player(b).duel_id is None
    assert camp.view(a)["duel"] is None


def test_only_the_target_reveals() -> None:
    camp, red, blue = started()
    a, b = red[4], blue[2]
    duel_id = camp.duel(a, b)
    refused(camp, "already_revealed", lambda: camp.reveal(a, duel_id))
    refused(camp, "forbidden", lambda: camp.reveal(blue[5], duel_id))
    refused(camp, "not_found", lambda: camp.reveal(b, "d999"))
    camp.reveal(b, duel_id)
    refused(camp, "not_found", lambda: camp.reveal(b, duel_id))  # fought: no longer open


def test_a_player_without_their_paper_neither_duels_nor_is_challenged() -> None:
    camp, red, blue = started()
    camp.fight(red[5], blue[4])  # blue 4 loses their paper
    loser = blue[4]
    refused(camp, "no_paper", lambda: camp.duel(loser, red[3]))
    message = refused(camp, "no_paper", lambda: camp.duel(red[3], loser))
    assert loser.name in message
    refused(camp, "no_paper", lambda: camp.raid(loser, "red"))
    # The winner carries a foreign paper but still holds their own: they fight on.
    camp.duel(red[5], blue[3])


def test_a_player_out_of_lives_and_paper_is_out() -> None:
    ranks = [{"rank": r, "name": f"R{r}", "lives": 0} for r in FIVE]
    camp = RankBasesGame({"teams": TEAMS[:2], "ranks": ranks})
    red, blue = camp.team("red"), camp.team("blue")
    camp.start()
    camp.fight(red[5], blue[4])
    out = blue[4]
    assert camp.player(out).out
    refused(camp, "no_lives", lambda: camp.duel(out, red[1]))
    refused(camp, "no_lives", lambda: camp.duel(red[1], out))
    refused(camp, "no_lives", lambda: camp.raid(out, "red"))
    refused(camp, "no_lives", lambda: camp.issue(blue.leader, out))


def test_nobody_in_a_duel_or_waiting_in_a_raid_duels_again() -> None:
    camp, red, blue = started()
    camp.duel(red[1], blue[1])
    refused(camp, "busy", lambda: camp.duel(red[1], blue[2]))  # the challenger
    refused(camp, "busy", lambda: camp.duel(red[2], blue[1]))  # the target
    refused(camp, "busy", lambda: camp.duel(blue[2], red[1]))
    refused(camp, "busy", lambda: camp.raid(red[1], "blue"))
    raid_id = camp.raid(red[3], "blue")
    refused(camp, "busy", lambda: camp.duel(red[3], blue[2]))
    refused(camp, "busy", lambda: camp.duel(blue[2], red[3]))
    refused(camp, "busy", lambda: camp.raid(red[3], "blue"))
    camp.defend(blue.leader, raid_id, [])
    camp.duel(blue[2], red[3])  # a won raid binds nobody


def test_no_duel_with_oneself_a_teammate_a_leader_or_an_unknown_code() -> None:
    camp, red, blue = started()
    refused(camp, "invalid", lambda: camp.run(red[1], OpenDuel(target=red[1].code)))
    refused(camp, "same_team", lambda: camp.duel(red[1], red[2]))
    refused(camp, "not_found", lambda: camp.duel(red[1], blue.leader))
    refused(camp, "not_found", lambda: camp.duel(red[1], camp.organizer))
    taken = set(camp.state.roster.codes)
    unknown = next(code for code in ("XXXX", "YYYY", "ZZZZ") if code not in taken)
    refused(camp, "not_found", lambda: camp.run(red[1], OpenDuel(target=unknown)))
    refused(camp, "forbidden", lambda: camp.run(blue.leader, OpenDuel(target=red[1].code)))
    refused(camp, "forbidden", lambda: camp.decide(blue.leader, OpenDuel(target=red[1].code)))


def test_the_organizer_cancels_an_open_duel() -> None:
    camp, red, blue = started()
    duel_id = camp.duel(red[1], blue[1])
    events = camp.run(camp.organizer, CancelDuel(duel_id=duel_id))
    assert lines(events) == [("duel_cancelled", {"duel_id": duel_id, "reason": "organizer"})]
    assert camp.state.duels == {} and camp.player(red[1]).duel_id is None
    assert camp.view(red[1])["last_duel"] is None  # nothing was shown
    refused(camp, "not_found", lambda: camp.run(camp.organizer, CancelDuel(duel_id=duel_id)))
    refused(camp, "forbidden", lambda: camp.run(red[1], CancelDuel(duel_id=duel_id)))
    camp.fight(red[1], blue[1])


# -- new papers ----------------------------------------------------------------------------------


def test_the_leader_issues_a_new_paper_for_a_life() -> None:
    camp, red, blue = started()
    camp.fight(red[5], blue[4])
    loser = blue[4]
    refused(camp, "forbidden", lambda: camp.issue(red.leader, loser))
    refused(camp, "forbidden", lambda: camp.run(loser, IssuePaper(player_id=loser.player_id)))
    (event,) = camp.issue(blue.leader, loser)
    assert event.type == "paper_issued"
    assert event.data["player_id"] == loser.player_id and event.data["lives"] == 2
    player = camp.player(loser)
    assert player.paper is not None and player.paper.paper_id == event.data["paper_id"]
    assert player.lives == 2
    refused(camp, "has_paper", lambda: camp.issue(blue.leader, loser))
    refused(camp, "not_found", lambda: camp.run(blue.leader, IssuePaper(player_id="p99")))
    camp.duel(loser, red[3])  # back in the game


def test_lives_run_out() -> None:
    camp, red, blue = started()
    loser = blue[1]
    for lives in (2, 1, 0):
        camp.fight(red[2], loser)
        camp.issue(blue.leader, loser)
        assert camp.player(loser).lives == lives
    camp.fight(red[2], loser)
    refused(camp, "no_lives", lambda: camp.issue(blue.leader, loser))
    assert camp.view(loser)["me"]["lives"] == 0 and camp.view(loser)["me"]["has_paper"] is False


# -- raids ---------------------------------------------------------------------------------------


def test_an_undefended_raid_is_won_and_the_raider_takes_one_part() -> None:
    camp, red, blue = started()
    attacker = red[2]
    events = camp.run(attacker, StartRaid(team_id="blue"))
    raid_id = events[0].data["raid_id"]
    assert events[0].data == {
        "raid_id": raid_id,
        "attacker": attacker.player_id,
        "team_id": "blue",
        "at": "2023-11-14T22:13:20.000Z",
    }
    assert camp.view(attacker)["raid"] == {
        "raid_id": raid_id,
        "team_id": "blue",
        "state": "awaiting_defenders",
        "part": None,
    }
    events = camp.defend(blue.leader, raid_id, [])
    assert types(events) == ["raid_defended", "raid_won"]
    assert camp.view(attacker)["raid"]["state"] == "won"
    events = camp.take(attacker, raid_id, "blue-4")
    assert lines(events) == [
        (
            "part_taken",
            {
                "raid_id": raid_id,
                "player_id": attacker.player_id,
                "tree": "blue",
                "part": {"part_id": "blue-4", "team_id": "blue", "value": 4},
            },
        )
    ]
    assert parts(camp, "tree", "blue") == ["blue-1", "blue-2", "blue-3"]
    assert camp.player(attacker).parts == (Part("blue-4", "blue", 4),)
    raid = camp.view(attacker)["raid"]
    assert raid["state"] == "done" and raid["part"]["part_id"] == "blue-4"
    assert camp.view(attacker)["me"]["carrying"] == {
        "papers": 0,
        "parts": [{"part_id": "blue-4", "team_id": "blue", "value": 4}],
    }
    refused(camp, "raid_over", lambda: camp.take(attacker, raid_id, "blue-3"))  # one part a raid


def test_the_attacker_fights_the_defenders_in_order_and_stops_at_the_first_loss() -> None:
    camp, red, blue = started()
    attacker = red[3]
    raid_id = camp.raid(attacker, "blue")
    events = camp.defend(blue.leader, raid_id, [blue[1], blue[2], blue[4], blue[5]])
    assert types(events) == [
        "raid_defended",
        "duel_fought",
        "duel_fought",
        "duel_fought",
        "raid_lost",
    ]
    fights = [e.data for e in events if e.type == "duel_fought"]
    assert [f["players"][1] for f in fights] == [blue[r].player_id for r in (1, 2, 4)]
    assert [f["winner"] for f in fights] == [attacker.player_id] * 2 + [blue[4].player_id]
    assert all(f["raid_id"] == raid_id for f in fights)
    assert len({f["duel_id"] for f in fights}) == 3
    assert camp.player(attacker).paper is None
    assert len(camp.player(attacker).papers) == 2  # carried home even after a lost raid
    assert camp.player(blue[4]).papers[0].player_id == attacker.player_id
    assert camp.player(blue[5]).paper is not None  # never fought
    assert camp.view(attacker)["raid"]["state"] == "lost"
    refused(camp, "raid_lost", lambda: camp.take(attacker, raid_id, "blue-1"))
    refused(camp, "already_defended", lambda: camp.defend(blue.leader, raid_id, []))


def test_a_tie_in_a_raid_takes_the_attacker_paper_and_loses_the_raid() -> None:
    camp, red, blue = started()
    raid_id = camp.raid(red[4], "blue")
    events = camp.defend(blue[4], raid_id, [blue[4], blue[5]])
    assert types(events) == ["raid_defended", "duel_fought", "raid_lost"]
    assert camp.player(red[4]).paper is None and camp.player(blue[4]).paper is None


def test_surviving_every_defender_wins_the_raid_and_the_lowest_takes_the_highest() -> None:
    camp, red, blue = started()
    raid_id = camp.raid(red[1], "blue")
    events = camp.defend(blue[2], raid_id, [blue[5]])
    assert types(events) == ["raid_defended", "duel_fought", "raid_won"]
    assert camp.player(blue[5]).paper is None
    camp.take(red[1], raid_id, "blue-2")
    assert len(camp.player(red[1]).papers) == 1


def test_who_names_the_defenders_and_who_may_defend() -> None:
    camp, red, blue = started(green=True)
    green = camp.leader_of("green")
    raid_id = camp.raid(red[5], "blue")
    refused(camp, "forbidden", lambda: camp.defend(red.leader, raid_id, []))
    refused(camp, "forbidden", lambda: camp.defend(green, raid_id, []))
    refused(camp, "forbidden", lambda: camp.defend(red[1], raid_id, []))  # attacker's teammate
    refused(camp, "forbidden", lambda: camp.defend(camp.organizer, raid_id, []))
    refused(camp, "not_a_defender", lambda: camp.defend(blue.leader, raid_id, [red[1]]))
    refused(camp, "not_found", lambda: camp.defend(blue.leader, raid_id, [blue.leader]))
    refused(camp, "invalid", lambda: camp.defend(blue.leader, raid_id, [blue[1], blue[1]]))
    refused(camp, "not_found", lambda: camp.defend(blue.leader, "r999", []))
    # A defender must hold their paper and be free.
    camp.fight(red[4], blue[3])
    refused(camp, "no_paper", lambda: camp.defend(blue.leader, raid_id, [blue[3]]))
    camp.duel(blue[2], red[2])
    refused(camp, "busy", lambda: camp.defend(blue.leader, raid_id, [blue[1], blue[2]]))
    # Any player of the base may name the order; they need not defend themselves.
    events = camp.defend(blue[3], raid_id, [blue[1]])
    assert events[0].data == {"raid_id": raid_id, "order": [blue[1].player_id]}
    with pytest.raises(ValidationError):
        Defend.model_validate({"raid_id": raid_id, "order": ["p1"] * 7})


def test_raid_refusals() -> None:
    camp, red, _ = started()
    refused(camp, "own_base", lambda: camp.raid(red[1], "red"))
    refused(camp, "not_found", lambda: camp.raid(red[1], "purple"))
    refused(camp, "forbidden", lambda: camp.run(red.leader, StartRaid(team_id="blue")))
    refused(camp, "game_not_running", lambda: RankBasesGame().raid(red[1], "blue"))


def test_take_part_refusals() -> None:
    camp, red, blue = started()
    raid_id = camp.raid(red[5], "blue")
    refused(camp, "not_your_turn", lambda: camp.take(red[5], raid_id, "blue-1"))
    camp.defend(blue.leader, raid_id, [])
    refused(camp, "forbidden", lambda: camp.take(red[4], raid_id, "blue-1"))
    refused(camp, "not_found", lambda: camp.take(red[5], "r999", "blue-1"))
    refused(camp, "not_on_tree", lambda: camp.take(red[5], raid_id, "red-1"))  # another tree
    refused(camp, "not_on_tree", lambda: camp.take(red[5], raid_id, "nothing"))
    camp.take(red[5], raid_id, "blue-1")
    for part_id in ("blue-2", "blue-3", "blue-4"):
        camp.steal(red[5], "blue", part_id)
    assert parts(camp, "tree", "blue") == []
    raid_id = camp.raid(red[4], "blue")
    camp.defend(blue.leader, raid_id, [])
    refused(camp, "tree_empty", lambda: camp.take(red[4], raid_id, "blue-1"))


def test_a_won_raid_ends_without_a_part_when_the_raider_goes_on_to_anything_else() -> None:
    camp, red, blue = started()
    raid_id = camp.raid(red[5], "blue")
    camp.defend(blue.leader, raid_id, [])
    events = camp.run(blue[1], OpenDuel(target=red[5].code))
    assert types(events) == ["raid_ended", "duel_started"]
    assert events[0].data == {"raid_id": raid_id, "reason": "left"}
    assert camp.view(red[5])["raid"] == {
        "raid_id": raid_id,
        "team_id": "blue",
        "state": "done",
        "part": None,
    }
    refused(camp, "raid_over", lambda: camp.take(red[5], raid_id, "blue-1"))
    # The same when the raider raids again or delivers at home.
    camp.run(camp.organizer, CancelDuel(duel_id=camp.player(red[5]).duel_id or ""))
    first = camp.raid(red[4], "blue")
    camp.defend(blue.leader, first, [])
    events = camp.run(red[4], StartRaid(team_id="blue"))
    assert types(events) == ["raid_ended", "raid_started"]
    assert camp.state.raids[first].state == "done"
    camp.defend(blue.leader, events[1].data["raid_id"], [blue[3]])  # red 4 takes blue 3's paper
    assert types(camp.deliver(red.leader, red[4])) == ["raid_ended", "delivered"]
    # And when a raider who won is named to defend their own base.
    won = camp.raid(red[3], "blue")
    camp.defend(blue.leader, won, [])
    attack = camp.raid(blue[1], "red")
    events = camp.defend(red.leader, attack, [red[3]])
    assert types(events) == ["raid_ended", "raid_defended", "duel_fought", "raid_lost"]
    assert camp.state.raids[won].state == "done"


def test_a_raid_stays_the_raider_last_raid_until_their_next_raid() -> None:
    camp, red, blue = started()
    raid_id = camp.raid(red[2], "blue")
    camp.defend(blue.leader, raid_id, [blue[3]])
    camp.issue(red.leader, red[2])
    camp.fight(red[2], blue[1])
    camp.deliver(red.leader, red[2])
    assert camp.view(red[2])["raid"]["state"] == "lost"
    other = camp.raid(red[2], "blue")
    assert camp.view(red[2])["raid"]["raid_id"] == other
    assert camp.state.raids[raid_id].state == "lost"


def test_incoming_raids_list_open_raids_on_the_own_base_oldest_first() -> None:
    camp, red, blue = started(green=True)
    green = camp.leader_of("green")
    first, second = camp.raid(red[2], "blue"), camp.raid(red[3], "blue")
    camp.raid(red[4], "green")
    camp.defend(blue.leader, second, [])
    expected = {
        first: {
            "attacker": {"player_id": red[2].player_id, "name": red[2].name},
            "state": "awaiting_defenders",
        },
        second: {
            "attacker": {"player_id": red[3].player_id, "name": red[3].name},
            "state": "won",
        },
    }
    assert camp.view(blue.leader)["incoming_raids"] == expected
    assert list(camp.view(blue[5])["incoming_raids"]) == [first, second]  # oldest first
    assert camp.view(blue[5])["incoming_raids"] == expected
    incoming = camp.view(green)["incoming_raids"].values()
    assert [r["state"] for r in incoming] == ["awaiting_defenders"]
    assert camp.view(red[2])["incoming_raids"] == {}
    assert camp.view(red.leader)["incoming_raids"] == {}
    camp.take(red[3], second, "blue-1")
    camp.defend(blue.leader, first, [blue[5]])
    assert camp.view(blue.leader)["incoming_raids"] == {}


def test_the_organizer_cancels_a_raid_and_fought_duels_stand() -> None:
    camp, red, blue = started()
    raid_id = camp.raid(red[5], "blue")
    camp.defend(blue.leader, raid_id, [blue[4]])  # won: red 5 took blue 4's paper
    refused(camp, "forbidden", lambda: camp.run(blue.leader, CancelRaid(raid_id=raid_id)))
    events = camp.run(camp.organizer, CancelRaid(raid_id=raid_id))
    assert lines(events) == [("raid_cancelled", {"raid_id": raid_id, "reason": "organizer"})]
    assert raid_id not in camp.state.raids
    assert camp.view(red[5])["raid"] is None
    assert camp.view(blue.leader)["incoming_raids"] == {}
    assert len(camp.player(red[5]).papers) == 1 and camp.player(blue[4]).paper is None
    refused(camp, "not_found", lambda: camp.take(red[5], raid_id, "blue-1"))
    refused(camp, "not_found", lambda: camp.run(camp.organizer, CancelRaid(raid_id=raid_id)))
    waiting = camp.raid(red[5], "blue")
    camp.run(camp.organizer, CancelRaid(raid_id=waiting))
    camp.duel(red[5], blue[1])  # no longer busy
    lost = camp.raid(red[4], "blue")
    camp.defend(blue.leader, lost, [blue[5]])
    refused(camp, "raid_over", lambda: camp.run(camp.organizer, CancelRaid(raid_id=lost)))


# -- deliveries ----------------------------------------------------------------------------------


def test_a_delivery_scores_foreign_papers_1_and_foreign_parts_twice_their_value() -> None:
    camp, red, blue = started(green=True)
    carrier = red[5]
    camp.fight(carrier, blue[4])
    camp.fight(carrier, blue[3])
    camp.steal(carrier, "blue", "blue-3")
    camp.steal(carrier, "green", "green-2")
    events = camp.deliver(red.leader, carrier)
    assert types(events) == ["delivered"]
    data = events[0].data
    assert data["team_id"] == "red" and data["player_id"] == carrier.player_id
    assert [(p["player_id"], p["team_id"], p["points"]) for p in data["papers"]] == [
        (blue[4].player_id, "blue", 1),
        (blue[3].player_id, "blue", 1),
    ]
    assert [(p["part_id"], p["points"], p["to"]) for p in data["parts"]] == [
        ("blue-3", 6, "stash"),
        ("green-2", 4, "stash"),
    ]
    assert data["points"] == 12
    assert camp.state.bases["red"].score == 12
    assert camp.view(blue[1])["scores"] == {"red": 12, "blue": 0, "green": 0}
    assert [p.player_id for p in camp.state.bases["red"].pile] == [
        blue[4].player_id,
        blue[3].player_id,
    ]
    assert parts(camp, "stash", "red") == ["blue-3", "green-2"]
    assert camp.player(carrier).papers == () and camp.player(carrier).parts == ()


def test_later_parts_of_a_team_hang_on_the_home_tree_and_can_be_raided_there() -> None:
    camp, red, blue = started(green=True)
    camp.steal(red[5], "blue", "blue-1")
    camp.deliver(red.leader, red[5])
    camp.steal(red[5], "blue", "blue-2")
    (event,) = camp.deliver(red.leader, red[5])
    assert event.data["parts"] == [
        {"part_id": "blue-2", "team_id": "blue", "value": 2, "points": 4, "to": "tree"}
    ]
    assert camp.state.bases["red"].score == 2 + 4
    assert parts(camp, "stash", "red") == ["blue-1"]
    assert parts(camp, "tree", "red") == ["red-1", "red-2", "red-3", "red-4", "blue-2"]
    assert camp.view(blue[1])["trees"]["red"]["blue-2"] == {"team_id": "blue", "value": 2}
    # The stash is safe; the tree is not.
    raid_id = camp.raid(blue[1], "red")
    camp.defend(red.leader, raid_id, [])
    refused(camp, "not_on_tree", lambda: camp.take(blue[1], raid_id, "blue-1"))
    camp.steal(blue[2], "red", "blue-2")  # blue takes its own part back
    (event,) = camp.deliver(blue.leader, blue[2])
    # A returned home part scores nothing and hangs on the home tree again.
    assert event.data["parts"] == [
        {"part_id": "blue-2", "team_id": "blue", "value": 2, "points": 0, "to": "tree"}
    ]
    assert event.data["points"] == 0 and camp.state.bases["blue"].score == 0
    assert parts(camp, "tree", "blue") == ["blue-3", "blue-4", "blue-2"]


def test_of_several_parts_of_one_team_delivered_at_once_the_stash_keeps_the_best() -> None:
    camp, red, _ = started()
    for part_id in ("blue-2", "blue-4", "blue-1"):
        camp.steal(red[5], "blue", part_id)
    (event,) = camp.deliver(red.leader, red[5])
    assert [(p["part_id"], p["to"]) for p in event.data["parts"]] == [
        ("blue-2", "tree"),
        ("blue-4", "stash"),
        ("blue-1", "tree"),
    ]
    assert event.data["points"] == 2 * (2 + 4 + 1)


def test_a_foreign_part_hung_on_a_tree_can_be_delivered_to_a_third_base() -> None:
    camp, red, _ = started(green=True)
    green = camp.leader_of("green")
    for part_id in ("blue-1", "blue-2"):
        camp.steal(red[5], "blue", part_id)
    camp.deliver(red.leader, red[5])  # blue-2 to red's stash, blue-1 on red's tree
    assert parts(camp, "tree", "red")[-1] == "blue-1"
    green_raider = next(
        m for m in camp.state.roster.members.values() if m.team == "green" and m.role == "player"
    )
    camp.steal(green_raider, "red", "blue-1")
    (event,) = camp.deliver(green, green_raider)
    assert event.data["parts"][0]["to"] == "stash" and event.data["points"] == 2


def test_delivery_refusals() -> None:
    camp, red, blue = started()
    refused(camp, "nothing_to_deliver", lambda: camp.deliver(red.leader, red[5]))
    camp.fight(red[5], blue[4])
    refused(camp, "forbidden", lambda: camp.deliver(blue.leader, red[5]))
    refused(camp, "forbidden", lambda: camp.run(red[5], Deliver(player_id=red[5].player_id)))
    refused(camp, "not_found", lambda: camp.run(red.leader, Deliver(player_id="p99")))
    duel_id = camp.duel(red[5], blue[3])
    refused(camp, "busy", lambda: camp.deliver(red.leader, red[5]))
    camp.run(camp.organizer, CancelDuel(duel_id=duel_id))
    camp.deliver(red.leader, red[5])
    assert camp.state.bases["red"].score == 1


def test_a_player_without_paper_may_still_deliver() -> None:
    camp, red, blue = started()
    camp.fight(red[3], blue[3])  # a swap: each carries the other's paper and has none
    (event,) = camp.deliver(blue.leader, blue[3])
    assert event.data["points"] == 1 and camp.state.bases["blue"].score == 1


# -- the game's life -----------------------------------------------------------------------------


def test_nothing_happens_before_the_start() -> None:
    camp = RankBasesGame({"teams": TEAMS[:2]})
    red, blue = camp.team("red"), camp.team("blue")
    refused(camp, "game_not_running", lambda: camp.duel(red[1], blue[1]))
    refused(camp, "game_not_running", lambda: camp.raid(red[1], "blue"))
    refused(camp, "game_not_running", lambda: camp.issue(red.leader, red[1]))
    refused(camp, "game_not_running", lambda: camp.deliver(red.leader, red[1]))
    refused(camp, "game_not_running", lambda: camp.reveal(red[1], "d1"))
    refused(camp, "game_not_running", lambda: camp.defend(red.leader, "r1", []))
    refused(camp, "game_not_running", lambda: camp.take(red[1], "r1", "blue-1"))


def test_end_game_closes_duels_and_raids_and_names_the_winners() -> None:
    camp, red, blue = started(green=True)
    duel_id = camp.duel(red[1], blue[1])
    waiting = camp.raid(red[2], "blue")
    won = camp.raid(blue[5], "red")
    camp.defend(red.leader, won, [])
    camp.fight(red[5], blue[4])
    camp.deliver(red.leader, red[5])
    assert camp.view(red[1])["winners"] == []
    events = camp.end()
    assert types(events) == ["duel_cancelled", "raid_cancelled", "raid_ended", "game_ended"]
    assert events[0].data == {"duel_id": duel_id, "reason": "game_ended"}
    assert events[1].data == {"raid_id": waiting, "reason": "game_ended"}
    assert events[2].data == {"raid_id": won, "reason": "game_ended"}
    assert events[3].data == {"seed": SEED.hex()}
    # Nothing is left open: no duel, no raid waiting or won, nobody busy.
    assert camp.state.duels == {}
    assert {r.state for r in camp.state.raids.values()} == {"done"}
    assert not any(camp.state.busy(p) for p in camp.state.players.values())
    assert camp.view(camp.organizer)["winners"] == ["red"]
    refused(camp, "game_not_running", lambda: camp.duel(red[2], blue[2]))
    refused(camp, "game_not_running", lambda: camp.take(blue[5], won, "red-1"))
    refused(camp, "game_not_running", lambda: camp.end())
    refused(camp, "game_not_running", lambda: camp.start())


def test_a_tie_names_every_team_with_the_highest_score() -> None:
    camp, red, _ = started()
    camp.end()
    assert camp.view(red[1])["winners"] == ["red", "blue"]


def test_roles_are_declared_on_the_commands() -> None:
    roles = {name: set(model.roles) for name, model in RULESET.commands.items()}
    assert roles == {
        "start_game": {"organizer"},
        "end_game": {"organizer"},
        "assign_rank": {"organizer", "leader"},
        "duel": {"player"},
        "reveal": {"player"},
        "raid": {"player"},
        "defend": {"player", "leader"},
        "take_part": {"player"},
        "deliver": {"leader"},
        "issue_paper": {"leader"},
        "cancel_duel": {"organizer"},
        "cancel_raid": {"organizer"},
    }


def test_commands_parse_from_json_bodies_strictly() -> None:
    body: dict[str, Any] = {"raid_id": "r9", "order": ["p3", "p4"]}
    assert RULESET.commands["defend"].model_validate(body) == Defend(
        raid_id="r9", order=["p3", "p4"]
    )
    for name, bad in [
        ("assign_rank", {"player_id": "p3", "rank": "3"}),
        ("duel", {"target": "ABCD", "ranged": True}),
        ("defend", {"raid_id": "r9"}),
        ("take_part", {"raid_id": "r9"}),
    ]:
        with pytest.raises(ValidationError):
            RULESET.commands[name].model_validate(bad)


# -- views ---------------------------------------------------------------------------------------


def test_the_public_view_shows_scores_and_trees_but_no_roster_and_no_rank() -> None:
    camp, _, _ = started()
    spectator = camp.add("Divák", "spectator")
    seen = camp.view(spectator)
    assert set(seen) == {"game", "scores", "trees", "winners"}  # who plays: the directory
    assert seen["scores"] == {"red": 0, "blue": 0}
    assert set(seen["trees"]) == {"red", "blue"}
    # Only the config (in "game") names the ranks; nothing ties a rank to a player.
    assert "rank" not in json.dumps({k: v for k, v in seen.items() if k != "game"})


def test_a_player_sees_their_own_rank_paper_lives_and_loot() -> None:
    camp, red, blue = started()
    camp.fight(red[4], blue[2])
    me = camp.view(red[4])
    assert set(me) == {
        "game",
        "scores",
        "trees",
        "winners",
        "me",
        "duel",
        "last_duel",
        "raid",
        "incoming_raids",
        "may",
    }
    assert me["me"] == {
        "player_id": red[4].player_id,
        "name": red[4].name,
        "role": "player",
        "team": "red",
        "code": red[4].code,
        "team_id": "red",
        "rank": 4,
        "has_paper": True,
        "out": False,
        "lives": 3,
        "carrying": {"papers": 1, "parts": []},
    }
    assert (me["duel"], me["raid"], me["incoming_raids"]) == (None, None, {})


def test_last_duel_ranks_are_seen_by_the_two_duellists_only() -> None:
    camp, red, blue = started()
    fought = camp.fight(red[4], blue[2])
    shown = {
        "duel_id": fought.data["duel_id"],
        "raid_id": None,
        "ranks": {red[4].player_id: 4, blue[2].player_id: 2},
        "winner": red[4].player_id,
        "why": "higher",
    }
    assert camp.view(red[4])["last_duel"] == {
        **shown,
        "opponent": {"player_id": blue[2].player_id, "name": blue[2].name},
    }
    assert camp.view(blue[2])["last_duel"]["ranks"] == shown["ranks"]
    for other in (red[1], blue[1]):
        assert camp.view(other)["last_duel"] is None


def test_a_leader_sees_their_team_ranks_stash_and_incoming_raids() -> None:
    camp, red, blue = started()
    camp.steal(red[5], "blue", "blue-3")
    camp.deliver(red.leader, red[5])
    raid_id = camp.raid(blue[1], "red")
    seen = camp.view(red.leader)
    assert set(seen) == {
        "game",
        "scores",
        "trees",
        "winners",
        "me",
        "team",
        "stash",
        "incoming_raids",
        "may",
        "setup",
        "deliveries",
    }
    assert seen["me"]["team_id"] == "red" and seen["me"]["role"] == "leader"
    assert [(p, entry["rank"]) for p, entry in seen["team"].items()] == [
        (m.player_id, r) for m, r in zip(red.players, FIVE, strict=True)
    ]
    assert seen["team"][red[1].player_id] == {
        "name": red[1].name,
        "rank": 1,
        "has_paper": True,
        "out": False,
        "lives": 3,
        "carrying": {"papers": 0, "parts": []},
    }
    assert seen["stash"] == {"blue-3": {"team_id": "blue", "value": 3}}
    assert list(seen["incoming_raids"]) == [raid_id]
    other = camp.view(blue.leader)
    assert not set(other["team"]) & {m.player_id for m in red.players}
    assert other["stash"] == {}


def test_ranks_are_seen_before_the_start_by_the_player_and_their_leader() -> None:
    camp = RankBasesGame({"teams": TEAMS[:2]})
    red, blue = camp.team("red"), camp.team("blue")
    assert camp.view(red[3])["me"]["rank"] == 3
    assert camp.view(red[3])["me"]["has_paper"] is False
    assert [p["rank"] for p in camp.view(red.leader)["team"].values()] == list(FIVE)
    assert list(camp.view(blue.leader)["team"]) == [m.player_id for m in blue.players]


def test_the_organizer_sees_everything() -> None:
    camp, red, blue = started()
    duel_id = camp.duel(red[1], blue[1])
    raid_id = camp.raid(red[2], "blue")
    camp.fight(red[5], blue[4])
    seen = camp.view(camp.organizer)
    by_id = seen["players"]
    assert [by_id[m.player_id]["rank"] for m in blue.players] == list(FIVE)
    assert by_id[red[1].player_id]["duel_id"] == duel_id
    assert by_id[red[2].player_id]["raid_id"] == raid_id
    assert by_id[red[5].player_id]["carrying"]["papers"] == 1
    assert seen["duels"] == {duel_id: {"challenger": red[1].player_id, "target": blue[1].player_id}}
    assert seen["raids"] == {
        raid_id: {
            "raid_id": raid_id,
            "team_id": "blue",
            "state": "awaiting_defenders",
            "part": None,
            "attacker": red[2].player_id,
            "order": [],
        }
    }
    assert set(seen["stashes"]) == set(seen["piles"]) == {"red", "blue"}
    assert len(seen["members"]) == 1 + 2 + 10


# -- the log's lines -----------------------------------------------------------------------------

# One line of every kind as the code of commit 9ada44e wrote it (tests/logs/rank-bases.ndjson),
# with the record it reads into today. Every kind is still at version 1.
OLD_LINES: list[tuple[str, Json, Fact]] = [
    (
        "rank_assigned",
        {"player_id": "p5", "rank": 1, "lives": 3},
        RankAssigned(player_id="p5", rank=1, lives=3),
    ),
    (
        "paper_issued",
        {"paper_id": "s26", "player_id": "p5", "lives": 3},
        PaperIssued(paper_id="s26", player_id="p5", lives=3),
    ),
    (
        "duel_started",
        {"duel_id": "d38", "challenger": "p8", "target": "p11", "at": "2026-12-03T13:06:41.689Z"},
        DuelStarted(duel_id="d38", challenger="p8", target="p11", at="2026-12-03T13:06:41.689Z"),
    ),
    (
        "duel_fought",
        {
            "duel_id": "d41",
            "raid_id": None,
            "players": ["p7", "p12"],
            "ranks": {"p7": 3, "p12": 3},
            "winner": None,
            "captured": [
                {"paper_id": "s26.8", "from": "p12", "to": "p7"},
                {"paper_id": "s26.3", "from": "p7", "to": "p12"},
            ],
        },
        DuelFought(
            duel_id="d41",
            raid_id=None,
            players=["p7", "p12"],
            ranks={"p7": 3, "p12": 3},
            winner=None,
            captured=[
                Capture(paper_id="s26.8", from_="p12", to="p7"),
                Capture(paper_id="s26.3", from_="p7", to="p12"),
            ],
        ),
    ),
    (
        "duel_cancelled",
        {"duel_id": "d45", "reason": "organizer"},
        DuelCancelled(duel_id="d45", reason="organizer"),
    ),
    (
        "raid_started",
        {"raid_id": "r47", "attacker": "p9", "team_id": "blue", "at": "2026-12-03T13:06:41.738Z"},
        RaidStarted(raid_id="r47", attacker="p9", team_id="blue", at="2026-12-03T13:06:41.738Z"),
    ),
    (
        "raid_defended",
        {"raid_id": "r47", "order": ["p12"]},
        RaidDefended(raid_id="r47", order=["p12"]),
    ),
    ("raid_won", {"raid_id": "r47"}, RaidWon(raid_id="r47")),
    ("raid_lost", {"raid_id": "r53"}, RaidLost(raid_id="r53")),
    (
        "raid_ended",
        {"raid_id": "r60", "reason": "left"},
        RaidEnded(raid_id="r60", reason="left"),
    ),
    (
        "part_taken",
        {
            "raid_id": "r47",
            "player_id": "p9",
            "tree": "blue",
            "part": {"part_id": "blue-4", "team_id": "blue", "value": 4},
        },
        PartTaken(
            raid_id="r47",
            player_id="p9",
            tree="blue",
            part=PartFace(part_id="blue-4", team_id="blue", value=4),
        ),
    ),
    (
        "raid_cancelled",
        {"raid_id": "r58", "reason": "organizer"},
        RaidCancelled(raid_id="r58", reason="organizer"),
    ),
    (
        "delivered",
        {
            "player_id": "p9",
            "team_id": "red",
            "papers": [{"paper_id": "s44", "player_id": "p12", "team_id": "blue", "points": 1}],
            "parts": [
                {"part_id": "blue-4", "team_id": "blue", "value": 4, "points": 8, "to": "stash"}
            ],
            "points": 9,
        },
        Delivered(
            player_id="p9",
            team_id="red",
            papers=[DeliveredPaper(paper_id="s44", player_id="p12", team_id="blue", points=1)],
            parts=[DeliveredPart(part_id="blue-4", team_id="blue", value=4, points=8, to="stash")],
            points=9,
        ),
    ),
]


@pytest.mark.parametrize(("kind", "data", "fact"), OLD_LINES, ids=[k for k, _, _ in OLD_LINES])
def test_an_old_line_reads_into_its_record_and_is_written_the_same_today(
    kind: str, data: Json, fact: Fact
) -> None:
    assert EVENTS.read(kind, data, 1).fact == fact
    assert Event.of(fact).type == kind and Event.of(fact).data == data


def test_every_kind_written_has_an_old_line() -> None:
    """The fixtures above cover every kind of the ruleset's own (the roster's are tested there)."""
    own = set(EVENTS.facts) - set(roster.EVENTS.facts)
    assert {kind for kind, _, _ in OLD_LINES} == own


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("raid_won", {"raid_id": "r1", "part": None}),  # a key no version wrote
        ("raid_ended", {"raid_id": "r1", "reason": "organizer"}),  # a reason it never has
        ("duel_fought", {"duel_id": "d1", "raid_id": None, "players": ["p1", "p2"]}),
    ],
)
def test_a_line_that_does_not_fit_its_record_is_refused(kind: str, data: Json) -> None:
    with pytest.raises(UnknownEvent):
        EVENTS.read(kind, data, 1)


# -- what a view offers (may) ---------------------------------------------------------------------


def test_a_player_names_the_opponent_by_code_never_by_player_id() -> None:
    camp, red, blue = started()
    message = refused(
        camp, "code_required", lambda: camp.run(red[1], OpenDuel(target=blue[1].player_id))
    )
    assert "code" in message
    camp.run(red[1], OpenDuel(target=blue[1].code.lower()))  # a code in any case


def test_a_duel_is_refused_and_not_offered_while_nobody_of_another_team_is_free() -> None:
    camp, red, blue = started()
    assert camp.view(red[1])["may"]["duel"] is True
    # Every blue player loses their paper to a red one (rank 1 takes rank 5).
    for mine, theirs in ((2, 1), (3, 2), (4, 3), (5, 4), (1, 5)):
        camp.fight(red[mine], blue[theirs])
    assert not any(camp.state.free(p) for p in camp.state.players.values() if p.team_id == "blue")
    assert camp.view(red[2])["may"]["duel"] == {"code": "no_opponent"}
    refused(camp, "no_opponent", lambda: camp.run(red[2], OpenDuel(target=blue[1].code)))
    assert camp.view(blue[1])["may"]["duel"] == {"code": "no_paper"}
    camp.issue(blue.leader, blue[2])
    assert camp.view(red[2])["may"]["duel"] is True
    camp.run(red[2], OpenDuel(target=blue[2].code))


def test_a_team_learns_that_an_opponent_is_free_again_though_no_event_names_it() -> None:
    camp, red, blue = started()
    for mine, theirs in ((2, 1), (3, 2), (4, 3), (5, 4), (1, 5)):
        camp.fight(red[mine], blue[theirs])
    before = camp.state
    events = camp.issue(blue.leader, blue[2])
    found = RULESET.parts.touched(before, events, camp.state)
    assert found is not None and {m.player_id for m in red.players} <= found


def test_a_player_is_offered_raids_reveals_and_the_parts_of_a_won_raid() -> None:
    camp, red, blue = started()
    assert camp.view(red[1])["may"] == {"duel": True, "raid:blue": True}
    duel_id = camp.duel(red[1], blue[1])
    assert camp.view(blue[1])["may"][f"reveal:{duel_id}"] is True
    assert f"reveal:{duel_id}" not in camp.view(red[1])["may"]  # the challenger has revealed
    assert camp.view(red[1])["may"]["raid:blue"] == {"code": "busy"}
    camp.reveal(blue[1], duel_id)
    raid_id = camp.raid(red[2], "blue")
    camp.defend(blue.leader, raid_id, [])
    offered = camp.view(red[2])["may"]
    assert [k for k in offered if k.startswith("take_part:")] == [
        f"take_part:blue-{v}" for v in (1, 2, 3, 4)
    ]
    # Another raider empties a part off that tree: the first raider is shown it.
    other = camp.raid(red[3], "blue")
    camp.defend(blue.leader, other, [])
    before = camp.state
    events = camp.take(red[3], other, "blue-4")
    found = RULESET.parts.touched(before, events, camp.state)
    assert found is not None and red[2].player_id in found
    assert "take_part:blue-4" not in camp.view(red[2])["may"]


def test_a_leader_is_offered_ranks_deliveries_papers_and_defences() -> None:
    camp = RankBasesGame({"teams": TEAMS[:2]})
    red, blue = camp.team("red", FIVE), camp.team("blue", (1, 2, 3, 4, None))
    offered = camp.view(blue.leader)["may"]
    assert offered[f"assign_rank:{blue[1].player_id}"] is True
    assert camp.view(blue.leader)["setup"] == [
        {"problem": "unranked", "team_id": "blue", "unranked": [blue.players[4].player_id]}
    ]
    assert camp.view(camp.organizer)["may"]["start_game"] == {"code": "invalid_setup"}
    camp.assign(blue.players[4], 5)
    assert camp.view(camp.organizer)["may"]["start_game"] is True
    assert camp.view(blue.leader)["setup"] == []
    camp.start()
    assert camp.view(camp.organizer)["may"] == {
        "start_game": {"code": "game_not_running"},
        "end_game": True,
    }
    offered = camp.view(red.leader)["may"]
    assert offered[f"deliver:{red[1].player_id}"] == {"code": "nothing_to_deliver"}
    assert offered[f"issue_paper:{red[1].player_id}"] == {"code": "has_paper"}
    camp.steal(red[5], "blue", "blue-3")
    camp.fight(red[4], blue[2])
    seen = camp.view(red.leader)
    assert seen["may"][f"deliver:{red[5].player_id}"] is True
    assert seen["deliveries"][red[4].player_id] == {
        "points": 1,
        "papers": 1,
        "paper_points": 1,
        "parts": [],
    }
    assert seen["deliveries"][red[5].player_id]["parts"] == [
        {"part_id": "blue-3", "team_id": "blue", "value": 3, "points": 6, "to": "stash"}
    ]
    delivered = camp.deliver(red.leader, red[5])[-1]
    assert delivered.data["points"] == seen["deliveries"][red[5].player_id]["points"]
    assert camp.view(blue.leader)["may"][f"issue_paper:{blue[2].player_id}"] is True
    raid_id = camp.raid(blue[1], "red")
    assert camp.view(red.leader)["may"][f"defend:{raid_id}"] is True
    assert camp.view(red[1])["may"].get(f"defend:{raid_id}") is None  # the base defends


def test_a_duel_says_why_it_went_as_it_did() -> None:
    camp, red, blue = started()
    camp.fight(red[1], blue[5])
    assert camp.view(red[1])["last_duel"]["why"] == "one_takes_five"
    camp.fight(red[3], blue[3])
    assert camp.view(blue[3])["last_duel"]["why"] == "equal"
