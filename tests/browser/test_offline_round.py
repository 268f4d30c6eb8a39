"""A round of the offline duel in as few gestures as the protocol allows (issue 30, point 3), on
the smallest phone (320 x 568), in normal and sun mode: each QR and the action that reads the
answer on the first screen, the verdict above the QR with "Rozumím" right under it, modules big
enough to read at arm's length, no bytes or QR versions on the screen, the home screen naming
the opponent and the result, and a camera that does not start said so with a way to try again."""

import asyncio
import json
from typing import Any

import segno
from playwright.async_api import Page, expect
from segno import encoder

from tests.browser.axe import findings
from tests.browser.helpers import (
    STUN_CARD,
    WOUND_CARD,
    Phone,
    Signal,
    kept_offline,
    local,
    new_game,
    top_shot,
    watch_errors,
)
from tests.browser.test_offline_duel import DECODER_LOADED, qr_png, read

SMALL = {"width": 320, "height": 568}
UNDER = {"readPick": "offline-read-pick", "readReveal": "offline-read-reveal"}  # by BOXES' key
TECHNICAL = r"/bajt|byte|verze|version/i"
# The page's boxes, scrolled to the top: each QR, the action under it, the verdict, "Rozumím".
BOXES = """() => {
  scrollTo(0, 0);
  const box = (id) => {
    const found = document.querySelector(`[data-testid="${id}"]`);
    if (!found) return null;
    const r = found.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, width: r.width };
  };
  const qr = document.querySelector('[data-testid="offline-qr"]');
  return {
    qr: box("offline-qr-image"), version: qr ? Number(qr.dataset.version) : null,
    readPick: box("offline-read-pick"), readReveal: box("offline-read-reveal"),
    verdict: box("reveal-verdict"), ok: box("offline-close"),
    technical: TECHNICAL.test(document.body.innerText),
  };
}""".replace("TECHNICAL", TECHNICAL)


async def measured(page: Page, name: str, action: str | None) -> dict[str, Any]:
    """The screen in normal and sun mode: the QR (and `action` under it) within the first 568
    px, at version 10 or less or 4 CSS px a module or more; no technical words; no serious axe
    finding. Screenshots of both."""
    found: dict[str, Any] = {}
    for sun in (False, True):
        switch = page.get_by_test_id("sun-switch")
        if (await switch.get_attribute("aria-checked") == "true") != sun:
            await switch.click()
        await expect(page.locator("html")).to_have_class("sun" if sun else "")
        # (the text is signed, then drawn: not there at the very moment of the tap)
        await expect(page.get_by_test_id("offline-qr-image")).to_be_visible()
        if action is not None:
            await expect(page.get_by_test_id(UNDER[action])).to_be_visible()
        boxes = await page.evaluate(BOXES)
        mode = "sun" if sun else "normal"
        await top_shot(page, f"320/offline-round-{name}-{mode}")
        assert not boxes["technical"], (name, mode)
        qr = boxes["qr"]
        assert qr is not None and qr["bottom"] <= SMALL["height"], (name, mode, boxes)
        modules = (boxes["version"] * 4 + 17) + 2 * 2  # the code and its 2-module quiet zone
        px = qr["width"] / modules
        assert boxes["version"] <= 10 or px >= 4, (name, mode, boxes["version"], px)
        if action is not None:
            under = boxes[action]
            assert under is not None and under["bottom"] <= SMALL["height"], (name, mode, boxes)
            assert 0 <= under["top"] - qr["bottom"] <= 16, (name, mode, boxes)  # right under
        blocking, _ = await findings(page)
        assert not blocking, (name, mode, blocking)
        found[mode] = {"version": boxes["version"], "px": round(px, 2), **boxes}
    await page.get_by_test_id("sun-switch").click()  # back to normal
    return found


async def verdict_first(page: Page, name: str) -> dict[str, Any]:
    """The verdict above the QR (if any) with "Rozumím" right under it, both on the first screen."""
    boxes = await page.evaluate(BOXES)
    verdict, ok = boxes["verdict"], boxes["ok"]
    assert verdict is not None and ok is not None, (name, boxes)
    assert 0 <= ok["top"] - verdict["bottom"] <= 16 and ok["bottom"] <= SMALL["height"], boxes
    if boxes["qr"] is not None:
        assert ok["bottom"] <= boxes["qr"]["top"], (name, boxes)
    await top_shot(page, f"320/offline-round-{name}")
    return dict(boxes)


async def small_phone(
    phone: Phone, game: dict[str, Any], name: str, live_server: str
) -> tuple[Page, Signal]:
    context = await phone(viewport=SMALL, bypass_csp=True)  # axe gets in
    signal = Signal()
    await signal.install(context)
    page = await context.new_page()
    await page.goto(local(game["players"][name]["join_url"], live_server))
    await expect(page.get_by_test_id("offline-challenge")).to_be_visible(timeout=10_000)
    return page, signal


async def has_key(page: Page, gid: str, player_id: str) -> None:
    """The phone's directory (kept for no signal) holds the player's key."""
    script = f"""() => JSON.parse(localStorage.getItem("bijse.directory.{gid}") || "{{}}")
        ?.players?.[{json.dumps(player_id)}]?.key ?? null"""
    for _ in range(100):
        if await page.evaluate(script):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"the directory of {page.url} lacks {player_id}'s key")


async def test_a_round_fits_the_smallest_screen_and_the_home_screen_says_how_it_ended(
    phone: Phone, api: Any, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"], stun_s=3)  # Bob's stun is over by his home
    players = game["players"]
    alice, alice_signal = await small_phone(phone, game, "Alice", live_server)
    bob, bob_signal = await small_phone(phone, game, "Bob", live_server)
    errors = watch_errors(alice) + watch_errors(bob)
    # Alice's phone opens again with signal after Bob registered: both hold both keys, so each
    # round 1 text names its key by id only (the short code).
    await alice.reload()
    await expect(alice.get_by_test_id("offline-challenge")).to_be_visible(timeout=10_000)
    await has_key(alice, game["gid"], players["Bob"]["player_id"])
    await has_key(bob, game["gid"], players["Alice"]["player_id"])
    for page, signal in ((alice, alice_signal), (bob, bob_signal)):
        for _ in range(150):
            if await page.evaluate(DECODER_LOADED):
                break
            await asyncio.sleep(0.1)
        await kept_offline(page)
        await signal.cut(page)

    await alice.get_by_test_id("offline-challenge").click()
    await alice.locator('[data-testid^="offline-card-"]', has_text=STUN_CARD).click()
    await alice.get_by_test_id("offline-confirm").click()
    sizes = {"challenge": await measured(alice, "1-challenge", "readPick")}
    await bob.get_by_test_id("offline-answer").click()
    await read(bob, await qr_png(alice))
    await bob.locator('[data-testid^="offline-card-"]', has_text=WOUND_CARD).click()
    await bob.get_by_test_id("offline-confirm").click()
    sizes["pick"] = await measured(bob, "2-pick", "readReveal")
    await alice.get_by_test_id("offline-read-pick").click()
    await read(alice, await qr_png(bob))  # no "lacks the key": the short pick is read at once
    await expect(alice.get_by_test_id("reveal-verdict")).to_have_text("Výhra!")
    sizes["reveal"] = await measured(alice, "3-reveal-a", None)
    await verdict_first(alice, "3-reveal-a-verdict")
    await bob.get_by_test_id("offline-read-reveal").click()
    await read(bob, await qr_png(alice))
    await expect(bob.get_by_test_id("reveal-verdict")).to_have_text("Prohra.")
    await verdict_first(bob, "4-reveal-b")
    for texts in [await page.evaluate("() => document.body.innerText") for page in (alice, bob)]:
        assert "bajt" not in texts.lower()
    print(
        "QR (version, CSS px a module) at 320 px:",
        {k: (v["normal"]["version"], v["normal"]["px"], v["sun"]["px"]) for k, v in sizes.items()},
    )

    # Signal again: the home screen names the opponent and how it ended.
    await alice_signal.restore(alice)
    await expect(alice.get_by_test_id("offline-sync-state")).to_have_attribute(
        "data-sync", "recorded", timeout=20_000
    )
    await alice.get_by_test_id("offline-close").click()
    entry = alice.get_by_test_id("offline-sync-recorded")
    await expect(entry).to_contain_text("Bob")
    await expect(entry.get_by_test_id("offline-sync-result")).to_have_text("Výhra")
    await expect(entry).to_contain_text("Zapsáno")
    await top_shot(alice, "320/offline-round-5-home-a")
    await bob_signal.restore(bob)
    await expect(bob.get_by_test_id("offline-sync-state")).to_have_attribute(
        "data-sync", "already", timeout=20_000
    )
    await bob.get_by_test_id("offline-close").click()
    await bob.get_by_test_id("lang-switch").click()
    entry = bob.get_by_test_id("offline-sync-already")
    await expect(entry).to_contain_text("Alice", timeout=10_000)
    await expect(entry.get_by_test_id("offline-sync-result")).to_have_text("Lost")
    await top_shot(bob, "320/offline-round-6-home-b-en")
    assert not [
        e for e in errors if "WebSocket" not in e and "ERR_INTERNET_DISCONNECTED" not in e
    ], errors


# A camera that does not start, as the browser says why.
REFUSE = """(name) => {
  window.cameraAsked = 0;
  navigator.mediaDevices.getUserMedia = async () => {
    window.cameraAsked += 1;
    throw new DOMException("no", name);
  };
}"""


async def test_a_camera_that_does_not_start_is_said_with_a_way_to_try_again(
    phone: Phone, api: Any, live_server: str
) -> None:
    game = await new_game(api, ["Alice", "Bob"])
    page, _ = await small_phone(phone, game, "Alice", live_server)
    for name, code, words in (
        ("NotAllowedError", "denied", "Kamera nemá povolení"),
        ("NotReadableError", "busy", "drží jiná aplikace"),
    ):
        await page.evaluate(REFUSE, name)
        await page.get_by_test_id("offline-answer").click()
        problem = page.get_by_test_id("camera-problem")
        await expect(problem).to_have_attribute("data-code", code)
        await expect(problem).to_contain_text(words)
        await expect(page.get_by_test_id("reader-photo-label")).to_be_visible()
        await page.get_by_test_id("camera-again").click()
        await page.wait_for_function("() => window.cameraAsked === 2")  # asked again
        await expect(problem).to_be_visible()
        await top_shot(page, f"320/offline-round-camera-{code}")
        blocking, _ = await findings(page)
        assert not blocking, blocking
        await page.get_by_test_id("reader-cancel").click()
    await page.get_by_test_id("lang-switch").click()
    await page.evaluate(REFUSE, "NotFoundError")
    await page.get_by_test_id("offline-answer").click()
    await expect(page.get_by_test_id("camera-problem")).to_contain_text("no camera")


async def test_an_offline_text_is_drawn_at_level_l_as_segno_draws_it(phone: Phone) -> None:
    page = await (await phone()).new_page()
    await page.goto("/")
    texts = ["x" * 271, '{"t":"p","é":"ž"}' * 16]
    ours = await page.evaluate(
        """async (texts) => {
        const { qrMatrix } = await import("/js/qr.js");
        return texts.map((text) => [1, 6].map((mask) =>
            qrMatrix(text, { mask, level: "L" }).map((row) => row.map(Number).join(""))));
    }""",
        texts,
    )
    original = encoder.write_padding_bits  # as tests/browser/test_ui.py: no 8 extra zero bits
    encoder.write_padding_bits = lambda buff, version, length: buff.extend(
        [0] * ((8 - length % 8) % 8)
    )
    try:
        for text, matrices in zip(texts, ours, strict=True):
            for mask, rows in zip([1, 6], matrices, strict=True):
                qr = segno.make(text, error="l", mask=mask, mode="byte", boost_error=False)
                assert rows == ["".join(map(str, row)) for row in qr.matrix], (text, mask)
    finally:
        encoder.write_padding_bits = original
