"""What docs/rules/card-duel.md ("Offline duels") says of the texts' wire form, each checked against
the server: base64url padding, the body's JSON, the last `~`, which time is each `at`, the new
duel's id, a forfeit's time, a void (no revision, the view's `offline`), and `i` or `K` in round
1."""

import json
from collections.abc import Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from server.clock import iso
from server.rules.card_duel.offline import REVEAL_MS, b64, digest, key_id
from server.rules.core import Member
from tests.rules.drivers.card_duel import CardDuelGame
from tests.rules.phones import Exchange, Phone
from tests.rules.test_card_duel_offline import (
    CHAIR,
    DAGGER,
    bring,
    refused,
    revision,
    settle,
    table,
)

Body = dict[str, Any]
COMPACT: Callable[[Body], str] = lambda body: json.dumps(  # noqa: E731
    body, separators=(",", ":"), ensure_ascii=False
)


def sealed(phone: Phone, body: Body, dumps: Callable[[Body], str] = COMPACT) -> str:
    """`<body>~<signature>` with the body written by `dumps`, signed over those very bytes."""
    text = dumps(body)
    r, s = decode_dss_signature(phone.key.sign(text.encode(), ec.ECDSA(hashes.SHA256())))
    return f"{text}~{b64(r.to_bytes(32) + s.to_bytes(32))}"


def one_round(
    game: CardDuelGame,
    a: Member,
    b: Member,
    pa: Phone,
    pb: Phone,
    change: Callable[[Body], Body] = lambda body: body,
    dumps: Callable[[Body], str] = COMPACT,
) -> list[str]:
    """A's chair against B's dagger (A wins), keys named by id, each body passed through
    `change` and written by `dumps` before it is signed."""
    card, nonce = game.card(a, CHAIR), b64(bytes(range(16)))
    texts: list[str] = []
    challenge: Body = {
        "t": "c",
        "g": game.state.roster.game_id,
        "d": b64(bytes(8)),
        "a": a.player_id,
    }
    challenge |= {"v": revision(game, a), "r": 0, "i": key_id(pa.public_key), "n": 1}
    challenge |= {"at": game.now, "h": digest(f"{card}.{nonce}")}
    texts.append(sealed(pa, change(challenge), dumps))
    pick: Body = {"t": "p", "p": digest(texts[-1]), "b": b.player_id, "v": revision(game, b)}
    pick |= {"i": key_id(pb.public_key), "c": game.card(b, DAGGER), "at": game.now + 1_000}
    texts.append(sealed(pb, change(pick), dumps))
    reveal: Body = {"t": "r", "p": digest(texts[-1]), "c": card, "k": nonce, "at": game.now + 2_000}
    texts.append(sealed(pa, change(reveal), dumps))
    return texts


def recorded(game: CardDuelGame, member: Member, texts: list[str]) -> None:
    assert bring(game, member, texts)[0].type == "offline_duel_recorded"


# -- base64url padding --------------------------------------------------------------------------


def test_a_padded_signature_is_taken() -> None:
    game, a, b, pa, pb = table()
    texts = settle(game, a, b, pa, pb, CHAIR, DAGGER).texts
    recorded(game, a, [*texts[:-1], texts[-1] + "=="])  # 86 characters + "==" = 88


@pytest.mark.parametrize(
    ("key", "code"), [("p", "broken_record"), ("h", "bad_commitment"), ("i", "bad_signature")]
)
def test_a_padded_prev_commitment_or_key_id_is_refused(key: str, code: str) -> None:
    game, a, b, pa, pb = table()

    def padded(body: Body) -> Body:
        return {k: v + "=" if k == key else v for k, v in body.items()}

    texts = one_round(game, a, b, pa, pb, padded)
    refused(game, code, lambda: bring(game, a, texts))


def test_a_padded_public_key_is_refused() -> None:
    game, a, b, pa, pb = table()

    def padded(body: Body) -> Body:
        if body.get("i") == key_id(pa.public_key):
            return {
                k if k != "i" else "K": v if k != "i" else pa.public_key + "="
                for k, v in body.items()
            }
        return body

    texts = one_round(game, a, b, pa, pb, padded)
    assert '"K":"' + pa.public_key + '="' in texts[0]
    refused(game, "bad_signature", lambda: bring(game, a, texts))


def test_a_padded_d_or_nonce_is_just_more_characters() -> None:
    game, a, b, pa, pb = table()

    def padded(body: Body) -> Body:
        return {k: v + "=" if k in ("d",) else v for k, v in body.items()}

    recorded(game, a, one_round(game, a, b, pa, pb, padded))


# -- the body's JSON ----------------------------------------------------------------------------


def test_a_body_in_another_form_is_taken_as_signed() -> None:
    game, a, b, pa, pb = table()

    def loose(body: Body) -> str:
        return json.dumps(body, indent=2, sort_keys=True, ensure_ascii=True)  # spaces, \u escapes

    texts = one_round(game, a, b, pa, pb, dumps=loose)
    assert "\n" in texts[0]
    recorded(game, a, texts)


@pytest.mark.parametrize("number", ["1.0", "1e0", "1E0"])
def test_an_integer_with_a_fraction_or_an_exponent_is_invalid(number: str) -> None:
    game, a, b, pa, pb = table()

    def as_float(body: Body) -> str:
        return COMPACT(body).replace('"n":1,', f'"n":{number},')

    texts = one_round(game, a, b, pa, pb, dumps=as_float)
    assert f'"n":{number}' in texts[0]
    refused(game, "invalid", lambda: bring(game, a, texts))


def test_an_unknown_key_is_invalid_and_a_null_one_is_absent() -> None:
    game, a, b, pa, pb = table()
    texts = one_round(game, a, b, pa, pb, lambda body: body | {"x": 1})
    refused(game, "invalid", lambda: bring(game, a, texts))
    with_null = one_round(
        game, a, b, pa, pb, lambda body: body | ({"K": None} if "i" in body else {})
    )
    assert '"K":null' in with_null[0]
    recorded(game, a, with_null)


def test_a_text_splits_at_its_last_tilde() -> None:
    game, a, b, pa, pb = table()
    tilde = game.grant(b, "Dýka ~ Ankh-Morpork", 2, 3, "wound")
    duel = Exchange(game.state.roster.game_id, pa, pb, by_id=True)
    duel.challenge(game.card(a, CHAIR), revision(game, a), game.now)
    face = {"title": "Dýka ~ Ankh-Morpork", "big": 2, "small": 3, "kind": "wound"}
    duel.pick(tilde, revision(game, b), game.now + 1_000, face)
    duel.reveal(game.now + 2_000)
    assert duel.texts[1].count("~") == 2
    recorded(game, a, duel.texts)


# -- times, ids, forfeits, voids ----------------------------------------------------------------


def test_every_at_of_the_duel_is_the_challenges_and_the_id_is_the_first_events_seq() -> None:
    game, a, b, pa, pb = table()
    challenged_at = game.now - 60_000  # A's phone, a minute before the server sees the record
    duel = Exchange(game.state.roster.game_id, pa, pb, by_id=True)
    duel.challenge(game.card(a, CHAIR), revision(game, a), challenged_at)
    duel.pick(game.card(b, DAGGER), revision(game, b), challenged_at + 20_000)
    duel.reveal(challenged_at + 30_000)
    seq = len(game.log) + 1
    events = bring(game, a, duel.texts)
    assert events[0].data["duel_id"] == f"d{seq}"
    at = iso(challenged_at)
    assert events[0].data["at"] == at
    started = events[1].data
    assert (started["duel_id"], started["at"], started["leave_from"]) == (f"d{seq}", at, at)
    for member in (a, b):
        assert game.view(member)["offline"]["at"] == at
    assert game.view(game.organizer)["offline"][f"d{seq}"]["at"] == at


def test_a_forfeit_is_timed_from_ten_minutes_after_the_later_of_challenge_and_pick() -> None:
    game, a, b, pa, pb = table()
    game.grant(b, "Palice", 9, 0, "stun")
    duel = Exchange(game.state.roster.game_id, pa, pb, by_id=True)
    duel.challenge(game.card(a, CHAIR), revision(game, a), game.now + 5_000)  # later than the pick
    duel.pick(game.card(b, "Palice"), revision(game, b), game.now)
    events = bring(game, b, duel.texts, game.now + 5_000 + REVEAL_MS + 3_600_000)  # an hour late
    stunned = [e for e in events if e.type == "player_stunned"]
    assert stunned[0].data["until"] == iso(game.now + 5_000 + REVEAL_MS + 300_000)


def test_a_void_changes_no_revision_and_is_both_players_offline() -> None:
    game, a, b, pa, pb = table()
    game.duel(b, a, CHAIR, DAGGER)  # online: Rincewind is stunned, last_duel is that duel
    last = game.view(a)["last_duel"]
    before = revision(game, a), revision(game, b)
    texts = one_round(game, a, b, pa, pb)
    seq = len(game.log) + 1
    events = bring(game, b, texts)  # answered with its events: no refusal
    assert [e.type for e in events] == ["offline_duel_void"]
    assert (revision(game, a), revision(game, b)) == before
    for member in (a, b):
        told = game.view(member)["offline"]
        assert told["duel_id"] == f"d{seq}" and told["void"] == "stunned"
    assert game.view(a)["last_duel"] == last


# -- i or K in round 1 --------------------------------------------------------------------------


def keyed(pa: Phone, pb: Phone, form: str, which: str) -> Callable[[Body], Body]:
    """Round 1's `which` text ("c" or "p") with its key as `form`: neither, both, "" or K."""
    phone = pa if which == "c" else pb

    def change(body: Body) -> Body:
        if body["t"] != which or "i" not in body:
            return body
        rest = {k: v for k, v in body.items() if k != "i"}
        return {
            "neither": rest,
            "both": rest | {"i": key_id(phone.public_key), "K": phone.public_key},
            "empty": rest | {"i": ""},
            "K": rest | {"K": phone.public_key},
        }[form]

    return change


@pytest.mark.parametrize("which", ["c", "p"])
@pytest.mark.parametrize("form", ["neither", "both", "empty"])
def test_round_1_carries_exactly_one_non_empty_key(which: str, form: str) -> None:
    game, a, b, pa, pb = table()
    texts = one_round(game, a, b, pa, pb, keyed(pa, pb, form, which))
    refused(game, "invalid", lambda: bring(game, a, texts))


@pytest.mark.parametrize("which", ["c", "p"])
def test_round_1_with_k_alone_is_taken(which: str) -> None:
    game, a, b, pa, pb = table()
    recorded(game, a, one_round(game, a, b, pa, pb, keyed(pa, pb, "K", which)))


def test_a_later_round_naming_a_key_is_invalid() -> None:
    game, a, b, pa, pb = table()
    duel = Exchange(game.state.roster.game_id, pa, pb, by_id=True)
    duel.challenge(game.card(a, DAGGER), revision(game, a), game.now)  # 2/3 against 2/3: a draw
    duel.pick(game.card(b, DAGGER), revision(game, b), game.now + 1_000)
    duel.reveal(game.now + 2_000)
    body = {"t": "c", "p": digest(duel.texts[-1]), "n": 2, "i": key_id(pa.public_key)}
    duel.add(sealed(pa, body | {"at": game.now + 3_000, "h": digest("x.y")}))
    duel.pick(game.card(b, CHAIR), 0, game.now + 4_000)
    refused(game, "invalid", lambda: bring(game, a, duel.texts))
