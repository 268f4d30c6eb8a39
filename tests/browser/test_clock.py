"""Countdowns come from absolute server times and the measured clock offset, not the phone clock."""

import re
import time

from httpx import AsyncClient
from playwright.async_api import expect

from tests.browser.helpers import Phone, command, local, new_game, stun_in_duel

NEAR_TWO_MINUTES = re.compile(r"^(2:00|1:5\d)$")


async def test_countdown_is_right_on_a_phone_with_a_wrong_clock(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"], stun_s=120)
    gid = game["gid"]
    alice, bob = game["players"]["Alice"], game["players"]["Bob"]
    ahead = await phone()
    await ahead.clock.install(time=time.time() + 3600)  # Bob's phone is an hour fast
    behind = await phone()
    await behind.clock.install(time=time.time() - 600)  # Alice's is ten minutes slow
    bob_page = await ahead.new_page()
    alice_page = await behind.new_page()
    await bob_page.goto(local(bob["join_url"], live_server))
    await alice_page.goto(local(alice["join_url"], live_server))
    await expect(bob_page.get_by_test_id("my-code")).to_be_visible()
    await expect(alice_page.get_by_test_id("my-code")).to_be_visible()

    await command(
        api, gid, alice["token"], {"type": "challenge", "target": bob["code"], "ranged": False}
    )
    await stun_in_duel(api, game, "Alice", "Bob")

    await expect(alice_page.get_by_test_id("reveal-outcomes").locator(".countdown")).to_have_text(
        NEAR_TWO_MINUTES
    )
    await bob_page.get_by_test_id("reveal-ok").click()
    await expect(bob_page.get_by_test_id("stun-countdown")).to_have_text(NEAR_TWO_MINUTES)


async def test_countdown_never_shows_more_than_its_duration(phone: Phone) -> None:
    """A ping that measured the offset a little low must not show a fresh 5:00 stun as 5:01."""
    page = await (await phone()).new_page()
    await page.goto("/")
    shown = await page.evaluate("""async () => {
        const clock = await import("/js/clock.js");
        const now = Date.now();
        // An asymmetric trip: the offset comes out 40 ms too low.
        clock.sample(now - 100, now, new Date(now - 90).toISOString());
        const until = new Date(now + 300000).toISOString();
        const before = clock.formatLeft(clock.msUntil(until));
        clock.seen(new Date(now).toISOString());  // the view of a stun the server decided now
        return { before, after: clock.formatLeft(clock.msUntil(until)) };
    }""")
    assert shown == {"before": "5:01", "after": "5:00"}


async def test_fresh_five_minute_stun_shows_five_minutes(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"], stun_s=300)
    alice, bob = game["players"]["Alice"], game["players"]["Bob"]
    page = await (await phone()).new_page()
    await page.goto(local(bob["join_url"], live_server))
    await expect(page.get_by_test_id("my-code")).to_be_visible()
    challenge = {"type": "challenge", "target": bob["code"], "ranged": False}
    await command(api, game["gid"], alice["token"], challenge)
    # Watch every text the loser's countdown shows from the moment it appears.
    await page.evaluate("""() => {
        window.countdownTexts = [];
        const seen = () => document.querySelectorAll(".countdown").forEach(
            (el) => window.countdownTexts.push(el.textContent));
        new MutationObserver(seen).observe(document.body,
            { subtree: true, childList: true, characterData: true });
    }""")
    await stun_in_duel(api, game, "Alice", "Bob")
    await expect(page.get_by_test_id("reveal-outcomes").locator(".countdown")).to_have_text(
        re.compile(r"^(5:00|4:5\d)$")
    )
    texts = await page.evaluate("window.countdownTexts")
    assert texts and max(texts) <= "5:00", texts


async def test_a_phone_clock_set_meanwhile_is_measured_anew(phone: Phone) -> None:
    """Samples taken before the phone's clock was set measured another clock: the first sample
    that none of them can agree with replaces them, however short their round trips were."""
    page = await (await phone()).new_page()
    await page.goto("/")
    offsets = await page.evaluate("""async () => {
        const clock = await import("/js/clock.js");
        const now = Date.now();
        for (let i = 0; i < 3; i++) clock.sample(now - 20, now, new Date(now - 10).toISOString());
        const before = clock.getOffset();
        // The phone's clock moves ten minutes ahead; the server's does not.
        const later = now + 600000;
        clock.sample(later - 200, later, new Date(now - 100).toISOString());
        const after = clock.getOffset();
        // A slower sample that agrees with the latest keeps it.
        clock.sample(later - 2000, later, new Date(now - 1000).toISOString());
        return { before, after, kept: clock.getOffset() };
    }""")
    assert offsets == {"before": 0, "after": -600000, "kept": -600000}, offsets
