"""The console's head counts who is connected, who opened the invite and who is ready for duels
with no signal, live, and each player's row marks the same: Czech first, at 320, 360 and 412 px,
in sun mode too, then in English."""

import pytest
from httpx import AsyncClient
from playwright.async_api import Page, expect

from tests.browser.axe import findings
from tests.browser.helpers import (
    Phone,
    command,
    local,
    new_game,
    new_gm_game,
    new_rank_game,
    server_view,
    shot,
)
from tests.rules.phones import Phone as Keys


async def counts(console: Page, connected: int, joined: int, ready: int | None) -> None:
    """The head's counts (ready: None where the ruleset has no offline duel: no such part)."""
    for name, number in (("connected", connected), ("joined", joined), ("ready", ready)):
        part = console.get_by_test_id(f"presence-{name}")
        if number is None:
            await expect(part).to_have_count(0)
        else:
            await expect(part).to_have_attribute("data-count", str(number))


async def keys(api: AsyncClient, gid: str, org: str) -> int:
    """The players with a key registered, as the server says (a phone registers its own key
    by itself once it has signal)."""
    view = await server_view(api, gid, org)
    return sum(1 for p in view["players"].values() if p["key_id"] is not None)


async def mark(console: Page, player_id: str, state: str) -> None:
    row = console.get_by_test_id(f"presence-{player_id}")
    await expect(row).to_have_attribute("data-presence", state)


async def test_the_head_counts_presence_live(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    names = ["Anna", "Bára", "Cyril", "Dan", "Eva"]
    game = await new_game(api, names)
    gid, org, players = game["gid"], game["org"], game["players"]
    for name in ("Dan", "Eva"):  # their phones registered a key (and so joined), then left
        member = players[name]
        key = Keys(member["player_id"]).public_key
        await command(api, gid, member["token"], {"type": "register_key", "public_key": key})

    context = await phone(viewport={"width": 320, "height": 800}, bypass_csp=True)  # axe gets in
    console = await context.new_page()
    await console.goto(f"/#/join/{gid}/{org}")
    await expect(console.get_by_test_id("game-status")).to_have_attribute("data-status", "running")
    await counts(console, connected=0, joined=2, ready=2)
    line = console.get_by_test_id("presence-line")
    assert await console.evaluate("document.documentElement.lang") == "cs"
    await expect(line).to_contain_text("0 z 5 připojeno")
    await expect(line).to_contain_text("2 z 5 otevřelo pozvánku")
    await expect(line).to_contain_text("2 z 5 připraveno na souboj bez signálu")
    anna, bara = players["Anna"], players["Bára"]
    await mark(console, anna["player_id"], "absent")
    await mark(console, players["Dan"]["player_id"], "joined")
    await expect(console.get_by_test_id(f"ready-{players['Eva']['player_id']}")).to_be_visible()
    await expect(console.get_by_test_id(f"ready-{anna['player_id']}")).to_have_count(0)

    # Anna's and Bára's phones open the game: connected, joined, live on the console; each
    # registers its key by itself.
    pages = []
    for member in (anna, bara):
        page = await (await phone()).new_page()
        await page.goto(local(member["join_url"], live_server))
        await expect(page.get_by_test_id("my-code")).to_have_text(member["code"])
        pages.append(page)
    await counts(console, connected=2, joined=4, ready=4)
    assert await keys(api, gid, org) == 4
    await mark(console, anna["player_id"], "connected")
    await expect(line).to_contain_text("2 z 5 připojeno")
    await expect(console.get_by_test_id(f"ready-{anna['player_id']}")).to_be_visible()

    for width in (320, 360, 412):
        for sun in (False, True):
            await console.set_viewport_size({"width": width, "height": 800})
            on = await console.evaluate("document.documentElement.classList.contains('sun')")
            if on != sun:
                await console.get_by_test_id("sun-switch").click()
            await line.scroll_into_view_if_needed()
            await shot(console, f"{width}/console-presence{'-sun' if sun else ''}", full_page=False)
            wide = await console.evaluate("document.documentElement.scrollWidth")
            assert wide <= width, f"the console is {wide} px wide at {width} px"
            box = await line.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
            blocking, _ = await findings(console)
            assert not blocking, blocking

    # Anna closes her page: still joined, no longer connected.
    await pages[0].close()
    await counts(console, connected=1, joined=4, ready=4)
    await mark(console, anna["player_id"], "joined")

    # In English, the same counts.
    await console.get_by_test_id("lang-switch").click()
    await expect(line).to_contain_text("1 of 5 connected")
    await expect(line).to_contain_text("4 of 5 opened the invite")
    await expect(line).to_contain_text("4 of 5 ready for offline duels")


@pytest.mark.parametrize("ruleset", ["rank-bases", "dice-combat", "stamina-deck"])
async def test_every_rulesets_console_shows_who_is_connected(
    phone: Phone, api: AsyncClient, live_server: str, ruleset: str
) -> None:
    if ruleset == "rank-bases":
        made = await new_rank_game(api)
        gid, org, player = made["gid"], made["org"], made["people"]["red1"]
        everybody = 10
    else:
        made = await new_gm_game(api, ruleset, ["Anna", "Bára"], [])
        gid, org, player = made["gid"], made["org"], made["players"]["Anna"]
        everybody = 2
    console = await (await phone(viewport={"width": 320, "height": 760})).new_page()
    await console.goto(f"/#/join/{gid}/{org}")
    await counts(console, connected=0, joined=0, ready=None)
    await mark(console, player["player_id"], "absent")
    page = await (await phone()).new_page()
    await page.goto(local(player["join_url"], live_server))
    await counts(console, connected=1, joined=1, ready=None)
    await mark(console, player["player_id"], "connected")
    await expect(console.get_by_test_id("presence-line")).to_contain_text(
        f"1 z {everybody} připojeno"
    )
    await console.get_by_test_id(f"presence-{player['player_id']}").scroll_into_view_if_needed()
    await shot(console, f"320/console-presence-{ruleset}", full_page=False)
