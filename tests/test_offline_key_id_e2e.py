"""An offline duel whose round 1 texts name their keys by id (`i`, no `K`), on a real server: the
directory gives every phone each player's key (its ETag changes when one is registered), the
record is taken, and a copy whose pick an impostor signed naming the target's key is refused."""

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from server.clock import parse_iso
from server.rules.card_duel.offline import digest, key_id
from tests.client import Game
from tests.rules.phones import Exchange, Phone
from tests.test_offline_duel_e2e import card


@pytest.fixture
async def http(live_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server) as client:
        yield client


async def directory(game: Game, token: str, etag: str | None = None) -> httpx.Response:
    headers = game.auth(token) | ({"If-None-Match": etag} if etag else {})
    return await game.http.get(f"/api/games/{game.game_id}/players", headers=headers)


async def test_keys_named_by_id_are_taken_and_a_forged_pick_refused(
    http: httpx.AsyncClient,
) -> None:
    game = await Game.create(http, "card-duel")
    anna, bob = await game.add("Anna"), await game.add("Bob")
    await game.ok(game.organizer, "start_game")
    pa, pb = Phone(anna["player_id"]), Phone(bob["player_id"])
    await game.ok(anna["token"], "register_key", public_key=pa.public_key)
    before = await directory(game, anna["token"])
    assert before.json()["players"][anna["player_id"]]["key"] == pa.public_key
    assert "key" not in before.json()["players"][bob["player_id"]]
    await game.ok(bob["token"], "register_key", public_key=pb.public_key)
    # Anna's phone revalidates: a key registered since is news, not a 304.
    after = await directory(game, anna["token"], before.headers["etag"])
    assert after.status_code == 200
    assert after.json()["players"][bob["player_id"]]["key"] == pb.public_key
    assert (await directory(game, anna["token"], after.headers["etag"])).status_code == 304

    va, vb = await game.view(anna["token"]), await game.view(bob["token"])
    now = parse_iso(va["server_time"])
    revisions = va["view"]["me"]["revision"], vb["view"]["me"]["revision"]
    cards = card(va, "Rána židlí"), card(vb, "Rána Ankh-Morporskou dýkou")

    def played(impostor: Phone | None = None) -> Exchange:
        duel = Exchange(game.game_id, pa, pb, by_id=True)
        duel.challenge(cards[0], revisions[0], now - 3_000)
        if impostor is None:
            duel.pick(cards[1], revisions[1], now - 2_000)
        else:
            body: dict[str, Any] = {"t": "p", "p": digest(duel.texts[-1]), "b": bob["player_id"]}
            body |= {
                "v": revisions[1],
                "i": key_id(pb.public_key),
                "c": cards[1],
                "at": now - 2_000,
            }
            duel.add(impostor.sign(body))
        duel.reveal(now - 1_000)
        return duel

    forged = played(Phone(bob["player_id"]))
    refused = await game.command(anna["token"], "offline_duel", record=forged.texts)
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "bad_signature"
    duel = played()
    assert all('"K"' not in text for text in duel.texts)
    await game.ok(anna["token"], "offline_duel", record=duel.texts)
    recorded = [e for e in await game.events() if e["type"] == "offline_duel_recorded"]
    assert len(recorded) == 1 and recorded[0]["data"]["record"] == duel.texts
    assert (await game.view(bob["token"]))["view"]["me"]["stunned_until"] is not None
