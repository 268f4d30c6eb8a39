"""The console's head counts who is connected, who opened the invite and who is ready for duels
with no signal, live, and each player's row marks the same: at 320 px, in sun mode."""

from httpx import AsyncClient
from playwright.async_api import Page, expect

from tests.browser.helpers import Phone, command, local, new_game, server_view, shot
from tests.rules.phones import Phone as Keys


async def counts(console: Page, connected: int, joined: int, ready: int) -> None:
    for name, number in (("connected", connected), ("joined", joined), ("ready", ready)):
        part = console.get_by_test_id(f"presence-{name}")
        await expect(part).to_have_attribute("data-count", str(number))


async def keys(api: AsyncClient, gid: str, org: str) -> int:
    """The players with a key registered, as the server says (a phone registers its own key
    by itself once it has signal)."""
    view = await server_view(api, gid, org)
    return sum(1 for p in view["players"].values() if p["key_id"] is not None)


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

    console = await (await phone(viewport={"width": 320, "height": 800})).new_page()
    await console.goto(f"/#/join/{gid}/{org}")
    await expect(console.get_by_test_id("game-status")).to_have_attribute("data-status", "running")
    await counts(console, connected=0, joined=2, ready=2)
    line = console.get_by_test_id("presence-line")
    if await console.evaluate("document.documentElement.lang") == "cs":
        await expect(line).to_contain_text("0 z 5 připojeno")
        await expect(line).to_contain_text("2 připraveni na souboj bez signálu")
    anna, bob = players["Anna"], players["Bára"]
    await expect(console.get_by_test_id(f"presence-{anna['player_id']}")).to_have_attribute(
        "data-presence", "absent"
    )
    await expect(console.get_by_test_id(f"ready-{players['Eva']['player_id']}")).to_be_visible()

    # Anna's and Bára's phones open the game: connected, joined, live on the console.
    pages = []
    for member in (anna, bob):
        page = await (await phone()).new_page()
        await page.goto(local(member["join_url"], live_server))
        await expect(page.get_by_test_id("my-code")).to_have_text(member["code"])
        pages.append(page)
    for page in pages:  # each phone prepared itself for duels with no signal, or did not
        await page.wait_for_timeout(500)
    await counts(console, connected=2, joined=4, ready=await keys(api, gid, org))
    await expect(console.get_by_test_id(f"presence-{anna['player_id']}")).to_have_attribute(
        "data-presence", "connected"
    )
    if await console.evaluate("document.documentElement.lang") == "cs":
        await expect(line).to_contain_text("2 z 5 připojeno")
    if not await console.evaluate("document.documentElement.classList.contains('sun')"):
        await console.get_by_test_id("sun-switch").click()
    await console.evaluate("window.scrollTo(0, 0)")
    await shot(console, "320/console-presence-sun")
    await console.get_by_test_id("presence-line").scroll_into_view_if_needed()
    await shot(console, "320/console-presence-rows-sun", full_page=False)
    width = await console.evaluate("document.documentElement.scrollWidth")
    assert width <= 320, f"the console is {width} px wide at 320 px"

    # Anna closes her page: still joined, no longer connected.
    await pages[0].close()
    await counts(console, connected=1, joined=4, ready=await keys(api, gid, org))
    await expect(console.get_by_test_id(f"presence-{anna['player_id']}")).to_have_attribute(
        "data-presence", "joined"
    )
