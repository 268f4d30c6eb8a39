"""No signal, the right buttons: a player's phone in a silent dead spot says "bez signálu" (and not
"připojuji…" for the rest of the silence), puts the offline duel's two buttons on the first screen
of a 320 x 568 phone, in normal and sun mode, and tells a challenge stuck on a silent socket has
expired as soon as a queued one would."""

import asyncio
from datetime import UTC, datetime

from httpx import AsyncClient
from playwright.async_api import Page, WebSocketRoute, expect

from tests.browser.helpers import SOCKET, Phone, local, new_game, shot, top_shot

FIRST_SCREEN = 568
EXPIRY_MS = 60_000  # a challenge's life in the outbox (game.js)


class Silence:
    """The phone's socket: while `on`, nothing goes either way (the connection stays open)."""

    def __init__(self) -> None:
        self.on = False

    def route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda message: None if self.on else ws.send(message))
        ws.on_message(lambda message: None if self.on else server.send(message))


async def bottom_of(page: Page, testid: str) -> float:
    """Where the element ends, from the top of the page (scrolled to the top)."""
    bottom: float = await page.get_by_test_id(testid).evaluate(
        "(el) => el.getBoundingClientRect().bottom + scrollY"
    )
    return bottom


async def chip_samples(page: Page, seconds: float) -> list[tuple[float, str]]:
    """The connection chip's text every 250 ms: (seconds from the start, text)."""
    chip = page.get_by_test_id("connection")
    loop = asyncio.get_running_loop()
    start = loop.time()
    samples: list[tuple[float, str]] = []
    while (now := loop.time() - start) < seconds:
        samples.append((now, (await chip.inner_text()).strip()))
        await asyncio.sleep(0.25)
    return samples


async def test_a_silent_dead_spot_offers_the_offline_duel(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"])
    alice, bob = game["players"]["Alice"], game["players"]["Bob"]
    silence = Silence()
    context = await phone(viewport={"width": 320, "height": FIRST_SCREEN})
    await context.route_web_socket(SOCKET, silence.route)
    page = await context.new_page()
    await page.clock.install()  # time flows as usual until the test moves it
    await page.goto(local(alice["join_url"], live_server))
    chip = page.get_by_test_id("connection")
    await expect(chip).to_have_text("spojeno")
    # Prepared by itself: the offline duel's buttons are there while there is signal.
    await expect(page.get_by_test_id("offline-challenge")).to_be_visible(timeout=10_000)

    # Silence, the browser still online: "bez signálu" within 30 s, and it stays.
    silence.on = True
    samples = await chip_samples(page, 30)
    texts = [text for _, text in samples]
    assert "bez signálu" in texts, samples
    first = texts.index("bez signálu")
    assert samples[first][0] <= 30, samples
    after = texts[first:]
    assert "spojeno" not in after, samples
    run = longest = 0
    for text in after:
        run = run + 1 if text == "připojuji…" else 0
        longest = max(longest, run)
    assert longest <= 4, f"'připojuji…' for {longest * 0.25} s: {samples}"
    assert after[-1] == "bez signálu", samples

    # The phone knows it has no signal: the two offline buttons stand where "Bij se!" stood.
    await context.set_offline(True)
    await expect(chip).to_have_text("bez signálu")
    for sun in (False, True):
        if sun:
            await page.get_by_test_id("sun-switch").click()
        await page.evaluate("window.scrollTo(0, 0)")
        await expect(page.get_by_test_id("offline-challenge")).to_have_text("Vyzvat přes QR")
        await shot(page, f"320/no-signal-{'sun' if sun else 'normal'}")
        for testid in ("offline-challenge", "offline-answer"):
            bottom = await bottom_of(page, testid)
            assert bottom <= FIRST_SCREEN, (testid, "sun" if sun else "normal", bottom)
        assert await bottom_of(page, "offline-answer") <= await bottom_of(page, "challenge-submit")
        # Nothing past the edge, no button out of its section.
        assert await page.evaluate("document.documentElement.scrollWidth") <= 320
        inside = await page.get_by_test_id("offline-section").evaluate(
            """(el) => [...el.querySelectorAll("button")].every(
              (b) => b.getBoundingClientRect().right <= el.getBoundingClientRect().right)"""
        )
        assert inside, "a button sticks out of the offline section"
    await page.get_by_test_id("sun-switch").click()

    # Signal again: a challenge sent on the socket that then falls silent expires on time.
    silence.on = False
    await context.set_offline(False)
    await expect(chip).to_have_text("spojeno", timeout=20_000)
    await expect(page.get_by_test_id("challenge-code")).to_be_visible()
    # Back with signal, the offline duel goes back below the challenge.
    assert await bottom_of(page, "challenge-submit") < await bottom_of(page, "offline-challenge")
    silence.on = True
    await page.get_by_test_id("challenge-code").fill(bob["code"])
    sent: float = await page.evaluate("Date.now()")
    await page.get_by_test_id("challenge-submit").click()
    await expect(page.get_by_test_id("challenge-pending")).to_be_visible()
    # Nearly a minute on, all at once (no timer runs for the jump): the socket has not yet
    # found out it is silent when the challenge expires, two seconds later.
    await page.clock.set_system_time(datetime.fromtimestamp((sent + 58_000) / 1000, tz=UTC))
    told: float | None = None
    for _ in range(150):
        told = await page.evaluate(
            """() => {
              const banner = document.querySelector('[data-testid="error"]');
              return banner && banner.textContent.includes("Výzva vypršela") ? Date.now() : null;
            }"""
        )
        if told:
            break
        await asyncio.sleep(0.1)
    assert told, "the challenge on the silent socket never said it expired"
    late = told - (sent + EXPIRY_MS)
    assert late <= 3000, f"told {late / 1000:.1f} s after its expiry"
    await expect(page.get_by_test_id("outbox-count")).to_have_text("0")
    await top_shot(page, "320/no-signal-expired")
