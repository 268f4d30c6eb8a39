"""Challenge by scanning the opponent's QR, where the browser has BarcodeDetector (stubbed here:
Chromium on Linux has none, and the test camera is a canvas)."""

import re

from httpx import AsyncClient
from playwright.async_api import expect

from tests.browser.helpers import Phone, local, new_game, shot

CAMERA_AND_DETECTOR = """
navigator.mediaDevices.getUserMedia = async () => {
  const canvas = document.createElement("canvas");
  canvas.width = 64;
  canvas.height = 64;
  canvas.getContext("2d").fillRect(0, 0, 64, 64);
  return canvas.captureStream(5);
};
window.BarcodeDetector = class {
  static async getSupportedFormats() { return ["qr_code"]; }
  async detect() {
    window.__frames = (window.__frames || 0) + 1;
    return window.__frames < 3 ? [] : [{ rawValue: window.__qr }];
  }
};
"""


async def test_challenge_by_scanning(phone: Phone, api: AsyncClient, live_server: str) -> None:
    game = await new_game(api, ["Alice", "Bob"])
    bob = game["players"]["Bob"]
    context = await phone()
    await context.add_init_script(CAMERA_AND_DETECTOR)
    page = await context.new_page()
    await page.goto(local(game["players"]["Alice"]["join_url"], live_server))
    await page.evaluate("code => { window.__qr = code; }", f"https://example.org/#/c/{bob['code']}")
    await page.get_by_test_id("scan-qr").click()
    await expect(page.get_by_test_id("duel")).to_be_visible()
    await expect(page.get_by_test_id("duel-opponent")).to_have_text("Bob")
    await shot(page, "18-duel-after-scan")


async def test_scan_button_hidden_without_barcode_detector(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Alice"])
    page = await (await phone()).new_page()
    await page.goto(local(game["players"]["Alice"]["join_url"], live_server))
    await expect(page.get_by_test_id("challenge-submit")).to_be_visible()
    assert await page.evaluate("'BarcodeDetector' in window") is False
    await expect(page.get_by_test_id("scan-qr")).to_have_count(0)
    await expect(page.get_by_test_id("my-code")).to_have_text(re.compile(r"^[A-Z0-9]{4}$"))
