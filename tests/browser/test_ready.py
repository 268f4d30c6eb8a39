"""Ready before the forest, by itself: a player's phone, opened in the lobby with signal, registers
its offline-duel key with no tap, and its service worker keeps the QR decoder and the ruleset's
words in both languages, so that English reads with no signal."""

import asyncio
import re

import httpx
from playwright.async_api import Route, expect

from tests.browser.helpers import Phone, local, new_game, server_view, shot

# What the service worker's cache holds of these paths (ending), by path.
CACHED = """async (ends) => {
  const found = {};
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      const path = new URL(request.url).pathname;
      for (const end of ends) if (path.endsWith(end)) found[end] = path;
    }
  }
  return found;
}"""
FILES = [
    "/js/vendor/jsQR.js",
    "/js/rulesets/card-duel/cs.json",
    "/js/rulesets/card-duel/en.json",
    "/i18n/en.json",
]


async def test_a_phone_prepares_itself_in_the_lobby(
    phone: Phone, api: httpx.AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"], started=False)
    alice = game["players"]["Alice"]
    context = await phone(viewport={"width": 320, "height": 568})
    page = await context.new_page()
    loop = asyncio.get_running_loop()
    opened = loop.time()
    await page.goto(local(alice["join_url"], live_server))
    await expect(page.get_by_test_id("lobby-banner")).to_be_visible()

    # The key, with no tap: the server counts it within 10 s of the first load.
    while True:
        view = await server_view(api, game["gid"], alice["token"])
        if view["me"].get("key_id"):
            break
        assert loop.time() - opened < 10, "no key registered within 10 s"
        await asyncio.sleep(0.25)
    assert await page.get_by_test_id("offline-register").count() == 0  # nothing to tap

    # The decoder and both languages' words, in the worker's cache.
    found: dict[str, str] = {}
    for _ in range(150):
        found = await page.evaluate(CACHED, FILES)
        if len(found) == len(FILES):
            break
        await asyncio.sleep(0.1)
    assert sorted(found) == sorted(FILES), found
    await shot(page, "320/ready-lobby")

    # No signal: English still reads.
    await context.set_offline(True)
    await expect(page.get_by_test_id("connection")).to_have_text("bez signálu")
    await page.get_by_test_id("lang-switch").click()
    await expect(page.get_by_test_id("lobby-banner")).to_have_text("The game has not started yet.")
    await expect(page.get_by_text("Your code: tell it to an opponent")).to_be_visible()
    await expect(page.get_by_test_id("connection")).to_have_text("no signal")
    await shot(page, "320/ready-lobby-en-offline")


async def test_a_failed_preparation_offers_the_button_and_tries_again(
    phone: Phone, api: httpx.AsyncClient, live_server: str
) -> None:
    """The key's registration gets no answer: the prepare button shows as a fallback, and the
    phone registers by itself once commands go through again."""
    game = await new_game(api, ["Alice", "Bob"])
    alice = game["players"]["Alice"]
    context = await phone(viewport={"width": 320, "height": 568})
    blocked = {"on": True}

    async def commands(route: Route) -> None:
        if blocked["on"]:
            await route.abort("internetdisconnected")
        else:
            await route.fallback()

    await context.route(re.compile(r"/api/games/[^/]+/commands$"), commands)
    page = await context.new_page()
    await page.goto(local(alice["join_url"], live_server))
    problem = page.get_by_test_id("offline-no-key")
    await expect(page.get_by_test_id("offline-register")).to_be_visible(timeout=10_000)
    await expect(problem).to_contain_text("Bez signálu to nejde")
    await shot(page, "320/ready-failed")
    assert not (await server_view(api, game["gid"], alice["token"]))["me"].get("key_id")

    blocked["on"] = False  # no tap: the phone tries again by itself
    await expect(page.get_by_test_id("offline-challenge")).to_be_visible(timeout=15_000)
    assert (await server_view(api, game["gid"], alice["token"]))["me"].get("key_id")
