"""The screen stays on in a duel or a countdown only; a countdown ends with a buzz and a beep."""

from httpx import AsyncClient
from playwright.async_api import expect

from tests.browser.helpers import (
    ALERTS_RECORDER,
    Phone,
    command,
    local,
    new_game,
    shot,
    stun_in_duel,
)


async def test_wake_lock_vibration_and_beep(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"], stun_s=3)
    gid = game["gid"]
    alice, bob = game["players"]["Alice"], game["players"]["Bob"]
    context = await phone()
    await context.add_init_script(ALERTS_RECORDER)
    page = await context.new_page()
    await page.goto(local(bob["join_url"], live_server))
    await expect(page.get_by_test_id("my-code")).to_be_visible()
    await page.get_by_test_id("show-qr").click()  # a tap: unlocks the sound
    await expect(page.get_by_test_id("my-qr").locator("svg")).to_be_visible()
    await shot(page, "19-my-qr")
    assert await page.evaluate("window.__alerts") == []

    await command(
        api, gid, alice["token"], {"type": "challenge", "target": bob["code"], "ranged": False}
    )
    await expect(page.get_by_test_id("duel")).to_be_visible()
    await page.wait_for_function("() => window.__alerts.includes('lock:screen')")
    await stun_in_duel(api, game, "Alice", "Bob")
    await page.get_by_test_id("reveal-ok").click()
    await expect(page.get_by_test_id("stun-countdown")).to_be_visible()
    assert "unlock" not in await page.evaluate("window.__alerts")  # still held while stunned

    await expect(page.get_by_test_id("stun-screen")).to_have_count(0, timeout=6000)
    await expect(page.get_by_test_id("challenge-code")).to_be_visible()
    await page.wait_for_function("() => window.__alerts.includes('unlock')")
    alerts = await page.evaluate("window.__alerts")
    assert alerts.count("lock:screen") == 1, alerts
    assert "vibrate" in alerts and "beep" in alerts, alerts
