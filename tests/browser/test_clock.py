"""Countdowns come from absolute server times and the measured clock offset, not the phone clock."""

import re
import time

from httpx import AsyncClient
from playwright.async_api import expect

from tests.browser.helpers import Phone, command, local, new_game, stun_in_duel

NEAR_TWO_MINUTES = re.compile(r"^(2:00|1:5\d)$")


async def test_countdown_is_right_on_a_phone_with_a_wrong_clock(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"], stun_s=120)
    gid = game["gid"]
    alice, bob = game["players"]["Alice"], game["players"]["Bob"]
    ahead = await phone()
    await ahead.clock.install(time=time.time() + 3600)  # Bob's phone is an hour fast
    behind = await phone()
    await behind.clock.install(time=time.time() - 600)  # Alice's is ten minutes slow
    bob_page = await ahead.new_page()
    alice_page = await behind.new_page()
    await bob_page.goto(local(bob["join_url"], live_server))
    await alice_page.goto(local(alice["join_url"], live_server))
    await expect(bob_page.get_by_test_id("my-code")).to_be_visible()
    await expect(alice_page.get_by_test_id("my-code")).to_be_visible()

    await command(
        api, gid, alice["token"], {"type": "challenge", "target": bob["code"], "ranged": False}
    )
    await stun_in_duel(api, game, "Alice", "Bob")

    await expect(alice_page.get_by_test_id("reveal-outcomes").locator(".countdown")).to_have_text(
        NEAR_TWO_MINUTES
    )
    await bob_page.get_by_test_id("reveal-ok").click()
    await expect(bob_page.get_by_test_id("stun-countdown")).to_have_text(NEAR_TWO_MINUTES)
