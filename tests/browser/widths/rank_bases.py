"""rank-bases's screens for tests/browser/test_widths.py: the lobby and the leaders' setup, a
player's duel and raid, the leaders', the console and the board."""

import httpx
from playwright.async_api import Page, expect

from tests.browser.helpers import (
    command,
    new_rank_game,
    server_view,
)
from tests.browser.test_widths import Phones, join, org_url


async def screens(phones: Phones, api: httpx.AsyncClient) -> None:
    lobby = await new_rank_game(api, start=False, ranks=False)
    await phones.look("rb-console-lobby", org_url(lobby), "game-status")
    await phones.look("rb-leader-setup", join(lobby["people"]["red-leader"]), "team-setup")

    game = await new_rank_game(api)
    gid, people = game["gid"], game["people"]
    red4, blue2 = people["red4"], people["blue2"]
    await phones.look("rb-player", join(red4), "my-code")
    await command(api, gid, red4["token"], {"type": "duel", "target": blue2["code"]})
    await phones.look("rb-duel-incoming", join(blue2), "duel-incoming")
    await phones.look("rb-duel-waiting", join(red4), "duel-waiting")
    incoming = (await server_view(api, gid, blue2["token"]))["duel"]
    await command(api, gid, blue2["token"], {"type": "reveal", "duel_id": incoming["duel_id"]})
    await phones.look("rb-duel-result", join(blue2), "duel-result")

    async def open_delivery(page: Page) -> None:
        await page.get_by_test_id(f"deliver-{red4['player_id']}").click()
        await expect(page.get_by_test_id("deliver-panel")).to_be_visible()

    await phones.look("rb-leader", join(people["red-leader"]), "base-team", open_delivery)
    red3 = people["red3"]
    await command(api, gid, red3["token"], {"type": "raid", "team_id": "blue"})
    await phones.look("rb-raid-waiting", join(red3), "raid-state")
    await phones.look("rb-leader-raid", join(people["blue-leader"]), "base-team")
    await phones.look("rb-console", org_url(game), "game-status")
    await phones.look("rb-board", join(people["board"]), "board")
