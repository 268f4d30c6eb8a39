"""Countdowns come from absolute server times and the measured clock offset, not the phone clock."""

import re
import time

from httpx import AsyncClient
from playwright.async_api import expect

from tests.browser.helpers import STUN_CARD, WOUND_CARD, Phone, command, local, new_game

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
    view = (
        await api.get(f"/api/games/{gid}/view", headers={"Authorization": f"Bearer {game['org']}"})
    ).json()["view"]
    duel = view["duels"][0]["duel_id"]
    cards = {
        p["player_id"]: {c["title"]: c["card_id"] for c in p["cards"]} for p in view["players"]
    }
    await command(
        api,
        gid,
        alice["token"],
        {"type": "pick", "duel_id": duel, "card_id": cards[alice["player_id"]][STUN_CARD]},
    )
    await command(
        api,
        gid,
        bob["token"],
        {"type": "pick", "duel_id": duel, "card_id": cards[bob["player_id"]][WOUND_CARD]},
    )

    await expect(alice_page.get_by_test_id("reveal-outcomes").locator(".countdown")).to_have_text(
        NEAR_TWO_MINUTES
    )
    await bob_page.get_by_test_id("reveal-ok").click()
    await expect(bob_page.get_by_test_id("stun-countdown")).to_have_text(NEAR_TWO_MINUTES)
