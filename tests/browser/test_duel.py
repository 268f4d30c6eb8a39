"""An organizer sets up a game in the console; two phones duel until the loser is stunned."""

import re

from playwright.async_api import Locator, Page, expect

from tests.browser.helpers import STUN_CARD, WOUND_CARD, Phone, local, pick, shot, watch_errors

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
    await expect(alice.get_by_test_id("challenge-target")).to_contain_text("Bob")
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
