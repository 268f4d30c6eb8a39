"""Forest mode: a pick made with no signal waits in the outbox, then reaches the server once."""

import asyncio
import json
from collections.abc import Callable
from typing import Any

from httpx import AsyncClient
from playwright.async_api import WebSocketRoute, expect

from tests.browser.helpers import (
    SOCKET,
    STUN_CARD,
    WOUND_CARD,
    Phone,
    Signal,
    command,
    events,
    kept_offline,
    local,
    new_game,
    pick,
    shot,
    watch_errors,
)


def picks_by(found: list[dict[str, Any]], player_id: str) -> list[dict[str, Any]]:
    return [
        e for e in found if e["type"] == "card_picked" and e["data"].get("player_id") == player_id
    ]


async def eventually(condition: Callable[[], bool], timeout: float = 10) -> None:
    for _ in range(int(timeout / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition not met in time")


async def card_id(api: AsyncClient, game: dict[str, Any], name: str, title: str) -> str:
    answer = await api.get(
        f"/api/games/{game['gid']}/view",
        headers={"Authorization": f"Bearer {game['players'][name]['token']}"},
    )
    cards: list[dict[str, Any]] = answer.json()["view"]["me"]["cards"]
    return next(str(c["card_id"]) for c in cards if c["title"] == title)


async def test_pick_made_offline_is_sent_once_when_back(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"])
    alice, bob = game["players"]["Alice"], game["players"]["Bob"]
    signal = Signal()
    context = await phone()
    await signal.install(context)
    page = await context.new_page()
    errors = watch_errors(page)
    await page.goto(local(bob["join_url"], live_server))
    await expect(page.get_by_test_id("my-code")).to_have_text(bob["code"])
    await command(
        api,
        game["gid"],
        alice["token"],
        {"type": "challenge", "target": bob["code"], "ranged": False},
    )
    await expect(page.get_by_test_id("duel")).to_be_visible()
    # The reload below happens offline: the service worker must hold the app by then.
    await kept_offline(page)

    await signal.cut(page)
    await expect(page.get_by_test_id("connection")).to_have_text("bez signálu")
    await pick(page, STUN_CARD)
    await expect(page.get_by_test_id("outbox-count")).to_have_text("1")
    await expect(page.get_by_test_id("my-pick")).to_contain_text(STUN_CARD)
    await expect(page.get_by_test_id("my-pick")).to_contain_text("Čeká na signál")
    await shot(page, "11-offline-pick-queued")
    await page.reload()  # the outbox lives in IndexedDB: it survives a reload
    await expect(page.get_by_test_id("outbox-count")).to_have_text("1")
    await expect(page.get_by_test_id("my-pick")).to_contain_text(STUN_CARD)
    assert picks_by(await events(api, game["gid"], game["org"]), bob["player_id"]) == []

    await signal.restore(page)
    await expect(page.get_by_test_id("outbox-count")).to_have_text("0", timeout=15_000)
    await expect(page.get_by_test_id("connection")).to_have_text("spojeno", timeout=15_000)
    assert len(picks_by(await events(api, game["gid"], game["org"]), bob["player_id"])) == 1

    wound = await card_id(api, game, "Alice", WOUND_CARD)
    await command(
        api,
        game["gid"],
        alice["token"],
        {"type": "pick", "duel_id": await duel_id(api, game), "card_id": wound},
    )
    await expect(page.get_by_test_id("reveal-verdict")).to_have_text("Výhra!")
    assert len(picks_by(await events(api, game["gid"], game["org"]), bob["player_id"])) == 1
    assert not [
        e for e in errors if "WebSocket" not in e and "ERR_INTERNET_DISCONNECTED" not in e
    ], errors


async def duel_id(api: AsyncClient, game: dict[str, Any]) -> str:
    answer = await api.get(
        f"/api/games/{game['gid']}/view", headers={"Authorization": f"Bearer {game['org']}"}
    )
    duel: str = next(iter(answer.json()["view"]["duels"]))
    return duel


async def test_lost_ack_is_resent_and_counted_once(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    """The server gets the pick but the ack is lost with the signal: the phone sends it again on
    reconnect, with the same command_id, and the server does not pick twice."""
    game = await new_game(api, ["Alice", "Bob"])
    alice, bob = game["players"]["Alice"], game["players"]["Bob"]
    drop_next_ack = {"on": False}
    sent: list[dict[str, Any]] = []

    def socket(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def to_server(message: str | bytes) -> None:
            body = json.loads(message)
            if body.get("type") == "command":
                sent.append(body)
            server.send(message)

        async def to_page(message: str | bytes) -> None:
            if drop_next_ack["on"] and json.loads(message).get("type") == "ack":
                drop_next_ack["on"] = False
                await ws.close(code=1001)
                return
            ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)

    context = await phone()
    await context.route_web_socket(SOCKET, socket)
    page = await context.new_page()
    await page.goto(local(bob["join_url"], live_server))
    await expect(page.get_by_test_id("my-code")).to_have_text(bob["code"])
    await command(
        api,
        game["gid"],
        alice["token"],
        {"type": "challenge", "target": bob["code"], "ranged": False},
    )
    await expect(page.get_by_test_id("duel")).to_be_visible()

    drop_next_ack["on"] = True
    await pick(page, WOUND_CARD)

    def picks() -> list[dict[str, Any]]:
        return [body for body in sent if body["command"]["type"] == "pick"]

    await eventually(lambda: len(picks()) == 2)
    assert picks()[0]["command_id"] == picks()[1]["command_id"], sent
    await expect(page.get_by_test_id("outbox-count")).to_have_text("0")
    await expect(page.get_by_test_id("opponent-picking")).to_be_visible()
    await expect(page.get_by_test_id("my-pick")).to_contain_text(WOUND_CARD)
    assert len(picks_by(await events(api, game["gid"], game["org"]), bob["player_id"])) == 1


async def test_foreground_resyncs_a_silent_socket(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    """A socket that went quiet (held) misses a change; coming back to the foreground fetches it."""
    game = await new_game(api, ["Alice"])
    alice = game["players"]["Alice"]
    hold = {"on": False}

    def socket(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda message: None if hold["on"] else ws.send(message))

    context = await phone()
    await context.route_web_socket(SOCKET, socket)
    page = await context.new_page()
    await page.goto(local(alice["join_url"], live_server))
    await expect(page.get_by_test_id("my-code")).to_have_text(alice["code"])

    hold["on"] = True
    title = "Hod dlažební kostkou"
    card = {"title": title, "big": 4, "small": 1, "kind": "wound", "ranged": True}
    await command(
        api,
        game["gid"],
        game["org"],
        {"type": "grant_card", "player_id": alice["player_id"], "card": card},
    )
    await page.wait_for_timeout(300)
    await expect(page.locator('[data-testid^="card-"]', has_text=title)).to_have_count(0)
    await page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    await expect(page.locator('[data-testid^="card-"]', has_text=title)).to_contain_text("4/1")
