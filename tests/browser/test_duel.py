"""An organizer sets up a game in the console; two phones duel until the loser is stunned."""

import re
from typing import Any

import httpx
from playwright.async_api import Locator, Page, expect

from tests.browser.helpers import (
    STUN_CARD,
    WOUND_CARD,
    Phone,
    command,
    local,
    new_game,
    pick,
    server_view,
    shot,
    top_shot,
    watch_errors,
)

M_SS = re.compile(r"^\d+:\d\d$")


def card(page: Page, title: str) -> Locator:
    return page.locator('[data-testid^="card-"]', has_text=title)


async def test_console_and_duel_to_stun(phone: Phone, live_server: str) -> None:
    organizer = await (await phone()).new_page()
    org_errors = watch_errors(organizer)
    await organizer.goto("/")
    await shot(organizer, "01-home")
    await organizer.get_by_test_id("game-name").fill("Bitva u Brodu")
    await organizer.get_by_test_id("config-stun-s").fill("120")
    await organizer.get_by_test_id("create-game").click()
    await expect(organizer.get_by_test_id("game-status")).to_have_attribute("data-status", "lobby")

    await organizer.get_by_test_id("player-list-input").fill("Alice\nBob\n")
    await organizer.get_by_test_id("add-players").click()
    await expect(organizer.locator('[data-testid^="player-row-"]')).to_have_count(2)
    await organizer.get_by_test_id("player-name").fill("Smrt")
    await organizer.get_by_test_id("player-role").select_option("organizer")
    await organizer.get_by_test_id("add-player").click()
    await expect(organizer.get_by_test_id("add-status")).to_contain_text("1")

    await organizer.get_by_test_id("show-invites").click()
    # Players only: an organizer's token is never on a sheet handed round.
    await expect(organizer.get_by_test_id("invite-url")).to_have_count(2)
    await expect(organizer.locator(".invite-qr svg").first).to_be_visible()
    await shot(organizer, "02-invites")
    await organizer.set_viewport_size({"width": 794, "height": 1123})  # A4 at 96 dpi
    await organizer.emulate_media(media="print")
    await shot(organizer, "02-invites-print")
    await organizer.emulate_media(media="screen")
    await organizer.set_viewport_size({"width": 412, "height": 839})
    invites = organizer.locator('[data-testid^="invite-"]').filter(
        has=organizer.get_by_test_id("invite-url")
    )
    urls = {}
    for i in range(await invites.count()):
        invite = invites.nth(i)
        urls[await invite.locator(".invite-name").inner_text()] = await invite.get_by_test_id(
            "invite-url"
        ).inner_text()
    await organizer.get_by_test_id("back-to-console").click()
    await organizer.get_by_test_id("start-game").click()
    await expect(organizer.get_by_test_id("game-status")).to_have_attribute(
        "data-status", "running"
    )

    alice = await (await phone()).new_page()
    bob = await (await phone()).new_page()
    errors = watch_errors(alice) + watch_errors(bob)
    await alice.goto(local(urls["Alice"], live_server))
    await bob.goto(local(urls["Bob"], live_server))
    await expect(bob.get_by_test_id("my-code")).to_have_text(re.compile(r"^[A-Z0-9]{4}$"))
    assert "/join/" not in bob.url  # the token leaves the address bar
    bob_code = await bob.get_by_test_id("my-code").inner_text()
    await expect(card(bob, STUN_CARD)).to_be_visible()
    await shot(bob, "03-player-home")

    await alice.get_by_test_id("challenge-code").fill(bob_code.lower())
    # No name before the server opens the duel: players do not get each other's codes.
    await expect(alice.get_by_test_id("challenge-target")).to_have_count(0)
    await alice.get_by_test_id("challenge-submit").click()
    await expect(alice.get_by_test_id("duel")).to_be_visible()
    await expect(bob.get_by_test_id("duel")).to_be_visible()
    await expect(bob.get_by_test_id("duel-opponent")).to_have_text("Alice")
    await expect(organizer.locator('[data-testid^="org-duel-"]')).to_have_count(2)
    await shot(bob, "04-duel-pick")

    await pick(alice, STUN_CARD)
    await expect(alice.get_by_test_id("my-pick")).to_contain_text(STUN_CARD)
    await expect(bob.get_by_test_id("opponent-picked")).to_be_visible()
    await shot(bob, "05-duel-opponent-picked")
    await pick(bob, WOUND_CARD)

    await expect(alice.get_by_test_id("reveal")).to_be_visible()
    await expect(bob.get_by_test_id("reveal")).to_be_visible()
    await expect(alice.get_by_test_id("reveal-verdict")).to_have_text("Výhra!")
    await expect(bob.get_by_test_id("reveal-verdict")).to_have_text("Prohra.")
    await expect(bob.get_by_test_id("reveal")).to_contain_text("3 je větší než 2")
    await expect(bob.get_by_test_id("reveal").get_by_test_id("stun-countdown")).to_have_text(M_SS)
    await shot(bob, "06-reveal-loser")
    await shot(alice, "07-reveal-winner")
    await bob.get_by_test_id("reveal-ok").click()
    await alice.get_by_test_id("reveal-ok").click()

    countdown = bob.get_by_test_id("stun-countdown")
    await expect(countdown).to_have_text(re.compile(r"^(2:00|1:5\d)$"))
    assert M_SS.match(await countdown.inner_text())
    await expect(bob.get_by_test_id("stun-screen")).to_contain_text("OMRÁČEN")
    await shot(bob, "08-stunned")
    await expect(alice.get_by_test_id("stun-countdown")).to_have_count(0)
    await expect(alice.get_by_test_id("challenge-code")).to_be_visible()

    bob_row = organizer.locator('[data-testid^="player-row-"]', has_text="Bob")
    await expect(bob_row.locator('[data-testid^="org-stun-"]')).to_have_text(M_SS)
    await bob_row.locator('[data-testid^="player-open-"]').click()
    await shot(organizer, "09-console")

    await bob.get_by_test_id("lang-switch").click()
    await expect(bob.get_by_test_id("stun-screen")).to_contain_text("STUNNED")
    await shot(bob, "10-stunned-en")
    await bob.reload()
    await expect(bob.get_by_test_id("stun-screen")).to_contain_text("STUNNED")  # the choice is kept
    assert not errors and not org_errors, errors + org_errors


ESCAPE_CARD = "Ztracení se v davu"  # 1/4: loses to the 2/3 wound card on the big number
SIZES = [(320, 568), (360, 740), (412, 915)]

# Every element of the selector whose text is wider than its box: a word broken off or cut.
BROKEN = """(selector) => [...document.querySelectorAll(selector)]
  .filter((e) => e.scrollWidth > e.clientWidth + 1)
  .map((e) => [e.textContent, e.scrollWidth, e.clientWidth, innerWidth])"""
# The card kinds as they are drawn: size in px, weight, colour.
KINDS = """() => [...document.querySelectorAll(".card-kind")].map((e) => {
  const style = getComputedStyle(e);
  return [parseFloat(style.fontSize), Number(style.fontWeight), style.color];
})"""


async def on_first_screen(page: Page, testid: str) -> None:
    """The element is whole within the viewport, the page scrolled to its top."""
    await page.evaluate("window.scrollTo(0, 0)")
    box = await page.get_by_test_id(testid).first.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None, testid
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], (testid, box, size)


async def readable(page: Page, sun: bool) -> None:
    """No name or title broken mid-word; card kinds bold, 16 px or more, black in the sun."""
    assert await page.evaluate(BROKEN, ".card-title, .name, .who, .duel-opponent strong") == []
    kinds = await page.evaluate(KINDS)
    assert kinds, "no card kind drawn"
    for size, weight, color in kinds:
        assert size >= 16 and weight >= 700, (size, weight)
        if sun:
            assert color == "rgb(0, 0, 0)", color


async def each_size(page: Page, name: str, check: Any) -> None:
    """`check(page, sun)` at every phone size, in normal and in sun mode, with a screenshot."""
    for sun in (False, True):
        if sun != await page.evaluate("document.documentElement.classList.contains('sun')"):
            await page.get_by_test_id("sun-switch").click()
        for width, height in SIZES:
            await page.set_viewport_size({"width": width, "height": height})
            await check(page, sun)
            await shot(page, f"{width}/{name}{'-sun' if sun else ''}", full_page=False)


async def test_a_duel_fits_a_small_phone_in_gloves_and_the_end_tells_the_story(
    phone: Phone, api: httpx.AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alžběta Nejedlá", "Bartoloměj Vyskočil"], stun_s=60)
    alice, bob = game["players"]["Alžběta Nejedlá"], game["players"]["Bartoloměj Vyskočil"]
    page = await (await phone()).new_page()
    errors = watch_errors(page)
    await page.goto(local(bob["join_url"], live_server))
    await expect(page.get_by_test_id("my-code")).to_have_text(bob["code"])
    await page.get_by_test_id("unlock-alerts").click()  # once a phone, before the first duel

    async def code_field(page: Page, sun: bool) -> None:
        """A whole code fits the field it is typed in (and so its placeholder, as long)."""
        field = page.get_by_test_id("challenge-code")
        await field.fill("WWWW")  # the widest letters
        width = await field.evaluate("(e) => [e.scrollWidth, e.clientWidth]")
        assert width[0] <= width[1], (width, page.viewport_size, sun)
        await field.fill("")

    await each_size(page, "challenge-code", code_field)
    await command(api, game["gid"], alice["token"], {"type": "challenge", "target": bob["code"]})
    await expect(page.get_by_test_id("duel")).to_be_visible()

    async def pick_screen(page: Page, sun: bool) -> None:
        first = page.locator(".pick-grid button.card").first
        if await page.get_by_test_id("pick-confirm").count() == 0:
            await first.click()
        box = await first.bounding_box()
        size = page.viewport_size
        assert box is not None and size is not None
        await on_first_screen(page, "pick-confirm")
        assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], box
        await readable(page, sun)

    await each_size(page, "duel-pick", pick_screen)

    view = await server_view(api, game["gid"], game["org"])
    (duel_id,) = view["duels"]
    cards = {
        pid: {c["title"]: c["card_id"] for c in p["cards"]} for pid, p in view["players"].items()
    }
    for who, title in ((alice, WOUND_CARD), (bob, ESCAPE_CARD)):
        body = {"type": "pick", "duel_id": duel_id, "card_id": cards[who["player_id"]][title]}
        await command(api, game["gid"], who["token"], body)
    await expect(page.get_by_test_id("reveal-verdict")).to_have_text("Prohra.")
    # Why the wound card won comes from the server (the view's `why`), not from a copy of the rule.
    await expect(page.get_by_test_id("reveal-why")).to_have_text(
        f"{WOUND_CARD}: velké číslo 2 je větší než 1"
    )

    async def reveal_screen(page: Page, sun: bool) -> None:
        await on_first_screen(page, "reveal-verdict")
        await on_first_screen(page, "reveal-ok")
        await readable(page, sun)

    await each_size(page, "reveal", reveal_screen)
    await expect(page.get_by_test_id("reveal-ok")).to_have_text("Rozumím")
    await page.get_by_test_id("reveal-ok").click()
    await expect(page.get_by_test_id("wound-banner")).to_be_visible()

    await command(api, game["gid"], game["org"], {"type": "end_game"})
    over = page.get_by_test_id("game-over")
    await expect(over.get_by_test_id("game-over-mine")).to_have_text(
        "Tvoje postava přežila, ale se zraněním."
    )
    await expect(over.get_by_test_id("game-over-result")).to_have_text(
        "Na nohou: 1 · zranění: 1 · padlí: 0"
    )
    replay = over.get_by_test_id("game-over-replay")
    await expect(replay).to_have_attribute("href", f"#/replay/{game['gid']}")
    await expect(page.get_by_test_id("challenge-form")).to_have_count(0)
    await top_shot(page, "duel-game-over")
    missing = await page.evaluate("[...(globalThis.bijseMissingWords ?? [])]")
    assert not missing and not errors, (missing, errors)


async def test_a_challenger_picks_its_card_with_the_challenge(
    phone: Phone, api: httpx.AsyncClient, live_server: str
) -> None:
    """The challenger taps a card under the code and challenges: the duel opens with that card
    picked, the opponent sees only that it has picked, and its pick reveals both."""
    game = await new_game(api, ["Alice", "Bob"], stun_s=60)
    alice, bob = game["players"]["Alice"], game["players"]["Bob"]
    page = await (await phone()).new_page()
    errors = watch_errors(page)
    await page.goto(local(alice["join_url"], live_server))
    await expect(page.get_by_test_id("my-code")).to_have_text(alice["code"])
    view = await server_view(api, game["gid"], alice["token"])
    mine = {c["title"]: c["card_id"] for c in view["me"]["cards"]}
    chair = page.get_by_test_id(f"challenge-card-{mine[STUN_CARD]}")
    await chair.click()
    await expect(chair).to_have_attribute("aria-pressed", "true")
    # A second tap puts it back; a third takes it again.
    await chair.click()
    await expect(chair).to_have_attribute("aria-pressed", "false")
    await chair.click()

    async def form_screen(page: Page, sun: bool) -> None:
        await chair.scroll_into_view_if_needed()  # the screenshot shows the chips
        box = await chair.bounding_box()
        assert box is not None and box["height"] >= 48, box  # a glove's target
        assert await page.evaluate(BROKEN, ".card-chip-title") == []

    await each_size(page, "challenge-with-card", form_screen)
    await page.get_by_test_id("challenge-code").fill(bob["code"])
    await page.get_by_test_id("challenge-submit").click()
    await expect(page.get_by_test_id("my-pick")).to_contain_text(STUN_CARD)
    await expect(page.get_by_test_id("opponent-picking")).to_be_visible()
    theirs = (await server_view(api, game["gid"], bob["token"]))["duel"]
    assert theirs["opponent_picked"] is True and theirs.get("my_pick") is None
    assert mine[STUN_CARD] not in str(await server_view(api, game["gid"], bob["token"]))
    bob_cards = (await server_view(api, game["gid"], bob["token"]))["me"]["cards"]
    dagger = next(c["card_id"] for c in bob_cards if c["title"] == WOUND_CARD)
    body = {"type": "pick", "duel_id": theirs["duel_id"], "card_id": dagger}
    await command(api, game["gid"], bob["token"], body)
    await expect(page.get_by_test_id("reveal-verdict")).to_have_text("Výhra!")
    await shot(page, "challenge-with-card-reveal")
    await page.get_by_test_id("reveal-ok").click()
    # The next challenge starts with no card chosen.
    await expect(page.get_by_test_id(f"challenge-card-{mine[STUN_CARD]}")).to_have_attribute(
        "aria-pressed", "false"
    )
    missing = await page.evaluate("[...(globalThis.bijseMissingWords ?? [])]")
    assert not missing and not errors, (missing, errors)
