"""dice-combat end to end: the GM runs a fight over WebSockets, a player rolls on their phone,
until one side is knocked out; the log then verifies against the revealed seed."""

from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

from server.log.verify import verify
from tests.client import Game, Phone


@pytest.fixture
async def http(live_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server) as client:
        yield client


def combatant(view: dict[str, Any], name: str) -> dict[str, Any]:
    entry: dict[str, Any] = next(c for c in view["combatants"].values() if c["name"] == name)
    return entry


async def test_a_fight_to_a_knock_out(live_server: str, http: httpx.AsyncClient) -> None:
    game = await Game.create(http, "dice-combat")
    player = await game.add("Meredil")
    gm = await Phone.connect(game.ws_url(live_server, game.organizer))
    phone = await Phone.connect(game.ws_url(live_server, player["token"]))
    await gm.until("view")
    await phone.until("view")
    sword = {"name": "meč", "attack": 3, "damage": 2, "defence": 1}
    troll = await gm.send(
        "add_combatant",
        name="Troll",
        side="monsters",
        str=4,
        agi=0,
        lives=30,
        armour=2,
        weapon=sword,
    )
    hero = await gm.send(
        "add_combatant",
        name="Meredil",
        side="heroes",
        str=1,
        agi=1,
        lives=8,
        armour=1,
        weapon={"name": "dýka", "attack": 1, "damage": 1, "defence": 0},
        player_id=player["player_id"],
    )
    assert troll["type"] == hero["type"] == "ack"
    assert (await gm.send("start_game"))["type"] == "ack"
    while gm.seq < hero["seq"] or phone.seq < hero["seq"]:
        await (gm if gm.seq < hero["seq"] else phone).receive()
    assert gm.view is not None and phone.view is not None
    ids = {c["name"]: combatant_id for combatant_id, c in gm.view["combatants"].items()}
    assert set(phone.view["combatants"]) == set(ids.values())  # keyed by id
    assert "members" not in phone.view and "members" in gm.view  # no roster on the phone
    mine = combatant(phone.view, "Meredil")
    assert mine["mine"] is True and mine["lives"] == 8
    assert "lives" not in combatant(phone.view, "Troll")  # another's lives stay the GM's

    begun = await gm.send("begin_fight", combatants=[ids["Troll"], ids["Meredil"]])
    assert begun["type"] == "ack", begun
    rolled_on_phone = 0
    for _ in range(60):  # turns; the troll hits hard, so this ends long before
        while gm.seq < phone.seq or gm.view is None or gm.view["fight"] is None:
            await gm.receive()
        fight = gm.view["fight"]
        # The dice decide who falls: usually the hero, now and then the troll.
        if any(combatant(gm.view, name)["condition"] != "up" for name in ("Meredil", "Troll")):
            break
        turn = fight["turn"]
        target = ids["Meredil"] if turn == ids["Troll"] else ids["Troll"]
        declared = await gm.send("attack", attacker_id=turn, target_id=target)
        assert declared["type"] == "ack", declared
        # The hero's own dice are rolled on the phone: the attack as attacker, the active
        # defence as defender. The troll's dice were rolled with the declaration.
        while phone.seq < declared["seq"]:
            await phone.receive()
        assert phone.view is not None
        for attack_id, attack in phone.view["attacks"].items():
            for part in attack["awaiting"]:
                roll = await phone.send("roll", attack_id=attack_id, part=part)
                assert roll["type"] == "ack", roll
                rolled_on_phone += 1
        turned = await gm.send("next_turn")
        assert turned["type"] == "ack", turned
        while gm.seq < turned["seq"]:
            await gm.receive()
    assert gm.view is not None
    fallen = [c for c in gm.view["combatants"].values() if c["condition"] != "up"]
    assert len(fallen) == 1, gm.view["combatants"]
    assert fallen[0]["condition"] == "dead" and fallen[0]["lives"] <= 0
    assert rolled_on_phone > 0

    ended = await gm.send("end_game")
    assert ended["type"] == "ack"
    log = await game.events()
    assert not verify(log), verify(log)
    forged = orjson.loads(orjson.dumps(log))
    rolled = next(e for e in forged if e["type"] == "attack_rolled")
    draw = rolled["data"]["chance"]["draws"][0]
    draw["value"] = draw["value"] % 6 + 1
    assert verify(forged)  # one changed die is caught
    for screen in (gm, phone):
        await screen.close()
