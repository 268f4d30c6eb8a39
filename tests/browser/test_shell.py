"""The installable shell: manifest, icons, and opening with no network after the first visit."""

import re

from httpx import AsyncClient
from playwright.async_api import WebSocketRoute, expect

from tests.browser.helpers import Phone, local, new_game, shot


async def test_manifest_and_icons(api: AsyncClient) -> None:
    page = (await api.get("/")).text
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert 'rel="manifest"' in page
    manifest = (await api.get("/manifest.webmanifest")).json()
    assert manifest["display"] == "standalone" and manifest["start_url"] and manifest["theme_color"]
    assert manifest["name"] and manifest["short_name"]
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        png = (await api.get("/" + icon["src"])).content
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        assert icon["sizes"] == f"{width}x{height}"


async def test_app_opens_with_no_network_after_first_visit(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice"])
    alice = game["players"]["Alice"]
    network = {"up": True}

    async def socket(ws: WebSocketRoute) -> None:
        if network["up"]:
            ws.connect_to_server()
        else:
            await ws.close(code=1001)

    context = await phone()
    await context.route_web_socket(re.compile(r"/ws/games/"), socket)
    page = await context.new_page()
    await page.goto(local(alice["join_url"], live_server))
    await expect(page.get_by_test_id("my-code")).to_have_text(alice["code"])
    await page.wait_for_function("() => navigator.serviceWorker.controller !== null")

    network["up"] = False
    await context.set_offline(True)
    await page.reload()
    await expect(page.get_by_test_id("my-code")).to_have_text(alice["code"])  # the last view, kept
    await expect(page.get_by_test_id("connection")).to_have_text("bez signálu")
    await shot(page, "12-offline-reload")

    fresh = await context.new_page()  # a cold start of the app with no signal
    await fresh.goto("/")
    await expect(fresh.get_by_test_id("my-code")).to_have_text(alice["code"])
    await fresh.goto("/#/games")
    # Creating a game needs the server; its form says so rather than failing on submit.
    await expect(fresh.get_by_test_id("create-offline")).to_be_visible()
    await expect(fresh.get_by_test_id("open-game-0")).to_contain_text("Alice")
