"""Every screen of every ruleset fits a phone 320, 360 and 412 px wide, in normal and sun mode:
one test per registered ruleset, its screens set up by its case (tests/browser/widths/<module>.py:
a registered ruleset without one fails), after its part of the new-game form.

The games are set up over HTTP; one page per width (each its own browser context) opens every
screen in turn, and on each measures that nothing reaches past the right edge (no sideways
scroll), that every tap target is at least 48 px high, in both modes, and writes a screenshot of
each screen in both modes to screenshots/<width>/. At 360 px each screen is also read in
English, and no screen may hold words of the other language but the game's own names and titles;
and axe runs on it in both modes: no serious or critical finding (tests/browser/axe.py).
"""

import asyncio
import importlib
import importlib.util
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from playwright.async_api import Page, expect

from server.rules import RULESETS
from tests.browser.axe import findings
from tests.browser.helpers import (
    Phone,
    local,
    top_shot,
)

WIDTHS = (320, 360, 412)
SHOT_WIDTH = 360  # the width whose screens are also read in English

# What sticks out past the right (or left) edge, and tap targets lower than 48 px. An element
# inside a scrolling box (the battle mat, the replay list) may extend past it: the box is checked.
MEASURE = """(width) => {
  const doc = document.documentElement;
  const problems = [];
  if (doc.scrollWidth > width) problems.push(`scrollWidth ${doc.scrollWidth} > ${width}`);
  const inScroller = (el) => {
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== "visible") return true;
    }
    return false;
  };
  const name = (el) => {
    const id = el.dataset.testid ? `[${el.dataset.testid}]` : "";
    const cls = typeof el.className === "string" && el.className
      ? `.${el.className.split(" ").join(".")}` : "";
    return `${el.tagName.toLowerCase()}${id}${cls} "${(el.textContent || "").trim().slice(0, 30)}"`;
  };
  const taps = "button, a[href], select, summary, label.check, "
    + "input:not([type=checkbox]):not([type=radio]):not([type=range])";
  for (const el of document.body.querySelectorAll("*")) {
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || el.closest("svg") && el.tagName !== "svg") continue;
    if (inScroller(el)) continue;
    const up = el.parentElement.getBoundingClientRect();
    const parentOut = up.right > width + 0.5 || up.left < -0.5;  // report the outermost only
    if ((box.right > width + 0.5 || box.left < -0.5) && !parentOut) {
      problems.push(`${name(el)} spans ${Math.round(box.left)}..${Math.round(box.right)}`);
    }
    if (el.matches(taps) && !el.closest(".sr-only, .visually-hidden") && box.height < 47.5) {
      problems.push(`${name(el)} is ${Math.round(box.height)} px high`);
    }
  }
  return problems;
}"""


# Czech in what should be English: its letters, or a word no English sentence has.
CZECH = re.compile(
    r"[ěščřžýůďťňáíéúĚŠČŘŽÝŮĎŤŇÁÍÉÚ]|\b(?:hráč\w*|hra|kol[oa]|souboj\w*|sáh\w*)\b", re.I
)
# English in what should be Czech: words no Czech sentence has ("EN" is the language switch).
ENGLISH = re.compile(
    r"\b(?:the|and|you|your|player|players|round|card|cards|game|wins?|turn|attack|waiting|"
    r"duel|stunned|wounded|dead|start|end|sun)\b",
    re.I,
)
# The game's own strings (names, titles, teams) as the server has them: Czech in any language.
DATA = """async () => {
  const sessions = JSON.parse(localStorage.getItem("bijse.sessions") || "[]");
  const now = sessions.find((s) => s.token === localStorage.getItem("bijse.current"));
  if (!now) return [];
  const auth = { headers: { Authorization: `Bearer ${now.token}` } };
  const urls = [`/api/games/${now.game_id}/view`, `/api/games/${now.game_id}/players`];
  const got = await Promise.all(
    urls.map((url) => fetch(url, auth).then((r) => r.json()).catch(() => ({}))));
  const out = [];
  const walk = (v) => typeof v === "string" ? out.push(v)
    : v && typeof v === "object" && Object.values(v).forEach(walk);
  walk(got);
  return out.filter((s) => s.length > 1).sort((a, b) => b.length - a.length);
}"""


async def reader_text(page: Page, lang: str) -> str:
    """The screen's words in `lang`, without the game's own strings and without what the page
    marks as another language (the stun, in both)."""
    text: str = await page.evaluate(
        """(lang) => [...document.querySelectorAll(`body [lang]:not([lang="${lang}"])`)]
            .reduce((text, el) => text.replace(el.innerText, " "), document.body.innerText)""",
        lang,
    )
    for data in await page.evaluate(DATA):
        text = text.replace(data, " ")
    return text


async def one_language(page: Page) -> list[str]:
    """The screen in Czech holds no English, and in English no Czech, but the game's strings."""
    found = [
        f"English left: {line.strip()!r}"
        for line in (await reader_text(page, "cs")).splitlines()
        if ENGLISH.search(line)
    ]
    await page.get_by_test_id("lang-switch").click()
    await expect(page.locator("html")).to_have_attribute("lang", "en")
    await page.wait_for_timeout(200)
    text = await reader_text(page, "en")
    await page.get_by_test_id("lang-switch").click()
    await expect(page.locator("html")).to_have_attribute("lang", "cs")
    return found + [
        f"Czech left: {line.strip()!r}" for line in text.splitlines() if CZECH.search(line)
    ]


@dataclass
class Phones:
    """One page per width; `look` opens a screen on each and measures it in both modes."""

    pages: dict[int, Page]
    live_server: str
    problems: list[str] = field(default_factory=list)
    minor: list[str] = field(default_factory=list)  # axe's findings below serious: printed

    async def look(
        self,
        name: str,
        url: str,
        ready: str,
        prepare: Callable[[Page], Awaitable[Any]] | None = None,
    ) -> None:
        # The widths side by side: each page is a context of its own, and most of a look is
        # waiting for the page (a third of the browser suite's time, one after the other).
        looks = (
            self.look_at(width, page, name, url, ready, prepare)
            for width, page in self.pages.items()
        )
        await asyncio.gather(*looks)

    async def look_at(
        self,
        width: int,
        page: Page,
        name: str,
        url: str,
        ready: str,
        prepare: Callable[[Page], Awaitable[Any]] | None,
    ) -> None:
        await page.goto(local(url, self.live_server) if "://" in url else url)
        await expect(page.get_by_test_id(ready).first).to_be_visible()
        if prepare:
            await prepare(page)
        for sun in (False, True):
            if await page.evaluate("document.documentElement.classList.contains('sun')") != sun:
                await page.get_by_test_id("sun-switch").click()
            found = await page.evaluate(MEASURE, width)
            mode = "sun" if sun else "normal"
            self.problems += [f"{name} at {width} px, {mode}: {p}" for p in found]
            await top_shot(page, f"{width}/{name}{'-sun' if sun else ''}")
            if width == SHOT_WIDTH:  # axe, once a screen and mode: the serious fail
                blocking, minor = await findings(page)
                self.problems += [f"{name} at {width} px, {mode}: {p}" for p in blocking]
                self.minor += [f"{name}, {mode}: {p}" for p in minor]
        await page.get_by_test_id("sun-switch").click()  # back to normal
        if width == SHOT_WIDTH:
            self.problems += [f"{name}: {p}" for p in await one_language(page)]

    def assert_fit(self) -> None:
        print("\n".join(["axe, below serious:", *self.minor]))
        assert not self.problems, "\n".join(self.problems)


@pytest.fixture
async def phones(phone: Phone, live_server: str) -> AsyncIterator[Phones]:
    pages = {}
    for width in WIDTHS:
        size = {"width": width, "height": 760}
        # axe is injected past the app's CSP on one width; the others keep the CSP enforced.
        csp = {"bypass_csp": True} if width == SHOT_WIDTH else {}
        context = await phone(viewport=size, screen=size, device_scale_factor=2, **csp)
        pages[width] = await context.new_page()
    yield Phones(pages, live_server)


def join(member: dict[str, Any]) -> str:
    url: str = member["join_url"]
    return url


def org_url(game: dict[str, Any]) -> str:
    return f"/#/join/{game['gid']}/{game['org']}"


Case = Callable[[Phones, httpx.AsyncClient], Awaitable[None]]


def case(ruleset: str) -> Case | None:
    """A ruleset's screens: `screens` of tests/browser/widths/<module>.py."""
    name = f"tests.browser.widths.{ruleset.replace('-', '_')}"
    if importlib.util.find_spec(name) is None:
        return None
    screens: Case = importlib.import_module(name).screens
    return screens


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
async def test_every_screen_of_the_ruleset_fits(
    ruleset: str, phones: Phones, api: httpx.AsyncClient
) -> None:
    screens = case(ruleset)
    assert screens, f"{ruleset} is registered but has no tests/browser/widths/ case"

    async def pick_ruleset(page: Page) -> None:
        await page.get_by_test_id("config-ruleset").select_option(ruleset)

    await phones.look(f"home-{ruleset}", "/#/games", "create-form", pick_ruleset)
    await screens(phones, api)
    phones.assert_fit()
