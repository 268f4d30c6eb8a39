"""rank-bases end to end over WebSockets: a raid with two defenders, a part carried home and
delivered, and the scoreboard moving on every screen."""

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.client import Game, Phone

TEAMS = [{"team_id": "red", "name": "Rudí"}, {"team_id": "blue", "name": "Modří"}]


@pytest.fixture
async def http(live_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server) as client:
        yield client


async def camp(http: httpx.AsyncClient) -> tuple[Game, dict[str, Any]]:
    """Two teams of five with a leader each; every player's rank is their number."""
    game = await Game.create(http, "rank-bases", teams=TEAMS)
    people: dict[str, Any] = {}
    for team in ("red", "blue"):
        people[f"{team}-leader"] = await game.add(f"{team} leader", "leader", team)
        for rank in range(1, 6):
            member = await game.add(f"{team} {rank}", "player", team)
            people[f"{team}{rank}"] = member
            await game.ok(game.organizer, "assign_rank", player_id=member["player_id"], rank=rank)
    await game.ok(game.organizer, "start_game")
    return game, people


async def test_a_raid_with_two_defenders_then_a_delivery(
    live_server: str, http: httpx.AsyncClient
) -> None:
    game, people = await camp(http)
    raider, first, second = people["red4"], people["blue2"], people["blue3"]

    def phone(key: str) -> str:
        return game.ws_url(live_server, people[key]["token"])

    attacker = await Phone.connect(phone("red4"))
    defender = await Phone.connect(phone("blue2"))
    blue_leader = await Phone.connect(phone("blue-leader"))
    red_leader = await Phone.connect(phone("red-leader"))
    board = await Phone.connect(
        game.ws_url(live_server, (await game.add("Board", "spectator"))["token"])
    )
    screens = (attacker, defender, blue_leader, red_leader, board)
    for screen in screens:
        await screen.until("view")
    assert board.view is not None and board.view["scores"] == {"red": 0, "blue": 0}
    assert set(board.view) == {"game", "scores", "trees", "winners"}  # no roster: the directory

    entered = await attacker.send("raid", team_id="blue")
    assert entered["type"] == "ack"
    while not blue_leader.view or not blue_leader.view["incoming_raids"]:
        await blue_leader.receive()
    (raid_id, incoming), *_ = blue_leader.view["incoming_raids"].items()
    assert incoming["attacker"]["player_id"] == raider["player_id"]
    assert incoming["state"] == "awaiting_defenders"

    order = [first["player_id"], second["player_id"]]
    defended = await blue_leader.send("defend", raid_id=raid_id, order=order)
    assert defended["type"] == "ack"
    while attacker.seq < defended["seq"]:
        await attacker.receive()
    assert attacker.view is not None
    assert attacker.view["raid"]["state"] == "won"
    assert attacker.view["me"]["carrying"]["papers"] == 2  # both defenders' papers
    while defender.seq < defended["seq"]:
        await defender.receive()
    assert defender.view is not None and defender.view["me"]["has_paper"] is False
    assert defender.view["last_duel"]["ranks"] == {raider["player_id"]: 4, first["player_id"]: 2}

    refused = await attacker.send("take_part", raid_id=raid_id, part_id="red-1")
    assert refused["code"] in ("not_on_tree", "not_found")
    taken = await attacker.send("take_part", raid_id=raid_id, part_id="blue-4")
    assert taken["type"] == "ack"

    delivered = await red_leader.send("deliver", player_id=raider["player_id"])
    assert delivered["type"] == "ack"
    for screen in screens:
        while screen.seq < delivered["seq"]:
            await screen.receive()
        assert screen.view is not None
        assert screen.view["scores"] == {"red": 2 * 1 + 2 * 4, "blue": 0}
        assert list(screen.view["trees"]["blue"]) == ["blue-1", "blue-2", "blue-3"]
    assert red_leader.view is not None and list(red_leader.view["stash"]) == ["blue-4"]
    assert attacker.view is not None and attacker.view["me"]["carrying"] == {
        "papers": 0,
        "parts": [],
    }
    for screen in screens:
        await screen.close()
