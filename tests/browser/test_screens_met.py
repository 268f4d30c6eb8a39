"""The screens players met (issue 30, point 4), Czech first, measured in the page.

One game per test, one page resized across the phones below, in normal and in sun mode: the
pick shows its three cards without scrolling; the stun word keeps clear of the edges and of the
top bar; the end screen neither sends the dead to Death nor speaks to everybody as a man, and
tells the player's own duels; a player's replay opens on those duels; the organizer's home has
no players' sound prompt and names its select "Pravidla"; the sun switch's label is legible;
"Přidáno 5 hráčů" follows the language switch. axe runs on each screen: no serious finding.
"""

from typing import Any

import httpx
from playwright.async_api import Page, expect

from server.clock import parse_iso
from tests.browser.axe import findings
from tests.browser.helpers import (
    STUN_CARD,
    WOUND_CARD,
    Phone,
    command,
    duel,
    local,
    new_game,
    shot,
    stun_in_duel,
    top_shot,
    watch_errors,
)
from tests.rules.phones import Exchange
from tests.rules.phones import Phone as KeyPhone

SIZES = ((320, 568), (360, 640), (390, 844), (412, 915))
SCYTHE = {"title": "Kosa Smrti", "big": 9, "small": 9, "kind": "death", "ranged": False}

# Each pick card's box, the page scrolled to its top: [top, bottom, viewport height].
CARDS = """() => {
  window.scrollTo(0, 0);
  return [...document.querySelectorAll(".pick-grid button.card")]
    .map((el) => { const r = el.getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; });
}"""
# Where the stun word's letters are drawn (a Range: text that overflows its box counts), the
# top bar's bottom and the viewport.
STUN_WORD = """() => {
  const word = document.querySelector(".stun-word");
  const range = document.createRange();
  range.selectNodeContents(word);
  const r = range.getBoundingClientRect();
  const bar = document.querySelector(".topbar").getBoundingClientRect();
  return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, bar: bar.bottom,
           width: innerWidth, height: innerHeight };
}"""
BOX = "(el) => { const r = el.getBoundingClientRect(); return [r.top, r.bottom]; }"


async def set_sun(page: Page, sun: bool) -> None:
    if await page.evaluate("document.documentElement.classList.contains('sun')") != sun:
        await page.get_by_test_id("sun-switch").click()
    await expect(page.locator("html.sun")).to_have_count(1 if sun else 0)


async def no_serious(page: Page, where: str) -> None:
    blocking, _minor = await findings(page)
    assert not blocking, f"{where}: " + "\n".join(blocking)


async def fresh_page(phone: Phone) -> Page:
    size = {"width": 320, "height": 568}
    context = await phone(viewport=size, screen=size, bypass_csp=True)
    return await context.new_page()


async def test_the_pick_shows_three_cards_and_the_stun_word_keeps_clear(
    phone: Phone, api: httpx.AsyncClient, live_server: str
) -> None:
    game = await new_game(api, ["Bohumila Procházková", "Maximilián Pospíšil"], stun_s=900)
    winner, loser = "Bohumila Procházková", "Maximilián Pospíšil"
    page = await fresh_page(phone)
    errors = watch_errors(page)
    await page.goto(local(game["players"][loser]["join_url"], live_server))
    await expect(page.get_by_test_id("my-code")).to_be_visible()
    target = game["players"][loser]["code"]
    challenge = {"type": "challenge", "target": target}
    await command(api, game["gid"], game["players"][winner]["token"], challenge)
    await expect(page.get_by_test_id("duel")).to_be_visible()

    cut: list[str] = []
    for sun in (False, True):
        await set_sun(page, sun)
        for width, height in SIZES:
            await page.set_viewport_size({"width": width, "height": height})
            cards = await page.evaluate(CARDS)
            assert len(cards) == 3, cards
            print(f"pick {width}x{height} sun={sun}: bottoms", [round(c[1]) for c in cards])
            cut += [
                f"{width}x{height} sun={sun}: card {i + 1} ends at {bottom:.0f} > {vh}"
                for i, (_top, bottom, vh) in enumerate(cards)
                if bottom > vh
            ]
            await top_shot(page, f"met/{width}/pick{'-sun' if sun else ''}")
        await no_serious(page, f"pick, sun={sun}")
    assert not cut, "\n".join(cut)

    await stun_in_duel(api, game, winner, loser)
    await page.get_by_test_id("reveal-ok").click()
    await expect(page.get_by_test_id("stun-screen")).to_be_visible()
    bad: list[str] = []
    for sun in (True, False):
        await set_sun(page, sun)
        for width, height in SIZES:
            await page.set_viewport_size({"width": width, "height": height})
            w = await page.evaluate(STUN_WORD)
            print(f"stun word {width}x{height} sun={sun}:", {k: round(v) for k, v in w.items()})
            where = f"{width}x{height} sun={sun}"
            if w["left"] < 8 or w["right"] > w["width"] - 8:
                bad.append(f"{where}: the word spans {w['left']:.0f}..{w['right']:.0f} px")
            if w["top"] < max(8, w["bar"]) or w["bottom"] > w["height"] - 8:
                bad.append(f"{where}: the word spans {w['top']:.0f}..{w['bottom']:.0f} px down")
            await top_shot(page, f"met/{width}/stun{'-sun' if sun else ''}")
        await no_serious(page, f"stun, sun={sun}")
    assert not bad, "\n".join(bad)
    assert not errors, errors


async def test_the_end_tells_each_player_their_own_duels_and_the_replay_opens_on_them(
    phone: Phone, api: httpx.AsyncClient, live_server: str
) -> None:
    names = ["Alžběta Nejedlá", "Bartoloměj Vyskočil", "Cecílie Dvořáková"]
    game = await new_game(api, names, stun_s=1)
    gid, org = game["gid"], game["org"]
    alice, bob, cecilie = (game["players"][n] for n in names)
    # Online: Alžběta stuns Bartoloměj, then Cecílie's scythe kills him.
    await duel(api, game, {names[0]: STUN_CARD, names[1]: WOUND_CARD})
    grant = {"type": "grant_card", "player_id": cecilie["player_id"], "card": SCYTHE}
    await command(api, gid, org, grant)
    page = await fresh_page(phone)
    errors = watch_errors(page)
    await page.wait_for_timeout(1_100)  # the one-second stun runs out
    await duel(api, game, {names[2]: "Kosa Smrti", names[1]: WOUND_CARD})
    # Offline: Alžběta beats Cecílie phone to phone; the record reaches the server afterwards.
    await offline_duel(api, gid, alice, cecilie, STUN_CARD, WOUND_CARD)
    await command(api, gid, org, {"type": "end_game"})

    # The dead player: the end's story, not the way to Death.
    await page.goto(local(bob["join_url"], live_server))
    await page.get_by_test_id("reveal-ok").click()  # how the last duel went comes first
    over = page.get_by_test_id("game-over")
    await expect(over.get_by_test_id("game-over-mine")).to_have_text("Tvoje postava padla.")
    await expect(over.get_by_test_id("game-over-duels")).to_have_text(
        "Tvoje souboje: vyhráno 0, prohráno 2"
    )
    await expect(page.get_by_test_id("dead-banner")).to_have_count(0)
    assert "Smrtí" not in await page.locator("main").inner_text()
    await top_shot(page, "met/320/end-dead")
    await no_serious(page, "the end, dead")

    await page.goto(local(alice["join_url"], live_server))
    await page.get_by_test_id("reveal-ok").click()
    mine = over.get_by_test_id("game-over-mine")
    await expect(mine).to_have_text("Tvoje postava přežila bez zranění.")
    await expect(over.get_by_test_id("game-over-duels")).to_have_text(
        "Tvoje souboje: vyhráno 2, prohráno 0"  # one online, one offline
    )
    for sun in (False, True):
        await set_sun(page, sun)
        await top_shot(page, f"met/320/end-alive{'-sun' if sun else ''}")
        await no_serious(page, f"the end, sun={sun}")
    await set_sun(page, False)
    await page.get_by_test_id("lang-switch").click()
    await expect(mine).to_have_text("You came through unhurt.")
    await expect(over.get_by_test_id("game-over-duels")).to_have_text("Your duels: 2 won, 0 lost")
    await page.get_by_test_id("lang-switch").click()
    await expect(mine).to_have_text("Tvoje postava přežila bez zranění.")

    # The replay: what the player sees first, at 320 x 568, is their own duels.
    await over.get_by_test_id("game-over-replay").click()
    own = page.get_by_test_id("replay-mine")
    await expect(own.locator("[data-testid^='replay-mine-']")).to_have_count(2)
    await expect(own).to_contain_text(names[1])
    await expect(own).to_contain_text(names[2])
    await expect(own).to_contain_text("Výhra")
    late: list[str] = []
    for sun in (False, True):
        await set_sun(page, sun)
        for width, height in SIZES:
            await page.set_viewport_size({"width": width, "height": height})
            await page.evaluate("window.scrollTo(0, 0)")
            first = await own.locator("[data-testid^='replay-mine-']").first.evaluate(BOX)
            bar = await page.locator(".replay-bar").evaluate(BOX)
            top = await page.locator(".topbar").evaluate(BOX)
            print(f"replay {width}x{height} sun={sun}: first own duel {first}, controls {bar}")
            if not (top[1] <= first[0] and first[1] <= height and first[0] < bar[0]):
                late.append(f"{width}x{height} sun={sun}: own duel {first}, controls {bar}")
            if width == 320:  # the whole page, and the first screen as the player sees it
                await top_shot(page, f"met/320/replay{'-sun' if sun else ''}")
                await shot(page, f"met/320/replay-first{'-sun' if sun else ''}", full_page=False)
        await no_serious(page, f"replay, sun={sun}")
    assert not late, "\n".join(late)
    # A tap on an own duel takes the replay to its reveal.
    row = own.locator("[data-testid^='replay-mine-']").first
    seq = await row.get_attribute("data-seq")
    await row.click()
    await expect(page.get_by_test_id("replay")).to_have_attribute("data-seq", str(seq))
    assert not errors, errors


async def offline_duel(
    api: httpx.AsyncClient, gid: str, a: dict[str, Any], b: dict[str, Any], mine: str, theirs: str
) -> None:
    """`a` challenges `b` with no signal and wins: both phones' keys registered, the record
    signed as two phones would sign it, brought by `b`."""
    phones = KeyPhone(a["player_id"]), KeyPhone(b["player_id"])
    views = []
    for member, key in zip((a, b), phones, strict=True):
        body = {"type": "register_key", "public_key": key.public_key}
        await command(api, gid, member["token"], body)
        answer = await api.get(
            f"/api/games/{gid}/view", headers={"Authorization": f"Bearer {member['token']}"}
        )
        views.append(answer.json())
    now = parse_iso(views[1]["server_time"])

    def card(view: dict[str, Any], title: str) -> str:
        return str(next(c["card_id"] for c in view["view"]["me"]["cards"] if c["title"] == title))

    exchange = Exchange(gid, *phones)
    exchange.challenge(card(views[0], mine), views[0]["view"]["me"]["revision"], now - 3_000)
    exchange.pick(card(views[1], theirs), views[1]["view"]["me"]["revision"], now - 2_000)
    exchange.reveal(now - 1_000)
    await command(api, gid, b["token"], {"type": "offline_duel", "record": exchange.texts})


async def test_the_organizer_home_and_console_speak_the_switched_language(
    phone: Phone, api: httpx.AsyncClient
) -> None:
    page = await fresh_page(phone)
    errors = watch_errors(page)
    await page.goto("/#/games")
    await expect(page.get_by_test_id("create-form")).to_be_visible()
    await expect(page.get_by_test_id("unlock-alerts")).to_have_count(0)  # a players' prompt
    # The label's own words (the text before the select inside it).
    label = page.locator("label", has=page.get_by_test_id("config-ruleset"))
    words = "(el) => el.firstChild.textContent"
    assert await label.evaluate(words) == "Pravidla"
    sizes: list[str] = []
    for sun in (False, True):
        await set_sun(page, sun)
        for width, height in SIZES:
            await page.set_viewport_size({"width": width, "height": height})
            px = await page.locator(".sun-switch .switch-label").evaluate(
                "(el) => parseFloat(getComputedStyle(el).fontSize)"
            )
            print(f"sun switch label {width} px wide, sun={sun}: {px} px")
            if px < 14:
                sizes.append(f"{width} sun={sun}: {px} px")
        await page.set_viewport_size({"width": 320, "height": 568})
        await top_shot(page, f"met/320/home{'-sun' if sun else ''}")
        await no_serious(page, f"home, sun={sun}")
    assert not sizes, sizes
    await set_sun(page, False)
    await page.get_by_test_id("lang-switch").click()
    await expect(page.locator("html")).to_have_attribute("lang", "en")
    assert await label.evaluate(words) == "Rules"
    await page.get_by_test_id("lang-switch").click()

    game = await new_game(api, [], started=False)
    await page.goto(f"/#/join/{game['gid']}/{game['org']}")
    await expect(page.get_by_test_id("player-list-input")).to_be_visible()
    await expect(page.get_by_test_id("unlock-alerts")).to_have_count(0)
    await page.get_by_test_id("player-list-input").fill("Ada\nBára\nCyril\nDan\nEma\n")
    await page.get_by_test_id("add-players").click()
    status = page.get_by_test_id("add-status")
    await expect(status).to_have_text("Přidáno 5 hráčů.")
    await page.get_by_test_id("lang-switch").click()
    await expect(status).to_have_text("Added 5 players.")
    await top_shot(page, "met/320/console-added-en")
    await page.get_by_test_id("lang-switch").click()
    await expect(status).to_have_text("Přidáno 5 hráčů.")
    await no_serious(page, "console")
    assert not errors, errors
