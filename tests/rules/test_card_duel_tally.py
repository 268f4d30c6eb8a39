"""A player's own duels won and lost (`me.duels_won`, `me.duels_lost`): the end screen's story.

Decided duels only (one of the two alone won the last round), online and offline alike; a
cancelled duel and one both won count for neither; the tally survives a revive."""

from server.rules.card_duel.commands import CancelDuel, RegisterKey, Revive
from server.rules.core import Member
from tests.rules.drivers.card_duel import CardDuelGame
from tests.rules.phones import Exchange, Phone
from tests.rules.test_card_duel_offline import bring, settle

CHAIR, DAGGER, CROWD = "Rána židlí", "Rána Ankh-Morporskou dýkou", "Ztracení se v davu"
LATER = 10 * 60_000  # past any stun or free leave of the default config


def tally(game: CardDuelGame, member: Member) -> tuple[int, int]:
    me = game.view(member)["me"]
    return me["duels_won"], me["duels_lost"]


def test_a_won_duel_counts_for_the_winner_and_against_the_loser() -> None:
    game = CardDuelGame()
    a, b, c = game.add("Rincewind"), game.add("Vimes"), game.add("Nobby")
    game.start()
    assert tally(game, a) == tally(game, b) == (0, 0)
    game.duel(a, b, CHAIR, DAGGER)  # 3 > 2: a wins
    assert (tally(game, a), tally(game, b), tally(game, c)) == ((1, 0), (0, 1), (0, 0))
    game.now += LATER
    game.duel(c, b, DAGGER, CHAIR)  # b wins this one
    assert (tally(game, a), tally(game, b), tally(game, c)) == ((1, 0), (1, 1), (0, 1))
    # The console's rows stay as they were: the tally is the player's own.
    assert "duels_won" not in game.view(game.organizer)["players"][a.player_id]


def test_a_drawn_round_then_a_win_counts_once_and_both_winning_counts_for_neither() -> None:
    game = CardDuelGame()
    a, b = game.add("Rincewind"), game.add("Vimes")
    game.start()
    duel_id = game.challenge(a, b)
    game.pick(a, duel_id, game.card(a, CHAIR))
    game.pick(b, duel_id, game.card(b, CHAIR))  # a draw: round 2
    game.pick(a, duel_id, game.card(a, CHAIR))
    game.pick(b, duel_id, game.card(b, DAGGER))
    assert (tally(game, a), tally(game, b)) == ((1, 0), (0, 1))
    game.now += LATER
    game.grant(a, "Kopanec", 4, 1, "stun")
    game.grant(b, "Píchnutí", 1, 4, "wound")
    game.duel(a, b, "Kopanec", "Píchnutí")  # both win
    assert (tally(game, a), tally(game, b)) == ((1, 0), (0, 1))


def test_a_cancelled_duel_counts_for_neither_and_a_revive_keeps_the_tally() -> None:
    game = CardDuelGame()
    a, b = game.add("Rincewind"), game.add("Vimes")
    game.start()
    duel_id = game.challenge(a, b)
    game.run(game.organizer, CancelDuel(duel_id=duel_id))
    assert (tally(game, a), tally(game, b)) == ((0, 0), (0, 0))
    game.grant(a, "Kosa", 9, 9, "death")
    game.duel(a, b, "Kosa", CHAIR)
    assert tally(game, b) == (0, 1) and game.fighter(b).alive is False
    game.run(game.organizer, Revive(player_id=b.player_id))
    assert tally(game, b) == (0, 1)


def test_an_offline_duel_counts_as_an_online_one() -> None:
    game = CardDuelGame()
    a, b = game.add("Rincewind"), game.add("Vimes")
    game.start()
    pa, pb = Phone(a.player_id), Phone(b.player_id)
    for member, phone in ((a, pa), (b, pb)):
        game.run(member, RegisterKey(public_key=phone.public_key))
    duel: Exchange = settle(game, a, b, pa, pb, CHAIR, DAGGER)
    bring(game, b, duel.texts, game.now + 40_000)
    assert (tally(game, a), tally(game, b)) == ((1, 0), (0, 1))
