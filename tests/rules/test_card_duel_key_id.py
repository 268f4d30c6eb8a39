"""A round 1 text may name its key by id (`i`) instead of showing it whole (`K`): a smaller QR
when the reading phone holds the key already (docs/rules/card-duel.md, "Offline duels")."""

import json

import pytest

from server.rules.card_duel.commands import RegisterKey
from server.rules.card_duel.offline import digest, key_id
from server.rules.core import Member
from tests.rules.drivers.card_duel import CardDuelGame
from tests.rules.phones import Exchange, Phone
from tests.rules.test_card_duel_offline import (
    CHAIR,
    DAGGER,
    bring,
    refused,
    revision,
    table,
)


def by_id(
    game: CardDuelGame,
    a: Member,
    b: Member,
    pa: Phone,
    pb: Phone,
    *,
    impostor: Phone | None = None,
) -> Exchange:
    """One round won by A, both round 1 texts naming their keys by id; `impostor` signs B's."""
    duel = Exchange(game.state.roster.game_id, pa, impostor or pb, by_id=True)
    duel.challenge(game.card(a, CHAIR), revision(game, a), game.now)
    if impostor is not None:  # the impostor names B's registered key, and signs with its own
        duel.b = pb
        body: dict[str, object] = {"t": "p", "p": digest(duel.texts[-1]), "b": pb.player_id}
        body |= {"v": revision(game, b), "i": key_id(pb.public_key)}
        duel.add(impostor.sign(body | {"c": game.card(b, DAGGER), "at": game.now + 20_000}))
    else:
        duel.pick(game.card(b, DAGGER), revision(game, b), game.now + 20_000)
    duel.reveal(game.now + 30_000)
    return duel


def bodies(texts: list[str]) -> list[dict[str, object]]:
    return [json.loads(text.rpartition("~")[0]) for text in texts]


def test_a_duel_whose_keys_are_named_by_id_is_recorded() -> None:
    game, a, b, pa, pb = table()
    duel = by_id(game, a, b, pa, pb)
    first, pick = bodies(duel.texts)[:2]
    assert "K" not in first and first["i"] == key_id(pa.public_key)
    assert "K" not in pick and pick["i"] == key_id(pb.public_key)
    events = bring(game, b, duel.texts)
    assert events[0].type == "offline_duel_recorded"
    assert any(e.type == "player_stunned" for e in events)
    # The record is kept as the phones signed it: without K.
    assert events[0].data["record"] == duel.texts


def test_a_key_replaced_since_still_counts_by_its_id() -> None:
    game, a, b, pa, pb = table()
    duel = by_id(game, a, b, pa, pb)
    game.run(a, RegisterKey(public_key=Phone(a.player_id).public_key))  # a new phone's key
    assert bring(game, a, duel.texts)[0].type == "offline_duel_recorded"


def test_a_pick_signed_by_an_impostor_naming_the_targets_key_is_refused() -> None:
    game, a, b, pa, pb = table()
    duel = by_id(game, a, b, pa, pb, impostor=Phone(b.player_id))
    refused(game, "bad_signature", lambda: bring(game, a, duel.texts))


def test_a_key_id_its_player_never_registered_is_refused() -> None:
    game, a, b, _, pb = table()
    stranger = Phone(a.player_id)  # a key nobody registered, named by its id
    duel = by_id(game, a, b, stranger, pb)
    refused(game, "bad_signature", lambda: bring(game, b, duel.texts))
    # Nor does the other player's registered key count for A.
    duel = by_id(game, a, b, Phone(a.player_id, key=pb.key), pb)
    refused(game, "bad_signature", lambda: bring(game, b, duel.texts))


@pytest.mark.parametrize("shown", [{}, {"i": ""}, {"K": "", "i": "x"}, None])
def test_a_challenge_shows_exactly_one_key_or_is_invalid(shown: dict[str, str] | None) -> None:
    game, a, b, pa, pb = table()
    duel = by_id(game, a, b, pa, pb)
    both = {"K": pa.public_key, "i": key_id(pa.public_key)}
    body = {k: v for k, v in bodies(duel.texts)[0].items() if k != "i"} | (shown or both)
    again = Exchange(game.state.roster.game_id, pa, pb, texts=[pa.sign(body)], card=duel.card)
    again.nonce = duel.nonce
    again.pick(game.card(b, DAGGER), revision(game, b), game.now + 1_000)
    again.reveal(game.now + 2_000)
    refused(game, "invalid", lambda: bring(game, a, again.texts))
