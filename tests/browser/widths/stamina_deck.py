"""stamina-deck's screens for tests/browser/test_widths.py: a player in the lobby and in a
bout, the GM's mat."""

import httpx

from tests.browser.helpers import (
    command,
    new_gm_game,
)
from tests.browser.test_widths import Phones, join, org_url


async def screens(phones: Phones, api: httpx.AsyncClient) -> None:
    sword = {"lives": 5, "melee": 3, "weapon": {"name": "Šavle", "melee": True, "ranged": False}}
    characters = [
        {"name": "Rytíř Bořivoj", "side": "Hrad", "player": "Anna", "x": 3, "y": 3, **sword},
        {"name": "Lapka z Lesa", "side": "Les", "player": "Bob", "x": 4, "y": 3, **sword},
        {"name": "Lučištnice", "side": "Hrad", "lives": 4, "shooting": 2, "x": 12, "y": 12},
    ]
    game = await new_gm_game(api, "stamina-deck", ["Anna", "Bob"], characters)
    gid, org, ids = game["gid"], game["org"], game["ids"]
    anna = game["players"]["Anna"]
    await phones.look("sd-player-lobby", join(anna), f"deck-me-{ids['Rytíř Bořivoj']}")
    engage = {"type": "engage", "fighters": [ids["Rytíř Bořivoj"], ids["Lapka z Lesa"]]}
    await command(api, gid, org, engage)
    await command(api, gid, org, {"type": "start_round"})
    await phones.look("sd-player-bout", join(anna), "deck-hand")
    await phones.look("sd-gm", org_url(game), "deck-gm")
