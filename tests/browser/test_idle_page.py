"""A 3-hour game on one charge: an idle player's page wakes at most once a second (one shared
tick, tick.js) and draws no animation frame; a countdown on screen still turns each second; the
first load, offline key included, leaves no long task to speak of (Total Blocking Time). The
figures over a real minute: bench/idle.py."""

import asyncio

from httpx import AsyncClient
from playwright.async_api import Page, expect

from bench.idle import COUNTERS, TICKS, first_load
from tests.browser.helpers import Phone, local, new_game

TICKS_IN_30_S = 31  # one tick a second (and one spare)
TRIES = 3  # first loads, for one under 50 ms of blocking


async def run_for(page: Page, seconds: int) -> None:
    """The page's fake clock on by `seconds`, a second at a time, with a moment of real time
    between for the socket's answers (a pong) to come in."""
    for _ in range(seconds):
        await page.clock.run_for(1000)
        await asyncio.sleep(0.03)


async def test_an_idle_page_wakes_once_a_second(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"])
    context = await phone()
    page = await context.new_page()
    await page.clock.install()  # first: COUNTERS then counts the fake clock's callbacks
    await page.add_init_script(COUNTERS)
    await page.goto(local(game["players"]["Alice"]["join_url"], live_server))
    await expect(page.get_by_test_id("connection")).to_have_text("spojeno")
    await expect(page.get_by_test_id("offline-challenge")).to_be_visible()
    await run_for(page, 5)  # the first load's own work (the key, the files) done
    assert await page.locator("[data-until]").count() == 0, "not idle: a countdown shows"

    before = await page.evaluate(TICKS)
    await run_for(page, 30)
    after = await page.evaluate(TICKS)
    timers = after["timeout"] + after["interval"] - before["timeout"] - before["interval"]
    by = {k: v - before["by"].get(k, 0) for k, v in after["by"].items() if v != before["by"].get(k)}
    assert 25 <= timers <= TICKS_IN_30_S, by  # 25: the counting itself works
    assert after["frame"] == before["frame"], f"animation frames while idle: {by}"
    await expect(page.get_by_test_id("connection")).to_have_text("spojeno")


async def test_a_countdown_on_screen_turns_each_second(phone: Phone, live_server: str) -> None:
    page = await (await phone()).new_page()
    await page.clock.install()
    await page.goto(f"{live_server}/#/games")
    shown = await page.evaluate(
        """async () => {
          const { countdown } = await import("/js/countdown.js");
          const until = new Date(Date.now() + 10_000).toISOString();
          document.body.append(countdown(until, { testid: "left" }));
          return document.querySelector('[data-testid="left"]').textContent;
        }"""
    )
    assert shown == "0:10"
    left = page.get_by_test_id("left")
    # Looked at 0.1 s after each turn of the second: a tick once a second that is not lined up
    # with the countdown's seconds shows the old second most of the time.
    await page.clock.run_for(100)
    seen = []
    for _ in range(4):
        await page.clock.run_for(1000)
        seen.append(await left.inner_text())
    assert seen == ["0:09", "0:08", "0:07", "0:06"]
    # Once it has ended, the tick falls back to once a second.
    await page.clock.run_for(7000)
    await expect(left).to_have_text("0:00")
    await page.evaluate(COUNTERS)  # counts from here
    await page.clock.run_for(10_000)
    ticks = await page.evaluate(TICKS)
    assert ticks["timeout"] + ticks["interval"] <= 11, ticks["by"]


async def test_the_first_load_blocks_under_50_ms(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    """At Lighthouse's mobile CPU (4x slower), with the key made and registered and the files kept
    for offline: Total Blocking Time under 50 ms. Each try is a first load (a new phone); a long
    task of the page's own shows in every try, while one in which two cores shared with the
    rest of the suite stalled the renderer (91 ms once, against 0-26 alone) is tried again."""
    game = await new_game(api, ["Alice", "Bob"])
    loads = []
    for _ in range(TRIES):
        context = await phone()
        page = await context.new_page()
        await page.add_init_script(COUNTERS)
        cdp = await context.new_cdp_session(page)
        await cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
        link = local(game["players"]["Alice"]["join_url"], live_server)
        loads.append(await first_load(page, link, 3))
        await expect(page.get_by_test_id("offline-challenge")).to_be_visible()  # the key's work
        if loads[-1]["tbt"] < 50:
            break
    assert loads[-1]["tbt"] < 50, loads
