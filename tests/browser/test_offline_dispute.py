"""Offline duels in dispute (docs/rules/card-duel.md, "Offline duels"), for the organizer to decide.

Both disputes are made through the live server, with records signed by the Python phones of
tests/rules/phones.py as the real phones sign them:
- `revealed`: Vimes claims Rincewind never revealed (a forfeit, recorded); Rincewind's whole
  record then comes, and its cards say Rincewind won;
- `acted`: Ridcully loses an offline duel to Colon (stunned), reaches signal first and duels
  Nobby online; Colon's phone brings the record while that duel runs (refused `busy`: the phone
  keeps it and tries again a minute later), then once it is over.
The console shows each disputed row with both sides and two big rulings at 320, 360 and 412 px
(Czech and English, normal and sun mode); a ruling is in the log and on the row; the players'
phones say the organizer is deciding, then how it ruled.
"""

import time
import uuid
from typing import Any

import httpx
from playwright.async_api import Page, expect

from tests.browser.helpers import (
    SCREENSHOTS,
    STUN_CARD,
    WOUND_CARD,
    Phone,
    command,
    events,
    local,
    new_game,
    server_view,
    top_shot,
    watch_errors,
)
from tests.browser.test_widths import MEASURE, one_language
from tests.rules.phones import Exchange
from tests.rules.phones import Phone as Signer

WIDTHS = (320, 360, 412)
MINUTE = 60_000
TIMES = "\u00d7"  # between a duel's two names


def now_ms() -> int:
    """The server's clock: it runs on this machine."""
    return int(time.time() * 1000)


def face(card: dict[str, Any]) -> dict[str, Any]:
    """A card's face as a phone shows it with its pick or reveal (what a plain card lacks is
    left out)."""
    shown = {key: card[key] for key in ("title", "big", "small", "kind")}
    if card.get("ranged"):
        shown["ranged"] = True
    for key in ("effect", "effect_s"):
        if card.get(key) is not None:
            shown[key] = card[key]
    return shown


async def bring(
    api: httpx.AsyncClient, game: dict[str, Any], name: str, texts: list[str]
) -> httpx.Response:
    """`name`'s phone brings the record as `offline_duel`."""
    return await api.post(
        f"/api/games/{game['gid']}/commands",
        json={"command_id": str(uuid.uuid4()), "type": "offline_duel", "record": texts},
        headers={"Authorization": f"Bearer {game['players'][name]['token']}"},
    )


class Table:
    """The game as the organizer's view has it: each fighter's cards and revision."""

    def __init__(self, game: dict[str, Any], view: dict[str, Any]) -> None:
        self.game, self.view = game, view

    def pid(self, name: str) -> str:
        player_id: str = self.game["players"][name]["player_id"]
        return player_id

    def card(self, name: str, title: str) -> dict[str, Any]:
        cards = self.view["players"][self.pid(name)]["cards"]
        found: dict[str, Any] = next(c for c in cards if c["title"] == title)
        return found

    def revision(self, name: str) -> int:
        return int(self.view["players"][self.pid(name)]["revision"])


async def table(api: httpx.AsyncClient, game: dict[str, Any]) -> Table:
    return Table(game, await server_view(api, game["gid"], game["org"]))


async def fits(page: Page, width: int, name: str, part: str | None = None) -> list[str]:
    """Nothing past the right edge, no tap target under 48 px, in normal and sun mode; a
    screenshot of each (screenshots/<width>/<name>[-sun].png), and of the element `part` alone
    (<name>-part[-sun].png), to read at its size."""
    problems = []
    for sun in (False, True):
        if await page.evaluate("document.documentElement.classList.contains('sun')") != sun:
            await page.get_by_test_id("sun-switch").click()
        mode = "sun" if sun else "normal"
        problems += [
            f"{name} at {width} px, {mode}: {p}" for p in await page.evaluate(MEASURE, width)
        ]
        await top_shot(page, f"{width}/{name}{'-sun' if sun else ''}")
        if part:
            await part_shot(page, part, f"{width}/{name}-part{'-sun' if sun else ''}")
    await page.get_by_test_id("sun-switch").click()  # back to normal
    return problems


async def part_shot(page: Page, testid: str, name: str) -> None:
    """A screenshot of one element (screenshots/<name>.png), cut from the whole page: the
    sticky top bar stays at the top, not over the element."""
    path = SCREENSHOTS / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    box = await page.get_by_test_id(testid).evaluate(
        """(el) => {
        const r = el.getBoundingClientRect();
        return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
    }"""
    )
    await page.screenshot(path=str(path), full_page=True, clip=box)


async def test_the_organizer_rules_on_disputed_offline_duels(
    phone: Phone, api: httpx.AsyncClient, live_server: str
) -> None:
    names = ["Rincewind", "Vimes", "Ridcully", "Colon", "Nobby"]
    game = await new_game(api, names, stun_s=120)
    gid, org, players = game["gid"], game["org"], game["players"]
    signers = {name: Signer(players[name]["player_id"]) for name in names[:4]}
    for name, signer in signers.items():
        key = {"type": "register_key", "public_key": signer.public_key}
        await command(api, gid, players[name]["token"], key)
    cards = await table(api, game)

    # -- revealed: Vimes hides Rincewind's reveal and claims a forfeit ---------------------------
    # Dated eleven minutes back: the claim's ten minutes are over by the server's clock.
    start = now_ms() - 11 * MINUTE
    chair, dagger = cards.card("Rincewind", STUN_CARD), cards.card("Vimes", WOUND_CARD)
    hidden = Exchange(gid, signers["Rincewind"], signers["Vimes"])
    hidden.challenge(chair["card_id"], cards.revision("Rincewind"), start)
    hidden.pick(dagger["card_id"], cards.revision("Vimes"), start + 10_000, face(dagger))
    hidden.reveal(start + 20_000, face=face(chair))  # the chair 3/2 beats the dagger 2/3
    claim = await bring(api, game, "Vimes", hidden.texts[:2])
    assert claim.status_code == 200, claim.text
    whole = await bring(api, game, "Rincewind", hidden.texts)
    assert whole.status_code == 200, whole.text
    log = await events(api, gid, org)
    (revealed,) = [e["data"] for e in log if e["type"] == "offline_duel_disputed"]
    assert revealed["reason"] == "revealed" and revealed["record"] == hidden.texts
    revealed_id = revealed["duel_id"]

    # -- acted: Ridcully loses offline, then duels Nobby online before Colon has signal -----------
    cards = await table(api, game)
    start = now_ms() - 30_000
    lost = Exchange(gid, signers["Ridcully"], signers["Colon"])
    ridcully_dagger = cards.card("Ridcully", WOUND_CARD)
    colon_chair = cards.card("Colon", STUN_CARD)
    lost.challenge(ridcully_dagger["card_id"], cards.revision("Ridcully"), start)
    lost.pick(colon_chair["card_id"], cards.revision("Colon"), start + 5_000, face(colon_chair))
    lost.reveal(start + 10_000, face=face(ridcully_dagger))  # Ridcully is stunned from here
    challenge = {"type": "challenge", "target": players["Nobby"]["code"], "ranged": False}
    await command(api, gid, players["Ridcully"]["token"], challenge)
    (online,) = (await server_view(api, gid, org))["duels"]

    # Colon's phone holds the record (as its reader left it) and brings it when it loads: the
    # server answers busy, and the phone keeps it, saying why, to try again a minute later.
    colon = await (await phone(viewport={"width": 360, "height": 780})).new_page()
    colon_errors = watch_errors(colon)  # the busy answer is a 409, logged by the browser
    await colon.clock.install()  # time flows as usual until the test moves it on
    await colon.goto(local(players["Colon"]["join_url"], live_server))
    await expect(colon.get_by_test_id("my-name")).to_have_text("Colon")
    entry = {
        "d": "acted-duel",
        "game_id": gid,
        "me": players["Colon"]["player_id"],
        "role": "b",
        "opponent": players["Ridcully"]["player_id"],
        "opponentName": "Ridcully",
        "ranged": False,
        "record": lost.texts,
        "rounds": [],
        "sync": "pending",
    }
    await colon.evaluate(
        """async (entry) => {
        const { DUELS, run } = await import("/js/rulesets/card-duel/keys.js");
        await run(DUELS, "readwrite", (s) => s.put(entry));
    }""",
        entry,
    )
    await colon.reload()
    waiting = colon.get_by_test_id("offline-sync-pending")
    await expect(waiting).to_contain_text("právě v souboji", timeout=15_000)
    await top_shot(colon, "360/cd-dispute-busy")
    await part_shot(colon, "offline-sync", "360/cd-dispute-busy-part")
    assert not [
        e
        for e in await events(api, gid, org)
        if e["type"] == "offline_duel_recorded"
        and e["data"]["challenger"] == players["Ridcully"]["player_id"]
    ]
    await command(api, gid, org, {"type": "cancel_duel", "duel_id": online})
    await colon.clock.fast_forward("01:05")  # a minute on: the phone brings it again
    await expect(colon.get_by_test_id("offline-sync-recorded")).to_be_visible(timeout=20_000)
    log = await events(api, gid, org)
    acted = next(
        e["data"]
        for e in log
        if e["type"] == "offline_duel_disputed" and e["data"]["reason"] == "acted"
    )
    assert acted["duels"] == [online]
    acted_id = acted["duel_id"]
    # Colon's phone: the organizer is deciding.
    note = colon.get_by_test_id("offline-dispute")
    await expect(note).to_contain_text("Organizátor rozhoduje spor o tento souboj")
    await expect(note).to_contain_text("Ridcully")

    # -- Rincewind's phone: the forfeit's reveal, then the dispute line on the main screen ------
    rincewind = await (
        await phone(viewport={"width": 320, "height": 760}, screen={"width": 320, "height": 760})
    ).new_page()
    errors = watch_errors(rincewind)
    await rincewind.goto(local(players["Rincewind"]["join_url"], live_server))
    await rincewind.get_by_test_id("reveal-ok").click()
    mine = rincewind.get_by_test_id("offline-dispute")
    await expect(mine).to_contain_text("Organizátor rozhoduje spor o tento souboj")
    await expect(mine).to_contain_text("Vimes")
    problems = await fits(rincewind, 320, "cd-dispute-phone", "offline-dispute")

    # -- the console at three widths ---------------------------------------------------------------
    consoles: dict[int, Page] = {}
    for width in WIDTHS:
        size = {"width": width, "height": 760}
        context = await phone(viewport=size, screen=size, device_scale_factor=2)
        page = await context.new_page()
        errors += watch_errors(page)
        await page.goto(f"/#/join/{gid}/{org}")
        consoles[width] = page
        row = page.get_by_test_id(f"offline-row-{revealed_id}")
        await expect(row).to_have_attribute("data-dispute", "revealed")
        await expect(page.get_by_test_id(f"dispute-chip-{revealed_id}")).to_have_text("spor")
        await expect(page.get_by_test_id(f"dispute-what-{revealed_id}")).to_have_text(
            "Vimes tvrdí, že Rincewind neodhalil(a) kartu; podle záznamu, který přinesl(a) "
            f"Rincewind, ji odhalil(a) a vyhrál(a) ({STUN_CARD} 3/2 proti {WOUND_CARD} 2/3)."
        )
        await expect(page.get_by_test_id(f"offline-row-{acted_id}")).to_have_attribute(
            "data-dispute", "acted"
        )
        await expect(page.get_by_test_id(f"dispute-what-{acted_id}")).to_have_text(
            "Ridcully tento souboj prohrál(a) a byl(a) omráčen(a), ale pak ještě bojoval(a) "
            f"v souboji {online}."
        )
        for duel_id in (revealed_id, acted_id):
            for ruling in ("record", "log"):
                button = page.get_by_test_id(f"rule-{ruling}-{duel_id}")
                await expect(button).to_be_enabled()
        await expect(page.get_by_test_id(f"rule-record-{revealed_id}")).to_have_text(
            "Platí záznam telefonů"
        )
        await expect(page.get_by_test_id(f"rule-log-{revealed_id}")).to_have_text(
            "Platí záznam hry"
        )
        problems += await fits(page, width, "cd-dispute-console", "offline-duels")
    problems += [f"console: {p}" for p in await one_language(consoles[360])]

    # English at 360: the same rows in English words.
    en = consoles[360]
    await en.get_by_test_id("lang-switch").click()
    await expect(en.get_by_test_id(f"dispute-what-{revealed_id}")).to_have_text(
        "Vimes claimed Rincewind did not reveal; Rincewind's record says they revealed and won "
        f"({STUN_CARD} 3/2 against {WOUND_CARD} 2/3)."
    )
    await expect(en.get_by_test_id(f"dispute-what-{acted_id}")).to_have_text(
        f"Ridcully lost this duel and was stunned, but then duelled in duel {online}."
    )
    await expect(en.get_by_test_id(f"rule-record-{revealed_id}")).to_have_text(
        "The phones' record stands"
    )
    await expect(en.get_by_test_id(f"rule-log-{acted_id}")).to_have_text("The game's log stands")
    await part_shot(en, "offline-duels", "360/cd-dispute-console-en")

    # -- the rulings: the phones' record on the narrowest phone, the log in English ------------
    await consoles[320].get_by_test_id(f"rule-record-{revealed_id}").click()
    await en.get_by_test_id(f"rule-log-{acted_id}").click()
    for page in consoles.values():
        for duel_id, ruling in ((revealed_id, "record"), (acted_id, "log")):
            await expect(page.get_by_test_id(f"offline-row-{duel_id}")).to_have_attribute(
                "data-ruling", ruling
            )
            await expect(page.get_by_test_id(f"rule-{ruling}-{duel_id}")).to_have_count(0)
            await expect(page.get_by_test_id(f"dispute-apply-{duel_id}")).to_be_visible()
    await expect(consoles[320].get_by_test_id(f"dispute-ruling-{revealed_id}")).to_have_text(
        "Rozhodnuto: platí záznam telefonů."
    )
    await expect(consoles[320].get_by_test_id(f"dispute-apply-{revealed_id}")).to_contain_text(
        "vyléčit, oživit"
    )
    await expect(consoles[320].get_by_test_id(f"dispute-chip-{revealed_id}")).to_have_text(
        "spor rozhodnut"
    )
    await expect(en.get_by_test_id(f"dispute-ruling-{acted_id}")).to_have_text(
        "Ruled: the game's log stands."
    )
    settled = [e["data"] for e in await events(api, gid, org) if e["type"] == "dispute_settled"]
    assert sorted((s["duel_id"], s["ruling"]) for s in settled) == sorted(
        [(revealed_id, "record"), (acted_id, "log")]
    )
    problems += await fits(consoles[320], 320, "cd-dispute-ruled", "offline-duels")
    await part_shot(en, "offline-duels", "360/cd-dispute-ruled-en")

    # -- the phones tell the ruling ---------------------------------------------------------------
    await expect(mine).to_have_attribute("data-ruling", "record")
    await expect(mine).to_contain_text("Organizátor rozhodl: platí záznam telefonů.")
    await expect(note).to_have_attribute("data-ruling", "log")
    await expect(note).to_contain_text("Organizátor rozhodl: platí záznam hry.")
    problems += await fits(rincewind, 320, "cd-dispute-phone-ruled", "offline-dispute")

    assert not problems, "\n".join(problems)
    # The replay tells the dispute and the ruling in words.
    log = await events(api, gid, org)
    disputed = next(e["seq"] for e in log if e["type"] == "offline_duel_disputed")
    ruled = [e["seq"] for e in log if e["type"] == "dispute_settled"][-1]
    replay = consoles[412]
    await replay.goto(f"/#/replay/{gid}/{ruled}")
    await expect(replay.get_by_test_id(f"replay-event-{ruled}")).to_contain_text(
        f"Spor o souboj bez signálu Ridcully {TIMES} Colon rozhodnut: platí záznam hry"
    )
    await replay.get_by_test_id("replay-scrubber").fill(str(disputed))
    await expect(replay.get_by_test_id(f"replay-event-{disputed}")).to_contain_text(
        f"Spor o souboj bez signálu Rincewind {TIMES} Vimes: Rincewind přinesl(a) celý záznam"
    )

    errors += [e for e in colon_errors if "status of 409" not in e]
    assert not [e for e in errors if "WebSocket" not in e], errors
