"""Offline duels (docs/rules/card-duel.md, "Offline duels"): two phones settle a duel by signed QR
texts with no network; either brings the record, the server checks it whole and takes it once. Every
way of cheating named by the protocol is refused and changes nothing."""

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules.card_duel.commands import CancelDuel, OfflineDuel, RegisterKey
from server.rules.card_duel.offline import REVEAL_MS, SKEW_MS, b64, digest, key_id
from server.rules.core import Event, Member, RuleError
from tests.rules.drivers.base import T0
from tests.rules.drivers.card_duel import CardDuelGame
from tests.rules.phones import Exchange, Phone

CHAIR, DAGGER, CROWD = "Rána židlí", "Rána Ankh-Morporskou dýkou", "Ztracení se v davu"


def table() -> tuple[CardDuelGame, Member, Member, Phone, Phone]:
    """A running game; Rincewind and Vimes have registered their phones' keys."""
    game = CardDuelGame()
    a, b = game.add("Rincewind"), game.add("Vimes")
    game.start()
    phones = Phone(a.player_id), Phone(b.player_id)
    for member, phone in zip((a, b), phones, strict=True):
        game.run(member, RegisterKey(public_key=phone.public_key))
    return game, a, b, *phones


def revision(game: CardDuelGame, member: Member) -> int:
    return int(game.view(member)["me"]["revision"])


def settle(
    game: CardDuelGame, a: Member, b: Member, pa: Phone, pb: Phone, mine: str, theirs: str
) -> Exchange:
    """One round, as the phones play it with no signal: A commits, B picks, A reveals."""
    duel = Exchange(game.state.roster.game_id, pa, pb)
    duel.challenge(game.card(a, mine), revision(game, a), game.now)
    duel.pick(game.card(b, theirs), revision(game, b), game.now + 20_000)
    duel.reveal(game.now + 30_000)
    return duel


def bring(
    game: CardDuelGame, member: Member, texts: list[str], at: int | None = None
) -> list[Event]:
    return game.run(member, OfflineDuel(record=texts), at)


def refused(game: CardDuelGame, code: str, action: Callable[[], object]) -> None:
    before = len(game.log)
    with pytest.raises(RuleError) as info:
        action()
    assert info.value.code == code, info.value.message
    assert len(game.log) == before


def test_a_registered_key_is_in_the_log_and_on_its_owners_phone() -> None:
    game, a, _b, pa, _ = table()
    assert game.view(a)["me"]["key_id"] == key_id(pa.public_key)
    keys = [e for e in game.log if e.type == "key_registered"]
    assert keys[0].data == {
        "player_id": a.player_id,
        "key_id": key_id(pa.public_key),
        "public_key": pa.public_key,
    }
    refused(game, "invalid", lambda: game.run(a, RegisterKey(public_key=b64(b"\x04" + b"1" * 64))))
    refused(
        game, "forbidden", lambda: game.run(game.organizer, RegisterKey(public_key=pa.public_key))
    )


def test_an_offline_duel_is_taken_once_with_the_outcome_an_online_duel_would_have() -> None:
    game, a, b, pa, pb = table()
    duel = settle(game, a, b, pa, pb, CHAIR, DAGGER)  # 3 > 2: Vimes is stunned
    game.now += 600_000  # A's phone finds signal ten minutes later
    events = bring(game, a, duel.texts)
    assert [e.type for e in events] == [
        "offline_duel_recorded",
        "duel_started",
        "round_revealed",
        "player_stunned",
        "duel_ended",
    ]
    assert events[0].data["record"] == duel.texts and events[0].data["forfeit"] is None
    # The stun runs from the reveal on the phones, not from the sync: 5 minutes from T0 + 30 s.
    assert game.fighter(b).stunned_until == T0 + 30_000 + 300_000
    last = game.view(b)["last_duel"]
    assert last["offline"] is True and last["outcomes"][0]["effect"] == "stun"
    row = game.view(game.organizer)["offline"][events[0].data["duel_id"]]
    assert row == {
        "players": [a.player_id, b.player_id],
        "at": events[1].data["at"],
        "void": None,
        "forfeit": None,
        "dispute": None,
    }
    # Vimes's phone brings its copy: it is told the duel is in already.
    refused(game, "already_recorded", lambda: bring(game, b, duel.texts))


def test_a_round_nobody_wins_repeats_the_exchange() -> None:
    game, a, b, pa, pb = table()
    chair = game.card(a, CHAIR)
    duel = Exchange(game.state.roster.game_id, pa, pb)
    duel.challenge(game.card(a, DAGGER), revision(game, a), game.now)  # 2/3 against 2/3
    duel.pick(game.card(b, DAGGER), revision(game, b), game.now + 1_000)
    duel.reveal(game.now + 2_000)
    duel.challenge(chair, 0, game.now + 3_000)
    duel.pick(game.card(b, DAGGER), 0, game.now + 4_000)
    duel.reveal(game.now + 5_000)
    events = bring(game, b, duel.texts, game.now + 10_000)
    revealed = [e.data for e in events if e.type == "round_revealed"]
    assert [r["winners"] for r in revealed] == [[], [a.player_id]]
    assert game.fighter(b).stunned_until == T0 + 5_000 + 300_000


def test_a_changed_text_is_refused() -> None:
    game, a, b, pa, pb = table()
    duel = settle(game, a, b, pa, pb, DAGGER, CHAIR)
    body, _, signature = duel.texts[1].rpartition("~")
    changed = json.loads(body) | {"c": game.card(b, CROWD)}
    texts = [
        duel.texts[0],
        json.dumps(changed, separators=(",", ":")) + "~" + signature,
        duel.texts[2],
    ]
    refused(game, "broken_record", lambda: bring(game, a, texts))  # the reveal names the old one
    late = game.now + REVEAL_MS * 2  # a claim the signatures are checked for, last of all
    refused(game, "bad_signature", lambda: bring(game, a, texts[:2], late))


def test_a_text_signed_by_another_key_is_refused() -> None:
    game, a, b, pa, _pb = table()
    forger = Exchange(game.state.roster.game_id, pa, Phone(b.player_id))  # B's pick, A's forgery
    forger.challenge(game.card(a, CHAIR), revision(game, a), game.now)
    forger.pick(game.card(b, DAGGER), revision(game, b), game.now + 1_000)
    forger.reveal(game.now + 2_000)
    refused(game, "bad_signature", lambda: bring(game, a, forger.texts))


class Impostor(Phone):
    """Shows another phone's public key, signs with its own."""

    shown: str = ""

    @property
    def public_key(self) -> str:
        return self.shown


def test_a_text_signed_by_another_key_than_the_one_it_shows_is_refused() -> None:
    game, a, b, pa, pb = table()
    impostor = Impostor(b.player_id)
    impostor.shown = pb.public_key
    duel = Exchange(game.state.roster.game_id, pa, impostor)
    duel.challenge(game.card(a, CHAIR), revision(game, a), game.now)
    duel.pick(game.card(b, DAGGER), revision(game, b), game.now + 1_000)
    duel.reveal(game.now + 2_000)
    assert '"K":"' + pb.public_key in duel.texts[1]
    refused(game, "bad_signature", lambda: bring(game, a, duel.texts))


def test_a_key_registered_again_never_unsigns_a_record() -> None:
    """The loser's trick: register the phone's key again (a new one, or the same) before the
    winner reaches signal. The record signed before stands either way."""
    for again in ("new", "same"):
        game, a, b, pa, pb = table()
        duel = settle(game, a, b, pa, pb, DAGGER, CHAIR)  # Rincewind loses: stunned
        key = Phone(a.player_id).public_key if again == "new" else pa.public_key
        game.now += 60_000
        game.run(a, RegisterKey(public_key=key))
        events = bring(game, b, duel.texts)
        assert events[0].type == "offline_duel_recorded", again
        assert game.fighter(a).stunned_until == T0 + 30_000 + 300_000
    # A key the player never registered still counts for nothing.
    game, a, b, pa, pb = table()
    stranger = Exchange(game.state.roster.game_id, Phone(a.player_id), pb)
    stranger.challenge(game.card(a, CHAIR), revision(game, a), game.now)
    stranger.pick(game.card(b, DAGGER), revision(game, b), game.now + 1_000)
    stranger.reveal(game.now + 2_000)
    refused(game, "bad_signature", lambda: bring(game, b, stranger.texts))


def test_a_record_of_another_game_is_refused() -> None:
    game, a, b, pa, pb = table()
    duel = settle(game, a, b, pa, pb, CHAIR, DAGGER)
    foreign = Exchange("g2", pa, pb)
    foreign.challenge(game.card(a, CHAIR), revision(game, a), game.now)
    foreign.pick(game.card(b, DAGGER), revision(game, b), game.now)
    foreign.reveal(game.now)
    refused(game, "foreign_record", lambda: bring(game, a, foreign.texts))
    # The same players' ids in another game of the same id (as the drivers make them): their
    # phones there have keys of their own.
    other, oa, _, _, _ = table()
    refused(other, "bad_signature", lambda: bring(other, oa, duel.texts))


def test_a_record_dated_past_the_clock_skew_is_refused() -> None:
    game, a, b, pa, pb = table()
    ahead = Exchange(game.state.roster.game_id, pa, pb)
    ahead.challenge(game.card(a, CHAIR), revision(game, a), game.now + SKEW_MS + 1)
    ahead.pick(game.card(b, DAGGER), revision(game, b), game.now + SKEW_MS + 2)
    ahead.reveal(game.now + SKEW_MS + 3)
    refused(game, "clock_skew", lambda: bring(game, a, ahead.texts))
    back = Exchange(game.state.roster.game_id, pa, pb)
    back.challenge(game.card(a, CHAIR), revision(game, a), game.now)
    back.pick(game.card(b, DAGGER), revision(game, b), game.now - SKEW_MS - 1)
    back.reveal(game.now)
    refused(game, "clock_skew", lambda: bring(game, a, back.texts))


def test_a_reveal_of_another_card_than_committed_is_refused() -> None:
    game, a, b, pa, pb = table()
    duel = Exchange(game.state.roster.game_id, pa, pb)
    duel.challenge(game.card(a, CROWD), revision(game, a), game.now)
    duel.pick(game.card(b, DAGGER), revision(game, b), game.now + 1_000)
    duel.reveal(game.now + 2_000, card=game.card(a, CHAIR))  # sees the dagger, swaps its card
    refused(game, "bad_commitment", lambda: bring(game, a, duel.texts))


def test_the_face_a_phone_shows_must_be_the_card_it_plays() -> None:
    game, a, b, pa, pb = table()
    dagger = game.fighter(b).card(game.card(b, DAGGER))
    assert dagger is not None
    face = {"title": dagger.title, "big": dagger.big, "small": dagger.small, "kind": dagger.kind}
    honest = Exchange(game.state.roster.game_id, pa, pb)
    honest.challenge(game.card(a, CHAIR), revision(game, a), game.now)
    honest.pick(dagger.card_id, revision(game, b), game.now + 1_000, face=face)
    honest.reveal(game.now + 2_000)
    lying = Exchange(game.state.roster.game_id, pa, pb)  # the dagger, shown as a 9/9 death
    lying.challenge(game.card(a, CHAIR), revision(game, a), game.now)
    lying.pick(
        dagger.card_id, revision(game, b), game.now + 1_000, face=face | {"big": 9, "kind": "death"}
    )
    lying.reveal(game.now + 2_000)
    refused(game, "not_your_card", lambda: bring(game, a, lying.texts))
    assert bring(game, a, honest.texts)[0].type == "offline_duel_recorded"


def test_a_card_not_held_is_refused() -> None:
    game, a, b, pa, pb = table()
    duel = Exchange(game.state.roster.game_id, pa, pb)
    duel.challenge(game.card(a, CHAIR), revision(game, a), game.now)
    duel.pick(game.card(a, DAGGER), revision(game, b), game.now + 1_000)  # A's card, not B's
    duel.reveal(game.now + 2_000)
    refused(game, "not_your_card", lambda: bring(game, b, duel.texts))


def test_a_challenger_who_will_not_reveal_forfeits_after_ten_minutes() -> None:
    game, a, b, pa, pb = table()
    duel = Exchange(game.state.roster.game_id, pa, pb)
    duel.challenge(game.card(a, CHAIR), revision(game, a), game.now)
    picked_at = game.now + 10_000
    duel.pick(game.card(b, DAGGER), revision(game, b), picked_at)  # A sees the dagger: keeps quiet
    refused(game, "reveal_pending", lambda: bring(game, b, duel.texts, picked_at + REVEAL_MS - 1))
    events = bring(game, b, duel.texts, picked_at + REVEAL_MS)
    assert events[0].data["forfeit"] == a.player_id
    assert [e.type for e in events][-2:] == ["player_wounded", "duel_ended"]
    assert game.fighter(a).wounded is True and game.fighter(b).wounded is False
    # Had A revealed, its phone's whole record now says the dagger lost to the chair: the
    # organizer is shown both sides and decides; the forfeit stands meanwhile.
    duel.reveal(picked_at + 20_000)
    disputed = bring(game, a, duel.texts)
    assert [e.type for e in disputed] == ["offline_duel_disputed"]
    assert game.fighter(a).wounded is True


def test_the_whole_record_comes_first_and_the_claim_is_then_recorded_already() -> None:
    game, a, b, pa, pb = table()
    duel = settle(game, a, b, pa, pb, DAGGER, CHAIR)  # 2/3 against 3/2: Rincewind is stunned
    bring(game, a, duel.texts)
    refused(game, "already_recorded", lambda: bring(game, b, duel.texts[:2], game.now + REVEAL_MS))


def test_the_log_moved_on_voids_the_duel_for_both() -> None:
    game, a, b, pa, pb = table()
    duel = settle(game, a, b, pa, pb, CHAIR, DAGGER)
    game.crossbow(b)  # the organizer changes Vimes while the phones are offline
    events = bring(game, a, duel.texts)
    assert [e.type for e in events] == ["offline_duel_void"]
    assert events[0].data["reason"] == "conflict"
    assert game.fighter(b).stunned_until is None
    row = game.view(game.organizer)["offline"][events[0].data["duel_id"]]
    assert row["void"] == "conflict"
    refused(game, "already_recorded", lambda: bring(game, b, duel.texts))
    for member in (a, b):  # both phones are told, whichever brought it
        told = game.view(member)["offline"]
        assert told["void"] == "conflict" and told["duel_id"] == events[0].data["duel_id"]


def test_two_overlapping_offline_duels_take_the_first_and_void_the_second() -> None:
    game, a, b, pa, pb = table()
    c = game.add("Nobby")
    pc = Phone(c.player_id)
    game.run(c, RegisterKey(public_key=pc.public_key))
    first = settle(game, a, b, pa, pb, CHAIR, DAGGER)
    second = settle(game, a, c, pa, pc, DAGGER, CROWD)  # the same revision of A: both offline
    bring(game, b, first.texts)
    events = bring(game, c, second.texts)
    assert events[0].type == "offline_duel_void" and events[0].data["reason"] == "conflict"


def test_a_stunned_challenger_could_not_duel_offline_either() -> None:
    game, a, b, pa, pb = table()
    game.duel(b, a, CHAIR, DAGGER)  # online: Rincewind is stunned for 5 minutes
    duel = settle(game, a, b, pa, pb, CHAIR, DAGGER)
    events = bring(game, b, duel.texts)
    assert events[0].data["reason"] == "stunned"


def test_without_a_key_there_is_no_offline_duel() -> None:
    game = CardDuelGame()
    a, b = game.add("Rincewind"), game.add("Vimes")
    game.start()
    pa, pb = Phone(a.player_id), Phone(b.player_id)
    game.run(a, RegisterKey(public_key=pa.public_key))
    duel = settle(game, a, b, pa, pb, CHAIR, DAGGER)
    refused(game, "no_key", lambda: bring(game, a, duel.texts))


# -- a hostile player (docs/rules/card-duel.md, "What an offline duel promises") ----------------


def test_a_player_cannot_duel_itself() -> None:
    """A duel with oneself, every text signed by one's own key, would make the player busy to
    everybody (a shield): refused, nothing written."""
    game, a, _b, pa, _pb = table()
    mirror = Exchange(game.state.roster.game_id, pa, pa)
    mirror.challenge(game.card(a, CHAIR), revision(game, a), game.now)
    mirror.pick(game.card(a, DAGGER), revision(game, a), game.now + 1_000)
    refused(game, "invalid", lambda: bring(game, a, mirror.texts, game.now + REVEAL_MS * 2))
    mirror.reveal(game.now + 2_000)
    refused(game, "invalid", lambda: bring(game, a, mirror.texts))


@pytest.mark.parametrize("name", ["g", "d", "a", "K"])
def test_an_empty_name_in_the_challenge_is_invalid(name: str) -> None:
    game, a, b, pa, pb = table()
    duel = settle(game, a, b, pa, pb, CHAIR, DAGGER)
    body = json.loads(duel.texts[0].rpartition("~")[0]) | {name: ""}
    texts = [pa.sign(body)]
    again = Exchange(game.state.roster.game_id, pa, pb, texts=texts, card=duel.card)
    again.nonce = duel.nonce
    again.pick(game.card(b, DAGGER), revision(game, b), game.now + 1_000)
    again.reveal(game.now + 2_000)
    refused(game, "invalid", lambda: bring(game, a, again.texts))


def test_the_loser_duelling_online_afterwards_does_not_void_the_duel() -> None:
    """Whoever reaches signal first: Rincewind loses offline (stunned 5 minutes), reaches signal
    first and duels Nobby online a minute later. Vimes's record still stands, and the organizer
    is shown that Rincewind duelled while the record says he was stunned."""
    game, a, b, pa, pb = table()
    c = game.add("Nobby")
    duel = settle(game, a, b, pa, pb, DAGGER, CHAIR)  # ends T0 + 30 s
    game.now += 90_000
    online = game.challenge(a, c)
    refused(game, "busy", lambda: bring(game, b, duel.texts))  # again once that duel is over
    game.run(game.organizer, CancelDuel(duel_id=online))
    events = bring(game, b, duel.texts)
    assert events[0].type == "offline_duel_recorded"
    assert events[-1].type == "offline_duel_disputed"
    assert events[-1].data["reason"] == "acted" and events[-1].data["duels"] == [online]
    row = game.view(game.organizer)["offline"][events[0].data["duel_id"]]
    assert row["dispute"] == {
        "reason": "acted",
        "duels": [online],
        "loser": a.player_id,
        "effect": "stun",
        "ruling": None,
        "record": None,
    }
    assert game.view(a)["offline"]["dispute"]["reason"] == "acted"
    # The organizer rules; the ruling is in the log and on the console.
    from server.rules.card_duel.commands import SettleDispute

    ruled = game.run(game.organizer, SettleDispute(duel_id=events[0].data["duel_id"], ruling="log"))
    assert ruled[0].type == "dispute_settled"
    row = game.view(game.organizer)["offline"][events[0].data["duel_id"]]
    assert row["dispute"]["ruling"] == "log"
    refused(
        game,
        "invalid",
        lambda: game.run(
            game.organizer, SettleDispute(duel_id=events[0].data["duel_id"], ruling="record")
        ),
    )


def test_a_challenger_who_saw_a_losing_pick_cannot_dodge_its_forfeit_online() -> None:
    game, a, b, pa, pb = table()
    c = game.add("Nobby")
    duel = Exchange(game.state.roster.game_id, pa, pb)
    duel.challenge(game.card(a, DAGGER), revision(game, a), game.now)
    duel.pick(game.card(b, CHAIR), revision(game, b), game.now + 10_000)  # the chair beats it
    game.now += 60_000
    game.run(a, RegisterKey(public_key=pa.public_key))  # the same key again
    game.duel(a, c, CROWD, DAGGER)  # and an online duel, all before Vimes reaches signal
    events = bring(game, b, duel.texts, T0 + 10_000 + REVEAL_MS)
    assert events[0].type == "offline_duel_recorded" and events[0].data["forfeit"] == a.player_id


def test_a_target_cannot_shorten_the_challengers_ten_minutes_by_dating_its_pick_early() -> None:
    game, a, b, pa, pb = table()
    duel = Exchange(game.state.roster.game_id, pa, pb)
    duel.challenge(game.card(a, CHAIR), revision(game, a), game.now)
    duel.pick(game.card(b, DAGGER), revision(game, b), game.now - 119_000)
    refused(game, "reveal_pending", lambda: bring(game, b, duel.texts, T0 + REVEAL_MS - 1))
    assert bring(game, b, duel.texts, T0 + REVEAL_MS)[0].data["forfeit"] == a.player_id


def test_a_target_hiding_the_reveal_is_shown_to_the_organizer() -> None:
    """Vimes reads Rincewind's reveal (Rincewind won), hides it, and claims a forfeit after ten
    minutes. The forfeit is recorded; Rincewind's whole record, whenever it comes, puts both
    sides before the organizer."""
    game, a, b, pa, pb = table()
    duel = settle(game, a, b, pa, pb, CHAIR, DAGGER)  # the chair wins: Vimes is stunned
    claim = bring(game, b, duel.texts[:2], T0 + 20_000 + REVEAL_MS)
    assert claim[0].data["forfeit"] == a.player_id
    disputed = bring(game, a, duel.texts, game.now + 3_600_000)
    assert disputed[0].type == "offline_duel_disputed"
    row = game.view(game.organizer)["offline"][claim[0].data["duel_id"]]
    assert row["forfeit"] == a.player_id
    assert row["dispute"] == {
        "reason": "revealed",
        "duels": [],
        "loser": None,
        "effect": None,
        "record": duel.texts,
        "ruling": None,
    }
    refused(game, "already_recorded", lambda: bring(game, a, duel.texts))


def test_a_fast_phone_clock_does_not_lengthen_a_stun() -> None:
    game, a, b, pa, pb = table()
    duel = Exchange(game.state.roster.game_id, pa, pb)
    fast = SKEW_MS - 1_000  # the winner's phone runs almost two minutes ahead
    duel.challenge(game.card(a, CHAIR), revision(game, a), game.now + fast)
    duel.pick(game.card(b, DAGGER), revision(game, b), game.now + 10_000)
    duel.reveal(game.now + fast + 20_000)
    game.now += 25_000  # brought at once, at the server's T0 + 25 s
    bring(game, a, duel.texts)
    assert game.fighter(b).stunned_until == game.now + 300_000


def test_void_records_are_bounded_per_player() -> None:
    from server.rules.card_duel.events import VOIDS_KEPT

    game, a, b, pa, pb = table()
    game.crossbow(b)
    for n in range(VOIDS_KEPT + 1):
        duel = Exchange(game.state.roster.game_id, pa, pb)
        duel.challenge(game.card(a, CHAIR), 0, game.now)  # a revision long gone: void
        duel.pick(game.card(b, DAGGER), 0, game.now + 1_000)
        duel.reveal(game.now + 2_000)
        if n < VOIDS_KEPT:
            assert bring(game, a, duel.texts)[0].type == "offline_duel_void"
        else:
            refused(game, "too_many_void", lambda texts=duel.texts: bring(game, a, texts))


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["", "p3", "p4", "g1", "c3.2", "c4.2"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=400, deadline=None)
@given(
    at=st.integers(min_value=0, max_value=2),
    name=st.sampled_from(
        ["t", "g", "d", "a", "b", "v", "r", "K", "n", "at", "h", "p", "c", "k", "f", "x"]
    ),
    value=JSON_VALUES,
    whole=st.booleans(),
)
def test_a_mutated_record_signed_anew_is_taken_or_refused_never_a_crash(
    at: int, name: str, value: Any, whole: bool
) -> None:
    """The hostile phone signs whatever it likes with its own key (and the chain anew after
    it): whatever the record says, the rules answer with a code or take it, never crash."""
    game, a, b, pa, pb = table()
    duel = settle(game, a, b, pa, pb, CHAIR, DAGGER)
    bodies = [json.loads(text.rpartition("~")[0]) for text in duel.texts]
    bodies[at] = bodies[at] | {name: value}
    texts: list[str] = []
    for n, body in enumerate(bodies):
        if n > at or (n == at and name != "p" and n > 0):
            body = body | {"p": digest(texts[-1])}
        texts.append((pb if n % 3 == 1 else pa).sign(body))
    before = len(game.log)
    try:
        events = bring(
            game, a if whole else b, texts if whole else texts[:2], game.now + 2 * REVEAL_MS
        )
    except RuleError as refusal:
        assert refusal.code and len(game.log) == before  # a code, and nothing written
        return
    assert events[0].type in ("offline_duel_recorded", "offline_duel_void"), events
