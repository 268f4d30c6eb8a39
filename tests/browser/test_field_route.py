"""The organizer is told which route the invites take to the phones (`field-route`), and on the
field's own CA (`bijse serve --field-ca-page`) the invite sheet starts with the CA's page
(`invite-ca-step`): the console and the sheet at 320, 360 and 412 px, in Czech and English, in
normal and sun mode, for a server with a CA page, one with a trusted public https address, and one
on loopback. Each screen fits its width (tests/browser/test_widths.py's measure), axe finds
nothing serious at 360 px, and a screenshot of each goes to screenshots/field-route/<width>/."""

from collections.abc import AsyncIterator
from contextlib import aclosing, asynccontextmanager
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Browser, Page, Playwright, expect

from tests.browser.axe import findings
from tests.browser.conftest import phones
from tests.browser.helpers import new_game, shot
from tests.browser.test_widths import MEASURE, SHOT_WIDTH, WIDTHS
from tests.conftest import serve

CA_PAGE = "http://192.168.1.5/"
PUBLIC = "https://les.example.cz"
# A camp's long names: the sheet wraps them.
PLAYERS = ["Bohumila Procházková", "Maximilián Pospíšil", "Cyril"]
# What the route line says in each language, and whether the sheet has the CA step.
SAYS = {
    "field-ca": {
        "cs": ["Certifikát:", "certifikační autorita", CA_PAGE],
        "en": ["Certificate:", "certificate authority", CA_PAGE],
    },
    "trusted": {
        "cs": ["Certifikát:", "důvěryhodný", PUBLIC],
        "en": ["Certificate:", "trusted", PUBLIC],
    },
    "loopback": {"cs": ["jen na tento počítač"], "en": ["this computer only"]},
}
CA_STEP = {
    "cs": "Nejdřív naskenuj tento kód a nainstaluj certifikát, pak svou pozvánku.",
    "en": "First scan this code and install the certificate, then your invite.",
}


# The route line's height in lines of its own type, and where the console's content starts.
PLACE = """() => {
  const line = document.querySelector('[data-testid="field-route"]');
  const box = line.getBoundingClientRect();
  const main = document.querySelector("main").getBoundingClientRect();
  return [box.height / parseFloat(getComputedStyle(line).lineHeight), main.top];
}"""
# At most this many lines, in sun mode's bigger type on a 320 px phone too (its words wrap).
MOST_LINES = {"trusted": 4, "field-ca": 6}


@asynccontextmanager
async def server(route: str, database: str, live_server: str) -> AsyncIterator[str]:
    """A server whose invites take `route`: with a field CA page, with a public https address,
    or the live one on loopback."""
    if route == "loopback":
        yield live_server
        return
    options = {"field_ca_page": CA_PAGE} if route == "field-ca" else {"public_url": PUBLIC}
    async with aclosing(serve(database, **options)) as served:
        async for url in served:
            yield url


async def mode(page: Page, lang: str, sun: bool) -> None:
    """The page in `lang`, in sun mode or not (both are switches in the top bar)."""
    if await page.evaluate("document.documentElement.lang") != lang:
        await page.get_by_test_id("lang-switch").click()
        await expect(page.locator("html")).to_have_attribute("lang", lang)
    if await page.evaluate("document.documentElement.classList.contains('sun')") != sun:
        await page.get_by_test_id("sun-switch").click()


async def check(page: Page, width: int, name: str, problems: list[str]) -> None:
    """Nothing past the right edge, no small tap target; axe at 360 px; a screenshot."""
    problems += [f"{name}: {p}" for p in await page.evaluate(MEASURE, width)]
    if width == SHOT_WIDTH:
        blocking, _ = await findings(page)
        problems += [f"{name}: {p}" for p in blocking]
    await page.evaluate("window.scrollTo(0, 0)")
    await shot(page, f"field-route/{width}/{name}")


@pytest.mark.parametrize("route", ["field-ca", "trusted", "loopback"])
async def test_the_console_says_the_route_and_the_sheet_starts_with_the_ca_page(
    pw: Playwright, browser: Browser, live_server: str, tmp_path: Path, route: str
) -> None:
    problems: list[str] = []
    async with (
        server(route, f"sqlite:///{tmp_path / 'route.db'}", live_server) as url,
        httpx.AsyncClient(base_url=url, timeout=10) as api,
        phones(pw, browser, url) as make,
    ):
        game = await new_game(api, PLAYERS)
        invites = await api.get(
            f"/api/games/{game['gid']}/invites",
            headers={"Authorization": f"Bearer {game['org']}"},
        )
        has_ca = route == "field-ca"
        assert (invites.json()["ca_page"] is not None) == has_ca
        for width in WIDTHS:
            size = {"width": width, "height": 760}
            csp = {"bypass_csp": True} if width == SHOT_WIDTH else {}  # axe gets in
            context = await make(viewport=size, screen=size, device_scale_factor=2, **csp)
            page = await context.new_page()
            await page.goto(f"/#/join/{game['gid']}/{game['org']}")
            line = page.get_by_test_id("field-route")
            await expect(line).to_have_attribute("data-route", route)
            await expect(page.get_by_test_id("game-status")).to_be_visible()
            for lang in ("cs", "en"):
                for sun in (False, True):
                    await mode(page, lang, sun)
                    for words in SAYS[route][lang]:
                        await expect(line).to_contain_text(words)
                    look = f"{route}-console-{lang}{'-sun' if sun else ''}"
                    await check(page, width, look, problems)
                    lines, main_top = await page.evaluate(PLACE)
                    if route in MOST_LINES:  # a short line, not a banner over the console
                        where = f"{look} at {width} px"
                        assert round(lines) <= MOST_LINES[route], f"{where}: {lines} lines"
                        assert main_top <= 760 / 3, f"{where}: the console starts at {main_top}"
            warning = page.get_by_test_id("invite-address-warning")
            if route == "loopback":  # the warning, its title the route line: as it was
                await expect(warning).to_have_attribute("data-problem", "loopback")
            else:
                await expect(warning).to_have_count(0)

            await page.goto("/#/invites")
            await expect(page.get_by_test_id("invites")).to_be_visible()
            step = page.get_by_test_id("invite-ca-step")
            if not has_ca:
                await expect(step).to_have_count(0)
            for lang in ("cs", "en"):
                for sun in (False, True):
                    await mode(page, lang, sun)
                    if has_ca:
                        await expect(step).to_contain_text(CA_STEP[lang])
                        await expect(page.get_by_test_id("invite-ca-url")).to_have_text(CA_PAGE)
                        await expect(step.locator("svg")).to_be_visible()
                    look = f"{route}-invites-{lang}{'-sun' if sun else ''}"
                    await check(page, width, look, problems)
            if has_ca:  # printed: the CA step heads the sheet, above the first invite
                await page.emulate_media(media="print")
                await expect(step).to_be_visible()
                await expect(page.get_by_test_id("field-route")).to_be_hidden()
                step_box = await step.bounding_box()
                first = await page.locator(".invite").first.bounding_box()
                assert step_box and first and step_box["y"] + step_box["height"] <= first["y"]
                await shot(page, f"field-route/{width}/{route}-invites-print")
                await page.emulate_media(media="screen")
    assert not problems, "\n".join(problems)
