"""What every ruleset shares: many players added in one command join as if added one by one."""

import orjson
import pytest

from server.rules import RULESETS, roster
from server.rules.core import Context, RuleError
from server.rules.roster import AddPlayer, decide_each
from tests.rules.drivers.base import Driver

TEAMS = [{"team_id": "red", "name": "Red"}, {"team_id": "blue", "name": "Blue"}]


def lobby(ruleset_id: str) -> Driver[object]:
    return Driver(RULESETS[ruleset_id], {"teams": TEAMS} if ruleset_id == "rank-bases" else None)


def joining(ruleset_id: str) -> list[AddPlayer]:
    team = "red" if ruleset_id == "rank-bases" else None
    return [
        AddPlayer(name="Rincewind", team=team),
        AddPlayer(name="Vimes", role="leader" if team else "player", team=team),
        AddPlayer(name="Nobby", team=team),
    ]


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_a_list_joins_with_the_ids_codes_and_cards_of_single_adds(ruleset_id: str) -> None:
    one_by_one, at_once = lobby(ruleset_id), lobby(ruleset_id)
    expected = [
        e for add in joining(ruleset_id) for e in one_by_one.decide(one_by_one.organizer, add)
    ]
    ctx = Context(
        now=at_once.now, actor=at_once.organizer, seq=len(at_once.log) + 1, seed=at_once.seed
    )
    events, _ = decide_each(at_once.ruleset, at_once.state, joining(ruleset_id), ctx)
    assert events == expected
    assert len({e.data["code"] for e in events}) == len(events) == 3


def test_a_list_that_breaks_a_rule_is_refused_whole() -> None:
    camp = lobby("rank-bases")
    ctx = Context(now=camp.now, actor=camp.organizer, seq=len(camp.log) + 1, seed=camp.seed)
    too_many = [AddPlayer(name=f"Red {n}", team="red") for n in range(50)]
    with pytest.raises(RuleError) as refused:
        decide_each(camp.ruleset, camp.state, too_many, ctx)
    assert refused.value.code == "team_full"


def test_a_players_first_view_stays_small_in_a_game_of_five_thousand() -> None:
    game = lobby("card-duel")
    many = [AddPlayer(name=f"Hráč {n}") for n in range(5_000)]
    ctx = Context(now=game.now, actor=game.organizer, seq=len(game.log) + 1, seed=game.seed)
    for event in decide_each(game.ruleset, game.state, many, ctx)[0]:
        game.state = game.ruleset.evolve(game.state, event)
        game.log.append(event)
    someone = game.member(game.log[-1].data["player_id"])
    shown = orjson.dumps(game.view(someone))
    assert len(shown) < 4_096, len(shown)  # no roster: the directory has the 5,000 names
    assert len(game.view(game.organizer)["players"]) == 5_000  # keyed by id, for the console


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_a_game_refuses_members_beyond_its_cap(
    ruleset_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = lobby(ruleset_id)
    monkeypatch.setattr(roster, "MAX_MEMBERS", 3)  # the organizer and two more
    ctx = Context(now=game.now, actor=game.organizer, seq=len(game.log) + 1, seed=game.seed)
    with pytest.raises(RuleError) as refused:
        decide_each(game.ruleset, game.state, joining(ruleset_id), ctx)  # three: one too many
    assert refused.value.code == "game_full"
    events, game.state = decide_each(game.ruleset, game.state, joining(ruleset_id)[:2], ctx)
    assert len(events) == 2
    with pytest.raises(RuleError) as full:
        game.decide(game.organizer, AddPlayer(name="Late", role="spectator"))
    assert full.value.code == "game_full"


def test_the_whole_code_alphabet_is_drawn() -> None:
    """One draw a code, in base 25: every character turns up in every place."""
    game = lobby("card-duel")
    many = [AddPlayer(name=f"Hráč {n}") for n in range(400)]
    ctx = Context(now=game.now, actor=game.organizer, seq=len(game.log) + 1, seed=game.seed)
    codes = [e.data["code"] for e in decide_each(game.ruleset, game.state, many, ctx)[0]]
    assert len(set(codes)) == 400
    for place in range(4):
        assert {code[place] for code in codes} == set(roster.CODE_ALPHABET)
