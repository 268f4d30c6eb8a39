"""The organizer's console acts on players: cards, crossbows, revive, cancelling a duel."""

import re

from httpx import AsyncClient
from playwright.async_api import expect

from tests.browser.helpers import Phone, command, local, new_game, server_view, shot


async def test_grant_revive_and_cancel(phone: Phone, api: AsyncClient, live_server: str) -> None:
    game = await new_game(api, ["Alice", "Bob", "Cyril"])
    gid, org = game["gid"], game["org"]
    alice, bob, cyril = (game["players"][n] for n in ("Alice", "Bob", "Cyril"))
    console = await (await phone()).new_page()
    await console.goto(f"/#/join/{gid}/{org}")
    await expect(console.get_by_test_id("game-status")).to_have_attribute("data-status", "running")
    player = await (await phone()).new_page()
    await player.goto(local(alice["join_url"], live_server))
    await expect(player.get_by_test_id("my-code")).to_have_text(alice["code"])

    await console.get_by_test_id(f"player-open-{alice['player_id']}").click()
    await console.get_by_test_id(f"grant-card-{alice['player_id']}").click()
    await console.get_by_test_id("card-title").fill("Kosa Smrti")
    await console.get_by_test_id("card-big").fill("9")
    await console.get_by_test_id("card-small").fill("9")
    await console.get_by_test_id("card-kind").select_option("death")
    await shot(console, "13-console-grant-card")
    await console.get_by_test_id("grant-card-submit").click()
    await expect(player.locator('[data-testid^="card-"]', has_text="Kosa Smrti")).to_contain_text(
        "9/9"
    )
    await console.get_by_test_id(f"grant-crossbow-{alice['player_id']}").click()
    await expect(player.get_by_test_id("challenge-ranged")).to_be_visible()
    await expect(player.get_by_test_id("item-crossbow")).to_be_visible()

    # Alice kills Bob with the new card; the console shows him dead and revives him.
    await command(
        api, gid, alice["token"], {"type": "challenge", "target": bob["code"], "ranged": False}
    )
    view = await server_view(api, gid, org)
    duel = next(iter(view["duels"]))
    row = view["players"][alice["player_id"]]
    scythe = next(c["card_id"] for c in row["cards"] if c["title"] == "Kosa Smrti")
    bob_row = view["players"][bob["player_id"]]
    await command(api, gid, alice["token"], {"type": "pick", "duel_id": duel, "card_id": scythe})
    await command(
        api,
        gid,
        bob["token"],
        {"type": "pick", "duel_id": duel, "card_id": bob_row["cards"][0]["card_id"]},
    )
    await expect(console.get_by_test_id(f"org-dead-{bob['player_id']}")).to_be_visible()
    await console.get_by_test_id(f"player-open-{bob['player_id']}").click()
    await console.get_by_test_id(f"revive-{bob['player_id']}").click()
    await expect(console.get_by_test_id(f"org-dead-{bob['player_id']}")).to_have_count(0)

    # A stuck duel is cancelled from the console.
    await command(
        api, gid, cyril["token"], {"type": "challenge", "target": bob["code"], "ranged": False}
    )
    cancel = console.locator('[data-testid^="cancel-duel-"]')
    await expect(cancel).to_have_count(1)
    await shot(console, "14-console-duel")
    await cancel.click()
    await expect(cancel).to_have_count(0)
    await expect(console.get_by_test_id("outbox-count")).to_have_text("0")

    await console.get_by_test_id("end-game").click()
    await console.get_by_test_id("end-game-confirm").click()
    await expect(console.get_by_test_id("game-status")).to_have_attribute("data-status", "ended")
    await expect(console.get_by_test_id("seed")).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
    await player.get_by_test_id("reveal-ok").click()  # Alice's kill of Bob
    await expect(player.get_by_test_id("game-over")).to_be_visible()
    await expect(player.get_by_test_id("challenge-code")).to_have_count(0)
