"""What a player's phone shows after a duel: free leave, a wound (and its heal by the organizer)."""

import re

from httpx import AsyncClient
from playwright.async_api import expect

from tests.browser.helpers import STUN_CARD, WOUND_CARD, Phone, duel, local, new_game, shot

ESCAPE_CARD = "Ztracení se v davu"  # 1/4 escape: against 3/2 both win, and a melee escape succeeds


async def test_free_leave_wound_and_heal(phone: Phone, api: AsyncClient, live_server: str) -> None:
    game = await new_game(api, ["Alice", "Bob", "Cyril", "Dana"])
    alice = await (await phone()).new_page()
    dana = await (await phone()).new_page()
    await alice.goto(local(game["players"]["Alice"]["join_url"], live_server))
    await dana.goto(local(game["players"]["Dana"]["join_url"], live_server))
    await expect(alice.get_by_test_id("my-code")).to_be_visible()
    await expect(dana.get_by_test_id("my-code")).to_be_visible()

    await duel(api, game, {"Alice": ESCAPE_CARD, "Bob": STUN_CARD})
    await expect(alice.get_by_test_id("reveal-verdict")).to_have_text("Výhra na obou stranách.")
    await shot(alice, "15-reveal-both-won")
    await alice.get_by_test_id("reveal-ok").click()
    await expect(alice.get_by_test_id("immune-countdown")).to_have_text(re.compile(r"^0:(10|0\d)$"))
    await shot(alice, "16-free-leave")

    await duel(api, game, {"Cyril": WOUND_CARD, "Dana": ESCAPE_CARD})
    await dana.get_by_test_id("reveal-ok").click()
    await expect(dana.get_by_test_id("wound-banner")).to_contain_text("ZRANĚN")
    await dana.get_by_test_id("sun-switch").click()
    await shot(dana, "17-wounded-sun-mode")

    console = await (await phone()).new_page()
    await console.goto(f"/#/join/{game['gid']}/{game['org']}")
    dana_id = game["players"]["Dana"]["player_id"]
    await expect(console.get_by_test_id(f"org-wounded-{dana_id}")).to_be_visible()
    await console.get_by_test_id(f"player-open-{dana_id}").click()
    await console.get_by_test_id(f"heal-{dana_id}").click()
    await expect(dana.get_by_test_id("wound-banner")).to_have_count(0)
    await expect(console.get_by_test_id(f"org-wounded-{dana_id}")).to_have_count(0)
