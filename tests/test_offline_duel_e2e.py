"""An offline duel end to end, on a real server over HTTP: two phones register their keys,
settle a duel by signed texts with no network (tests/rules/phones.py does what a phone does),
and bring it in one after the other. The log holds it once, with both signatures, and verifies;
the second phone is told it was recorded already; a forged copy is refused and changes
nothing."""

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from server.clock import parse_iso
from server.log.verify import verify
from tests.client import Game
from tests.rules.phones import Exchange, Phone


@pytest.fixture
async def http(live_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server) as client:
        yield client


async def keyed_pair(
    http: httpx.AsyncClient,
) -> tuple[Game, dict[str, Any], dict[str, Any], Phone, Phone]:
    """A started card duel of Anna and Bob, each phone's key registered."""
    game = await Game.create(http, "card-duel")
    anna, bob = await game.add("Anna"), await game.add("Bob")
    await game.ok(game.organizer, "start_game")
    pa, pb = Phone(anna["player_id"]), Phone(bob["player_id"])
    for member, phone in ((anna, pa), (bob, pb)):
        await game.ok(member["token"], "register_key", public_key=phone.public_key)
    return game, anna, bob, pa, pb


def card(view: dict[str, Any], title: str) -> str:
    (found,) = [c["card_id"] for c in view["view"]["me"]["cards"] if c["title"] == title]
    return str(found)


async def test_two_phones_settle_a_duel_offline_and_the_server_takes_it_once(
    http: httpx.AsyncClient,
) -> None:
    game, anna, bob, pa, pb = await keyed_pair(http)
    # Online, each phone keeps its view: its revision and the server's time; then the signal goes.
    va, vb = await game.view(anna["token"]), await game.view(bob["token"])
    now = parse_iso(va["server_time"])
    duel = Exchange(game.game_id, pa, pb)
    # Played just before the record reaches the server (a phone's time ahead of the server's
    # would be cut to the server's: see test_card_duel_offline's fast clock).
    duel.challenge(card(va, "Rána židlí"), va["view"]["me"]["revision"], now - 3_000)
    duel.pick(card(vb, "Rána Ankh-Morporskou dýkou"), vb["view"]["me"]["revision"], now - 2_000)
    duel.reveal(now - 1_000)  # a chair (3/2) beats a dagger (2/3): Bob is stunned

    forged = [*duel.texts]
    forged[2] = forged[2].replace('"t":"r"', '"t":"r" ')  # one byte more: the signature fails
    refused = await game.command(anna["token"], "offline_duel", record=forged)
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "bad_signature"

    seq = await game.ok(anna["token"], "offline_duel", record=duel.texts)
    again = await game.command(bob["token"], "offline_duel", record=duel.texts)
    assert again.status_code == 409, again.text
    assert again.json()["error"]["code"] == "already_recorded"

    bob_view = (await game.view(bob["token"]))["view"]
    assert bob_view["me"]["stunned_until"] is not None
    assert parse_iso(bob_view["me"]["stunned_until"]) == now - 1_000 + 300_000
    assert bob_view["last_duel"]["offline"] is True
    console = (await game.view(game.organizer))["view"]
    (row,) = console["offline"].values()
    assert row["players"] == [anna["player_id"], bob["player_id"]] and row["void"] is None

    await game.ok(game.organizer, "end_game")
    log = await game.events()
    recorded = [e for e in log if e["type"] == "offline_duel_recorded"]
    assert len(recorded) == 1 and recorded[0]["data"]["record"] == duel.texts
    assert seq == max(
        e["seq"] for e in log if e["data"].get("duel_id") == recorded[0]["data"]["duel_id"]
    )
    assert not verify(log), verify(log)


async def test_a_void_record_is_answered_200_and_changes_no_revision(
    http: httpx.AsyncClient,
) -> None:
    """docs/protocol.md: a void is no refusal (200 with the void's seq); it changes no
    revision; both players' `offline` is the void duel, `d<seq>` of that very event."""
    game, anna, bob, pa, pb = await keyed_pair(http)
    va, vb = await game.view(anna["token"]), await game.view(bob["token"])
    now = parse_iso(va["server_time"])
    duel = Exchange(game.game_id, pa, pb, by_id=True)
    duel.challenge(card(va, "Rána židlí"), va["view"]["me"]["revision"], now - 3_000)
    duel.pick(card(vb, "Rána Ankh-Morporskou dýkou"), vb["view"]["me"]["revision"], now - 2_000)
    duel.reveal(now - 1_000)
    # Meanwhile the organizer changed Bob: the log moved on before the duel ended.
    await game.ok(game.organizer, "grant_item", player_id=bob["player_id"], item="crossbow")
    revisions = [(await game.view(m["token"]))["view"]["me"]["revision"] for m in (anna, bob)]

    answer = await game.command(bob["token"], "offline_duel", record=duel.texts)
    assert answer.status_code == 200, answer.text
    assert answer.json()["duplicate"] is False
    seq = answer.json()["seq"]
    for member, revision in zip((anna, bob), revisions, strict=True):
        view = (await game.view(member["token"]))["view"]
        assert view["me"]["revision"] == revision
        assert view["offline"]["duel_id"] == f"d{seq}" and view["offline"]["void"] == "conflict"
        assert view["last_duel"] is None
    log = await game.events()
    assert [e["type"] for e in log if e["seq"] == seq] == ["offline_duel_void"]
