"""stamina-deck end to end: two phones fight a melee round of three exchanges, each card sealed
face down until both are down, every draw and shuffle verifiable from the log."""

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from server.log.verify import verify
from tests.client import Game, Phone


@pytest.fixture
async def http(live_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server) as client:
        yield client


def character(view: dict[str, Any], character_id: str) -> dict[str, Any]:
    found: dict[str, Any] = view["characters"][character_id]
    return found


async def settle(phone: Phone, seq: int) -> dict[str, Any]:
    while phone.seq < seq:
        await phone.receive()
    assert phone.view is not None
    return phone.view


async def test_a_melee_round_of_three_exchanges(live_server: str, http: httpx.AsyncClient) -> None:
    game = await Game.create(http, "stamina-deck")
    anna, bob = await game.add("Anna"), await game.add("Bob")
    gm = await Phone.connect(game.ws_url(live_server, game.organizer))
    a = await Phone.connect(game.ws_url(live_server, anna["token"]))
    b = await Phone.connect(game.ws_url(live_server, bob["token"]))
    for phone in (gm, a, b):
        await phone.until("view")
    sword = {"name": "šavle", "melee": True, "ranged": False}
    added = []
    for name, member, x in (("Rytíř", anna, 3), ("Lapka", bob, 4)):
        answer = await gm.send(
            "add_character",
            name=name,
            side=name,
            player_id=member["player_id"],
            lives=5,
            melee=3,
            weapon=sword,
            x=x,
            y=3,
        )
        assert answer["type"] == "ack", answer
        added.append(answer)
    view = await settle(gm, added[-1]["seq"])
    knight, robber = view["characters"]  # keyed by id, in the order they were added
    assert character(view, knight)["name"] == "Rytíř"
    assert len(character(view, knight)["deck"]) == 20  # the GM sees the deck order
    assert "deck" not in character(await settle(a, added[-1]["seq"]), knight)  # face down to all
    assert "members" not in a.view and set(gm.view["members"]) >= {
        anna["player_id"],
        bob["player_id"],
    }

    for command, fields in (
        ("start_game", {}),
        ("engage", {"fighters": [robber, knight]}),  # the rules pick who attacks
        ("start_round", {}),
    ):
        answer = await gm.send(command, **fields)
        assert answer["type"] == "ack", (command, answer)
    view = await settle(gm, answer["seq"])
    assert view["phase"] == "actions", view["phase"]
    (bout_id,) = view["bouts"]
    # Engaged before any round, both of agi 0: the first added attacks, however named.
    assert view["bouts"][bout_id]["attacker"] == knight

    for exchange in (1, 2, 3):
        mine = character(await settle(a, gm.seq), knight)
        card = mine["hand"][0] if mine["hand"] else None
        # A card shown earlier (paid to a threat pile, then shuffled back) stays in the feed.
        before = json.dumps(await settle(b, gm.seq))
        played = await a.send(
            "play",
            character_id=knight,
            bout_id=bout_id,
            card_id=card["card_id"] if card else None,
        )
        assert played["type"] == "ack", played
        theirs = await settle(b, played["seq"])
        shown = theirs["bouts"][bout_id]
        assert shown["down"][knight] is True
        if card is not None:
            seen = json.dumps(theirs).count(card["card_id"])
            assert seen == before.count(card["card_id"]), "sealed until both are down"
        defence = character(theirs, robber)["hand"]
        answer = await b.send(
            "play",
            character_id=robber,
            bout_id=bout_id,
            card_id=defence[0]["card_id"] if defence else None,
        )
        assert answer["type"] == "ack", answer
        view = await settle(gm, answer["seq"])
        revealed = [f for f in view["feed"] if f["kind"] == "exchange"]
        assert revealed[-1]["exchange"] == exchange
        assert set(revealed[-1]["cards"]) == {knight, robber}
        # Whoever lost the exchange owes cards to the threat pile; they give them from the deck.
        for debt in view["waiting"]["debts"]:
            phone = a if debt["character_id"] == knight else b
            given = await phone.send("give_cards", character_id=debt["character_id"], card_ids=[])
            assert given["type"] == "ack", given
            view = await settle(gm, given["seq"])
        if bout_id not in view["bouts"]:
            break  # owed cards the deck did not hold cost lives: a wound took one out of the fight
    shown = view["bouts"].get(bout_id)
    if shown is None:
        log = await game.events()
        ended = [e["data"] for e in log if e["type"] == "bout_ended"]
        assert [(d["bout_id"], d["reason"]) for d in ended] == [(bout_id, "out")]
        assert any(e["type"] == "character_wounded" for e in log)
    else:
        assert shown["exchanges"] == 3
        fourth = await a.send("play", character_id=knight, bout_id=bout_id, card_id=None)
        assert fourth["type"] == "error" and fourth["code"] in ("exchanges_done", "no_actions_left")

    ended = await gm.send("end_game")
    assert ended["type"] == "ack"
    log = await game.events()
    assert any("chance" in e["data"] for e in log)
    assert verify(log) == []
    for phone in (gm, a, b):
        await phone.close()
