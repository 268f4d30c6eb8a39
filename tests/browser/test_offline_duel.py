"""An offline duel by QR (issue 23, the phone side): two phones with no signal settle a card
duel face to face, each QR image read by the other phone's reader (a photo of the code, as the
reader's photo button takes it), then each phone brings the signed record when it has signal and
the server takes it exactly once."""

import asyncio
import base64
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from httpx import AsyncClient
from playwright.async_api import Page, Response, expect

from tests.browser.helpers import (
    STUN_CARD,
    WOUND_CARD,
    Phone,
    Signal,
    command,
    events,
    kept_offline,
    local,
    new_game,
    shot,
    watch_errors,
)

M_SS = re.compile(r"^\d+:\d\d$")
DECODER_LOADED = '() => typeof globalThis.jsQR === "function"'  # vendor/jsQR.js has run
DRAW = re.compile(r"^Nikdo nevyhrál")  # a round with no winner


async def qr_png(page: Page) -> bytes:
    """The QR the phone shows, as a camera would see it: a picture of the code on the screen."""
    code = page.get_by_test_id("offline-qr-image")
    await code.scroll_into_view_if_needed()
    return await code.screenshot()


async def read(page: Page, picture: bytes) -> None:
    """The reader on `page` takes the picture (its photo button)."""
    await page.get_by_test_id("reader-photo").set_input_files(
        files=[{"name": "qr.png", "mimeType": "image/png", "buffer": picture}]
    )


async def test_texts_are_signed_checked_and_read_back_from_the_qr(phone: Phone) -> None:
    """The pure parts: a key made on the phone signs, a changed text or a wrong card fails, and a
    signed challenge's QR (its version said) reads back to the very same text."""
    page = await (await phone()).new_page()
    await page.goto("/")
    found = await page.evaluate(
        """async () => {
        const q = await import("/js/rulesets/card-duel/qrtext.js");
        const { makeKey } = await import("/js/rulesets/card-duel/keys.js");
        const { qrMatrix } = await import("/js/qr.js");
        const key = await makeKey("g0123456789abcdef", "p1");
        const nonce = q.randomB64(16);
        const body = { t: "c", g: "0123456789abcdef", d: q.randomB64(8), a: "p1", v: 12, r: 0,
            K: key.public_key, n: 1, at: 1800000000000, h: await q.commitment("k1", nonce) };
        const text = await q.seal(body, key.privateKey);
        const parsed = q.parse(text);
        const changed = q.parse(text.replace('"v":12', '"v":13'));
        return {
            text, version: (qrMatrix(text).length - 17) / 4, keyId: key.key_id,
            good: await q.signedBy(parsed, key.public_key),
            changed: await q.signedBy(changed, key.public_key),
            opens: await q.commitment("k1", nonce) === parsed.body.h,
            wrongCard: await q.commitment("k2", nonce) === parsed.body.h,
        };
    }"""
    )
    assert found["good"] and found["opens"]
    assert not found["changed"] and not found["wrongCard"]
    assert len(found["keyId"]) == 11
    size = len(found["text"].encode())
    assert size < 340 and found["version"] <= 14, (size, found["version"])
    await page.evaluate(
        """async (text) => {
        const { qrSvg } = await import("/js/qr.js");
        const box = document.createElement("div");
        box.dataset.testid = "offline-qr-image";
        box.style.width = "300px";
        box.innerHTML = qrSvg(text);
        document.body.replaceChildren(box);
    }""",
        found["text"],
    )
    picture = await qr_png(page)
    back = await page.evaluate(
        """async (b64) => {
        const { readFile } = await import("/js/rulesets/card-duel/reader.js");
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        return readFile(new Blob([bytes], { type: "image/png" }));
    }""",
        base64.b64encode(picture).decode(),
    )
    assert back == found["text"]


QR_SIZES: list[tuple[int, int]] = []  # (bytes, version) of each QR shown


async def small_qr(page: Page) -> None:
    """The QR shown is small enough for a phone screen read at arm's length."""
    shown = page.get_by_test_id("offline-qr")
    size = int(await shown.get_attribute("data-bytes") or 0)
    version = int(await shown.get_attribute("data-version") or 0)
    QR_SIZES.append((size, version))
    assert size <= 420 and version <= 15, (size, version)


async def play_round(
    alice: Page, bob: Page, a_card: str, b_card: str, b_reads: str, n: str
) -> None:
    """One round by QR, from A's card choice to B's reading of the reveal."""
    # A commits to a card and shows the challenge.
    await alice.locator('[data-testid^="offline-card-"]', has_text=a_card).click()
    await alice.get_by_test_id("offline-confirm").click()
    await expect(alice.get_by_test_id("offline-show")).to_have_attribute("data-step", "c")
    await small_qr(alice)
    await shot(alice, f"360/offline-{n}-1-challenge")
    # B reads it, picks, and shows its signed pick.
    await bob.get_by_test_id(b_reads).click()
    await read(bob, await qr_png(alice))
    await expect(bob.get_by_test_id("offline-choose")).to_be_visible()
    await expect(bob.get_by_test_id("duel-opponent")).to_have_text("Alice")
    await bob.locator('[data-testid^="offline-card-"]', has_text=b_card).click()
    await bob.get_by_test_id("offline-confirm").click()
    await expect(bob.get_by_test_id("offline-show")).to_have_attribute("data-step", "p")
    await small_qr(bob)
    await shot(bob, f"360/offline-{n}-2-pick")
    if n == "1":
        # The record lives in IndexedDB, the reader in the worker's cache: a reload with no
        # signal loses nothing; the main screen leads back to the duel.
        await bob.reload()
        await bob.get_by_test_id("offline-resume").click()
        await expect(bob.get_by_test_id("offline-show")).to_have_attribute("data-step", "p")
    # A reads the pick and reveals at once: A's phone settles the round.
    await alice.get_by_test_id("offline-read-pick").click()
    await read(alice, await qr_png(bob))
    if n in ("1", "void"):
        # Alice's phone last had signal before Bob registered his key, and the pick names it by
        # id: her phone says so, and Bob's shows the long code (with the key) at one tap.
        error = alice.get_by_test_id("reader-error")
        await expect(error).to_have_attribute("data-code", "unknown_key")
        await expect(error).to_contain_text("Bob")
        await bob.get_by_test_id("offline-long-code").click()
        await read(alice, await qr_png(bob))
    await expect(alice.get_by_test_id("offline-show")).to_have_attribute("data-step", "r")
    await small_qr(alice)
    await shot(alice, f"360/offline-{n}-3-reveal-a")
    # B reads the reveal (it opens A's commitment) and settles the round too.
    await bob.get_by_test_id("offline-read-reveal").click()
    await read(bob, await qr_png(alice))
    await expect(bob.get_by_test_id("offline-show")).to_have_attribute("data-step", "r")
    await shot(bob, f"360/offline-{n}-4-reveal-b")


def bijse(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.serve.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


async def online_phones(
    phone: Phone, game: dict[str, Any], live_server: str, *, clock_on: str | None = None
) -> tuple[dict[str, Page], dict[str, Signal], list[str]]:
    """Alice's and Bob's phones (360 px), each with its key registered and the app kept offline;
    `clock_on`: the phone whose clock the test moves on."""
    pages: dict[str, Page] = {}
    signals: dict[str, Signal] = {}
    errors: list[str] = []
    for name in ("Alice", "Bob"):
        context = await phone(viewport={"width": 360, "height": 780})
        signals[name] = Signal()
        await signals[name].install(context)
        page = await context.new_page()
        if name == clock_on:
            await page.clock.install()  # time flows as usual until the test moves it on
        errors += watch_errors(page)
        await page.goto(local(game["players"][name]["join_url"], live_server))
        # Online, no tap: the phone makes its key and registers it by itself; then it offers
        # the duel (the prepare button is only a fallback for a registration that failed).
        await expect(page.get_by_test_id("offline-challenge")).to_be_visible(timeout=10_000)
        await expect(page.get_by_test_id("offline-register")).to_have_count(0)
        if name == clock_on:
            await page.clock.fast_forward("00:04")
        # The QR decoder (Chromium here has no BarcodeDetector) comes a moment after the screen.
        for _ in range(150):  # polled from here: a page whose clock a test holds has no timers
            if await page.evaluate(DECODER_LOADED):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the QR decoder was not loaded while online")
        if name != clock_on:  # that page is not reloaded: what it loaded stays in memory
            await kept_offline(page)
        pages[name] = page
    return pages, signals, errors


async def test_offline_duel_by_qr_is_recorded_once(
    phone: Phone, api: AsyncClient, live_server: str, session_dir: Path, tmp_path: Path
) -> None:
    game = await new_game(api, ["Alice", "Bob"], stun_s=120)
    players = game["players"]
    pages, signals, errors = await online_phones(phone, game, live_server)
    alice, bob = pages["Alice"], pages["Bob"]
    await shot(alice, "360/offline-01-main")

    for name, page in pages.items():
        await signals[name].cut(page)
    await expect(alice.get_by_test_id("connection")).to_have_text("bez signálu")

    # Round 1: both play the same card, nobody wins; the exchange repeats.
    await alice.get_by_test_id("offline-challenge").click()
    await play_round(alice, bob, STUN_CARD, STUN_CARD, "offline-answer", "1")
    await expect(alice.get_by_test_id("reveal-verdict")).to_have_text(DRAW)
    await expect(bob.get_by_test_id("reveal-verdict")).to_have_text(DRAW)
    await alice.get_by_test_id("offline-next-round").click()
    # Round 2: A's stun beats B's wound; each phone settles it the same.
    await play_round(alice, bob, STUN_CARD, WOUND_CARD, "offline-read-next", "2")
    await expect(alice.get_by_test_id("reveal-verdict")).to_have_text("Výhra!")
    await expect(bob.get_by_test_id("reveal-verdict")).to_have_text("Prohra.")
    # B's stun counts down from the reveal's time.
    await expect(bob.get_by_test_id("stun-countdown")).to_have_text(M_SS)
    await shot(bob, "360/offline-2-5-reveal-b")
    await expect(bob.get_by_test_id("offline-sync-state")).to_have_attribute("data-sync", "pending")

    # A gets signal first: the log holds the duel once, with both phones' signatures.
    await signals["Alice"].restore(alice)
    await expect(alice.get_by_test_id("offline-sync-state")).to_have_attribute(
        "data-sync", "recorded", timeout=20_000
    )
    log = await events(api, game["gid"], game["org"])
    recorded = [e for e in log if e["type"] == "offline_duel_recorded"]
    assert len(recorded) == 1
    record = recorded[0]["data"]["record"]
    assert [json.loads(text.rpartition("~")[0])["t"] for text in record] == ["c", "p", "r"] * 2
    assert recorded[0]["data"]["challenger"] == players["Alice"]["player_id"]
    assert recorded[0]["data"]["target"] == players["Bob"]["player_id"]
    stunned = [e for e in log if e["type"] == "player_stunned"]
    assert [e["data"]["player_id"] for e in stunned] == [players["Bob"]["player_id"]]

    # B gets signal: told it was recorded already, and nothing is written twice.
    await signals["Bob"].restore(bob)
    await expect(bob.get_by_test_id("offline-sync-state")).to_have_attribute(
        "data-sync", "already", timeout=20_000
    )
    await shot(bob, "360/offline-06-already")
    log = await events(api, game["gid"], game["org"])
    assert len([e for e in log if e["type"] == "offline_duel_recorded"]) == 1
    # Closed, the duel is not told again by the online reveal screen: A is back on the main
    # screen, B on the stun screen (in English once switched).
    await alice.get_by_test_id("offline-close").click()
    await expect(alice.get_by_test_id("offline-section")).to_be_visible()
    await expect(alice.get_by_test_id("reveal")).to_have_count(0)
    await bob.get_by_test_id("lang-switch").click()
    await expect(bob.get_by_test_id("offline-sync-state")).to_have_text(
        re.compile(r"^Already recorded")
    )
    await shot(bob, "360/offline-07-already-en")
    await bob.get_by_test_id("offline-close").click()
    await expect(bob.get_by_test_id("stun-countdown")).to_have_text(M_SS)
    await shot(bob, "360/offline-08-stunned-en")

    print(f"offline duel QRs shown, (bytes, QR version at level L) in order: {QR_SIZES}")
    await command(api, game["gid"], game["org"], {"type": "end_game"})  # the seed, for verify
    exported = bijse(
        "export", game["gid"], "--database-url", f"sqlite:///{session_dir / 'live.db'}"
    )
    assert exported.returncode == 0, exported.stderr
    path = tmp_path / "offline.ndjson"
    path.write_text(exported.stdout, encoding="utf-8")
    assert bijse("verify", str(path)).returncode == 0
    assert not [
        e for e in errors if "WebSocket" not in e and "ERR_INTERNET_DISCONNECTED" not in e
    ], errors


async def test_a_duel_the_log_moved_past_is_shown_void(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    """The organizer gives Alice a card while both duel with no signal: the record arrives
    signed with a revision the log has left, and both phones say it did not count."""
    game = await new_game(api, ["Alice", "Bob"], stun_s=120)
    pages, signals, errors = await online_phones(phone, game, live_server)
    alice, bob = pages["Alice"], pages["Bob"]
    for name, page in pages.items():
        await signals[name].cut(page)
    await alice.get_by_test_id("offline-challenge").click()
    await play_round(alice, bob, STUN_CARD, WOUND_CARD, "offline-answer", "void")
    await expect(alice.get_by_test_id("reveal-verdict")).to_have_text("Výhra!")
    card = {"title": "Luk", "big": 5, "small": 1, "kind": "wound"}
    alice_id = game["players"]["Alice"]["player_id"]
    await command(
        api, game["gid"], game["org"], {"type": "grant_card", "player_id": alice_id, "card": card}
    )

    await signals["Alice"].restore(alice)
    await expect(alice.get_by_test_id("offline-sync-state")).to_have_attribute(
        "data-sync", "void", timeout=20_000
    )
    await shot(alice, "360/offline-09-void")
    log = await events(api, game["gid"], game["org"])
    void = [e for e in log if e["type"] == "offline_duel_void"]
    assert [e["data"]["reason"] for e in void] == ["conflict"]
    assert not [e for e in log if e["type"] == "player_stunned"]
    await signals["Bob"].restore(bob)
    await expect(bob.get_by_test_id("offline-sync-state")).to_have_attribute(
        "data-sync", "void", timeout=20_000
    )
    # The organizer's console shows it as it came: void, and why.
    console = await (await phone(viewport={"width": 1024, "height": 900})).new_page()
    await console.goto(f"/#/join/{game['gid']}/{game['org']}")
    (row,) = [e["data"]["duel_id"] for e in void]
    offline_row = console.get_by_test_id(f"offline-row-{row}")
    await expect(offline_row).to_have_attribute("data-void", "conflict")
    await expect(offline_row).to_contain_text("nezapočítán")
    await shot(console, "offline-10-console")
    # A stun of a duel that did not count binds nobody.
    await bob.get_by_test_id("offline-close").click()
    await expect(bob.get_by_test_id("offline-section")).to_be_visible()
    await expect(bob.get_by_test_id("stun-screen")).to_have_count(0)
    assert not [
        e for e in errors if "WebSocket" not in e and "ERR_INTERNET_DISCONNECTED" not in e
    ], errors


async def test_a_challenger_who_does_not_reveal_is_claimed_after_ten_minutes(
    phone: Phone, api: AsyncClient, live_server: str
) -> None:
    """Alice sees Bob's pick and shows no reveal: Bob's phone offers the forfeit claim once her
    ten minutes are over by its clock; the server, whose ten minutes are not, answers
    reveal_pending, and the phone keeps the record to send again later."""
    game = await new_game(api, ["Alice", "Bob"], stun_s=120)
    pages, signals, errors = await online_phones(phone, game, live_server, clock_on="Bob")
    alice, bob = pages["Alice"], pages["Bob"]
    for name, page in pages.items():
        await signals[name].cut(page)
    await alice.get_by_test_id("offline-challenge").click()
    await alice.locator('[data-testid^="offline-card-"]', has_text=STUN_CARD).click()
    await alice.get_by_test_id("offline-confirm").click()
    await bob.get_by_test_id("offline-answer").click()
    await read(bob, await qr_png(alice))
    await bob.locator('[data-testid^="offline-card-"]', has_text=WOUND_CARD).click()
    await bob.get_by_test_id("offline-confirm").click()
    await expect(bob.get_by_test_id("offline-claim-countdown")).to_have_text(M_SS)
    await expect(bob.get_by_test_id("offline-claim")).to_have_count(0)

    await bob.clock.fast_forward("10:05")
    await bob.get_by_test_id("offline-claim").click()
    await expect(bob.get_by_test_id("offline-sync-state")).to_have_attribute("data-sync", "pending")
    await shot(bob, "360/offline-10-claim")
    answers: list[dict[str, Any]] = []

    async def heard(response: Response) -> None:
        request = response.request
        posted = response.url.endswith("/commands") and request.method == "POST"
        if posted and (request.post_data_json or {}).get("type") == "offline_duel":
            answers.append({"status": response.status, **(await response.json())})

    bob.on("response", heard)
    await signals["Bob"].restore(bob)
    for _ in range(200):
        if answers:
            break
        await bob.wait_for_timeout(100)
    assert [(a["status"], a["error"]["code"]) for a in answers] == [(409, "reveal_pending")]
    await expect(bob.get_by_test_id("offline-sync-state")).to_have_attribute("data-sync", "pending")
    log = await events(api, game["gid"], game["org"])
    assert not [e for e in log if e["type"].startswith("offline_duel")]
    assert not [
        e for e in errors if "WebSocket" not in e and "ERR_INTERNET_DISCONNECTED" not in e
    ], errors
