"""End to end over a real uvicorn: two phones duel by code over WebSockets."""

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import websockets

from server.patch import apply
from tests.client import Game, Phone
from tests.conftest import serve

running = contextlib.asynccontextmanager(serve)


@pytest.fixture
async def http(live_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server) as client:
        yield client


async def test_two_phones_duel_to_a_stun_and_a_third_is_refused(
    live_server: str, http: httpx.AsyncClient
) -> None:
    game = await Game.create(http, stun_s=300)
    anna, bob, cyril = await game.add("Anna"), await game.add("Bob"), await game.add("Cyril")
    await game.ok(game.organizer, "start_game")
    a = await Phone.connect(game.ws_url(live_server, anna["token"]))
    b = await Phone.connect(game.ws_url(live_server, bob["token"]))
    c = await Phone.connect(game.ws_url(live_server, cyril["token"]))
    for phone in (a, b, c):
        await phone.until("view")

    ack = await a.send("challenge", target=bob["code"].lower())
    assert ack["type"] == "ack" and ack["duplicate"] is False
    while b.view is None or b.view.get("duel") is None:
        await b.receive()
    duel = b.view["duel"]
    assert duel["opponent"] == {"player_id": anna["player_id"], "name": "Anna"}
    assert "players" not in b.view  # no roster in a player's view: the directory has it
    # Cyril is not in the duel: his phone is sent nothing.
    with pytest.raises(TimeoutError):
        await c.receive(timeout=0.3)

    assert a.view is not None
    chair = next(c for c in a.view["me"]["cards"] if c["title"] == "Rána židlí")
    dagger = next(c for c in b.view["me"]["cards"] if c["title"] == "Rána Ankh-Morporskou dýkou")
    assert (await a.send("pick", duel_id=duel["duel_id"], card_id=chair["card_id"]))[
        "type"
    ] == "ack"
    while not b.view["duel"]["opponent_picked"]:
        await b.receive()
    assert chair["card_id"] not in json.dumps(b.view), "the pick stays secret until the reveal"
    last = await b.send("pick", duel_id=duel["duel_id"], card_id=dagger["card_id"])
    assert last["type"] == "ack"
    while b.seq < last["seq"]:
        await b.receive()
    me = b.view["me"]
    assert me["stunned_until"] is not None and b.view.get("duel") is None
    outcome = b.view["last_duel"]
    assert outcome["rounds"][0]["winners"] == [anna["player_id"]]
    assert outcome["outcomes"] == [
        {"player_id": bob["player_id"], "effect": "stun", "until": me["stunned_until"]}
    ]

    refused = await c.send("challenge", target=bob["code"])
    assert refused["type"] == "error" and refused["code"] == "stunned"
    for phone in (a, b, c):
        await phone.close()


async def test_reconnect_with_after_misses_nothing(
    live_server: str, http: httpx.AsyncClient
) -> None:
    game = await Game.create(http)
    anna, bob = await game.add("Anna"), await game.add("Bob")
    await game.ok(game.organizer, "start_game")
    b = await Phone.connect(game.ws_url(live_server, bob["token"]))
    await b.until("view")
    held = b.seq
    await b.close()
    # While Bob's phone is in a dead spot, Anna challenges him and the organizer grants a card.
    await game.ok(anna["token"], "challenge", target=bob["code"])
    card = {"title": "Kuš", "big": 5, "small": 0, "kind": "wound", "ranged": True}
    seq = await game.ok(game.organizer, "grant_card", player_id=bob["player_id"], card=card)
    again = await Phone.connect(game.ws_url(live_server, bob["token"], after=held))
    message = await again.until("view")
    assert message["seq"] == seq
    assert message["view"]["duel"]["opponent"]["player_id"] == anna["player_id"]
    assert "Kuš" in [c["title"] for c in message["view"]["me"]["cards"]]
    await again.close()
    # Up to date: the server says nothing until something changes, then sends that.
    current = await Phone.connect(game.ws_url(live_server, bob["token"], after=seq))
    current.view, current.seq = message["view"], seq  # the view the phone kept
    with pytest.raises(TimeoutError):
        await current.receive(timeout=0.3)
    await game.ok(game.organizer, "grant_item", player_id=bob["player_id"], item="crossbow")
    patched = await current.until("view")
    assert patched["type"] == "patch" and patched["base"] == seq
    assert patched["patch"] == {"me": {"items": ["crossbow"]}}  # only what changed
    assert current.view["me"]["items"] == ["crossbow"]
    assert current.view == (await game.view(bob["token"]))["view"]
    await current.close()


async def test_a_resume_on_a_server_that_fell_behind_never_goes_backwards(
    tmp_path: Path,
) -> None:
    """Two servers on one database; the second holds the game but has not heard of the first
    one's writes (on SQLite nobody tells it). A phone that saw them and reconnects to the second
    with `after=` must not be shown the older view the second one still holds."""
    url = f"sqlite:///{tmp_path / 'two.db'}"
    async with contextlib.AsyncExitStack() as stack:
        one, two = [await stack.enter_async_context(running(url)) for _ in "12"]
        game = await Game.create(await stack.enter_async_context(httpx.AsyncClient(base_url=one)))
        anna, bob = await game.add("Anna"), await game.add("Bob")
        await game.ok(game.organizer, "start_game")
        there = await Phone.connect(game.ws_url(two, bob["token"]))
        await there.until("view")  # the second server holds the game from now on
        await there.close()
        seq = await game.ok(anna["token"], "challenge", target=bob["code"])
        here = await Phone.connect(game.ws_url(one, bob["token"]))
        await here.until("view")
        assert here.seq == seq
        await here.close()

        back = await Phone.connect(game.ws_url(two, bob["token"], after=seq))
        game.http = await stack.enter_async_context(httpx.AsyncClient(base_url=two))
        await game.ok(game.organizer, "grant_item", player_id=bob["player_id"], item="crossbow")
        first = json.loads(await asyncio.wait_for(back.socket.recv(), 5))
        assert first.get("base", first["seq"]) >= seq, f"after={seq}, then {first}"
        back.view, back.seq = here.view, here.seq  # what the phone kept
        if first["type"] == "patch":
            back.view, back.seq = apply(back.view, first["patch"]), first["seq"]
        assert back.view == (await game.view(bob["token"]))["view"]
        assert back.view is not None and back.view["me"]["items"] == ["crossbow"]
        await back.close()


async def test_ping_and_bad_messages_get_clear_errors(
    live_server: str, http: httpx.AsyncClient
) -> None:
    game = await Game.create(http)
    anna = await game.add("Anna")
    phone = await Phone.connect(game.ws_url(live_server, anna["token"]))
    await phone.until("view")
    await phone.socket.send(json.dumps({"type": "ping"}))
    pong = await phone.until("pong")
    assert pong["server_time"].endswith("Z")
    cases = [
        ("{not json", "invalid"),
        ("[1]", "invalid"),
        (json.dumps({"type": "dance"}), "invalid"),
        (json.dumps({"type": "command", "command_id": "x", "command": "pick"}), "invalid"),
        (
            json.dumps(
                {"type": "command", "command_id": "x", "command": {"type": "pick"}, "extra": 1}
            ),
            "invalid",
        ),
        (json.dumps({"type": "command", "command": {"type": "start_game"}}), "invalid"),
        ("x" * 70_000, "too_large"),
    ]
    for text, code in cases:
        await phone.socket.send(text)
        message = await phone.until("error")
        assert message["code"] == code, (text[:40], message)
    await phone.socket.send(b"\x00\x01")
    assert (await phone.until("error"))["code"] == "invalid"
    refused = await phone.send("start_game")
    assert refused["code"] == "forbidden"
    duplicate_id = "same-id"
    await phone.send("challenge", command_id=duplicate_id, target="ZZZZ")
    await phone.close()


@pytest.mark.parametrize(
    ("token", "code", "close"), [(None, "unauthorized", 4401), ("wrong", "unauthorized", 4401)]
)
async def test_a_bad_token_is_refused_and_closed(
    live_server: str, http: httpx.AsyncClient, token: str | None, code: str, close: int
) -> None:
    game = await Game.create(http)
    url = game.ws_url(live_server, token or "")
    async with websockets.connect(url) as socket:
        message = json.loads(await asyncio.wait_for(socket.recv(), 5))
        assert message["type"] == "error" and message["code"] == code
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(socket.recv(), 5)
        assert socket.close_code == close


async def test_a_retried_command_over_the_socket_is_not_repeated(
    live_server: str, http: httpx.AsyncClient
) -> None:
    game = await Game.create(http)
    await game.add("Anna")
    organizer = await Phone.connect(game.ws_url(live_server, game.organizer))
    first = await organizer.send("start_game", command_id="start-1")
    again = await organizer.send("start_game", command_id="start-1")
    assert first["type"] == again["type"] == "ack"
    assert (again["seq"], again["duplicate"]) == (first["seq"], True)
    assert [e["type"] for e in await game.events()].count("game_started") == 1
    await organizer.close()
