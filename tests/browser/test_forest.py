"""Forest-proof phones: a queued challenge expires, the chip follows the signal, banners go, an
incoming challenge rings, a pick is confirmed, a duellist can leave an absent opponent, and the
invite sheet holds players only (200 names added in one request)."""

import asyncio
import re
from typing import Any

from httpx import AsyncClient
from playwright.async_api import Page, Request, WebSocketRoute, expect

from tests.browser.helpers import (
    ALERTS_RECORDER,
    SOCKET,
    STUN_CARD,
    WOUND_CARD,
    Phone,
    Signal,
    command,
    events,
    local,
    new_game,
    pick,
    server_view,
    shot,
)


async def joined(phone: Phone, url: str, live_server: str, *, signal: Signal | None = None) -> Page:
    context = await phone()
    await context.add_init_script(ALERTS_RECORDER)
    if signal:
        await signal.install(context)
    page = await context.new_page()
    await page.clock.install()  # time flows as usual until a test moves it on
    await page.goto(local(url, live_server))
    await expect(page.get_by_test_id("connection")).to_have_text("spojeno")
    return page


async def challenge(api: AsyncClient, game: dict[str, Any], by: str, target: str) -> None:
    code = game["players"][target]["code"]
    body = {"type": "challenge", "target": code, "ranged": False}
    await command(api, game["gid"], game["players"][by]["token"], body)


def types(found: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in found]


async def test_queued_challenge_expires_instead_of_firing_late(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"])
    alice, bob = game["players"]["Alice"], game["players"]["Bob"]
    signal = Signal()
    page = await joined(phone, alice["join_url"], live_server, signal=signal)
    await expect(page.get_by_test_id("my-code")).to_have_text(alice["code"])

    await signal.cut(page)
    await page.get_by_test_id("challenge-code").fill(bob["code"])
    await page.get_by_test_id("challenge-submit").click()
    await expect(page.get_by_test_id("challenge-pending")).to_have_text("Výzva čeká na signál…")
    await expect(page.get_by_test_id("outbox-count")).to_have_text("1")
    await page.clock.fast_forward("00:59")
    await expect(page.get_by_test_id("outbox-count")).to_have_text("1")  # not yet
    await page.clock.fast_forward("00:02")  # at once once its time has passed, with no signal
    banner = page.get_by_test_id("error")
    await expect(banner).to_contain_text("Výzva vypršela")
    await expect(page.get_by_test_id("outbox-count")).to_have_text("0")
    await expect(page.get_by_test_id("challenge-pending")).to_have_count(0)
    await shot(page, "40-challenge-expired")

    await signal.restore(page)
    await expect(page.get_by_test_id("connection")).to_have_text("spojeno", timeout=15_000)
    await expect(banner).to_contain_text("Výzva vypršela")  # the view came back: same screen
    assert "duel_started" not in types(await events(api, game["gid"], game["org"]))
    await expect(page.get_by_test_id("duel")).to_have_count(0)

    # A challenge that waits less than the expiry still goes out when the signal returns.
    await signal.cut(page)
    await page.get_by_test_id("challenge-code").fill(bob["code"])
    await page.get_by_test_id("challenge-submit").click()
    await expect(page.get_by_test_id("outbox-count")).to_have_text("1")
    await page.clock.fast_forward("00:40")
    await signal.restore(page)
    await expect(page.get_by_test_id("duel")).to_be_visible(timeout=15_000)
    assert types(await events(api, game["gid"], game["org"])).count("duel_started") == 1


async def test_a_silent_dead_spot_is_told_within_15_seconds(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    """The socket stays open and nothing arrives either way (the browser still says online):
    the phone's heartbeat finds out, and the chip stops saying connected."""
    game = await new_game(api, ["Alice"])
    dead = {"on": False, "last": 0.0}
    loop = asyncio.get_running_loop()

    def socket(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def down(message: str | bytes) -> None:
            if not dead["on"]:
                dead["last"] = loop.time()
                ws.send(message)

        server.on_message(down)
        ws.on_message(lambda message: None if dead["on"] else server.send(message))

    context = await phone()
    await context.route_web_socket(SOCKET, socket)
    page = await context.new_page()
    await page.goto(local(game["players"]["Alice"]["join_url"], live_server))
    chip = page.get_by_test_id("connection")
    await expect(chip).to_have_text("spojeno")
    await page.wait_for_timeout(1000)
    dead["on"] = True
    await expect(chip).not_to_have_text("spojeno", timeout=16_000)
    silent = loop.time() - dead["last"]
    assert silent <= 15, silent
    await shot(page, "42-dead-spot")
    dead["on"] = False
    await expect(chip).to_have_text("spojeno", timeout=20_000)  # and it comes back by itself


async def test_a_hello_lost_in_a_dead_spot_is_tried_again_but_a_refused_token_is_not(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    """The server closes a socket whose hello did not come within 10 s with 4401, after an error
    message the dead spot may swallow too: a close heard with nothing before it is tried again;
    a refusal heard (an unknown token) is final."""
    game = await new_game(api, ["Alice"])
    cut = {"closes": 0}

    def socket(ws: WebSocketRoute) -> None:
        if cut["closes"] < 2:  # the first two sockets: closed as the server closes a lost hello
            cut["closes"] += 1
            asyncio.get_running_loop().create_task(ws.close(code=4401, reason="no token"))
            return
        ws.connect_to_server()

    context = await phone()
    await context.route_web_socket(SOCKET, socket)
    page = await context.new_page()
    await page.goto(local(game["players"]["Alice"]["join_url"], live_server))
    await expect(page.get_by_test_id("connection")).to_have_text("spojeno", timeout=20_000)
    assert cut["closes"] == 2
    await expect(page.get_by_test_id("fatal")).to_have_count(0)

    stranger = await (await phone()).new_page()
    await stranger.goto(f"{live_server}/#/join/{game['gid']}/{'x' * 43}")
    await expect(stranger.get_by_test_id("fatal")).to_be_visible(timeout=10_000)


async def test_connection_chip_follows_the_browser_at_once(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice"])
    page = await joined(phone, game["players"]["Alice"]["join_url"], live_server)
    chip = page.get_by_test_id("connection")
    # set_offline leaves an open WebSocket alone: only the browser's offline event tells.
    await page.context.set_offline(True)
    await expect(chip).to_have_text("bez signálu", timeout=1000)
    await page.wait_for_timeout(1500)  # failed reconnects do not flicker it to "connecting"
    await expect(chip).to_have_text("bez signálu")
    await shot(page, "41-chip-offline")
    style = await chip.evaluate(
        """(el) => {
          const s = getComputedStyle(el);
          return {size: parseFloat(s.fontSize), weight: Number(s.fontWeight),
                  symbol: getComputedStyle(el, "::before").content};
        }"""
    )
    assert style["size"] >= 15 and style["weight"] >= 700, style
    assert style["symbol"] not in ("none", "normal", '""'), style  # not the colour alone
    await page.set_viewport_size({"width": 320, "height": 640})  # the bar fits a narrow phone
    assert await page.evaluate("document.documentElement.scrollWidth") <= 320
    await page.context.set_offline(False)
    await expect(chip).to_have_text("spojeno", timeout=5000)


async def test_error_banner_goes_after_a_while_and_with_its_screen(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"])
    alice = game["players"]["Alice"]
    page = await joined(phone, alice["join_url"], live_server)
    banner = page.get_by_test_id("error")

    async def refused_challenge() -> None:
        await page.get_by_test_id("challenge-code").fill("ZZZZ")  # nobody has this code
        await page.get_by_test_id("challenge-submit").click()
        await expect(banner).to_have_count(1)

    await refused_challenge()
    await page.clock.fast_forward("00:05")
    await expect(banner).to_have_count(1)  # still there to be read
    await page.clock.fast_forward("00:04")
    await expect(banner).to_have_count(0)

    await refused_challenge()
    await challenge(api, game, "Bob", "Alice")
    await expect(page.get_by_test_id("duel")).to_be_visible()
    await expect(banner).to_have_count(0)  # the main screen is gone, and its banner with it


async def test_incoming_challenge_buzzes_after_the_one_tap(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"])
    bob = game["players"]["Bob"]
    page = await joined(phone, bob["join_url"], live_server)
    unlock = page.get_by_test_id("unlock-alerts")
    await expect(unlock).to_have_text("Klepni pro zapnutí zvuku a vibrací")
    await shot(page, "42-unlock-alerts")
    await unlock.click()
    await expect(unlock).to_have_count(0)
    await page.wait_for_function("() => window.__alerts.includes('vibrate')")  # the tap answers
    await page.evaluate("window.__alerts.length = 0")

    await challenge(api, game, "Alice", "Bob")
    await expect(page.get_by_test_id("duel")).to_be_visible()
    await page.wait_for_function(
        "window.__alerts.includes('vibrate') && window.__alerts.includes('beep')"
    )
    await page.reload()  # asked once on this phone
    await expect(page.get_by_test_id("duel")).to_be_visible()
    await expect(unlock).to_have_count(0)


async def test_a_pick_needs_the_confirm_tap(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"])
    bob = game["players"]["Bob"]
    page = await joined(phone, bob["join_url"], live_server)
    await challenge(api, game, "Alice", "Bob")
    stun = page.locator('[data-testid^="card-"]', has_text=STUN_CARD)
    wound = page.locator('[data-testid^="card-"]', has_text=WOUND_CARD)
    await stun.click()  # the glove slips
    await expect(stun).to_have_attribute("aria-pressed", "true")
    await expect(page.get_by_test_id("pick-confirm")).to_contain_text(STUN_CARD)
    await page.wait_for_timeout(500)
    await expect(page.get_by_test_id("outbox-count")).to_have_text("0")
    assert "card_picked" not in types(await events(api, game["gid"], game["org"]))

    await wound.click()
    await expect(stun).to_have_attribute("aria-pressed", "false")
    await expect(wound).to_have_attribute("aria-pressed", "true")
    await shot(page, "43-pick-confirm")
    await page.get_by_test_id("pick-confirm").click()
    await expect(page.get_by_test_id("my-pick")).to_contain_text(WOUND_CARD)
    await expect(page.get_by_test_id("opponent-picking")).to_be_visible()
    await expect(page.get_by_test_id("my-pick")).to_contain_text("Čekáme na soupeře")  # answered
    view = await server_view(api, game["gid"], bob["token"])
    wound_id = next(c["card_id"] for c in view["me"]["cards"] if c["title"] == WOUND_CARD)
    assert view["duel"]["my_pick"] == wound_id


async def test_a_duellist_leaves_an_absent_opponent(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob", "Cyril"], config={"leave_after_s": 3})
    bob, cyril = game["players"]["Bob"], game["players"]["Cyril"]
    page = await joined(phone, bob["join_url"], live_server)
    await challenge(api, game, "Alice", "Bob")
    await expect(page.get_by_test_id("duel")).to_be_visible()
    await expect(page.get_by_test_id("leave-countdown")).to_have_text(re.compile(r"^0:0[1-3]$"))
    leave = page.get_by_test_id("leave-duel")
    await expect(leave).to_have_count(0)
    await shot(page, "44-leave-countdown")
    await pick(page, STUN_CARD)  # a pick of one's own does not stop the leaving
    await expect(leave).to_have_text("Odejít ze souboje", timeout=6000)
    await shot(page, "45-leave-duel")
    await leave.click()
    await expect(page.get_by_test_id("duel")).to_have_count(0)
    await expect(page.get_by_test_id("challenge-code")).to_be_visible()
    cancelled = [
        e for e in await events(api, game["gid"], game["org"]) if e["type"] == "duel_cancelled"
    ]
    assert [e["data"]["reason"] for e in cancelled] == ["left"], cancelled
    assert cancelled[0]["data"]["by"] == bob["player_id"]

    # Once the opponent has picked, there is no leaving: the duel is the player's to pick.
    await challenge(api, game, "Cyril", "Bob")
    await expect(page.get_by_test_id("duel-opponent")).to_have_text("Cyril")
    view = await server_view(api, game["gid"], cyril["token"])
    card = view["me"]["cards"][0]["card_id"]
    duel = view["duel"]["duel_id"]
    body = {"type": "pick", "duel_id": duel, "card_id": card}
    await command(api, game["gid"], cyril["token"], body)
    await expect(page.get_by_test_id("opponent-picked")).to_be_visible()
    await page.wait_for_timeout(3500)
    await expect(leave).to_have_count(0)
    await expect(page.get_by_test_id("leave-countdown")).to_have_count(0)


async def test_invite_sheet_holds_players_only_and_200_names_go_in_one_request(
    phone: Phone, api: AsyncClient
) -> None:
    answer = await api.post(
        "/api/games", json={"ruleset": "card-duel", "name": "Les", "config": {"stun_s": 60}}
    )
    gid, org = answer.json()["game_id"], answer.json()["organizer_token"]
    console = await (await phone()).new_page()
    adds: list[Request] = []
    console.on(
        "request",
        lambda r: adds.append(r) if r.method == "POST" and r.url.endswith("/players") else None,
    )
    await console.goto(f"/#/join/{gid}/{org}")
    await expect(console.get_by_test_id("game-status")).to_have_attribute("data-status", "lobby")
    names = "\n".join(f"Hráč {n}" for n in range(1, 201))
    await console.get_by_test_id("player-list-input").fill(names)
    await console.get_by_test_id("add-players").click()
    await expect(console.locator('[data-testid^="player-row-"]')).to_have_count(200)
    await expect(console.get_by_test_id("add-status")).to_contain_text("200")
    assert len(adds) == 1, [r.url for r in adds]

    await console.get_by_test_id("show-invites").click()
    await expect(console.get_by_test_id("invite-url")).to_have_count(200)
    sheet = console.get_by_test_id("invites")
    await expect(sheet).to_contain_text("Kód:")
    await expect(sheet).not_to_contain_text("organizátor")
    for url in await console.get_by_test_id("invite-url").all_inner_texts():
        assert org not in url
    await shot(console, "46-invites-players-only", full_page=False)  # 200 invites: the top
