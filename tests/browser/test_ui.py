"""Language, plurals, sun mode, touch target sizes, and the QR encoder of the player's code."""

import json

import segno
from httpx import AsyncClient
from playwright.async_api import expect
from segno import encoder

from tests.browser.helpers import Phone, local, new_game


async def test_czech_plurals_and_english(phone: Phone) -> None:
    page = await (await phone()).new_page()
    await page.goto("/")
    words = await page.evaluate("""async () => {
        const i18n = await import("/js/i18n.js");
        const counts = [1, 2, 4, 5, 0, 1.5, 22];
        const cs = counts.map((count) => i18n.t("players.title", { count }));
        await i18n.setLang("en");
        const en = [1, 2].map((count) => i18n.t("players.title", { count }));
        await i18n.setLang("cs");
        return { cs, en };
    }""")
    assert words["cs"] == [
        "1 hráč",
        "2 hráči",
        "4 hráči",
        "5 hráčů",
        "0 hráčů",
        "1,5 hráče",
        "22 hráčů",
    ]
    assert words["en"] == ["1 player", "2 players"]


async def test_language_and_sun_mode_are_remembered(phone: Phone) -> None:
    page = await (await phone()).new_page()
    await page.goto("/")
    await expect(page.get_by_test_id("create-game")).to_have_text("Založit hru")
    await page.get_by_test_id("lang-switch").click()
    await expect(page.get_by_test_id("create-game")).to_have_text("Create game")
    await page.get_by_test_id("sun-switch").click()
    await expect(page.locator("html")).to_have_class("sun")
    await page.reload()
    await expect(page.get_by_test_id("create-game")).to_have_text("Create game")
    await expect(page.locator("html")).to_have_class("sun")
    assert await page.evaluate("document.documentElement.lang") == "en"


async def test_buttons_are_big_enough_on_a_phone(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"])
    page = await (await phone()).new_page()
    await page.goto(local(game["players"]["Alice"]["join_url"], live_server))
    await expect(page.get_by_test_id("challenge-submit")).to_be_visible()
    width = await page.evaluate("document.documentElement.clientWidth")
    assert width < 500  # laid out for the phone, not 980 px wide
    assert (
        await page.evaluate("document.documentElement.scrollWidth") <= width
    )  # no sideways scroll
    for testid in ("challenge-submit", "challenge-code", "show-qr", "lang-switch", "sun-switch"):
        box = await page.get_by_test_id(testid).bounding_box()
        assert box and box["height"] >= 44, (testid, box)
    box = await page.get_by_test_id("challenge-submit").bounding_box()
    assert box and box["height"] >= 48
    code_size = await page.get_by_test_id("my-code").evaluate(
        "el => parseFloat(getComputedStyle(el).fontSize)"
    )
    assert code_size >= 56


async def test_qr_of_the_code_matches_segno(phone: Phone) -> None:
    page = await (await phone()).new_page()
    await page.goto("/")
    texts = ["AB7K", "https://bijse.example/#/c/AB7K", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~"]
    ours = json.loads(
        await page.evaluate(
            """async (texts) => {
        const { qrMatrix } = await import("/js/qr.js");
        return JSON.stringify(texts.map((text) => [0, 1, 2, 3, 4, 5, 6, 7].map((mask) =>
            qrMatrix(text, { mask }).map((row) => row.map((d) => (d ? 1 : 0)).join("")))));
    }""",
            texts,
        )
    )
    # segno pads a byte-aligned stream with 8 more zero bits; ISO 18004 adds none (both decode).
    original = encoder.write_padding_bits
    encoder.write_padding_bits = lambda buff, version, length: buff.extend(
        [0] * ((8 - length % 8) % 8)
    )
    try:
        for text, matrices in zip(texts, ours, strict=True):
            for mask, rows in enumerate(matrices):
                qr = segno.make(
                    text, error="m", mask=mask, mode="byte", boost_error=False, micro=False
                )
                assert rows == ["".join(str(bit) for bit in row) for row in qr.matrix], (text, mask)
    finally:
        encoder.write_padding_bits = original


async def test_countdown_format_and_clock_offset(phone: Phone) -> None:
    page = await (await phone()).new_page()
    await page.goto("/")
    result = await page.evaluate("""async () => {
        const clock = await import("/js/clock.js");
        const texts = [300000, 299001, 60000, 59999, 1000, 1, 0, -5, 3600000].map(clock.formatLeft);
        // Three pings that agree (each puts the offset within half its round trip): the one
        // with the shortest round trip decides the offset.
        clock.sample(1000, 1400, new Date(6350).toISOString());  // rtt 400: offset 5150
        clock.sample(2000, 2100, new Date(7050).toISOString());  // rtt 100: offset 5000
        clock.sample(3000, 3900, new Date(8150).toISOString());  // rtt 900: offset 4700
        return { texts, offset: clock.getOffset() };
    }""")
    assert result["texts"] == [
        "5:00",
        "5:00",
        "1:00",
        "1:00",
        "0:01",
        "0:01",
        "0:00",
        "0:00",
        "60:00",
    ]
    assert result["offset"] == 5000
