"""A server that creates games for its admin key only: the organizer's browser gets the key
from the organizer link, or types it in when the server asks."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Playwright, expect

from tests.browser.conftest import phones
from tests.browser.helpers import Phone, shot
from tests.conftest import serve

KEY = "klic-spravce-123"


@pytest.fixture
async def closed(pw: Playwright, browser: Browser, tmp_path: Path) -> AsyncIterator[Phone]:
    """Phones on a server whose game creation is closed to KEY."""
    async for url in serve(f"sqlite:///{tmp_path / 'admin.db'}", admin_token=KEY):
        async with phones(pw, browser, url) as make:
            yield make


async def test_the_organizer_link_carries_the_admin_key(closed: Phone) -> None:
    page = await (await closed()).new_page()
    await page.goto(f"/#/admin/{KEY}")
    await expect(page.get_by_test_id("create-game")).to_be_visible()
    assert KEY not in page.url  # out of the address bar and the history
    await page.get_by_test_id("game-name").fill("Les")
    await page.get_by_test_id("create-game").click()
    await expect(page.get_by_test_id("game-status")).to_have_attribute("data-status", "lobby")


async def test_without_the_key_the_form_asks_for_it(closed: Phone) -> None:
    page = await (await closed()).new_page()
    await page.goto("/")
    await expect(page.get_by_test_id("admin-key")).to_have_count(0)
    await page.get_by_test_id("create-game").click()
    await expect(page.get_by_test_id("notice")).to_contain_text("klíčem správce")
    await page.get_by_test_id("admin-key").fill("spatny")
    await page.get_by_test_id("create-game").click()
    await expect(page.get_by_test_id("admin-key")).to_be_visible()  # still refused
    await page.get_by_test_id("admin-key").fill(KEY)
    await shot(page, "60-create-admin-key")
    await page.get_by_test_id("create-game").click()
    await expect(page.get_by_test_id("game-status")).to_have_attribute("data-status", "lobby")
    assert await page.evaluate("localStorage.getItem('bijse.admin')") == KEY
