"""The organizer's roll call (server/game/presence.py): who has joined and who is connected now,
sent to the organizers' screens beside the view, never in it. The hub alone under random
screens opening and closing (hypothesis), then over a real uvicorn with real WebSocket clients."""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.game.hub import Hub, Screen
from server.rules.card_duel import RULESET
from server.rules.core import Member
from tests.client import Game, Phone
from tests.conftest import serve
from tests.rules.drivers.card_duel import CardDuelGame
from tests.rules.phones import Phone as Keys

serving = contextlib.asynccontextmanager(serve)

# One step: ("open", member), ("close", which open screen), ("seen", member) (an HTTP request),
# ("gather", _): the gathering's half second passes.
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("open"), st.integers(0, 3)),
        st.tuples(st.just("close"), st.integers(0, 20)),
        st.tuples(st.just("seen"), st.integers(0, 3)),
        st.tuples(st.just("gather"), st.just(0)),
    ),
    max_size=40,
)


async def ignore(text: str) -> None:
    """Messages are read from each screen's outbox (the pump is not run)."""


@settings(max_examples=300, deadline=None)
@given(steps=STEPS, joined=st.sets(st.integers(1, 3)))
def test_the_organizers_messages_add_up_to_who_is_there_and_reach_nobody_else(
    steps: list[tuple[str, int]], joined: set[int]
) -> None:
    asyncio.run(roll_call(steps, joined))


async def roll_call(steps: list[tuple[str, int]], joined: set[int]) -> None:
    """Under a running loop, so that changes wait to be gathered (as served) between steps."""
    game = CardDuelGame()
    members: list[Member] = [game.organizer, *(game.add(n) for n in ("Anna", "Bob", "Cyril"))]
    initially = {members[i].player_id for i in joined}
    hub = Hub()
    open_: list[Screen] = []
    ever: list[Screen] = []
    seen = set(initially)
    for step, n in [*steps, ("gather", 0)]:
        if step == "open":
            screen = Screen(members[n], ignore)
            hub.join("g", RULESET, game.state, len(game.log), screen, game.now, initially)
            screen.show(len(game.log), game.now)
            hub.greet("g", screen)
            open_.append(screen)
            ever.append(screen)
            seen.add(members[n].player_id)
        elif step == "close" and open_:
            hub.leave("g", open_.pop(n % len(open_)))
        elif step == "seen":
            hub.seen("g", members[n].player_id)
            if open_:  # (with no screen open the hub keeps nothing: the store has it)
                seen.add(members[n].player_id)
        elif step == "gather" and "g" in hub.presence:
            hub.presence["g"].send()  # (what its timer does)
        if not open_:
            seen = set(initially)  # the next first screen reads the store again
        connected = {s.member.player_id for s in open_}
        truth = {p: {"joined": p in seen, "connected": p in connected} for p in seen | connected}
        for screen in ever:
            messages = [orjson.loads(m) for m in screen.outbox]
            presence = [m for m in messages if m["type"] == "presence"]
            # Nothing of it in any view or patch, to anybody.
            for m in messages:
                assert "presence" not in m.get("view", {}) and "presence" not in m.get("patch", {})
            if screen.member.role != "organizer":
                assert presence == []
                continue
            assert presence and presence[0]["whole"] and not any(m["whole"] for m in presence[1:])
            if step == "gather" and screen in open_:
                # what it holds, every message applied, is who is there now
                held: dict[str, Any] = {}
                for m in presence:
                    held.update(m["members"])
                assert held == truth
    assert not open_ or hub.presence["g"].watchers.keys() <= set(open_)
    for screen in list(open_):
        hub.leave("g", screen)
    assert "g" not in hub.presence  # and no timer is left behind


@pytest.fixture
async def http(live_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server) as client:
        yield client


async def until(phone: Phone, player_id: str, entry: Any) -> dict[str, Any]:
    """Read the organizer's socket until the member's entry is `entry`; the message that did it."""
    message: dict[str, Any] = {}
    while (phone.presence or {}).get(player_id) != entry:
        message = await phone.until("presence")
    return message


async def test_joined_connected_and_ready_reach_the_organizer_and_nobody_else(
    live_server: str, http: httpx.AsyncClient
) -> None:
    game = await Game.create(http)
    anna, bob = await game.add("Anna"), await game.add("Bob")
    await game.ok(game.organizer, "start_game")
    console = await Phone.connect(game.ws_url(live_server, game.organizer))
    await console.until("view")
    assert console.view is not None
    me = console.view["me"]["player_id"]
    whole = await console.until("presence")  # right after the view: the whole roll call
    assert whole["whole"] and whole["members"] == {me: {"joined": True, "connected": True}}
    assert console.view["players"][anna["player_id"]]["key_id"] is None

    # Bob looks once over HTTP: joined, not connected; the seq does not move.
    seq = console.seq
    await game.view(bob["token"])
    message = await until(console, bob["player_id"], {"joined": True, "connected": False})
    assert message["members"] == {bob["player_id"]: {"joined": True, "connected": False}}
    assert not message["whole"]

    # Anna's phone opens its socket: joined and connected; a second tab comes and goes: nothing.
    phone = await Phone.connect(game.ws_url(live_server, anna["token"]))
    await phone.until("view")
    await until(console, anna["player_id"], {"joined": True, "connected": True})
    second = await Phone.connect(game.ws_url(live_server, anna["token"]))
    await second.until("view")
    await second.close()
    with pytest.raises(TimeoutError):
        await console.receive(timeout=0.8)
    with pytest.raises(TimeoutError):  # a player's phone is never told
        while True:
            assert (await phone.receive(timeout=0.3))["type"] != "presence"
    await phone.close()
    await until(console, anna["player_id"], {"joined": True, "connected": False})
    assert console.seq == seq  # no event was written for any of it

    # Ready follows register_key: the row's key_id.
    await game.ok(bob["token"], "register_key", public_key=Keys(bob["player_id"]).public_key)
    while console.view["players"][bob["player_id"]]["key_id"] is None:
        await console.until("view")
    mine = await game.view(anna["token"])
    assert "presence" not in mine["view"]
    await console.close()


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
    await asyncio.sleep(0.05)
    phone = await Phone.connect(game.ws_url(live_server, anna["token"]))
    await phone.until("view")
    with pytest.raises(TimeoutError):
        await console.receive(timeout=1.0)
    assert console.presence is not None
    assert console.presence[anna["player_id"]] == {"joined": True, "connected": True}
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
        await console.until("presence")
        assert console.presence is not None
        assert console.presence[anna["player_id"]] == {"joined": True, "connected": False}
        assert bob["player_id"] not in console.presence
        await console.close()
