"""The organizer grants a special card in the console; its holder wins a duel with it, and the
loser's phone shows the card's words, big, with a countdown from server time."""

import re

import httpx
from playwright.async_api import Locator, Page, expect

from tests.browser.helpers import (
    SCREENSHOTS,
    WOUND_CARD,
    Phone,
    command,
    events,
    local,
    new_game,
    pick,
    top_shot,
    watch_errors,
)

CURSE = "Kletba: 10 minut mluvíš jen ve verších"
TEN_MINUTES = re.compile(r"^(10:00|9:[45]\d)$")
M_SS = re.compile(r"^\d+:\d\d$")
WIDTHS = (360, 320)


async def shots(page: Page, name: str) -> None:
    """The screen from its top at each narrow phone width, back to 360 px after."""
    for width in WIDTHS:
        await page.set_viewport_size({"width": width, "height": 740})
        await top_shot(page, f"{width}/{name}")
    await page.set_viewport_size({"width": WIDTHS[0], "height": 740})


async def part_shot(part: Locator, name: str) -> None:
    """A screenshot of one part of a long screen (a console's row), at 360 px."""
    await part.screenshot(path=str(SCREENSHOTS / f"{WIDTHS[0]}" / f"{name}.png"))


async def test_a_special_card_leaves_its_words_on_the_losers_phone(
    phone: Phone, api: httpx.AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"])
    gid, org = game["gid"], game["org"]
    alice, bob = game["players"]["Alice"], game["players"]["Bob"]
    narrow = {"width": WIDTHS[0], "height": 740}
    console = await (await phone(viewport=narrow)).new_page()
    alice_page = await (await phone(viewport=narrow)).new_page()
    bob_page = await (await phone(viewport=narrow)).new_page()
    errors = watch_errors(console) + watch_errors(alice_page) + watch_errors(bob_page)
    await console.goto(f"/#/join/{gid}/{org}")
    await alice_page.goto(local(alice["join_url"], live_server))
    await bob_page.goto(local(bob["join_url"], live_server))
    await expect(bob_page.get_by_test_id("my-code")).to_have_text(bob["code"])

    # The organizer grants it: the kind "special" asks for the effect and an optional time.
    await console.get_by_test_id(f"player-open-{alice['player_id']}").click()
    await console.get_by_test_id(f"grant-card-{alice['player_id']}").click()
    await expect(console.get_by_test_id("card-effect")).to_have_count(0)
    await console.get_by_test_id("card-title").fill("Kletba")
    await console.get_by_test_id("card-big").fill("3")
    await console.get_by_test_id("card-small").fill("2")
    await console.get_by_test_id("card-kind").select_option("special")
    await console.get_by_test_id("card-effect").fill(CURSE)
    await console.get_by_test_id("card-effect-s").fill("600")
    await shots(console, "special-grant")
    await part_shot(console.get_by_test_id("grant-form"), "special-grant-form")
    await console.get_by_test_id("grant-card-submit").click()

    held = alice_page.locator('[data-testid^="card-"]', has_text="Kletba")
    await expect(held).to_contain_text(CURSE)
    await expect(held.locator(".card-kind")).to_have_text("zvláštní")
    await shots(alice_page, "special-hand")

    await alice_page.get_by_test_id("challenge-code").fill(bob["code"])
    await alice_page.get_by_test_id("challenge-submit").click()
    await expect(alice_page.get_by_test_id("duel")).to_be_visible()
    await expect(bob_page.get_by_test_id("duel")).to_be_visible()
    # On the pick screen the card says its kind and what it does.
    await alice_page.locator(".pick-grid button.card", has_text="Kletba").click()
    await expect(alice_page.locator("button.card.chosen")).to_contain_text(CURSE)
    await shots(alice_page, "special-pick")
    await alice_page.get_by_test_id("pick-confirm").click()
    await pick(bob_page, WOUND_CARD)  # 2/3 loses to 3/2 on the big number

    # The reveal: the loser reads the words and their countdown, the winner what it did.
    await expect(bob_page.get_by_test_id("reveal-verdict")).to_have_text("Prohra.")
    mine = bob_page.get_by_test_id("reveal-effect-mine")
    await expect(mine).to_contain_text(CURSE)
    await expect(mine.get_by_test_id("effect-countdown")).to_have_text(TEN_MINUTES)
    await shots(bob_page, "special-reveal-loser")
    theirs = alice_page.get_by_test_id("reveal-effect-other")
    await expect(theirs).to_contain_text("Bob utrpí:")
    await expect(theirs).to_contain_text(CURSE)
    await shots(alice_page, "special-reveal-winner")

    await bob_page.get_by_test_id("reveal-ok").click()
    banner = bob_page.get_by_test_id("effect-banner")
    await expect(banner.get_by_test_id("effect-text")).to_have_text(CURSE)
    await expect(banner.get_by_test_id("effect-countdown")).to_have_text(TEN_MINUTES)
    font = await banner.get_by_test_id("effect-text").evaluate(
        "(e) => parseFloat(getComputedStyle(e).fontSize)"
    )
    assert font >= 28, font  # big: read at arm's length
    # No status of its own: the loser may challenge at once, and is neither stunned nor wounded.
    await expect(bob_page.get_by_test_id("challenge-code")).to_be_visible()
    await expect(bob_page.get_by_test_id("stun-screen")).to_have_count(0)
    await expect(bob_page.get_by_test_id("wound-banner")).to_have_count(0)
    await shots(bob_page, "special-effect")

    bob_row = console.get_by_test_id(f"org-effect-{bob['player_id']}")
    await expect(bob_row).to_contain_text(CURSE)
    await expect(bob_row.get_by_test_id(f"org-effect-countdown-{bob['player_id']}")).to_have_text(
        M_SS
    )
    await shots(console, "special-console")
    await part_shot(console.get_by_test_id(f"player-row-{bob['player_id']}"), "special-console-row")

    await bob_page.get_by_test_id("lang-switch").click()
    await expect(banner).to_contain_text("A special card struck you:")
    await shots(bob_page, "special-effect-en")

    (suffered,) = [e for e in await events(api, gid, org) if e["type"] == "effect_suffered"]
    assert suffered["data"]["player_id"] == bob["player_id"]
    assert suffered["data"]["effect"] == CURSE and suffered["data"]["effect_s"] == 600

    # The replay tells it too: a jump to it, the event in words, the loser's effect at that time.
    await bob_page.get_by_test_id("lang-switch").click()
    await command(api, gid, org, {"type": "end_game"})
    await bob_page.goto(f"/#/replay/{gid}")
    await bob_page.get_by_test_id("replay-scrubber").fill("1")
    await bob_page.get_by_test_id("replay-next-special").click()
    seq = str(suffered["seq"])
    await expect(bob_page.get_by_test_id("replay-seq")).to_have_value(seq)
    said = bob_page.get_by_test_id(f"replay-event-{seq}")
    await expect(said).to_contain_text("Zvláštní účinek")
    await expect(said).to_contain_text(f"Bob: {CURSE} (do ")
    view = bob_page.get_by_test_id("replay-view")
    await expect(view.locator(".chip.effect")).to_contain_text(CURSE)
    await shots(bob_page, "special-replay")
    assert not errors, errors  # and no word missing: the `phone` fixture checks every page
