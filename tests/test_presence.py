"""The organizer's console shows who has joined, who is connected now, and who is ready for an
offline duel: over a real uvicorn, with real WebSocket clients."""

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.client import Game, Phone
from tests.conftest import serve
from tests.rules.phones import Phone as Keys

serving = contextlib.asynccontextmanager(serve)


@pytest.fixture
async def http(live_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server) as client:
        yield client


def presence(phone: Phone, player_id: str) -> Any:
    assert phone.view is not None
    return phone.view.get("presence", {}).get(player_id)


async def until(phone: Phone, player_id: str, entry: Any) -> dict[str, Any]:
    """Read the organizer's socket until the member's presence is `entry`; the patch that did it."""
    message: dict[str, Any] = {}
    while presence(phone, player_id) != entry:
        message = await phone.until("view", timeout=5)
    return message


async def test_joined_connected_and_ready_reach_the_organizer_as_patches(
    live_server: str, http: httpx.AsyncClient
) -> None:
    game = await Game.create(http)
    anna, bob = await game.add("Anna"), await game.add("Bob")
    await game.ok(game.organizer, "start_game")
    console = await Phone.connect(game.ws_url(live_server, game.organizer))
    await console.until("view")
    assert console.view is not None
    # Nobody opened an invite: no presence of either player; the organizer is connected.
    me = console.view["me"]["player_id"]
    await until(console, me, {"joined": True, "connected": True})
    assert presence(console, anna["player_id"]) is None
    assert presence(console, bob["player_id"]) is None
    assert console.view["players"][anna["player_id"]]["key_id"] is None

    # Bob looks once over HTTP: joined, not connected; the seq does not move.
    seq = console.seq
    await game.view(bob["token"])
    patch = await until(console, bob["player_id"], {"joined": True, "connected": False})
    assert patch["type"] == "patch" and patch["seq"] == patch["base"] == seq
    assert patch["patch"] == {"presence": {bob["player_id"]: {"joined": True, "connected": False}}}

    # Anna's phone opens its socket: joined and connected; it closes: still joined.
    phone = await Phone.connect(game.ws_url(live_server, anna["token"]))
    await phone.until("view")
    await until(console, anna["player_id"], {"joined": True, "connected": True})
    second = await Phone.connect(game.ws_url(live_server, anna["token"]))  # a second tab
    await second.until("view")
    await second.close()
    with pytest.raises(TimeoutError):  # her first screen is still open: nothing changes
        await console.receive(timeout=0.3)
    await phone.close()
    patch = await until(console, anna["player_id"], {"joined": True, "connected": False})
    assert patch["patch"] == {"presence": {anna["player_id"]: {"connected": False}}}
    assert console.seq == seq  # no event was written for any of it

    # Ready follows register_key: the row's key_id.
    await game.ok(bob["token"], "register_key", public_key=Keys(bob["player_id"]).public_key)
    while console.view["players"][bob["player_id"]]["key_id"] is None:
        await console.until("view")

    # The organizer's GET view has it too; a player's own view shows nobody's presence.
    assert (await game.view(game.organizer))["view"]["presence"] == {
        me: {"joined": True, "connected": True},
        anna["player_id"]: {"joined": True, "connected": False},
        bob["player_id"]: {"joined": True, "connected": False},
    }
    mine = await game.view(anna["token"])
    assert "presence" not in mine["view"]
    await console.close()


async def test_an_organizer_back_at_the_same_seq_gets_the_presence_it_missed(
    live_server: str, http: httpx.AsyncClient
) -> None:
    game = await Game.create(http)
    anna = await game.add("Anna")
    console = await Phone.connect(game.ws_url(live_server, game.organizer))
    await console.until("view")
    seq = console.seq
    await console.close()
    await game.view(anna["token"])  # while the console is away
    back = await Phone.connect(game.ws_url(live_server, game.organizer, after=seq))
    back.view, back.seq = console.view, seq  # the view it held
    message = await back.until("view")
    assert message["type"] == "patch" and message["base"] == message["seq"] == seq
    assert presence(back, anna["player_id"]) == {"joined": True, "connected": False}
    await back.close()


async def test_a_socket_closed_and_opened_again_at_once_sends_the_console_nothing(
    live_server: str, http: httpx.AsyncClient
) -> None:
    game = await Game.create(http)
    anna = await game.add("Anna")
    await game.view(anna["token"])
    console = await Phone.connect(game.ws_url(live_server, game.organizer))
    await console.until("view")
    await until(console, anna["player_id"], {"joined": True, "connected": False})
    phone = await Phone.connect(game.ws_url(live_server, anna["token"]))
    await phone.until("view")
    await until(console, anna["player_id"], {"joined": True, "connected": True})
    await phone.close()  # a dead spot, and back at once
    phone = await Phone.connect(game.ws_url(live_server, anna["token"]))
    await phone.until("view")
    with pytest.raises(TimeoutError):
        await console.receive(timeout=1.0)
    assert presence(console, anna["player_id"]) == {"joined": True, "connected": True}
    await phone.close()
    await console.close()


async def test_joined_survives_a_restart(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'presence.db'}"
    async with serving(url) as base, httpx.AsyncClient(base_url=base) as http:
        game = await Game.create(http)
        anna, bob = await game.add("Anna"), await game.add("Bob")
        await game.view(anna["token"])
    async with serving(url) as base, httpx.AsyncClient(base_url=base) as http:
        again = Game(http, game.game_id, game.organizer)
        console = await Phone.connect(again.ws_url(base, game.organizer))
        await console.until("view")
        assert presence(console, anna["player_id"]) == {"joined": True, "connected": False}
        assert presence(console, bob["player_id"]) is None
        await console.close()
