"""Every screen of every ruleset fits a phone 320, 360 and 412 px wide, in normal and sun mode.

The games are set up over HTTP; one page per width (each its own browser context) opens every
screen in turn, and on each measures that nothing reaches past the right edge (no sideways
scroll), that every tap target is at least 48 px high, in both modes, and writes a screenshot of
each screen in both modes to screenshots/<width>/. At 360 px each screen is also read in
English, and no screen may hold words of the other language but the game's own names and titles;
and axe runs on it in both modes: no serious or critical finding (tests/browser/axe.py).
"""

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from playwright.async_api import Page, expect

from tests.browser.axe import findings
from tests.browser.helpers import (
    STUN_CARD,
    WOUND_CARD,
    Phone,
    command,
    duel,
    events,
    local,
    new_game,
    new_gm_game,
    new_rank_game,
    server_view,
    top_shot,
)

WIDTHS = (320, 360, 412)
SHOT_WIDTH = 360  # the width whose screens are also read in English
# Long names, as a real camp has them: the reveal and the rows must wrap, not overflow.
CHALLENGER = "Bohumila Procházková"
OPPONENT = "Maximilián Pospíšil"

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
        for width, page in self.pages.items():
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


async def test_card_duel_screens_fit(phones: Phones, api: httpx.AsyncClient) -> None:
    await phones.look("home", "/#/games", "create-form")
    for ruleset in ("rank-bases", "dice-combat", "stamina-deck"):

        async def pick_ruleset(page: Page, ruleset: str = ruleset) -> None:
            await page.get_by_test_id("config-ruleset").select_option(ruleset)

        await phones.look(f"home-{ruleset}", "/#/games", "create-form", pick_ruleset)

    game = await new_game(api, [CHALLENGER, OPPONENT, "Cyril", "Dana"], stun_s=900)
    gid, org = game["gid"], game["org"]
    players = game["players"]
    challenger, opponent = players[CHALLENGER], players[OPPONENT]
    await command(
        api,
        gid,
        org,
        {"type": "grant_item", "player_id": challenger["player_id"], "item": "crossbow"},
    )
    await phones.look("cd-player", join(challenger), "my-code")

    async def type_code(page: Page) -> None:
        await page.get_by_test_id("challenge-code").fill(opponent["code"])

    await phones.look("cd-challenge", join(challenger), "challenge-form", type_code)

    await duel(api, game, {CHALLENGER: STUN_CARD, OPPONENT: None})
    await phones.look("cd-duel-pick", join(opponent), "duel")
    await phones.look("cd-duel-picked", join(challenger), "my-pick")
    await duel_pick(api, game, OPPONENT, WOUND_CARD)
    await phones.look("cd-reveal-loser", join(opponent), "reveal")
    await phones.look("cd-reveal-winner", join(challenger), "reveal")

    async def close_reveal(page: Page) -> None:
        await page.get_by_test_id("reveal-ok").click()

    await phones.look("cd-stunned", join(opponent), "reveal", close_reveal)

    scythe = {"title": "Kosa Smrti", "big": 9, "small": 9, "kind": "death", "ranged": False}
    await command(
        api,
        gid,
        org,
        {"type": "grant_card", "player_id": players["Dana"]["player_id"], "card": scythe},
    )
    await duel(api, game, {"Dana": "Kosa Smrti", "Cyril": WOUND_CARD})
    await phones.look("cd-dead", join(players["Cyril"]), "reveal", close_reveal)

    curse = {"title": "Kletba", "big": 3, "small": 2, "kind": "special", "ranged": False}
    curse |= {"effect": "Kletba: 10 minut mluvíš jen ve verších", "effect_s": 600}
    grant = {"type": "grant_card", "player_id": challenger["player_id"], "card": curse}
    await command(api, gid, org, grant)
    await duel(api, game, {CHALLENGER: "Kletba", "Dana": WOUND_CARD})
    await phones.look("cd-effect-reveal", join(players["Dana"]), "reveal")
    await phones.look("cd-effect", join(players["Dana"]), "reveal", close_reveal)

    async def open_rows(page: Page) -> None:
        await page.get_by_test_id(f"player-open-{challenger['player_id']}").click()
        await page.get_by_test_id(f"grant-card-{challenger['player_id']}").click()
        await expect(page.get_by_test_id("grant-form")).to_be_visible()

    await phones.look("cd-console", org_url(game), "game-status", open_rows)
    await phones.look("cd-invites", "/#/invites", "invite-url")

    await command(api, gid, org, {"type": "end_game"})
    ended = next(e for e in await events(api, gid, org) if e["type"] == "duel_ended")
    await phones.look("cd-ended", join(challenger), "game-over")
    await phones.look("replay", f"/#/replay/{gid}/{ended['seq']}", "replay-view")
    await phones.look("games", "/#/games", "open-game-0")
    phones.assert_fit()


async def duel_pick(api: httpx.AsyncClient, game: dict[str, Any], name: str, title: str) -> None:
    """`name` picks the card titled `title` in their open duel."""
    player = game["players"][name]
    view = await server_view(api, game["gid"], player["token"])
    card = next(c["card_id"] for c in view["me"]["cards"] if c["title"] == title)
    pick = {"type": "pick", "duel_id": view["duel"]["duel_id"], "card_id": card}
    await command(api, game["gid"], player["token"], pick)


async def test_rank_bases_screens_fit(phones: Phones, api: httpx.AsyncClient) -> None:
    lobby = await new_rank_game(api, start=False, ranks=False)
    await phones.look("rb-console-lobby", org_url(lobby), "game-status")
    await phones.look("rb-leader-setup", join(lobby["people"]["red-leader"]), "team-setup")

    game = await new_rank_game(api)
    gid, people = game["gid"], game["people"]
    red4, blue2 = people["red4"], people["blue2"]
    await phones.look("rb-player", join(red4), "my-code")
    await command(api, gid, red4["token"], {"type": "duel", "target": blue2["code"]})
    await phones.look("rb-duel-incoming", join(blue2), "duel-incoming")
    await phones.look("rb-duel-waiting", join(red4), "duel-waiting")
    incoming = (await server_view(api, gid, blue2["token"]))["duel"]
    await command(api, gid, blue2["token"], {"type": "reveal", "duel_id": incoming["duel_id"]})
    await phones.look("rb-duel-result", join(blue2), "duel-result")

    async def open_delivery(page: Page) -> None:
        await page.get_by_test_id(f"deliver-{red4['player_id']}").click()
        await expect(page.get_by_test_id("deliver-panel")).to_be_visible()

    await phones.look("rb-leader", join(people["red-leader"]), "base-team", open_delivery)
    red3 = people["red3"]
    await command(api, gid, red3["token"], {"type": "raid", "team_id": "blue"})
    await phones.look("rb-raid-waiting", join(red3), "raid-state")
    await phones.look("rb-leader-raid", join(people["blue-leader"]), "base-team")
    await phones.look("rb-console", org_url(game), "game-status")
    await phones.look("rb-board", join(people["board"]), "board")
    phones.assert_fit()


async def test_dice_combat_screens_fit(phones: Phones, api: httpx.AsyncClient) -> None:
    dagger = {"name": "Dlouhá lovecká dýka", "attack": 2, "damage": 1, "defence": 1}
    sheets = [
        {"name": "Hrdina Bohumil", "side": "Družina", "player": "Alice", "lives": 80},
        {"name": "Skřetí náčelník", "side": "Skřeti", "str": 3, "lives": 40},
    ]
    sheets[0]["second_weapon"] = dagger
    game = await new_gm_game(api, "dice-combat", ["Alice"], sheets)
    gid, org = game["gid"], game["org"]
    hero, orc = game["ids"]["Hrdina Bohumil"], game["ids"]["Skřetí náčelník"]
    alice = game["players"]["Alice"]
    swim = {"kind": "skill", "name": "Plavání přes brod", "field": "athletics", "difficulty": 10}
    await command(api, gid, org, {"type": "check", "combatants": [hero, orc], **swim})
    await phones.look("dc-player-idle", join(alice), f"my-combatant-{hero}")
    await command(api, gid, org, {"type": "begin_fight", "combatants": [hero, orc]})

    async def open_item(page: Page) -> None:  # a potion's effect, with every field shown
        await page.get_by_test_id("action-use_item").click()
        await page.get_by_test_id("item-field").select_option("str")

    await phones.look("dc-gm-item", org_url(game), "action-picker", open_item)
    turn = (await server_view(api, gid, org))["fight"]["turn"]
    target = orc if turn == hero else hero
    await command(api, gid, org, {"type": "attack", "attacker_id": turn, "target_id": target})
    await phones.look("dc-player-roll", join(alice), "my-attack")
    await phones.look("dc-gm", org_url(game), "dice-gm")
    phones.assert_fit()


async def test_stamina_deck_screens_fit(phones: Phones, api: httpx.AsyncClient) -> None:
    sword = {"lives": 5, "melee": 3, "weapon": {"name": "Šavle", "melee": True, "ranged": False}}
    characters = [
        {"name": "Rytíř Bořivoj", "side": "Hrad", "player": "Anna", "x": 3, "y": 3, **sword},
        {"name": "Lapka z Lesa", "side": "Les", "player": "Bob", "x": 4, "y": 3, **sword},
        {"name": "Lučištnice", "side": "Hrad", "lives": 4, "shooting": 2, "x": 12, "y": 12},
    ]
    game = await new_gm_game(api, "stamina-deck", ["Anna", "Bob"], characters)
    gid, org, ids = game["gid"], game["org"], game["ids"]
    anna = game["players"]["Anna"]
    await phones.look("sd-player-lobby", join(anna), f"deck-me-{ids['Rytíř Bořivoj']}")
    engage = {"type": "engage", "fighters": [ids["Rytíř Bořivoj"], ids["Lapka z Lesa"]]}
    await command(api, gid, org, engage)
    await command(api, gid, org, {"type": "start_round"})
    await phones.look("sd-player-bout", join(anna), "deck-hand")
    await phones.look("sd-gm", org_url(game), "deck-gm")
    phones.assert_fit()
