"""dice-combat's screens for tests/browser/test_widths.py: a player's idle sheet and attack
roll, the GM's item and fight."""

import httpx
from playwright.async_api import Page

from tests.browser.helpers import (
    command,
    new_gm_game,
    server_view,
)
from tests.browser.test_widths import Phones, join, org_url


async def screens(phones: Phones, api: httpx.AsyncClient) -> None:
    dagger = {"name": "Dlouhá lovecká dýka", "attack": 2, "damage": 1, "defence": 1}
    sheets = [
        {"name": "Hrdina Bohumil", "side": "Družina", "player": "Alice", "lives": 80},
        {"name": "Skřetí náčelník", "side": "Skřeti", "str": 3, "lives": 40},
    ]
    sheets[0]["second_weapon"] = dagger
    game = await new_gm_game(api, "dice-combat", ["Alice"], sheets)
    gid, org = game["gid"], game["org"]
    hero, orc = game["ids"]["Hrdina Bohumil"], game["ids"]["Skřetí náčelník"]
    alice = game["players"]["Alice"]
    swim = {"kind": "skill", "name": "Plavání přes brod", "field": "athletics", "difficulty": 10}
    await command(api, gid, org, {"type": "check", "combatants": [hero, orc], **swim})
    await phones.look("dc-player-idle", join(alice), f"my-combatant-{hero}")
    await command(api, gid, org, {"type": "begin_fight", "combatants": [hero, orc]})

    async def open_item(page: Page) -> None:  # a potion's effect, with every field shown
        await page.get_by_test_id("action-use_item").click()
        await page.get_by_test_id("item-field").select_option("str")

    await phones.look("dc-gm-item", org_url(game), "action-picker", open_item)
    turn = (await server_view(api, gid, org))["fight"]["turn"]
    target = orc if turn == hero else hero
    await command(api, gid, org, {"type": "attack", "attacker_id": turn, "target_id": target})
    await phones.look("dc-player-roll", join(alice), "my-attack")
    await phones.look("dc-gm", org_url(game), "dice-gm")
