"""Browser tests: the PWA in Chromium (phones emulated as a Pixel 7) against a live server.

Uses the `live_server` fixture of tests/conftest.py. Chromium is the Debian package at
/usr/lib/chromium/chromium (override with BIJSE_CHROMIUM); without it these tests are skipped,
unless BIJSE_REQUIRE_BROWSER is set, which turns the skip into a failure.
"""

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Playwright,
    async_playwright,
)
from playwright.async_api import (
    Error as PlaywrightError,
)

from tests.browser.helpers import SCREENSHOTS, Phone

CHROMIUM = Path(os.environ.get("BIJSE_CHROMIUM", "/usr/lib/chromium/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if SCREENSHOTS.is_dir() and any(SCREENSHOTS.iterdir()):
        terminalreporter.write_line(f"browser screenshots: {SCREENSHOTS}")
        for folder in sorted(d for d in SCREENSHOTS.iterdir() if d.is_dir()):
            what = f"{folder.name} px wide" if folder.name.isdigit() else folder.name
            terminalreporter.write_line(f"browser screenshots, {what}: {folder}")


@pytest.fixture(scope="session")
async def pw() -> AsyncIterator[Playwright]:
    if not CHROMIUM.exists():
        if os.environ.get("BIJSE_REQUIRE_BROWSER"):
            pytest.fail(f"BIJSE_REQUIRE_BROWSER is set but {CHROMIUM} is missing")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    async with async_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
async def browser(pw: Playwright) -> AsyncIterator[Browser]:
    browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield browser
    await browser.close()


MISSING_WORDS = "[...(globalThis.bijseMissingWords ?? [])]"


@asynccontextmanager
async def phones(pw: Playwright, browser: Browser, base_url: str) -> AsyncIterator[Phone]:
    """A factory of phone-sized browser contexts (Pixel 7) on `base_url`; closed at the end."""
    contexts: list[BrowserContext] = []
    refused: list[str] = []  # what the server's Content-Security-Policy blocked, on any page

    def heard(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            refused.append(f"{message.page.url if message.page else '?'}: {message.text}")

    async def make(**options: Any) -> BrowserContext:
        context = await browser.new_context(
            **{**pw.devices["Pixel 7"], "base_url": base_url, **options}
        )
        context.set_default_timeout(10_000)
        context.on("console", heard)
        contexts.append(context)
        return context

    missing: set[str] = set()  # keys a screen asked for that no catalogue has (i18n.js)
    try:
        yield make
    finally:
        for context in contexts:
            for page in context.pages:
                with suppress(PlaywrightError):  # a page that is gone, or not the app's
                    missing.update(await page.evaluate(MISSING_WORDS))
            await context.close()
    assert not refused, "the PWA broke its own CSP:\n" + "\n".join(refused)
    assert not missing, f"screens asked for words no catalogue has: {sorted(missing)}"


@pytest.fixture
async def phone(pw: Playwright, browser: Browser, live_server: str) -> AsyncIterator[Phone]:
    """Phones on the live server (keyword arguments override the context's options)."""
    async with phones(pw, browser, live_server) as make:
        yield make


@pytest.fixture
async def api(live_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server, timeout=10) as client:
        yield client
