"""What a card-duel view says its viewer may do (`may`), and the reveal's and the end's words
the view carries for the phone (server/rules/card_duel/offers.py, view.py)."""

from server.clock import iso
from server.rules.card_duel import RULESET
from server.rules.core import Member
from server.rules.roster import EndGame
from tests.rules.drivers.base import T0
from tests.rules.drivers.card_duel import STARTING, CardDuelGame

CHAIR, DAGGER, CROWD = STARTING  # 3/2 stun, 2/3 wound, 1/4 escape


def may(game: CardDuelGame, member: Member, at: int | None = None) -> dict[str, object]:
    found: dict[str, object] = game.view(member, at)["may"]
    return found


def test_the_organizer_may_start_then_end_and_nothing_per_player() -> None:
    game = CardDuelGame()
    game.add("Rincewind")
    assert may(game, game.organizer) == {"start_game": True, "end_game": True}
    game.start()
    for n in range(5):
        game.add(f"Hráč {n}")
    running = {"start_game": {"code": "game_not_running"}, "end_game": True}
    assert may(game, game.organizer) == running  # as many entries with 6 players as with 1
    game.run(game.organizer, EndGame())
    assert may(game, game.organizer) == {
        "start_game": {"code": "game_not_running"},
        "end_game": {"code": "game_not_running"},
    }


def test_a_fighter_may_challenge_by_code_once_the_game_runs() -> None:
    game = CardDuelGame()
    a = game.add("Rincewind")
    spectator = game.add("Divák", role="spectator")
    assert may(game, a)["challenge"] == {"code": "game_not_running"}
    game.start()
    # "Name the one you touched": a challenge needs a code, which no view holds.
    assert may(game, a) == {"challenge": {"code": "code_required"}}  # no crossbow, no ranged
    game.crossbow(a)
    assert may(game, a)["challenge:ranged"] == {"code": "code_required"}
    assert "may" not in game.view(spectator)


def test_a_duellist_may_pick_each_card_once_and_leave_after_the_wait() -> None:
    game = CardDuelGame({"leave_after_s": 60})
    a, b = game.add("Rincewind"), game.add("Vimes")
    game.start()
    duel_id = game.challenge(a, b)
    leave_from = T0 + 60_000
    assert may(game, a) == {
        "challenge": {"code": "busy"},  # no pick timeout: the duel ends by no clock
        "pick": True,
        "leave": {"code": "too_soon", "until": iso(leave_from)},
    }
    assert may(game, a, at=leave_from)["leave"] is True
    game.pick(a, duel_id, game.card(a, CHAIR))
    assert may(game, a)["pick"] == {"code": "already_picked"}
    assert may(game, b, at=leave_from)["leave"] == {"code": "opponent_picked"}
    game.pick(b, duel_id, game.card(b, DAGGER))
    assert "pick" not in may(game, a)


def test_a_stun_and_a_deadline_refuse_until_a_time() -> None:
    game = CardDuelGame({"stun_s": 120, "pick_timeout_s": 30})
    a, b, c = game.add("Rincewind"), game.add("Vimes"), game.add("Nobby")
    game.start()
    game.duel(a, b, CHAIR, DAGGER)
    stunned = {"code": "stunned", "until": iso(T0 + 120_000)}
    assert may(game, b)["challenge"] == stunned
    assert may(game, b, at=T0 + 120_000)["challenge"] == {"code": "code_required"}
    game.challenge(a, c)
    assert may(game, c)["challenge"] == {"code": "busy", "until": iso(T0 + 30_000)}
    assert may(game, c, at=T0 + 30_000)["challenge"] == {"code": "code_required"}
    assert RULESET.offers(game.state, c, T0 + 30_000)["leave"].refused == "duel_over"


def test_a_revealed_round_says_which_number_won() -> None:
    game = CardDuelGame()
    a, b, c = game.add("Rincewind"), game.add("Vimes"), game.add("Nobby")
    game.start()
    game.duel(a, b, CHAIR, DAGGER)  # 3/2 beats 2/3 on the big number
    (round_,) = game.view(b)["last_duel"]["rounds"]
    assert round_["why"] == {a.player_id: "big"}
    game.grant(c, "Šipka", 1, 9, "wound")
    game.duel(c, a, "Šipka", CROWD)  # 1/9 beats 1/4 on the small number only
    (round_,) = game.view(c)["last_duel"]["rounds"]
    assert round_["why"] == {c.player_id: "small"}


def test_the_end_tells_every_player_how_the_fighters_ended() -> None:
    game = CardDuelGame()
    a, b, c = game.add("Rincewind"), game.add("Vimes"), game.add("Nobby")
    game.grant(a, "Kosa", 9, 9, "death")
    game.start()
    game.duel(a, b, "Kosa", DAGGER)
    game.duel(a, c, DAGGER, CROWD)  # 2/3 beats 1/4 on the big number: c is wounded
    assert "result" not in game.view(a)
    game.run(game.organizer, EndGame())
    result = {"standing": 1, "wounded": 1, "dead": 1}
    assert game.view(a)["result"] == result
    assert game.view(b)["result"] == result
    assert game.view(game.organizer)["result"] == result
